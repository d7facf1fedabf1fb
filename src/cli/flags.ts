/**
 * Command-line flags, spelled as kube-apiserver spells them where the concept
 * is the same.
 */
import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import { parseGoDuration } from '../util/go-duration.ts';
import { KNOWN_CONTROLLERS, parseControllerSelection } from '../controllers/controller-manager.ts';
import { checkLeaderElectionTimings } from '../controllers/leader-election.ts';
import { AUTHORIZATION_MODES, DEFAULT_AUTHORIZATION_MODES, entriesFromFlags, type AuthorizerEntry } from '../auth/authorization/authorizer-entries.ts';
import { cipherOption, INSECURE_CIPHER_NAMES, parseCipherSuites, parseNamedCertKey, parseTlsMinVersion, PREFERRED_CIPHER_NAMES, TLS_VERSION_NAMES, type NamedCertKey, type TlsMinVersion } from '../server/tls-settings.ts';
import { WatchCacheSettings } from '../server/watch-cache-settings.ts';
import type { AuditFlags } from '../audit/audit-options.ts';
import { AUDIT_FLAG_SPECS, defaultAuditFlags, validateAuditFlags, type FlagParsers } from './audit-flags.ts';
import { featureEnabled, featureGatesHelp, parseFeatureGates } from '../server/feature-gates.ts';
import { parseConfigurationMap } from '../server/runtime-config.ts';
import { parseEtcdServersOverrides, type EtcdServersOverride } from '../storage/etcd3/servers-overrides.ts';
import { ADMISSION_PLUGINS, enabledAdmissionPlugins, validateAdmissionFlags, type AdmissionPluginName } from '../admission/plugins.ts';

export interface Flags {
  secureport: number;
  bindAddress: string;
  /** --permit-port-sharing: SO_REUSEPORT on the listening socket. */
  permitPortSharing: boolean;
  advertiseAddress?: string;
  externalHostname?: string;
  dataDir: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  orchconfigCaFile?: string;
  certDir?: string;
  tlsMinVersion?: TlsMinVersion;
  /** --tls-cipher-suites as given (Go's names). */
  tlsCipherSuites: string[];
  tlsSniCertKeys: NamedCertKey[];
  /** Node's `ciphers` for --tls-cipher-suites and --tls-min-version; undefined: Node's defaults. */
  tlsCiphers?: string;
  /** The insecure suites --tls-cipher-suites names (warned about at start, as upstream does). */
  insecureCipherSuites: string[];
  tokenAuthFile?: string;
  clientCaFile?: string;
  requestheaderClientCaFile?: string;
  requestheaderAllowedNames: string[];
  requestheaderUsernameHeaders: string[];
  requestheaderGroupHeaders: string[];
  requestheaderExtraHeadersPrefix: string[];
  authenticationConfig?: string;
  enableBootstrapTokenAuth?: boolean;
  authenticationTokenWebhookConfigFile?: string;
  authenticationTokenWebhookCacheTtlMs: number;
  authenticationTokenWebhookVersion: 'v1' | 'v1beta1';
  serviceAccountIssuers: string[];
  serviceAccountSigningKeyFile?: string;
  serviceAccountJwksUri?: string;
  serviceAccountKeyFiles: string[];
  apiAudiences: string[];
  serviceAccountMaxTokenExpirationMs: number;
  serviceAccountExtendTokenExpiration: boolean;
  serviceAccountLookup: boolean;
  /** --authorization-mode; undefined: Node,RBAC unless --authorization-config is given. */
  authorizationMode?: string[];
  authorizationPolicyFile?: string;
  authorizationWebhookConfigFile?: string;
  authorizationWebhookVersion: 'v1' | 'v1beta1';
  authorizationWebhookCacheAuthorizedTtlMs: number;
  authorizationWebhookCacheUnauthorizedTtlMs: number;
  authorizationConfig?: string;
  /** The --authorization-mode and --authorization-webhook-* flags given, which --authorization-config excludes. */
  authorizationLegacyFlags: string[];
  /** The chain the legacy flags describe; undefined with --authorization-config. */
  authorizers?: AuthorizerEntry[];
  anonymousAuth?: boolean;
  /** --enable-admission-plugins / --disable-admission-plugins as given. */
  enableAdmissionPlugins: string[];
  disableAdmissionPlugins: string[];
  /** The admission plugins that run, in upstream's order. */
  admissionPlugins: AdmissionPluginName[];
  livezGracePeriodMs: number;
  shutdownDelayMs: number;
  shutdownSendRetryAfter: boolean;
  storageBackend: 'sqlite' | 'etcd3';
  etcdServers: string[];
  /** --etcd-servers-overrides, checked at parse time (storage/etcd3/servers-overrides.ts). */
  etcdServersOverrides: EtcdServersOverride[];
  etcdPrefix: string;
  /** --etcd-cafile, --etcd-certfile, --etcd-keyfile: client TLS for https:// etcd servers. */
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  compactionIntervalMs: number;
  watchHistoryMs: number;
  /** --watch-cache: false serves every resource's reads and watches from the store. */
  watchCache: boolean;
  /** --watch-cache-sizes entries (`resource[.group]#size`), checked at parse time. */
  watchCacheSizes: string[];
  /** pflag's warnings for deprecated flags that were given, printed at start. */
  deprecationWarnings: string[];
  eventTtlMs: number;
  enableGarbageCollector: boolean;
  deleteCollectionWorkers: number;
  bookmarkIntervalMs: number;
  watchBufferLimitBytes: number;
  /** --runtime-config as given (SPEC 9.3), resolved against the kinds at start (runtime-config.ts). */
  runtimeConfig: Record<string, string>;
  /** --feature-gates as given (SPEC 9.6); read through featureEnabled. */
  featureGates: Record<string, boolean>;
  /** --request-timeout: the deadline of every request that is not long-running (0 = none). */
  requestTimeoutMs: number;
  /** --min-request-timeout: a watch without timeoutSeconds lasts between this and twice this. */
  minRequestTimeoutSeconds: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  etcdHealthcheckTimeoutMs: number;
  etcdReadycheckTimeoutMs: number;
  /** --controllers, kube-controller-manager's syntax. */
  controllers: string[];
  /** --leader-elect; undefined: on with etcd, off with the embedded SQLite store. */
  leaderElect?: boolean;
  /** --workers: most server processes sharing the port under load (issue 10: every core); 1 runs in this process alone. */
  workers: number;
  /** --min-workers: server processes kept while idle, this one included. */
  minWorkers: number;
  /** --worker-idle-timeout: how long the pool is idle before a worker above --min-workers stops. */
  workerIdleTimeoutMs: number;
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
  leaderElectResourceName: string;
  leaderElectResourceNamespace: string;
  /** --audit-* (SPEC 9.5). */
  audit: AuditFlags;
}

