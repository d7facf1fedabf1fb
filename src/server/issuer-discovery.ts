/**
 * Service-account issuer discovery (kube-apiserver's ServiceAccountIssuerDiscovery):
 * `/.well-known/openid-configuration` and the JWKS of the verification keys,
 * so relying parties outside the cluster can verify service-account tokens.
 * Served only when the issuer is an https URL, as upstream.
 */
import { jose } from '../util/lazy-packages.ts';
import type { VerificationKey } from '../auth/serviceaccount/keys.ts';

export interface StaticDocument {
  contentType: string;
  body: Buffer;
}

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

/** Documents served as they are, by path (GET and HEAD). */
export interface StaticDocuments {
  /** The document at `path`, undefined when this server serves none there. */
  get(path: string): Promise<StaticDocument | undefined> | undefined;
}

/**
 * The discovery documents, served only when the issuer is an https URL and
 * built on the first request for one: building them loads jose (about 50 ms,
 * issue 10's start-up line), which no start needs. `jwksUri`:
 * --service-account-jwks-uri, or upstream's default https://<external address>/openid/v1/jwks.
 */
export function lazyIssuerDiscovery(issuer: string, jwksUri: string, keys: VerificationKey[]): StaticDocuments {
  if (!/^https:\/\//.test(issuer)) return { get: () => undefined };
  let documents: Promise<Map<string, StaticDocument>> | undefined;
  return {
    get(path) {
      if (path !== OPENID_CONFIGURATION_PATH && path !== JWKS_PATH) return undefined;
      return (documents ??= issuerDiscoveryDocuments(issuer, jwksUri, keys)).then((built) => built.get(path));
    },
  };
}

async function issuerDiscoveryDocuments(issuer: string, jwksUri: string, keys: VerificationKey[]): Promise<Map<string, StaticDocument>> {
  const documents = new Map<string, StaticDocument>();
  const seen = new Set<string>();
  const jwks = [];
  for (const key of keys) {
    if (seen.has(key.kid)) continue;
    seen.add(key.kid);
    jwks.push({ ...(await jose().exportJWK(key.key)), use: 'sig', kid: key.kid, alg: key.algorithms[0] });
  }
  const configuration = {
    issuer,
    jwks_uri: jwksUri,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(keys.flatMap((k) => k.algorithms))].sort(),
  };
  documents.set(OPENID_CONFIGURATION_PATH, { contentType: 'application/json', body: Buffer.from(JSON.stringify(configuration)) });
  documents.set(JWKS_PATH, { contentType: 'application/jwk-set+json', body: Buffer.from(JSON.stringify({ keys: jwks })) });
  return documents;
}
