/**
 * The composition root: storage, authentication, authorization, admission, the
 * API server and its HTTPS listener, health checks and graceful shutdown
 * (SPEC 4.10, 5).
 */
import { storedResourcePrefix } from '../registry/kind.ts';
import { ProtobufCodec } from '../api/protobuf/codec.ts';
import { createServer } from 'node:https';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { namespaceLifecycle, SYSTEM_NAMESPACES } from '../admission/namespace-lifecycle.ts';
import { tokenChain, withAuthenticatedGroup, type TokenAuthenticator } from '../auth/authentication/authenticator.ts';
import { buildAuthentication } from './authentication.ts';
import { prepareServerFiles } from './server-files.ts';
import { ServingCertificates } from './serving-certificates.ts';
import { lazyIssuerDiscovery, JWKS_PATH } from './issuer-discovery.ts';
import { externalAddress } from './external-address.ts';
import { markLegacyTokenUsed, serviceAccountTokenAuthenticator } from '../auth/serviceaccount/tokens.ts';
import { tokenRequest } from '../auth/serviceaccount/token-request.ts';
import { objectReader } from '../registry/object-reader.ts';
import { bootstrapTokenAuthenticator } from '../auth/bootstrap/bootstrap-authenticator.ts';
import { serviceAccountAdmission } from '../admission/service-account.ts';
import { defaultIngressClass } from '../admission/default-ingress-class.ts';
import { rbacEscalationCheck } from '../admission/rbac-escalation.ts';
import { nodeRestriction } from '../admission/node-restriction.ts';
import { ADMISSION_PLUGINS, chainHooks } from '../admission/plugins.ts';
import type { Admission, AdmissionHook } from '../registry/store.ts';
import { NodeGraph } from '../auth/node/node-graph.ts';
import { nodeAuthorizer } from '../auth/node/node-authorizer.ts';
import { webhookTokenAuthenticator } from '../auth/authentication/webhook-token.ts';

import { selfSubjectReview } from '../auth/reviews/self-subject-review.ts';
import { tokenReview } from '../auth/reviews/token-review.ts';
import { localSubjectAccessReview, selfSubjectAccessReview, selfSubjectRulesReview, subjectAccessReview } from '../auth/reviews/access-reviews.ts';
import { loadTokenFile } from '../auth/authentication/token-file.ts';
import { DEFAULT_AUTHORIZATION_MODES, entriesFromFlags } from '../auth/authorization/authorizer-entries.ts';
import { abacAuthorizer } from '../auth/authorization/abac-authorizer.ts';
import { loadPolicyFile } from '../auth/authorization/abac-policy-file.ts';
import type { Authorizer } from '../auth/authorization/authorizer.ts';
import { readAuthorizationConfiguration, serverAuthorizer } from './authorization.ts';
import { rbacAuthorizer } from '../auth/authorization/rbac-authorizer.ts';
import { CachedRbacSource } from '../auth/authorization/rbac-source.ts';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapRoleBindings, bootstrapRoles, RBAC_GROUP } from '../auth/authorization/bootstrap-policy.ts';
import { reconcileBootstrapPolicy } from '../auth/authorization/rbac-bootstrap.ts';
import { ensureMandatoryFlowControl } from '../registry/flowcontrol-bootstrap.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { parseStored } from '../registry/object-meta.ts';
import { objectKey } from '../storage/keys.ts';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage.ts';
import { RevisionSpaces } from '../storage/revision-spaces.ts';
import { CrdFinalizer } from '../controllers/crd-finalizer.ts';
import { CrdNamesController } from '../controllers/crd-names.ts';
import { CRD_GROUP, CRD_PLURAL, CustomResourceServing } from './custom-resources.ts';
import { startCompactor } from '../storage/compactor.ts';
import { resourcePrefix } from '../storage/keys.ts';
import { ApiServer } from './api-server.ts';
import { Auditor } from '../audit/request-audit.ts';
import type { RunningServer, StartOptions } from './start-options.ts';
export type { RunningServer, StartOptions } from './start-options.ts';
import { controllerManager } from './controllers.ts';
import { guardConnections, HEADERS_TIMEOUT_MS, MAX_HEADER_BYTES } from './connection-guard.ts';
import { HealthChecks, PostStartHook, type HealthCheck } from './endpoints/health.ts';
import { writeOrchconfig } from './orchconfig.ts';
import { featureEnabled } from './feature-gates.ts';
import { resolveRuntimeConfig } from './runtime-config.ts';
import { retryFor, setClampedInterval, sleep } from '../util/timers.ts';
import { collectLoadGarbage } from '../util/full-collection.ts';