interface FlagSpec {
  name: string;
  value: string;
  help: string;
  apply(flags: Flags, value: string): void;
  /** pflag's MarkDeprecated: still applied, hidden from the help, and warned about when given. */
  deprecated?: string;
}

/** The first Node 22 release whose net.Server.listen takes `reusePort` (Node 23.1 has it too). */
const REUSE_PORT_NODE = [22, 12, 0];

/** Whether this runtime sets SO_REUSEPORT for `listen({ reusePort: true })`; older ones ignore the option. */
export function runtimeHasReusePort(version = process.versions.node): boolean {
  const [major, minor] = version.split('.').map(Number);
  if (major === 22) return minor >= REUSE_PORT_NODE[1];
  if (major === 23) return minor >= 1;
  return major > 23;
}

/** One worker per available CPU, at most 8: past that the writer and the cache copies cost more than they serve. */
export function defaultWorkers(): number {
  return Math.max(1, Math.min(8, availableParallelism()));
}

/** A flag duration: Go's syntax, never negative (upstream rejects negative timeouts at start-up). */
export function parseDuration(text: string): number {
  const ms = parseGoDuration(text);
  if (ms < 0) throw new Error('must not be negative');
  return ms;
}

/** A pflag string slice: comma-separated; a repeated flag adds to the list (these lists default to empty). */
function splitList(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter(Boolean);
}

function parseNonNegativeInt(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) throw new Error(`invalid non-negative integer ${JSON.stringify(text)}`);
  return n;
}

/** pflag's IntVar: strconv.ParseInt with base 0 semantics reduced to decimal, within int64. */
function parseInt64Flag(text: string): number {
  const n = Number(text);
  if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(n)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  return n;
}

function parsePositiveInt(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`invalid positive integer ${JSON.stringify(text)}`);
  return n;
}

/** Applies a flag that --authorization-config excludes, remembering that it was given. */
function legacy(f: Flags, name: string, apply: () => void): void {
  apply();
  if (!f.authorizationLegacyFlags.includes(name)) f.authorizationLegacyFlags.push(name);
}

function parseBool(text: string): boolean {
  if (['true', '1', 't', 'T', 'TRUE', 'True'].includes(text)) return true;
  if (['false', '0', 'f', 'F', 'FALSE', 'False'].includes(text)) return false;
  throw new Error(`invalid boolean ${JSON.stringify(text)}`);
}

