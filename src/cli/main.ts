/**
 * `orch-apiserver`: parses the flags and starts the server: in this process
 * alone with `--workers=1`, or as the primary of a pool that forks workers
 * under load (issue 10).
 * On SIGTERM/SIGINT it shuts down gracefully (SPEC 4.10
 * --shutdown-delay-duration) and exits 0.
 */
import { PrimaryMetrics, WorkerMetrics } from '../server/metrics/pool-metrics.ts';
import { join, resolve } from 'node:path';
import * as api from '../generated/index.ts';
import { startServer, type StartOptions } from '../server/start.ts';
import { ProcessLoad } from '../server/process-load.ts';
import { listenAsWorker, WorkerPool, WORKER_INDEX_ENV } from '../server/worker-pool.ts';
import { primaryChannel } from '../server/worker-channels.ts';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage.ts';
import { WriterHost } from '../storage/sqlite/writer-host.ts';
import { EtcdStorage } from '../storage/etcd3/etcd-storage.ts';
import { readEtcdTls } from '../storage/etcd3/etcd-tls.ts';
import { SqliteReplica } from '../storage/sqlite/sqlite-replica.ts';
import type { Storage } from '../storage/interface.ts';
import type { StorageOverride } from '../storage/revision-spaces.ts';
import { FlagError, parseFlags, usage, type Flags } from './flags.ts';
import { auditBlocks, auditEnabled, backendSink, loadAuditPolicy, ownerBackend, processWorkerEvents, workerSink } from '../audit/setup.ts';
import type { AuditEvent } from '../audit/event.ts';
import { boundHeapGrowth } from './heap-growth.ts';
import { WatchCacheSettings } from '../server/watch-cache-settings.ts';
import { featureGateWarnings } from '../server/feature-gates.ts';
import { resolveRuntimeConfig } from '../server/runtime-config.ts';
import { etcdLocations, type EtcdServersOverride } from '../storage/etcd3/servers-overrides.ts';
import { resourcePrefix } from '../storage/keys.ts';
import { storedResourcePrefix } from '../registry/kind.ts';

function startOptions(flags: Flags): Omit<StartOptions, 'storage' | 'storageOverrides'> {
  return {
    api,
    dataDir: flags.dataDir,
    port: flags.secureport,
    bindAddress: flags.bindAddress,
    advertiseAddress: flags.advertiseAddress,
    externalHostname: flags.externalHostname,
    tlsCertFile: flags.tlsCertFile,
    tlsPrivateKeyFile: flags.tlsPrivateKeyFile,
    orchconfigCaFile: flags.orchconfigCaFile,
    certDir: flags.certDir,
    tlsMinVersion: flags.tlsMinVersion,
    tlsCiphers: flags.tlsCiphers,
    tlsSniCertKeys: flags.tlsSniCertKeys,
    tokenAuthFile: flags.tokenAuthFile,
    clientCaFile: flags.clientCaFile,
    requestHeader: flags.requestheaderClientCaFile
      ? {
          clientCaFile: flags.requestheaderClientCaFile,
          allowedNames: flags.requestheaderAllowedNames,
          usernameHeaders: flags.requestheaderUsernameHeaders,
          groupHeaders: flags.requestheaderGroupHeaders,
          extraHeaderPrefixes: flags.requestheaderExtraHeadersPrefix,
        }
      : undefined,
    authenticationConfigFile: flags.authenticationConfig,
    enableBootstrapTokenAuth: flags.enableBootstrapTokenAuth,
    tokenWebhook: flags.authenticationTokenWebhookConfigFile
      ? { configFile: flags.authenticationTokenWebhookConfigFile, cacheTtlMs: flags.authenticationTokenWebhookCacheTtlMs, version: flags.authenticationTokenWebhookVersion }
      : undefined,
    serviceAccountJwksUri: flags.serviceAccountJwksUri,
    serviceAccounts: {
      issuers: flags.serviceAccountIssuers,
      signingKeyFile: flags.serviceAccountSigningKeyFile,
      keyFiles: flags.serviceAccountKeyFiles,
      apiAudiences: flags.apiAudiences,
      maxTokenExpirationMs: flags.serviceAccountMaxTokenExpirationMs,
      extendTokenExpiration: flags.serviceAccountExtendTokenExpiration,
      lookup: flags.serviceAccountLookup,
    },
    authorizers: flags.authorizers,
    authorizationConfigFile: flags.authorizationConfig,
    admissionPlugins: flags.admissionPlugins,
    anonymousAuth: flags.anonymousAuth,
    livezGracePeriodMs: flags.livezGracePeriodMs,
    shutdownDelayMs: flags.shutdownDelayMs,
    shutdownSendRetryAfter: flags.shutdownSendRetryAfter,
    compactionIntervalMs: flags.compactionIntervalMs,
    watchHistoryMs: flags.watchHistoryMs,
    watchCache: watchCacheSettings(flags),
    reusePort: flags.permitPortSharing,
    eventTtlMs: flags.eventTtlMs,
    deletion: { garbageCollection: flags.enableGarbageCollector, collectionWorkers: flags.deleteCollectionWorkers },
    bookmarkIntervalMs: flags.bookmarkIntervalMs,
    watchBufferLimitBytes: flags.watchBufferLimitBytes,
    featureGates: flags.featureGates,
    runtimeConfig: flags.runtimeConfig,
    requestTimeoutMs: flags.requestTimeoutMs,
    minRequestTimeoutSeconds: flags.minRequestTimeoutSeconds,
    maxRequestsInflight: flags.maxRequestsInflight,
    maxMutatingRequestsInflight: flags.maxMutatingRequestsInflight,
    healthcheckTimeoutMs: flags.etcdHealthcheckTimeoutMs,
    readycheckTimeoutMs: flags.etcdReadycheckTimeoutMs,
    controllers: flags.controllers,
    leaderElection: {
      enabled: flags.leaderElect ?? flags.storageBackend === 'etcd3',
      leaseDurationMs: flags.leaderElectLeaseDurationMs,
      renewDeadlineMs: flags.leaderElectRenewDeadlineMs,
      retryPeriodMs: flags.leaderElectRetryPeriodMs,
      resourceName: flags.leaderElectResourceName,
      resourceNamespace: flags.leaderElectResourceNamespace,
    },
  };
}

