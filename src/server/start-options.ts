/**
 * What starts a server (the flags, as src/cli/main.ts maps them) and what a
 * started server offers its caller.
 */
import type { MetricsSource } from './metrics/pool-metrics.ts';
import type { Server } from 'node:https';
import type { ControllerManager } from '../controllers/controller-manager.ts';
import type { GeneratedApi } from '../registry/kind.ts';
import type { Storage } from '../storage/interface.ts';
import type { StorageOverride } from '../storage/revision-spaces.ts';
import type { ProcessLoad } from './process-load.ts';
import type { WebhookTokenOptions } from '../auth/authentication/webhook-token.ts';
import type { AuthorizerEntry } from '../auth/authorization/authorizer-entries.ts';
import type { ApiServer } from './api-server.ts';
import type { AuthenticationOptions } from './authentication.ts';
import type { LeaderElectionSettings } from './controllers.ts';
import type { ServiceAccountFlags } from './service-accounts.ts';
import type { NamedCertKey, TlsMinVersion } from './tls-settings.ts';
import type { DeletionSettings } from '../registry/store.ts';
import type { WatchCacheSettings } from './watch-cache-settings.ts';
import type { PolicyEvaluator } from '../audit/policy.ts';
import type { AuditSink } from '../audit/request-audit.ts';
import type { FeatureGateSettings } from './feature-gates.ts';

