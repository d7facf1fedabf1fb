/**
 * `orch-apiserver`: parses the flags and starts the server: in this process
 * with `--workers=1`, or as a primary forking one worker per CPU (issue 10).
 * On SIGTERM/SIGINT it shuts down gracefully (SPEC 4.10
 * --shutdown-delay-duration) and exits 0.
 */
import cluster from 'node:cluster';
import { join, resolve } from 'node:path';
import * as api from '../generated/index.ts';
import { startServer, type StartOptions } from '../server/start.ts';
import { startPrimary, WORKER_INDEX_ENV, type ListeningMessage } from '../server/cluster-primary.ts';
import { primaryChannel } from '../server/cluster-channels.ts';
import { EtcdStorage } from '../storage/etcd3/etcd-storage.ts';
import { SqliteReplica } from '../storage/sqlite/sqlite-replica.ts';
import type { Storage } from '../storage/interface.ts';
import { FlagError, parseFlags, usage, type Flags } from './flags.ts';

function startOptions(flags: Flags): Omit<StartOptions, 'storage'> {
  return {
    api,
    dataDir: flags.dataDir,
    port: flags.secureport,
    bindAddress: flags.bindAddress,
    tlsCertFile: flags.tlsCertFile,
    tlsPrivateKeyFile: flags.tlsPrivateKeyFile,
    orchconfigCaFile: flags.orchconfigCaFile,
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
    compactionIntervalMs: flags.compactionIntervalMs,
    watchHistoryMs: flags.watchHistoryMs,
    bookmarkIntervalMs: flags.bookmarkIntervalMs,
    watchBufferLimitBytes: flags.watchBufferLimitBytes,
    featureGates: flags.featureGates,
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

function etcdStorage(flags: Flags): Promise<Storage> {
  return EtcdStorage.connect({ servers: flags.etcdServers, prefix: flags.etcdPrefix, callTimeoutMs: flags.requestTimeoutMs });
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

function announce(url: string, orchconfigPath: string, started: number): void {
  console.log(`orch-apiserver serving on ${url} (ready in ${Date.now() - started} ms)`);
  console.log(`admin credentials: ${orchconfigPath}  (kubectl --kubeconfig ${orchconfigPath} get namespaces)`);
}

/**
 * A worker: the whole server over the shared port. Over SQLite its store is a
 * replica of the primary's writer, the primary compacts, and only worker 0 runs
 * the controllers (unless --leader-elect asks for an election); over etcd each
 * worker is a replica like any other.
 */
async function runWorker(flags: Flags): Promise<void> {
  const index = Number(process.env[WORKER_INDEX_ENV] ?? 0);
  const sqlite = flags.storageBackend === 'sqlite';
  // The primary gone (killed) means the store's writer is gone: stop rather than serve half a server.
  process.once('disconnect', () => process.exit(1));
  const options = startOptions(flags);
  const running = await startServer({
    ...options,
    storage: sqlite ? new SqliteReplica({ file: join(resolve(flags.dataDir), 'orch.db'), channel: primaryChannel() }) : await etcdStorage(flags),
    compactionIntervalMs: sqlite ? 0 : options.compactionIntervalMs,
    controllersEnabled: !sqlite || flags.leaderElect === true || index === 0,
  });
  onSignals(async () => {
    process.removeAllListeners('disconnect');
    await running.shutdown();
  });
  process.send!({ ctl: 'listening', url: running.url } satisfies ListeningMessage);
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
  if (cluster.isWorker) return runWorker(flags);
  const started = Date.now();
  if (flags.workers > 1) {
    const primary = await startPrimary({ ...startOptions(flags), workers: flags.workers, sqlite: flags.storageBackend === 'sqlite', compactionIntervalMs: flags.compactionIntervalMs });
    announce(primary.url, primary.orchconfigPath, started);
    onSignals(async (signal) => {
      console.log(`received ${signal}, shutting down`);
      await primary.shutdown();
    });
    return;
  }
  const running = await startServer({ ...startOptions(flags), storage: flags.storageBackend === 'etcd3' ? await etcdStorage(flags) : undefined });
  announce(running.url, running.orchconfigPath, started);
  onSignals(async (signal) => {
    console.log(`received ${signal}, shutting down`);
    await running.shutdown();
  });
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