function watchCacheSettings(flags: Flags): WatchCacheSettings {
  return new WatchCacheSettings(flags.watchCache, flags.watchCacheSizes);
}

/**
 * The etcd stores: --etcd-servers for everything, and one more per distinct
 * server list of --etcd-servers-overrides, with the same prefix, TLS files and
 * timeouts (upstream copies its storage config and replaces the server list).
 */
async function etcdStorage(flags: Flags): Promise<{ storage: Storage; storageOverrides: StorageOverride[] }> {
  const tls = readEtcdTls({ caFile: flags.etcdCafile, certFile: flags.etcdCertfile, keyFile: flags.etcdKeyfile });
  const connect = (servers: string[]) => EtcdStorage.connect({ servers, prefix: flags.etcdPrefix, callTimeoutMs: flags.requestTimeoutMs, tls });
  const storage = await connect(flags.etcdServers);
  const storageOverrides = await Promise.all(etcdLocations(effectiveOverrides(flags).overrides).map(async (location) => ({ storage: await connect(location.servers), resourcePrefixes: location.resourcePrefixes })));
  return { storage, storageOverrides };
}

/**
 * The overrides of resources this server stores under the name given, and
 * warnings for the others: upstream accepts an override of a resource it does
 * not store under that name (a custom resource, or one kept in another group's
 * key space, as events.orch.io/events in the core group's), and it has no effect.
 */
function effectiveOverrides(flags: Flags): { overrides: EtcdServersOverride[]; warnings: string[] } {
  const stored = new Set(api.kinds.filter((k) => k.stored).map((k) => storedResourcePrefix(k)));
  const effective = (o: EtcdServersOverride) => stored.has(resourcePrefix(o.group, o.resource));
  return {
    overrides: flags.etcdServersOverrides.filter(effective),
    warnings: flags.etcdServersOverrides
      .filter((o) => !effective(o))
      .map((o) => `--etcd-servers-overrides: ${o.group}/${o.resource} is not a resource this server stores under that name; its override has no effect`),
  };
}