/** kube-apiserver's --event-ttl default. */
const DEFAULT_EVENT_TTL_MS = 3_600_000;

/** How often certificate and CA files are read again (upstream's dynamic content checks each minute too). */
const CERTIFICATE_RELOAD_MS = 60_000;

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { dataDir, admin, serviceAccounts, tls, clientHost } = await prepareServerFiles(options);
  const storage = options.storage ?? new SqliteStorage({ file: join(dataDir, 'orch.db') });
  const minute = 60_000;
  // Every resource's store and watch cache (--etcd-servers-overrides); the main store holds all but the overridden ones.
  const spaces = new RevisionSpaces(storage, options.storageOverrides ?? [], {
    historyMs: options.watchHistoryMs ?? 5 * minute,
    maxEvents: 200_000,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? minute,
    maxWatcherBufferedBytes: options.watchBufferLimitBytes ?? 8 * 1024 * 1024,
  });

  const tokens = options.tokenAuthFile ? loadTokenFile(options.tokenAuthFile) : new Map();
  tokens.set(admin.token, admin.user);
  // One answer per token, made once: the hot path allocates nothing to authenticate.
  const tokenResults = new Map([...tokens].map(([token, user]) => [token, { user: withAuthenticatedGroup(user) }]));
  const tokenFile: TokenAuthenticator = async (token) => tokenResults.get(token) ?? null;
  const apiAudiences = serviceAccounts.apiAudiences;
  const reader = (group: string, plural: string) => {
    const kind = options.api.kinds.find((k) => k.group === group && k.plural === plural)!;
    return objectReader(spaces.storage(storedResourcePrefix(kind)), kind);
  };
  const readers = { serviceAccounts: reader('', 'serviceaccounts'), secrets: reader('', 'secrets'), pods: reader('', 'pods') };
  const authorizeWithSelectors = featureEnabled(options.featureGates, 'AuthorizeWithSelectors');
  const authorizationConfig = options.authorizationConfigFile === undefined ? undefined : readAuthorizationConfiguration(options.authorizationConfigFile, authorizeWithSelectors);
  const authorizerEntries = authorizationConfig?.entries ?? options.authorizers ?? entriesFromFlags({ modes: DEFAULT_AUTHORIZATION_MODES, webhookVersion: 'v1beta1', webhookCacheAuthorizedTtlMs: 0, webhookCacheUnauthorizedTtlMs: 0 });
  // Upstream's order: token file, service-account tokens, bootstrap tokens, webhook.
  const tokenAuthenticators: TokenAuthenticator[] = [
    tokenFile,
    serviceAccountTokenAuthenticator({
      keys: serviceAccounts.verification,
      issuers: serviceAccounts.issuers,
      apiAudiences,
      lookup: serviceAccounts.lookup,
      ...readers,
      // Once a day per Secret, off the request's path, as upstream's legacy token tracking.
      markLegacyTokenUsed: (namespace, name, today) => void markLegacyTokenUsed(apiServer.store('', 'v1', 'secrets'), namespace, name, today),
    }),
    ...(options.enableBootstrapTokenAuth ? [bootstrapTokenAuthenticator(readers.secrets)] : []),
    ...(options.tokenWebhook ? [webhookTokenAuthenticator({ ...options.tokenWebhook, apiAudiences })] : []),
  ];
  const authentication = buildAuthentication(
    {
      clientCaFile: options.clientCaFile,
      requestHeader: options.requestHeader,
      anonymousAuth: options.anonymousAuth,
      authenticationConfigFile: options.authenticationConfigFile,
      alwaysAllow: authorizerEntries.some((entry) => entry.type === 'AlwaysAllow'),
      featureGates: options.featureGates ?? {},
      apiAudiences,
    },
    tokenAuthenticators,
  );
  const authenticate = authentication.authenticate;

  /** A core object as the watch cache holds it; read-only, the parsed copy is shared. */
  const cached = (plural: string, namespace: string | undefined, name: string): ApiObject | undefined =>
    spaces.cache(resourcePrefix('', plural)).get(objectKey('', plural, namespace, name))?.parsed();
  // As upstream's NamespaceLifecycle: the watch cache first, a live read only when the cache has
  // not seen the namespace (one created a moment ago).
  const getNamespace = async (name: string): Promise<ApiObject | null> => {
    const hit = cached('namespaces', undefined, name);
    if (hit) return hit;
    const kv = await spaces.storage(resourcePrefix('', 'namespaces')).get(objectKey('', 'namespaces', undefined, name));
    return kv ? parseStored(kv.value, kv.modRevision) : null;
  };

  const lifecycle = namespaceLifecycle(getNamespace);
  const serviceAccountPlugin = serviceAccountAdmission(readers.serviceAccounts);
  const requestTimeoutMs = options.requestTimeoutMs ?? minute;
  // One cache per key space: kinds stored in another group's share its cache.
  await spaces.start([...new Set(options.api.kinds.filter((k) => k.stored).map((k) => storedResourcePrefix(k)))]);
  // The caches hold strings: buffers the load left are garbage, and nothing may allocate enough to collect them.
  collectLoadGarbage();
  // Each store compacts its own revisions.
  const compactors = spaces.all().map((space) => startCompactor(space.storage, options.compactionIntervalMs ?? 5 * minute));
  // SPEC 5.1: the chain is built once the watch cache feeds the authorizers that read objects.
  const rbacIndex = new CachedRbacSource(spaces);
  const rbac = rbacAuthorizer(rbacIndex);
  // The Node authorizer's graph follows the pods in the watch cache; made once, only when a chain has the mode.
  let node: Authorizer | undefined;
  let authorization: ReturnType<typeof serverAuthorizer>;
  try {
    authorization = serverAuthorizer(
      authorizerEntries,
      authorizationConfig,
      {
        RBAC: () => rbac,
        Node: () => (node ??= nodeAuthorizer(NodeGraph.fromCache(spaces.cache(resourcePrefix('', 'pods'))))),
        // ABAC's policy file is read here, once, as upstream reads it when building the chain.
        ABAC: (entry) => abacAuthorizer(loadPolicyFile(entry.policyFile)),
      },
      authorizeWithSelectors,
    );
  } catch (err) {
    throw new Error(`invalid authorization config: ${(err as Error).message}`);
  }
  const authorizer = authorization.authorizer;
  const escalationCheck = rbacEscalationCheck({ authorizer, resolver: rbacIndex, source: rbacIndex, fresh: () => spaces.waitUntilFresh(requestTimeoutMs || 60_000) });

  // Admission in upstream's order (mutating plugins, then validating ones), of the plugins the flags leave on.
  const admissionPlugins = new Set(options.admissionPlugins ?? ADMISSION_PLUGINS);
  const mutating: AdmissionHook[] = [];
  const validating: AdmissionHook[] = [];
  if (admissionPlugins.has('NamespaceLifecycle')) validating.push(lifecycle);
  if (admissionPlugins.has('ServiceAccount')) {
    mutating.push(serviceAccountPlugin.mutate);
    validating.push(serviceAccountPlugin.validate);
  }
  if (admissionPlugins.has('NodeRestriction')) {
    mutating.push(nodeRestriction({ node: (name) => cached('nodes', undefined, name), pod: (namespace, name) => cached('pods', namespace, name) }));
  }
  if (admissionPlugins.has('DefaultIngressClass')) {
    const ingressClasses = resourcePrefix('networking.orch.io', 'ingressclasses');
    mutating.push(defaultIngressClass(() => spaces.cache(ingressClasses).list(ingressClasses).map((cached) => cached.parsed())));
  }
  // RBAC's escalation check is not a plugin: upstream's role and binding storage runs it after
  // the mutating plugins and before validation, whatever the flags say.
  mutating.push(escalationCheck);
  const admission: Admission = { mutate: chainHooks(mutating), validate: chainHooks(validating) };
  const serviceAccountKind = options.api.kinds.find((k) => k.group === '' && k.plural === 'serviceaccounts')!;

  let shuttingDown = false;
  const healthcheckTimeoutMs = options.healthcheckTimeoutMs ?? 2000;
  const readycheckTimeoutMs = options.readycheckTimeoutMs ?? 2000;
  const systemNamespaces = new PostStartHook('poststarthook/start-system-namespaces-controller');
  const rbacBootstrap = new PostStartHook('poststarthook/rbac/bootstrap-roles');
  const flowControlBootstrap = new PostStartHook('poststarthook/priority-and-fairness-config-producer');
  const checks: HealthCheck[] = [
    { name: 'ping', check: async () => {} },
    { name: 'log', check: async () => {} },
    // As kube-apiserver 1.31: the checks ping --etcd-servers only, not the overrides' servers (upstream adds etcd-override-<n> checks in 1.34).
    { name: storage.name, check: () => storage.ping(healthcheckTimeoutMs), timeoutMs: healthcheckTimeoutMs },
    { name: `${storage.name}-readiness`, check: () => storage.ping(readycheckTimeoutMs, true), timeoutMs: readycheckTimeoutMs, readyzOnly: true },
    { name: 'watch-cache', check: () => spaces.check(), readyzOnly: true },
    systemNamespaces,
    rbacBootstrap,
    flowControlBootstrap,
    {
      name: 'shutdown',
      readyzOnly: true,
      check: async () => {
        if (shuttingDown) throw new Error('process is shutting down');
      },
    },
  ];
  const health = new HealthChecks(checks, options.livezGracePeriodMs);

  let apiServer!: ApiServer;
  // Receiving a request may not outlast its deadline by much: a body still arriving after the
  // 504 is cut off. Without a request timeout, Node's default of 5 minutes still bounds it.
  const receiveTimeoutMs = requestTimeoutMs ? requestTimeoutMs + 5_000 : 300_000;
  // Go's ReadHeaderTimeout bounds the handshake and a request's head alike (and so may a short request timeout).
  const headersTimeoutMs = Math.min(HEADERS_TIMEOUT_MS, receiveTimeoutMs);
  const sni = options.tlsSniCertKeys ?? [];
  const serving = new ServingCertificates(
    { cert: tls.cert, key: tls.key, files: tls.files, sni, minVersion: options.tlsMinVersion, ciphers: options.tlsCiphers },
    authentication.caText,
  );
  const server = createServer(
    {
      ...serving.options(),
      ...(sni.length ? { SNICallback: serving.sniCallback } : {}),
      maxHeaderSize: MAX_HEADER_BYTES,
      // connectionVerdict answers a missing Host with a Status instead of Node's bare 400.
      requireHostHeader: false,
      headersTimeout: headersTimeoutMs,
      requestTimeout: receiveTimeoutMs,
      // How often Node enforces the two timeouts above (30 s by default).
      connectionsCheckingInterval: 1_000,
      handshakeTimeout: headersTimeoutMs,
      // Client certificates are asked for, never required; each authenticator verifies its own bundle.
      requestCert: authentication.tls.requestCert,
      rejectUnauthorized: false,
    },
    options.load
      ? (req, res) => {
          options.load!.onRequest(req, res);
          void apiServer.handle(req, res);
        }
      : (req, res) => void apiServer.handle(req, res),
  );
  server.keepAliveTimeout = 65_000;
  // Go counts header bytes, not headers: all of them are read, within MAX_HEADER_BYTES.
  server.maxHeadersCount = 0;
  guardConnections(server, headersTimeoutMs);
  // Renewed certificate and CA files are served without a restart, as upstream's dynamic serving content.
  const certificateReload = setClampedInterval(() => {
    const caChanged = authentication.reloadCaFiles();
    if (serving.reload(caChanged)) server.setSecureContext(serving.options());
  }, CERTIFICATE_RELOAD_MS);
  certificateReload.unref();
  await (options.listen?.(server) ??
    new Promise<void>((resolveListen, rejectListen) => {
      server.once('error', rejectListen);
      server.listen({ port: options.port, host: options.bindAddress, reusePort: options.reusePort === true }, () => resolveListen());
    }));
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = clientHost.includes(':') ? `[${clientHost}]` : clientHost;
  const advertised = externalAddress(options, port);
  // One codec: the API answers and the audit of protobuf bodies read the same compiled messages.
  const protobuf = new ProtobufCodec(options.api.protobuf);
  const enablement = resolveRuntimeConfig(options.runtimeConfig ?? {}, options.api.kinds);
  apiServer = new ApiServer({
    api: options.api,
    spaces,
    enablement,
    responseCompression: featureEnabled(options.featureGates, 'APIResponseCompression'),
    watch: { watchList: featureEnabled(options.featureGates, 'WatchList'), minRequestTimeoutSeconds: options.minRequestTimeoutSeconds ?? 1800 },
    limits: {
      requestTimeoutMs,
      maxRequestsInflight: options.maxRequestsInflight ?? 400,
      maxMutatingRequestsInflight: options.maxMutatingRequestsInflight ?? 200,
    },
    authenticate,
    authorizer,
    requestInfo: { authorizeWithSelectors },
    admission,
    health,
    serverAddress: advertised,
    deletion: options.deletion,
    metrics: options.metrics,
    watchCache: options.watchCache,
    auditor: options.audit && new Auditor(options.audit.evaluator, options.audit.sink, protobuf),
    protobuf,
    staticDocuments: lazyIssuerDiscovery(serviceAccounts.issuers[0], options.serviceAccountJwksUri ?? `https://${advertised}${JWKS_PATH}`, serviceAccounts.verification),
  });

  // SPEC 2.1: kinds CustomResourceDefinitions define, served by every process once Established.
  const customResources = new CustomResourceServing(apiServer, spaces, options.api.decodeObjectMeta);
  await customResources.start();
  const crdStatus = apiServer.subresourceStore(CRD_GROUP, 'v1', CRD_PLURAL, 'status');
  // Upstream runs these in every apiextensions-apiserver, not under leader election: their writes are compare-and-swap.
  const crdControllers =
    options.controllersEnabled === false
      ? []
      : [
          new CrdNamesController(crdStatus, spaces),
          new CrdFinalizer(apiServer.store(CRD_GROUP, 'v1', CRD_PLURAL), crdStatus, spaces, (crd) => apiServer.customStore(crd.spec?.group, crd.status?.acceptedNames?.plural)),
        ];
  for (const controller of crdControllers) controller.start();

  // SPEC 2.8, 4.11: reviews computed on create.
  apiServer.serveComputed('authentication.orch.io', 'v1', 'selfsubjectreviews', undefined, selfSubjectReview);
  apiServer.serveComputed('authentication.orch.io', 'v1', 'tokenreviews', undefined, tokenReview({ authenticateToken: tokenChain(tokenAuthenticators), apiAudiences }));

  const authz = 'authorization.orch.io';
  const reviewOptions = { authorizeWithSelectors };
  apiServer.serveComputed(authz, 'v1', 'subjectaccessreviews', undefined, subjectAccessReview(authorizer, reviewOptions));
  apiServer.serveComputed(authz, 'v1', 'selfsubjectaccessreviews', undefined, selfSubjectAccessReview(authorizer, reviewOptions));
  apiServer.serveComputed(authz, 'v1', 'localsubjectaccessreviews', undefined, localSubjectAccessReview(authorizer, reviewOptions));
  apiServer.serveComputed(authz, 'v1', 'selfsubjectrulesreviews', undefined, selfSubjectRulesReview(authorizer));
  apiServer.serveComputed(
    '',
    'v1',
    'serviceaccounts',
    'token',
    tokenRequest({
      signing: serviceAccounts.signing,
      issuer: serviceAccounts.issuers[0],
      apiAudiences,
      maxExpirationSeconds: serviceAccounts.maxExpirationSeconds,
      extendExpiration: serviceAccounts.extendExpiration,
      ...readers,
      // A create of serviceaccounts/token, admitted as upstream admits it.
      admit: (phase, body, { namespace, parentName, dryRun, user }) =>
        admission[phase]({ operation: 'CREATE', kind: serviceAccountKind, subresource: 'token', namespace, name: parentName ?? '', object: body, oldObject: null, dryRun, user }),
    }),
  );

  const namespaces = apiServer.store('', 'v1', 'namespaces');
  const rbacStore = (plural: string) => apiServer.store(RBAC_GROUP, 'v1', plural);
  const flowcontrolStore = (plural: string) => apiServer.store('flowcontrol.orch.io', 'v1', plural);
  // The post-start hooks run side by side, as upstream's do, so that a first start commits their objects
  // together; the roles and bindings in the system namespaces wait for those (upstream's hook retries).
  // SPEC 2.1 / FACTS 15: the system namespaces exist from the first start.
  const systemNamespacesCreated = systemNamespaces.run(async () => {
    await Promise.all(
      SYSTEM_NAMESPACES.map(async (name) => {
        if (await getNamespace(name)) return;
        try {
          await namespaces.create(undefined, { metadata: { name } }, { dryRun: false });
        } catch (err) {
          if ((err as { reason?: string }).reason !== 'AlreadyExists') throw err;
        }
      }),
    );
  });
  await Promise.all([
    // SPEC 5.5: the default roles and bindings, reconciled at every start; retried for 30 s as upstream's hook.
    systemNamespacesCreated.then(() =>
      rbacBootstrap.run(() =>
        retryFor(30_000, 1_000, () =>
          reconcileBootstrapPolicy(
            { clusterRoles: rbacStore('clusterroles'), clusterRoleBindings: rbacStore('clusterrolebindings'), roles: rbacStore('roles'), roleBindings: rbacStore('rolebindings') },
            { clusterRoles: bootstrapClusterRoles(), clusterRoleBindings: bootstrapClusterRoleBindings(), roles: bootstrapRoles(), roleBindings: bootstrapRoleBindings() },
          ),
        ),
      ),
    ),
    // The mandatory API Priority and Fairness objects, restored at every start while flowcontrol.orch.io/v1 is served.
    flowControlBootstrap.run(async () => {
      if (!enablement.resourceEnabled('flowcontrol.orch.io', 'v1', 'flowschemas')) return;
      await retryFor(30_000, 1_000, () => ensureMandatoryFlowControl({ priorityLevels: flowcontrolStore('prioritylevelconfigurations'), flowSchemas: flowcontrolStore('flowschemas') }));
    }),
  ]);

  const url = `https://${hostForUrl}:${port}`;
  // SPEC 2.9, 3, 5.2: the controllers kube-controller-manager would run, on the leading replica.
  const controllers = controllerManager({
    apiServer,
    caches: spaces,
    eventStorage: spaces.storage(resourcePrefix('', 'events')),
    eventTtlMs: options.eventTtlMs ?? DEFAULT_EVENT_TTL_MS,
    garbageCollection: options.deletion?.garbageCollection ?? true,
    url,
    caPem: tls.ca,
    signing: serviceAccounts.signing,
    selection: options.controllers ?? ['*'],
    // With etcd, replicas share the store; the embedded SQLite store has one process.
    leaderElection: options.leaderElection ?? { enabled: storage.name !== 'sqlite' },
  });
  if (options.controllersEnabled !== false) controllers.start();

  const orchconfigPath = join(dataDir, 'admin.orchconfig');
  if (options.writesOrchconfig !== false) writeOrchconfig(orchconfigPath, url, tls.ca, admin.token);

  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    (stopping ??= (async () => {
      shuttingDown = true;
      await sleep(options.shutdownDelayMs);
      if (options.shutdownSendRetryAfter) await apiServer.refuseNewRequests();
      // Watches end cleanly with the listener: clients see the stream close and re-watch elsewhere.
      for (const compactor of compactors) compactor.stop();
      clearInterval(certificateReload);
      authorization.stop();
      await controllers.stop();
      for (const controller of crdControllers) controller.stop();
      customResources.stop();
      spaces.stop();
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeIdleConnections();
      });
      await options.beforeStorageClose?.();
      await spaces.close();
    })());
  return { url, port, adminToken: admin.token, caPem: tls.ca, orchconfigPath, shutdown, server, apiServer, controllerManager: controllers };
}