/** pflag's int and float32 values: Go's strconv syntax and words. */
const FLAG_PARSERS: FlagParsers = {
  int: (text) => {
    if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
    return Number(text);
  },
  float: (text) => {
    const n = Number(text);
    if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax`);
    return n;
  },
  bool: (text) => parseBool(text),
  duration: (text) => parseGoDuration(text),
};

const SPECS: FlagSpec[] = [
  ...AUDIT_FLAG_SPECS.map((spec): FlagSpec => ({ ...spec, apply: (f, v) => spec.apply(f.audit, v, FLAG_PARSERS) })),
  { name: 'secure-port', value: 'int', help: 'The port on which to serve HTTPS (0 picks a free port). (default 6443)', apply: (f, v) => (f.secureport = Number.parseInt(v, 10)) },
  {
    name: 'permit-port-sharing',
    value: 'bool',
    help: `If true, SO_REUSEPORT will be used when binding the port, which allows more than one instance to bind on the same address and port. [default=false] (needs Node ${REUSE_PORT_NODE.join('.')} or later)`,
    apply: (f, v) => (f.permitPortSharing = parseBool(v)),
  },
  { name: 'bind-address', value: 'ip', help: 'The IP address on which to listen for the --secure-port port. (default 127.0.0.1)', apply: (f, v) => (f.bindAddress = v) },
  { name: 'data-dir', value: 'string', help: 'Directory for the SQLite store, generated certificates and admin.orchconfig. (default "data")', apply: (f, v) => (f.dataDir = v) },
  { name: 'tls-cert-file', value: 'string', help: 'File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert). If unset, a self-signed one is generated under --data-dir.', apply: (f, v) => (f.tlsCertFile = v) },
  {
    name: 'advertise-address',
    value: 'ip',
    help: 'The IP address on which to advertise the apiserver to members of the cluster (discovery serverAddressByClientCIDRs, the default jwks_uri). If blank, the --bind-address will be used. If --bind-address is unspecified, the host\'s default interface will be used.',
    apply: (f, v) => {
      if (isIP(v) === 0) throw new Error(`failed to parse IP: ${JSON.stringify(v)}`);
      f.advertiseAddress = v;
    },
  },
  { name: 'external-hostname', value: 'string', help: 'The hostname to use when generating externalized URLs for this server (discovery serverAddressByClientCIDRs, the service-account issuer\'s default jwks_uri). The port is --secure-port unless given.', apply: (f, v) => (f.externalHostname = v) },
  { name: 'cert-dir', value: 'string', help: 'The directory where the TLS certs are located: apiserver.crt and apiserver.key there are served when both exist, else a CA and a serving certificate are made and kept there. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored. (default <data-dir>/pki)', apply: (f, v) => (f.certDir = v) },
  { name: 'tls-min-version', value: 'string', help: `Minimum TLS version supported. Possible values: ${TLS_VERSION_NAMES.join(', ')} (default VersionTLS12)`, apply: (f, v) => (f.tlsMinVersion = parseTlsMinVersion(v)) },
  {
    name: 'tls-cipher-suites',
    value: 'strings',
    help: `Comma-separated list of cipher suites for the server (TLS 1.2 and below; TLS 1.3 suites are not configurable, as in Go). If omitted, the default suites are used. Preferred values: ${PREFERRED_CIPHER_NAMES.join(', ')}. Insecure values: ${INSECURE_CIPHER_NAMES.join(', ')}.`,
    apply: (f, v) => f.tlsCipherSuites.push(...splitList(v)),
  },
  {
    name: 'tls-sni-cert-key',
    value: 'string',
    help: 'A pair of x509 certificate and private key file paths, optionally suffixed with a list of domain patterns which are fully qualified domain names, possibly with prefixed wildcard segments. If no domain patterns are provided, the names of the certificate are extracted. Non-wildcard matches trump over wildcard matches, explicit domain patterns trump over extracted names. The certificate is chosen by the name the client sends (SNI); clients that send none get --tls-cert-file. For multiple key/certificate pairs, use the --tls-sni-cert-key multiple times. Examples: "example.crt,example.key" or "foo.crt,foo.key:*.foo.com,foo.com".',
    apply: (f, v) => f.tlsSniCertKeys.push(parseNamedCertKey(v)),
  },
  { name: 'tls-private-key-file', value: 'string', help: 'File containing the default x509 private key matching --tls-cert-file.', apply: (f, v) => (f.tlsPrivateKeyFile = v) },
  { name: 'orchconfig-ca-file', value: 'string', help: 'PEM bundle of the authority that verifies --tls-cert-file, written into the orchconfigs this server writes (admin.orchconfig, cluster-info) and into orch-root-ca.crt. Needed only when --tls-cert-file does not carry its CA after the leaf; the server refuses to start rather than write an orchconfig that does not verify it.', apply: (f, v) => (f.orchconfigCaFile = v) },
  { name: 'token-auth-file', value: 'string', help: 'If set, the file that will be used to secure the secure port of the API server via token authentication (CSV: token,user,uid,"group1,group2").', apply: (f, v) => (f.tokenAuthFile = v) },
  { name: 'client-ca-file', value: 'string', help: 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate (and its Organizations as groups). The file is re-read when it changes.', apply: (f, v) => (f.clientCaFile = v) },
  { name: 'requestheader-client-ca-file', value: 'string', help: 'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.', apply: (f, v) => (f.requestheaderClientCaFile = v) },
  { name: 'requestheader-allowed-names', value: 'strings', help: 'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.', apply: (f, v) => (f.requestheaderAllowedNames = [...f.requestheaderAllowedNames, ...splitList(v)]) },
  { name: 'requestheader-username-headers', value: 'strings', help: 'List of request headers to inspect for usernames. X-Remote-User is common.', apply: (f, v) => (f.requestheaderUsernameHeaders = [...f.requestheaderUsernameHeaders, ...splitList(v)]) },
  { name: 'requestheader-group-headers', value: 'strings', help: 'List of request headers to inspect for groups. X-Remote-Group is suggested.', apply: (f, v) => (f.requestheaderGroupHeaders = [...f.requestheaderGroupHeaders, ...splitList(v)]) },
  { name: 'requestheader-extra-headers-prefix', value: 'strings', help: 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.', apply: (f, v) => (f.requestheaderExtraHeadersPrefix = [...f.requestheaderExtraHeadersPrefix, ...splitList(v)]) },
  { name: 'authentication-config', value: 'string', help: 'File with Authentication Configuration (apiserver.config.orch.io AuthenticationConfiguration) to configure anonymous authentication (needs --feature-gates=AnonymousAuthConfigurableEndpoints=true and no --anonymous-auth). JWT authenticators in it are refused.', apply: (f, v) => (f.authenticationConfig = v) },
  { name: 'authentication-token-webhook-config-file', value: 'string', help: 'File with webhook configuration for token authentication in orchconfig format. The API server will query the remote service to determine authentication for bearer tokens.', apply: (f, v) => (f.authenticationTokenWebhookConfigFile = v) },
  { name: 'authentication-token-webhook-cache-ttl', value: 'duration', help: 'The duration to cache responses from the webhook token authenticator. (default 2m0s)', apply: (f, v) => (f.authenticationTokenWebhookCacheTtlMs = parseDuration(v)) },
  {
    name: 'authentication-token-webhook-version',
    value: 'string',
    help: 'The API version of the authentication.orch.io TokenReview to send to and expect from the webhook. (default "v1beta1")',
    apply: (f, v) => {
      if (v !== 'v1' && v !== 'v1beta1') throw new Error('must be v1 or v1beta1');
      f.authenticationTokenWebhookVersion = v;
    },
  },
  { name: 'enable-bootstrap-token-auth', value: 'bool', help: 'Enable to allow secrets of type \'bootstrap.orch.io/token\' in the \'orch-system\' namespace to be used for TLS bootstrapping authentication.', apply: (f, v) => (f.enableBootstrapTokenAuth = parseBool(v)) },
  { name: 'service-account-issuer', value: 'stringArray', help: 'Identifier of the service account token issuer. The issuer asserts this identifier in the "iss" claim of issued tokens. When given more than once, the first issues and all are accepted. (default: https://orch.default.svc.cluster.local with a key made under --data-dir)', apply: (f, v) => (f.serviceAccountIssuers = [...f.serviceAccountIssuers, v]) },
  {
    name: 'service-account-jwks-uri',
    value: 'string', help: 'Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration. This flag is useful if the discovery doc and key set are served to relying parties from a URL other than the API server\'s external address. Only valid when --service-account-issuer is an https URL.', apply: (f, v) => {
      if (!/^https:\/\/[^/]/.test(v)) throw new Error('service-account-jwks-uri requires https scheme');
      f.serviceAccountJwksUri = v;
    },
  },
  { name: 'service-account-signing-key-file', value: 'string', help: 'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key.', apply: (f, v) => (f.serviceAccountSigningKeyFile = v) },
  { name: 'service-account-private-key-file', value: 'string', help: 'Same as --service-account-signing-key-file (the name kube-controller-manager gives it).', apply: (f, v) => (f.serviceAccountSigningKeyFile = v) },
  { name: 'service-account-key-file', value: 'stringArray', help: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. The signing key always verifies too.', apply: (f, v) => (f.serviceAccountKeyFiles = [...f.serviceAccountKeyFiles, v]) },
  { name: 'api-audiences', value: 'strings', help: 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If unset, the --service-account-issuer values are used.', apply: (f, v) => (f.apiAudiences = [...f.apiAudiences, ...splitList(v)]) },
  { name: 'service-account-max-token-expiration', value: 'duration', help: 'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.', apply: (f, v) => (f.serviceAccountMaxTokenExpirationMs = parseDuration(v)) },
  { name: 'service-account-extend-token-expiration', value: 'bool', help: 'Turns on projected service account expiration extension during token generation, which helps safe transition from legacy token to bound service account token feature. If this flag is enabled, admission injected tokens would be extended up to 1 year to prevent unexpected failure during transition, ignoring value of service-account-max-token-expiration. (default true)', apply: (f, v) => (f.serviceAccountExtendTokenExpiration = parseBool(v)) },
  { name: 'service-account-lookup', value: 'bool', help: 'If true, validate ServiceAccount tokens exist in etcd as part of authentication. (default true)', apply: (f, v) => (f.serviceAccountLookup = parseBool(v)) },
  {
    name: 'enable-admission-plugins',
    value: 'strings',
    help: `admission plugins that should be enabled in addition to default enabled ones (${ADMISSION_PLUGINS.join(', ')}). Comma-delimited list of admission plugins: ${ADMISSION_PLUGINS.join(', ')}. The order of plugins in this flag does not matter. All of them are on by default: unlike kube-apiserver, NodeRestriction too, since it completes the Node authorizer of the intended default --authorization-mode=Node,RBAC.`,
    apply: (f, v) => (f.enableAdmissionPlugins = [...f.enableAdmissionPlugins, ...splitList(v)]),
  },
  {
    name: 'disable-admission-plugins',
    value: 'strings',
    help: `admission plugins that should be disabled although they are in the default enabled plugins list (${ADMISSION_PLUGINS.join(', ')}). Comma-delimited list of admission plugins: ${ADMISSION_PLUGINS.join(', ')}. The order of plugins in this flag does not matter.`,
    apply: (f, v) => (f.disableAdmissionPlugins = [...f.disableAdmissionPlugins, ...splitList(v)]),
  },
  { name: 'authorization-mode', value: 'strings', help: `Ordered list of plug-ins to do authorization on secure port. Comma-delimited list of: ${AUTHORIZATION_MODES.join(',')}. Defaults to ${DEFAULT_AUTHORIZATION_MODES.join(',')} if --authorization-config is not used; the admin credentials are in system:masters, which every mode allows.`, apply: (f, v) => legacy(f, 'authorization-mode', () => (f.authorizationMode = splitList(v))) },
  { name: 'authorization-policy-file', value: 'string', help: 'File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.', apply: (f, v) => (f.authorizationPolicyFile = v) },
  { name: 'authorization-webhook-config-file', value: 'string', help: "File with webhook configuration in orchconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server's secure port.", apply: (f, v) => legacy(f, 'authorization-webhook-config-file', () => (f.authorizationWebhookConfigFile = v)) },
  {
    name: 'authorization-webhook-version',
    value: 'string',
    help: 'The API version of the authorization.orch.io SubjectAccessReview to send to and expect from the webhook. (default "v1beta1")',
    apply: (f, v) =>
      legacy(f, 'authorization-webhook-version', () => {
        if (v !== 'v1' && v !== 'v1beta1') throw new Error('must be v1 or v1beta1');
        f.authorizationWebhookVersion = v;
      }),
  },
  { name: 'authorization-webhook-cache-authorized-ttl', value: 'duration', help: "The duration to cache 'authorized' responses from the webhook authorizer. (default 5m0s)", apply: (f, v) => legacy(f, 'authorization-webhook-cache-authorized-ttl', () => (f.authorizationWebhookCacheAuthorizedTtlMs = parseDuration(v))) },
  { name: 'authorization-webhook-cache-unauthorized-ttl', value: 'duration', help: "The duration to cache 'unauthorized' responses from the webhook authorizer. (default 30s)", apply: (f, v) => legacy(f, 'authorization-webhook-cache-unauthorized-ttl', () => (f.authorizationWebhookCacheUnauthorizedTtlMs = parseDuration(v))) },
  { name: 'authorization-config', value: 'string', help: 'File with Authorization Configuration (apiserver.config.orch.io/v1beta1 AuthorizationConfiguration) to configure the authorizer chain; reloaded when it changes and every minute. This flag is mutually exclusive with the other --authorization-mode and --authorization-webhook-* flags.', apply: (f, v) => (f.authorizationConfig = v) },
  { name: 'anonymous-auth', value: 'bool', help: 'Enables anonymous requests to the secure port. Anonymous requests are treated as user system:anonymous in group system:unauthenticated. Ignored with AlwaysAllow authorization, except for the health and version paths. (default true)', apply: (f, v) => (f.anonymousAuth = parseBool(v)) },
  { name: 'livez-grace-period', value: 'duration', help: 'This option represents the maximum amount of time it should take for apiserver to complete its startup sequence and become live. (default 0s)', apply: (f, v) => (f.livezGracePeriodMs = parseDuration(v)) },
  { name: 'shutdown-send-retry-after', value: 'bool', help: "If true the HTTP Server will continue listening until all non long running request(s) in flight have been drained, during this window all incoming requests will be rejected with a status code 429 and a 'Retry-After' response header, in addition 'Connection: close' response header is set in order to tear down the TCP connection when idle.", apply: (f, v) => (f.shutdownSendRetryAfter = parseBool(v)) },
  { name: 'shutdown-delay-duration', value: 'duration', help: 'Time to delay the termination. During that time the server keeps serving requests normally while /readyz returns failure. (default 0s)', apply: (f, v) => (f.shutdownDelayMs = parseDuration(v)) },
  { name: 'storage-backend', value: 'string', help: 'The storage backend for persistence. Options: sqlite (embedded, default), etcd3.', apply: (f, v) => (f.storageBackend = v as Flags['storageBackend']) },
  { name: 'etcd-compaction-interval', value: 'duration', help: 'The interval of compaction requests. Revisions older than one interval are compacted; continue tokens and watch history reach back at least this far. 0 disables. (default 5m0s)', apply: (f, v) => (f.compactionIntervalMs = parseDuration(v)) },
  { name: 'enable-garbage-collector', value: 'bool', help: 'Enables the generic garbage collector: deletion propagation (propagationPolicy Orphan and Foreground) and the garbage-collector-controller. (default true)', apply: (f, v) => (f.enableGarbageCollector = parseBool(v)) },
  { name: 'delete-collection-workers', value: 'int', help: 'Number of workers spawned for DeleteCollection call. These are used to speed up namespace cleanup; 0 counts as 1. (default 1)', apply: (f, v) => (f.deleteCollectionWorkers = Math.max(1, parseNonNegativeInt(v))) },
  { name: 'event-ttl', value: 'duration', help: 'Amount of time to retain events: an event is deleted this long after its last write. 0 keeps events. (default 1h0m0s)', apply: (f, v) => (f.eventTtlMs = parseDuration(v)) },
  { name: 'watch-cache', value: 'bool', help: 'Enable watch caching in the apiserver (default true)', apply: (f, v) => (f.watchCache = parseBool(v)) },
  {
    name: 'watch-cache-sizes',
    value: 'strings',
    help: 'Watch cache size settings for some resources (pods, nodes, etc.), comma separated. The individual setting format: resource[.group]#size, where resource is lowercase plural (no version), group is omitted for resources of apiVersion v1 (the legacy core API) and included for others, and size is a number. This option is only meaningful for resources built into the apiserver, not ones defined by CRDs or aggregated from external servers, and is only consulted if the watch-cache is enabled. The only meaningful size setting to supply here is zero, which means to disable watch caching for the associated resource; all non-zero values are equivalent and mean to not disable watch caching for that resource',
    apply: (f, v) => {
      const entries = splitList(v);
      WatchCacheSettings.validate(entries);
      f.watchCacheSizes.push(...entries);
    },
  },
  {
    name: 'default-watch-cache-size',
    value: 'int',
    help: 'Default watch cache size. If zero, watch cache will be disabled for resources that do not have a default watch size set.',
    deprecated: 'watch caches are sized automatically and this flag will be removed in a future version',
    // Upstream 1.31 reads it nowhere since caches size themselves: only its syntax is checked.
    apply: (_f, v) => void parseInt64Flag(v),
  },
  { name: 'watch-history-duration', value: 'duration', help: 'How long the watch cache keeps events; a watch from an older resourceVersion gets 410 Gone. (default 5m0s)', apply: (f, v) => (f.watchHistoryMs = parseDuration(v)) },
  { name: 'watch-bookmark-interval', value: 'duration', help: 'Interval of BOOKMARK events to watchers that allow them. (default 1m0s)', apply: (f, v) => (f.bookmarkIntervalMs = parseDuration(v)) },
  { name: 'watch-buffer-limit', value: 'int', help: 'Bytes a watch may have waiting on its connection before the server closes it as too slow (the client resumes or relists). (default 8388608)', apply: (f, v) => (f.watchBufferLimitBytes = parsePositiveInt(v)) },
  {
    name: 'runtime-config',
    value: 'mapStringString',
    help:
      'A set of key=value pairs that enable or disable built-in APIs. Supported options are:\n' +
      'v1=true|false for the core API group\n' +
      '<group>/<version>=true|false for a specific API group and version (e.g. apps/v1=true)\n' +
      '<group>/<version>/<resource>=true|false for a single resource (e.g. networking.orch.io/v1/networkpolicies=false)\n' +
      'api/all=true|false controls all API versions\n' +
      'api/ga=true|false controls all API versions of the form v[0-9]+\n' +
      'api/beta=true|false controls all API versions of the form v[0-9]+beta[0-9]+\n' +
      'api/alpha=true|false controls all API versions of the form v[0-9]+alpha[0-9]+\n' +
      'api/legacy is deprecated, and will be removed in a future version\n' +
      'An omitted value means true. Custom resources are not affected.',
    apply: (f, v) => parseConfigurationMap(v, f.runtimeConfig),
  },
  { name: 'feature-gates', value: 'mapStringBool', help: featureGatesHelp(), apply: (f, v) => parseFeatureGates(v, f.featureGates) },
  { name: 'request-timeout', value: 'duration', help: 'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests. 0 disables it. (default 1m0s)', apply: (f, v) => (f.requestTimeoutMs = parseDuration(v)) },
  { name: 'min-request-timeout', value: 'int', help: 'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load. (default 1800)', apply: (f, v) => (f.minRequestTimeoutSeconds = parseNonNegativeInt(v)) },
  { name: 'max-requests-inflight', value: 'int', help: 'The maximum number of non-mutating requests in flight at a given time. When the server exceeds this, it rejects requests with 429 Too Many Requests. Watches, and members of system:masters, are not limited. Zero for no limit. (default 400)', apply: (f, v) => (f.maxRequestsInflight = parseNonNegativeInt(v)) },
  { name: 'max-mutating-requests-inflight', value: 'int', help: 'The maximum number of mutating requests in flight at a given time. When the server exceeds this, it rejects requests with 429 Too Many Requests. Zero for no limit. (default 200)', apply: (f, v) => (f.maxMutatingRequestsInflight = parseNonNegativeInt(v)) },
  { name: 'etcd-healthcheck-timeout', value: 'duration', help: 'The timeout to use when checking the storage backend for /livez and /healthz. (default 2s)', apply: (f, v) => (f.etcdHealthcheckTimeoutMs = parseDuration(v)) },
  { name: 'etcd-readycheck-timeout', value: 'duration', help: 'The timeout to use when checking the storage backend for /readyz. (default 2s)', apply: (f, v) => (f.etcdReadycheckTimeoutMs = parseDuration(v)) },
  {
    name: 'controllers',
    value: 'strings',
    help: `A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.\nAll controllers: ${KNOWN_CONTROLLERS.map((c) => c.name).join(', ')} (also by their older names ${KNOWN_CONTROLLERS.flatMap((c) => c.aliases).join(', ')}). All are on by default. (default [*])`,
    apply: (f, v) => {
      f.controllers = v.split(',').map((s) => s.trim()).filter(Boolean);
      parseControllerSelection(f.controllers);
    },
  },
  { name: 'workers', value: 'int', help: `Most server processes serving the port, this one included, each a full replica over the store; more are started while the running ones are busy and stopped once idle. With the embedded SQLite store their writes go through this process. 1 serves from this process alone. (default: the available CPUs, at most 8; here ${defaultWorkers()})`, apply: (f, v) => (f.workers = parsePositiveInt(v)) },
  { name: 'min-workers', value: 'int', help: 'Server processes kept serving even when idle, this one included; at most --workers. (default 1)', apply: (f, v) => (f.minWorkers = parsePositiveInt(v)) },
  { name: 'worker-idle-timeout', value: 'duration', help: 'How long every server process must be idle before one above --min-workers stops. (default 1m0s)', apply: (f, v) => (f.workerIdleTimeoutMs = parseDuration(v)) },
  { name: 'leader-elect', value: 'bool', help: 'Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability. (default true with --storage-backend=etcd3; the embedded SQLite store has one process, which always leads)', apply: (f, v) => (f.leaderElect = parseBool(v)) },
  { name: 'leader-elect-lease-duration', value: 'duration', help: 'The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot. This is effectively the maximum duration that a leader can be stopped before it is replaced by another candidate. This is only applicable if leader election is enabled. (default 15s)', apply: (f, v) => (f.leaderElectLeaseDurationMs = parseDuration(v)) },
  { name: 'leader-elect-renew-deadline', value: 'duration', help: 'The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration. This is only applicable if leader election is enabled. (default 10s)', apply: (f, v) => (f.leaderElectRenewDeadlineMs = parseDuration(v)) },
  { name: 'leader-elect-retry-period', value: 'duration', help: 'The duration the clients should wait between attempting acquisition and renewal of a leadership. This is only applicable if leader election is enabled. (default 2s)', apply: (f, v) => (f.leaderElectRetryPeriodMs = parseDuration(v)) },
  { name: 'leader-elect-resource-name', value: 'string', help: 'The name of the Lease object that is used for locking during leader election. (default "orch-controller-manager")', apply: (f, v) => (f.leaderElectResourceName = v) },
  { name: 'leader-elect-resource-namespace', value: 'string', help: 'The namespace of the Lease object that is used for locking during leader election. (default "orch-system")', apply: (f, v) => (f.leaderElectResourceNamespace = v) },
  { name: 'etcd-cafile', value: 'string', help: 'SSL Certificate Authority file used to secure etcd communication.', apply: (f, v) => (f.etcdCafile = v) },
  { name: 'etcd-certfile', value: 'string', help: 'SSL certification file used to secure etcd communication.', apply: (f, v) => (f.etcdCertfile = v) },
  { name: 'etcd-keyfile', value: 'string', help: 'SSL key file used to secure etcd communication.', apply: (f, v) => (f.etcdKeyfile = v) },
  { name: 'etcd-prefix', value: 'string', help: 'The prefix to prepend to all resource paths in etcd. (default "/registry")', apply: (f, v) => (f.etcdPrefix = v) },
  { name: 'etcd-servers', value: 'strings', help: 'List of etcd servers to connect with (scheme://ip:port), comma separated.', apply: (f, v) => (f.etcdServers = v.split(',').filter(Boolean)) },
  {
    name: 'etcd-servers-overrides',
    value: 'strings',
    help: 'Per-resource etcd servers overrides, comma separated. The individual override format: group/resource#servers, where servers are URLs, semicolon separated. Note that this applies only to resources compiled into this server binary. Needs --storage-backend=etcd3. e.g. "/pods#http://etcd4:2379;http://etcd5:2379,/events#http://etcd6:2379"',
    // pflag's string slice: entries are comma separated, and every use of the flag adds its own.
    apply: (f, v) => f.etcdServersOverrides.push(...(v === '' ? [] : parseEtcdServersOverrides(v.split(',')))),
  },
];

export function usage(): string {
  // A help of several lines (the gates, the runtime-config keys) keeps its indentation on each.
  const lines = SPECS.filter((s) => !s.deprecated).map((s) => `      --${s.name} ${s.value}\n                ${s.help.replaceAll('\n', '\n                ')}`);
  return `orch-apiserver serves the orch control-plane API over HTTPS.\n\nUsage:\n  orch-apiserver [flags]\n\nFlags:\n      --help\n                help for orch-apiserver\n${lines.join('\n')}\n`;
}

export class FlagError extends Error {}

export function parseFlags(argv: string[]): Flags | 'help' {
  const flags: Flags = {
    secureport: 6443,
    bindAddress: '127.0.0.1',
    permitPortSharing: false,
    dataDir: 'data',
    authorizationWebhookVersion: 'v1beta1',
    authorizationWebhookCacheAuthorizedTtlMs: 5 * 60_000,
    authorizationWebhookCacheUnauthorizedTtlMs: 30_000,
    authorizationLegacyFlags: [],
    enableAdmissionPlugins: [],
    disableAdmissionPlugins: [],
    admissionPlugins: [],
    requestheaderAllowedNames: [],
    tlsCipherSuites: [],
    tlsSniCertKeys: [],
    insecureCipherSuites: [],
    serviceAccountIssuers: [],
    authenticationTokenWebhookCacheTtlMs: 120_000,
    authenticationTokenWebhookVersion: 'v1beta1',
    serviceAccountKeyFiles: [],
    apiAudiences: [],
    serviceAccountMaxTokenExpirationMs: 0,
    serviceAccountExtendTokenExpiration: true,
    serviceAccountLookup: true,
    requestheaderUsernameHeaders: [],
    requestheaderGroupHeaders: [],
    requestheaderExtraHeadersPrefix: [],
    livezGracePeriodMs: 0,
    shutdownDelayMs: 0,
    shutdownSendRetryAfter: false,
    storageBackend: 'sqlite',
    etcdServers: [],
    etcdServersOverrides: [],
    etcdPrefix: '/registry',
    compactionIntervalMs: 5 * 60_000,
    watchHistoryMs: 5 * 60_000,
    watchCache: true,
    watchCacheSizes: [],
    deprecationWarnings: [],
    eventTtlMs: 3_600_000,
    enableGarbageCollector: true,
    deleteCollectionWorkers: 1,
    bookmarkIntervalMs: 60_000,
    watchBufferLimitBytes: 8 * 1024 * 1024,
    featureGates: {},
    runtimeConfig: {},
    requestTimeoutMs: 60_000,
    minRequestTimeoutSeconds: 1800,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    etcdHealthcheckTimeoutMs: 2000,
    etcdReadycheckTimeoutMs: 2000,
    controllers: ['*'],
    workers: defaultWorkers(),
    minWorkers: 1,
    workerIdleTimeoutMs: 60_000,
    leaderElectLeaseDurationMs: 15_000,
    leaderElectRenewDeadlineMs: 10_000,
    leaderElectRetryPeriodMs: 2_000,
    leaderElectResourceName: 'orch-controller-manager',
    leaderElectResourceNamespace: 'orch-system',
    audit: defaultAuditFlags(),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return 'help';
    const match = /^--?([a-z0-9-]+)(?:=(.*))?$/.exec(arg);
    const spec = match && SPECS.find((s) => s.name === match[1]);
    if (!match || !spec) throw new FlagError(`unknown flag: ${arg}`);
    let value = match[2];
    if (value === undefined) {
      if (spec.value === 'bool') value = 'true';
      else if (i + 1 < argv.length) value = argv[++i];
      else throw new FlagError(`flag needs an argument: --${spec.name}`);
    }
    if (spec.deprecated) flags.deprecationWarnings.push(`Flag --${spec.name} has been deprecated, ${spec.deprecated}`);
    try {
      spec.apply(flags, value);
    } catch (err) {
      throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--${spec.name}" flag: ${(err as Error).message}`);
    }
  }
  if (!Number.isInteger(flags.secureport) || flags.secureport < 0 || flags.secureport > 65535) throw new FlagError('--secure-port must be between 0 and 65535');
  try {
    checkLeaderElectionTimings(flags.leaderElectLeaseDurationMs, flags.leaderElectRenewDeadlineMs, flags.leaderElectRetryPeriodMs);
  } catch (err) {
    throw new FlagError(`leader election: ${(err as Error).message}`);
  }
  if (!['sqlite', 'etcd3'].includes(flags.storageBackend)) throw new FlagError(`--storage-backend: unknown backend ${JSON.stringify(flags.storageBackend)}`);
  // Upstream stores everything in etcd; a resource in an etcd beside an embedded SQLite store has no meaning there.
  if (flags.etcdServersOverrides.length && flags.storageBackend !== 'etcd3') throw new FlagError('--etcd-servers-overrides needs --storage-backend=etcd3: the overridden resources would be stored in etcd and the others in SQLite');
  if (flags.permitPortSharing && !runtimeHasReusePort()) {
    throw new FlagError(`--permit-port-sharing needs SO_REUSEPORT, which Node ${process.versions.node} cannot set on a listening socket: use Node ${REUSE_PORT_NODE.join('.')} or later`);
  }
  const auditErrors = validateAuditFlags(flags.audit);
  if (auditErrors.length) throw new FlagError(auditErrors.length === 1 ? auditErrors[0] : `[${auditErrors.join(', ')}]`);
  resolveAuthorization(flags);
  resolveAdmission(flags);
  resolveCiphers(flags);
  return flags;
}

