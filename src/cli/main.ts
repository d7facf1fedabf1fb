/**
 * `orch-apiserver`: parses the flags, starts the server, and on SIGTERM/SIGINT
 * shuts down gracefully (SPEC 4.10 --shutdown-delay-duration) and exits 0.
 */
import * as api from '../generated/index.ts';
import { startServer } from '../server/start.ts';
import { EtcdStorage } from '../storage/etcd3/etcd-storage.ts';
import { FlagError, parseFlags, usage } from './flags.ts';

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
  const started = Date.now();
  const running = await startServer({
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
    admissionPlugins: flags.admissionPlugins,
    authorizationConfigFile: flags.authorizationConfig,
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
    storage: flags.storageBackend === 'etcd3' ? await EtcdStorage.connect({ servers: flags.etcdServers, prefix: flags.etcdPrefix, callTimeoutMs: flags.requestTimeoutMs }) : undefined,
  });
  console.log(`orch-apiserver serving on ${running.url} (ready in ${Date.now() - started} ms)`);
  console.log(`admin credentials: ${running.orchconfigPath}  (kubectl --kubeconfig ${running.orchconfigPath} get namespaces)`);
  const stop = (signal: string) => {
    console.log(`received ${signal}, shutting down`);
    running.shutdown().then(
      () => process.exit(0),
      (err) => {
        console.error('shutdown failed:', err);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