function onSignals(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const handle = (signal: string) => {
    if (stopping) return;
    stopping = true;
    stop(signal).then(
      () => process.exit(0),
      (err) => {
        console.error('shutdown failed:', err);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => handle('SIGTERM'));
  process.once('SIGINT', () => handle('SIGINT'));
}

/**
 * The start is over: the bin (bin/orch-apiserver.mjs) writes V8's code cache
 * of what the start compiled, under the V8 flags the start ran with, and only
 * then are the heap's flags changed.
 */
function startDone(): void {
  const writeCodeCache = (globalThis as Record<symbol, unknown>)[Symbol.for('orch-apiserver.started')];
  if (typeof writeCodeCache === 'function') writeCodeCache();
  boundHeapGrowth();
}

function announce(url: string, orchconfigPath: string, started: number): void {
  startDone();
  console.log(`orch-apiserver serving on ${url} (ready in ${Date.now() - started} ms)`);
  console.log(`admin credentials: ${orchconfigPath}  (kubectl --kubeconfig ${orchconfigPath} get namespaces)`);
}

/**
 * A worker of the pool (src/server/worker-pool.ts): the whole server, on the
 * primary's listening socket. Over SQLite its store is a replica of the
 * primary's writer and the primary runs the controllers and compacts (unless
 * --leader-elect asks for an election); over etcd each worker is a replica like
 * any other.
 */
/**
 * The audit policy and the backends of the process that owns them (the
 * primary, or the only process): loaded first, so a bad file stops the start
 * before anything is served.
 */
function ownerAudit(flags: Flags) {
  const evaluator = loadAuditPolicy(flags.audit);
  const auditBackend = evaluator && ownerBackend(flags.audit);
  const audit = evaluator && auditBackend ? { evaluator, sink: backendSink(auditBackend) } : undefined;
  return { audit, auditBackend };
}

async function runWorker(flags: Flags): Promise<void> {
  const sqlite = flags.storageBackend === 'sqlite';
  const evaluator = auditEnabled(flags.audit) ? loadAuditPolicy(flags.audit) : undefined;
  // The primary gone (killed) means the store's writer and the socket's owner are gone: stop rather than serve half a server.
  process.once('disconnect', () => process.exit(1));
  const options = startOptions(flags);
  const load = new ProcessLoad();
  const running = await startServer({
    ...options,
    ...(sqlite ? { storage: new SqliteReplica({ file: join(resolve(flags.dataDir), 'orch.db'), channel: primaryChannel() }) } : await etcdStorage(flags)),
    compactionIntervalMs: sqlite ? 0 : options.compactionIntervalMs,
    controllersEnabled: !sqlite || flags.leaderElect === true,
    load,
    listen: listenAsWorker(load),
    metrics: new WorkerMetrics(),
    writesOrchconfig: false,
    audit: evaluator && { evaluator, sink: workerSink(auditBlocks(flags.audit)) },
  });
  startDone();
  onSignals(async () => {
    process.removeAllListeners('disconnect');
    await running.shutdown();
  });
}

/**
 * The primary of a pool: a whole server that forks workers under load. Over
 * SQLite it owns the store's file and takes the workers' writes into its own
 * group commit.
 */
async function runPrimary(flags: Flags, started: number): Promise<void> {
  const sqlite = flags.storageBackend === 'sqlite';
  const { audit, auditBackend } = ownerAudit(flags);
  const stores = sqlite ? { storage: new SqliteStorage({ file: join(resolve(flags.dataDir), 'orch.db') }) } : await etcdStorage(flags);
  const writer = sqlite ? new WriterHost(stores.storage) : undefined;
  await writer?.start();
  const load = new ProcessLoad();
  let pool: WorkerPool | undefined;
  const metrics = new PrimaryMetrics();
  const running = await startServer({ ...startOptions(flags), ...stores, load, audit, metrics, beforeStorageClose: async () => void (await pool?.stop(), writer?.stop()) });
  const onAudit = auditBackend && ((events: AuditEvent[], reply?: (stored: boolean) => void) => processWorkerEvents(auditBackend, events, reply));
  pool = new WorkerPool({ max: flags.workers, min: Math.min(flags.minWorkers, flags.workers), idleMs: flags.workerIdleTimeoutMs, server: running.server, load, writer, onAudit, metrics });
  try {
    await pool.fill();
  } catch (err) {
    await running.shutdown();
    throw err;
  }
  announce(running.url, running.orchconfigPath, started);
  onSignals(async (signal) => {
    console.log(`received ${signal}, shutting down`);
    // The workers drain beside this process; the store closes after they exit.
    void pool!.stop();
    await running.shutdown();
    // Batches still queued are sent or written before the process exits (upstream's backend Shutdown).
    await auditBackend?.shutdown();
  });
}

async function main(argv: string[]): Promise<void> {
  let flags;
  try {
    flags = parseFlags(argv);
  } catch (err) {
    if (err instanceof FlagError) {
      console.error(`Error: ${err.message}\n\n${usage()}`);
      process.exit(2);
    }
    throw err;
  }
  if (flags === 'help') {
    process.stdout.write(usage());
    return;
  }
  if (flags.storageBackend === 'etcd3' && flags.etcdServers.length === 0) {
    console.error('Error: --storage-backend=etcd3 needs --etcd-servers');
    process.exit(2);
  }
  try {
    resolveRuntimeConfig(flags.runtimeConfig, api.kinds);
  } catch (err) {
    // Upstream validates the flag after parsing, and prints the error without the usage.
    console.error(`Error: ${(err as Error).message}`);
    process.exit(1);
  }
  if (process.env[WORKER_INDEX_ENV] !== undefined && process.send) return runWorker(flags);
  for (const warning of flags.deprecationWarnings) console.warn(warning);
  for (const resource of watchCacheSettings(flags).ignoredSizes()) console.warn(`Dropping watch-cache-size for ${resource} - watchCache size is now dynamic`);
  for (const name of flags.insecureCipherSuites) console.warn(`Use of insecure cipher '${name}' detected.`);
  for (const warning of featureGateWarnings(flags.featureGates)) console.warn(warning);
  for (const warning of effectiveOverrides(flags).warnings) console.warn(warning);
  const started = Date.now();
  if (flags.workers > 1) return runPrimary(flags, started);
  const { audit, auditBackend } = ownerAudit(flags);
  const running = await startServer({ ...startOptions(flags), audit, ...(flags.storageBackend === 'etcd3' ? await etcdStorage(flags) : {}) });
  announce(running.url, running.orchconfigPath, started);
  onSignals(async (signal) => {
    console.log(`received ${signal}, shutting down`);
    await running.shutdown();
    await auditBackend?.shutdown();
  });
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