/** SPEC 5.1 items 5-6: the legacy flags become the chain's entries, or --authorization-config stands alone. */
function resolveAuthorization(flags: Flags): void {
  if (flags.authorizationConfig !== undefined) {
    if (!featureEnabled(flags.featureGates, 'StructuredAuthorizationConfiguration')) {
      throw new FlagError('--authorization-config cannot be used without enabling StructuredAuthorizationConfiguration feature flag');
    }
    if (flags.authorizationLegacyFlags.length) {
      throw new FlagError('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    }
    // The file's authorizers are Webhook, Node and RBAC (SPEC 5.1.6): there is no ABAC to read a policy file.
    if (flags.authorizationPolicyFile) throw new FlagError('cannot specify --authorization-policy-file without mode ABAC');
    return;
  }
  try {
    flags.authorizers = entriesFromFlags({
      modes: flags.authorizationMode ?? DEFAULT_AUTHORIZATION_MODES,
      policyFile: flags.authorizationPolicyFile,
      webhookConfigFile: flags.authorizationWebhookConfigFile,
      webhookVersion: flags.authorizationWebhookVersion,
      webhookCacheAuthorizedTtlMs: flags.authorizationWebhookCacheAuthorizedTtlMs,
      webhookCacheUnauthorizedTtlMs: flags.authorizationWebhookCacheUnauthorizedTtlMs,
    });
  } catch (err) {
    throw new FlagError((err as Error).message);
  }
}

/** --tls-cipher-suites: every name one of Go's and available here (cliflag.TLSCipherSuites), shaped with --tls-min-version. */
function resolveCiphers(flags: Flags): void {
  let suites;
  try {
    suites = flags.tlsCipherSuites.length ? parseCipherSuites(flags.tlsCipherSuites) : undefined;
  } catch (err) {
    throw new FlagError(`invalid argument ${JSON.stringify(flags.tlsCipherSuites.join(','))} for "--tls-cipher-suites" flag: ${(err as Error).message}`);
  }
  flags.insecureCipherSuites = suites?.insecure ?? [];
  flags.tlsCiphers = cipherOption(flags.tlsMinVersion, suites);
}

/** kube-apiserver's admission flags: every error at once, as upstream aggregates them. */
function resolveAdmission(flags: Flags): void {
  const plugins = { enable: flags.enableAdmissionPlugins, disable: flags.disableAdmissionPlugins };
  const errors = validateAdmissionFlags(plugins);
  if (errors.length) throw new FlagError(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  flags.admissionPlugins = enabledAdmissionPlugins(plugins);
}
