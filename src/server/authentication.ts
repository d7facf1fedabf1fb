/**
 * Assembles authentication from the flags (SPEC 5.2, 5.3): the authenticating
 * proxy, client certificates, the bearer-token authenticators in upstream's
 * order, and when a request without credentials is anonymous.
 */
import { createAuthenticator, type TokenAuthenticator } from '../auth/authentication/authenticator.ts';
import { loadAuthenticationConfig } from '../auth/authentication/authentication-config.ts';
import { CertificateBundle, clientCertificateAuthenticator } from '../auth/authentication/client-certificate.ts';
import { requestHeaderAuthenticator } from '../auth/authentication/request-header.ts';
import { featureEnabled, type FeatureGateSettings } from './feature-gates.ts';

export interface AuthenticationOptions {
  clientCaFile?: string;
  requestHeader?: {
    clientCaFile: string;
    allowedNames: string[];
    usernameHeaders: string[];
    groupHeaders: string[];
    extraHeaderPrefixes: string[];
  };
  /** --anonymous-auth; undefined when the flag was not given. */
  anonymousAuth?: boolean;
  authenticationConfigFile?: string;
  /** AlwaysAllow is in the authorizer chain: anonymous requests are then refused (SPEC 5.3). */
  alwaysAllow: boolean;
  featureGates: FeatureGateSettings;
  apiAudiences: string[];
}

export interface Authentication {
  authenticate: ReturnType<typeof createAuthenticator>;
  /** What the TLS listener needs: request a client certificate, and the issuers to name. */
  tls: { requestCert: boolean; ca?: string };
  /** The client CA bundles as they are now (they change on reloadCaFiles). */
  caText(): string | undefined;
  /** Re-reads the CA files; returns whether any changed (the listener's contexts must then be rebuilt). */
  reloadCaFiles(): boolean;
}

export function buildAuthentication(options: AuthenticationOptions, tokenAuthenticators: TokenAuthenticator[]): Authentication {
  const clientCa = options.clientCaFile ? new CertificateBundle(options.clientCaFile) : undefined;
  const proxy = options.requestHeader;
  const proxyCa = proxy ? new CertificateBundle(proxy.clientCaFile) : undefined;
  const config = options.authenticationConfigFile
    ? loadAuthenticationConfig(
        options.authenticationConfigFile,
        { anonymousConfigurable: featureEnabled(options.featureGates, 'AnonymousAuthConfigurableEndpoints') },
        options.anonymousAuth !== undefined,
      )
    : {};
  const { alwaysAllow } = options;
  const anonymousAllowed = config.anonymous
    ? (path: string) => config.anonymous!.enabled && (config.anonymous!.paths.length === 0 || config.anonymous!.paths.includes(path))
    : // SPEC 5.3: on unless --anonymous-auth=false, and off under AlwaysAllow but for the probes.
      (path: string) => options.anonymousAuth !== false && (!alwaysAllow || isPublicInfoPath(path));
  const authenticate = createAuthenticator({
    requestHeader: proxy && proxyCa && requestHeaderAuthenticator({ bundle: proxyCa, ...proxy }),
    clientCertificate: clientCa && clientCertificateAuthenticator(clientCa),
    tokenAuthenticators,
    apiAudiences: options.apiAudiences,
    anonymousAllowed,
  });
  const bundles = [clientCa, proxyCa].filter((b): b is CertificateBundle => !!b);
  const caText = () => bundles.map((b) => b.text).join('\n') || undefined;
  return {
    authenticate,
    tls: { requestCert: bundles.length > 0, ca: caText() },
    caText,
    reloadCaFiles: () => bundles.map((b) => b.reload()).some(Boolean),
  };
}

/** The probe and version paths upstream's system:public-info-viewer role opens to everyone (FACTS 11). */
const PUBLIC_INFO = new Set(['/livez', '/readyz', '/healthz', '/version', '/version/']);

function isPublicInfoPath(path: string): boolean {
  return PUBLIC_INFO.has(path) || /^\/(livez|readyz|healthz)\/.+$/.test(path);
}