export interface StartOptions {
  api: GeneratedApi;
  /** --audit-policy-file's rules and where this process's events go (src/audit/setup.ts); absent: no auditing. */
  audit?: { evaluator: PolicyEvaluator; sink: AuditSink };
  dataDir: string;
  port: number;
  bindAddress: string;
  /** --advertise-address and --external-hostname: the address clients are told (external-address.ts). */
  advertiseAddress?: string;
  externalHostname?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** --orchconfig-ca-file: the CA written into the orchconfigs when --tls-cert-file carries none. */
  orchconfigCaFile?: string;
  /** --cert-dir: where the serving certificate is made and kept (default <data-dir>/pki); apiserver.crt/.key there are served as given. */
  certDir?: string;
  /** --tls-min-version. */
  tlsMinVersion?: TlsMinVersion;
  /** --tls-cipher-suites as Node's `ciphers` (tls-settings.ts cipherOption, which --tls-min-version also shapes). */
  tlsCiphers?: string;
  /** --tls-sni-cert-key, in the order given. */
  tlsSniCertKeys?: NamedCertKey[];
  tokenAuthFile?: string;
  /** --service-account-jwks-uri: the JWKS URI the discovery document names. */
  serviceAccountJwksUri?: string;
  /** --service-account-*, --api-audiences (SPEC 5.2). */
  serviceAccounts?: ServiceAccountFlags;
  /** --authentication-token-webhook-* (SPEC 5.2). */
  tokenWebhook?: Omit<WebhookTokenOptions, 'apiAudiences'>;
  /** --enable-bootstrap-token-auth (SPEC 5.2). */
  enableBootstrapTokenAuth?: boolean;
  /** --client-ca-file (SPEC 5.2). */
  clientCaFile?: string;
  /** --requestheader-* (SPEC 5.2 authenticating proxy); present when --requestheader-client-ca-file is. */
  requestHeader?: AuthenticationOptions['requestHeader'];
  /** --authentication-config (SPEC 5.3). */
  authenticationConfigFile?: string;
  /** The authorizer chain from --authorization-mode and its flags (SPEC 5.1.5); default Node,RBAC. */
  authorizers?: AuthorizerEntry[];
  /** --authorization-config (SPEC 5.1.6); excludes `authorizers`. */
  authorizationConfigFile?: string;
  anonymousAuth?: boolean;
  /** The admission plugins that run (--enable/--disable-admission-plugins); default all: NamespaceLifecycle, ServiceAccount, NodeRestriction, DefaultIngressClass. */
  admissionPlugins?: readonly string[];
  livezGracePeriodMs: number;
  shutdownDelayMs: number;
  /** --shutdown-send-retry-after: after the delay, new requests get 429 until those in flight have drained; then the listener closes. */
  shutdownSendRetryAfter?: boolean;
  storage?: Storage;
  /** --etcd-servers-overrides: stores that hold some built-in resources instead of `storage` (storage/revision-spaces.ts). */
  storageOverrides?: StorageOverride[];
  /** Compaction interval (SPEC 4.4 item 2); 0 disables. */
  compactionIntervalMs?: number;
  /** --enable-garbage-collector and --delete-collection-workers (default on, 1). */
  deletion?: DeletionSettings;
  /** --event-ttl: events are deleted this long after their last write; 0 keeps them (default 1 h). */
  eventTtlMs?: number;
  /** Watch history kept by the watch cache (SPEC 8: 5 minutes). */
  watchHistoryMs?: number;
  /** --watch-cache and --watch-cache-sizes: which resources clients read through the watch cache (all but events when absent). */
  watchCache?: WatchCacheSettings;
  /** Interval of BOOKMARK events (about a minute upstream). */
  bookmarkIntervalMs?: number;
  /** Unsent bytes a watcher may hold before it is closed as too slow. */
  watchBufferLimitBytes?: number;
  /** Feature gates by name (SPEC 9.6). */
  featureGates?: FeatureGateSettings;
  /** --runtime-config as given (SPEC 9.3): the built-in group-versions and resources served. */
  runtimeConfig?: Record<string, string>;
  /** --request-timeout: deadline of every request that is not long-running; 0 = none (default 1 minute). */
  requestTimeoutMs?: number;
  /** --min-request-timeout: a watch without timeoutSeconds lasts 1x to 2x this (default 1800 s). */
  minRequestTimeoutSeconds?: number;
  /** --max-requests-inflight / --max-mutating-requests-inflight (defaults 400 and 200; 0 = no limit). */
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** --etcd-healthcheck-timeout / --etcd-readycheck-timeout: bound of the storage checks (default 2 s). */
  healthcheckTimeoutMs?: number;
  readycheckTimeoutMs?: number;
  /** --controllers (kube-controller-manager's syntax; default `*`: all). */
  controllers?: string[];
  /**
   * --leader-elect and its timings. On by default with etcd, where replicas share the store; the
   * embedded SQLite store has a single process, which leads without a lease.
   */
  leaderElection?: LeaderElectionSettings;
  /**
   * Whether this process runs the controllers at all (default true). Of the
   * workers over one SQLite store only one does (issue 10): they share the store
   * and the controllers must run once.
   */
  controllersEnabled?: boolean;
  /**
   * How the HTTPS server starts accepting (default: listen on `port` and
   * `bindAddress`). A worker of the pool listens on the primary's socket, handed
   * over once the worker is ready to serve (worker-pool.ts).
   */
  listen?: (server: Server) => Promise<void>;
  /** --permit-port-sharing: the primary's socket is bound with SO_REUSEPORT (checked against the runtime by the flag). */
  reusePort?: boolean;
  /** The pool's view of this process's load; it may ask the process to shed connections (process-load.ts). */
  load?: ProcessLoad;
  /** Where /metrics text comes from: the pool's sums (pool-metrics.ts); default this process alone. */
  metrics?: MetricsSource;
  /** Whether this process writes the admin orchconfig (default true; the pool's workers leave it to the primary). */
  writesOrchconfig?: boolean;
  /** Runs in a graceful stop after requests drained, before storage closes (the primary waits for its workers there). */
  beforeStorageClose?: () => Promise<void>;
}

export interface RunningServer {
  url: string;
  port: number;
  adminToken: string;
  caPem: string;
  orchconfigPath: string;
  /** Graceful stop: readyz fails, the delay passes, in-flight requests drain, storage closes. */
  shutdown(): Promise<void>;
  server: Server;
  apiServer: ApiServer;
  controllerManager: ControllerManager;
}

