/**
 * The request path (DESIGN "One request, one direction"): request info ->
 * authentication -> authorization -> negotiation -> handler -> store ->
 * storage. Routes come from the generated kind registry; nothing here knows
 * a kind by name.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as errors from '../api/status-error.ts';
import { attributesFor, type Authorizer } from '../auth/authorization/authorizer.ts';
import { authorizeRequest } from '../auth/authorization/forbidden.ts';
import type { UserInfo } from '../auth/user.ts';
import type { ResourceRequest } from '../handlers/context.ts';
import { handleGet, handleList } from '../handlers/read.ts';
import { handleCreate, handleDelete, handleDeleteCollection, handleUpdate } from '../handlers/write.ts';
import { apiVersionOf, storageGroupOf, type BodyKind, type GeneratedApi, type KindDefinition, storedResourcePrefix } from '../registry/kind.ts';
import type { ComputedCreate } from '../registry/computed.ts';
import { handleComputedCreate } from '../handlers/computed.ts';
import type { ObjectReader } from '../registry/object-reader.ts';
import { strategyFor } from '../registry/strategies/index.ts';
import { finalizeSubresourceStrategy, statusSubresourceStrategy, withStatusReset, type Strategy } from '../registry/strategy.ts';
import type { CustomKind } from '../registry/custom-resources/kind.ts';
import { DEFAULT_DELETION, GenericStore, type Admission, type DeletionSettings } from '../registry/store.ts';
import type { KeyValue, Storage } from '../storage/interface.ts';
import { parseResourcePrefix } from '../storage/keys.ts';
import type { Cacher } from '../storage/cacher/cacher.ts';
import type { RevisionSpace, RevisionSpaces } from '../storage/revision-spaces.ts';
import { handleWatch, type WatchSettings } from '../handlers/watch.ts';
import { handlePatch } from '../handlers/patch.ts';
import { withBuiltinScale } from '../registry/builtin-scale.ts';
import { withBuiltinConversion } from '../registry/conversions/index.ts';
import { handleScaleGet, handleScalePatch, handleScaleUpdate } from '../handlers/scale.ts';
import { buildDiscovery, type DiscoveryDocuments } from './discovery.ts';
import type { HealthChecks, HealthEndpoint } from './health.ts';
import { OpenApiPublisher } from './openapi.ts';
import type { CustomOpenApiPart } from './custom-openapi.ts';
import { impersonate } from '../auth/impersonation.ts';
import { connectionVerdict } from './connection-guard.ts';
import { resolveRequestInfo, type RequestInfo, type RequestInfoOptions } from '../http/request-info.ts';
import { deadlineFor, Deadlines, InflightLimiter, isLongRunning, type Deadline, type RequestLimits } from './request-limits.ts';
import { parseRequestTarget } from '../http/request-target.ts';
import { asksProtobufStatus, JSON_TYPE, negotiate, parseAccept, SERVED_MEDIA_TYPES, type PartialMetadataRequest } from '../http/negotiation.ts';
import { wantsPretty, writeError, writeJsonText, writeText, type EncodeOptions } from '../http/respond.ts';
import { versionInfo } from './version.ts';
import { WatchCacheSettings } from './watch-cache-settings.ts';
import { ProtobufCodec } from '../api/protobuf/codec.ts';
import { PROTOBUF_TYPE } from '../api/protobuf/envelope.ts';
import type { StaticDocuments } from './issuer-discovery.ts';
import { singleProcessMetrics, type MetricsSource, type RegistryName } from './metrics/pool-metrics.ts';
import { monitorRequest } from './metrics/request-metrics.ts';
import { reportInflight, reportStoredObjects } from '../metrics/registry.ts';
import { annotateRequest, type Auditor, type RequestAudit } from '../audit/request-audit.ts';
import { acceptsGzip } from '../http/gzip-body.ts';
import type { ApiEnablement } from './runtime-config.ts';
import type { DeadlineSignal } from '../util/deadline-signal.ts';

export interface ApiServerOptions {
  api: GeneratedApi;
  /** --request-timeout and the in-flight limits. */
  limits: RequestLimits;
  /** Each resource's store and watch cache (--etcd-servers-overrides). */
  spaces: RevisionSpaces;
  watch: WatchSettings;
  /** --runtime-config: the built-in resources served; the others keep their stores for the server's own use (runtime-config.ts). */
  enablement: ApiEnablement;
  /** Gate APIResponseCompression (SPEC 9.6): gzip of large responses to clients that accept it. */
  responseCompression: boolean;
  authenticate: (req: IncomingMessage, path: string) => Promise<UserInfo>;
  authorizer: Authorizer;
  /** Feature gates that change what request info carries (AuthorizeWithSelectors). */
  requestInfo?: RequestInfoOptions;
  admission: Admission;
  health: HealthChecks;
  /** host:port clients reach us at, for discovery's serverAddressByClientCIDRs. */
  serverAddress: string;
  /** Fixed documents served at non-resource paths (service-account issuer discovery). */
  staticDocuments?: StaticDocuments;
  /** --enable-garbage-collector and --delete-collection-workers. */
  deletion?: DeletionSettings;
  /** Where /metrics text comes from (default: this process's registry alone). */
  metrics?: MetricsSource;
  /** --watch-cache and --watch-cache-sizes (every resource but events through the cache when absent). */
  watchCache?: WatchCacheSettings;
  /** --audit-policy-file with a backend (SPEC 9.5); absent: nothing is audited. */
  auditor?: Auditor;
  /** The protobuf codec of the built-in kinds, shared with the auditor (made from `api` when absent). */
  protobuf?: ProtobufCodec;
}

interface Route {
  kind: KindDefinition;
  /** Absent for a kind that is not stored (a review). */
  store?: GenericStore;
  /** The store and watch cache that hold the kind's objects (the main ones for a kind not stored). */
  space: RevisionSpace;
  /** Stores of the kind's subresources that are the same object under another strategy. */
  subresources: Map<string, GenericStore>;
  /** What a POST computes, for a review or an action subresource ('' = the resource itself). */
  computed: Map<string, { kind: BodyKind; compute: ComputedCreate }>;
  /** Clients' reads and watches go to storage, not the watch cache (--watch-cache, --watch-cache-sizes). */
  fromStorage: boolean;
  /** Whether the kind has a protobuf message (the built-in kinds; SPEC 4.7). */
  protobuf: boolean;
}

/** Upstream's defaults: the watch cache on, events read from the store. */
const DEFAULT_WATCH_CACHE = new WatchCacheSettings();

const routeKey = (kind: { group: string; version: string; plural: string }) => `${kind.group}/${kind.version}/${kind.plural}`;

export class ApiServer {
  private readonly routes = new Map<string, Route>();
  private discovery: DiscoveryDocuments;
  /** The structure model of every schema, built-in and custom, for apply and strategic merge. */
  private readonly structure: Record<string, any>;
  private readonly customKinds = new Map<string, KindDefinition>();
  /** Routes of built-in resources --runtime-config disables: 404 as a path never served, but their stores stay for controllers and authorizers. */
  private readonly unserved = new Set<string>();
  private readonly openapi: OpenApiPublisher;
  /** Protobuf of the built-in kinds (SPEC 4.7). */
  private readonly protobuf: ProtobufCodec;
  /** Which resources clients read through the watch cache. */
  private readonly watchCache: WatchCacheSettings;
  private readonly inflight: InflightLimiter;
  private readonly deadlines: Deadlines;
  /** Requests in flight that are not long-running: a graceful shutdown waits for them (upstream WithWaitGroup). */
  private shortInFlight = 0;
  private readonly drained: Array<() => void> = [];
  /** Set once a shutdown with --shutdown-send-retry-after has begun: new requests get 429. */
  private refusingNewRequests = false;

  constructor(private readonly options: ApiServerOptions) {
    this.structure = { ...options.api.structure };
    this.protobuf = options.protobuf ?? new ProtobufCodec(options.api.protobuf);
    this.watchCache = options.watchCache ?? DEFAULT_WATCH_CACHE;
    for (const generated of options.api.kinds) {
      const kind = withBuiltinConversion(withBuiltinScale(generated), options.api.kinds);
      if (!options.enablement.resourceEnabled(kind.group, kind.version, kind.plural)) this.unserved.add(routeKey(kind));
      if (!kind.stored) {
        this.routes.set(routeKey(kind), { kind, space: options.spaces.main, subresources: new Map(), computed: new Map(), fromStorage: false, protobuf: this.protobuf.supports(apiVersionOf(kind), kind.kind) });
        continue;
      }
      const fromStorage = !this.watchCache.servesBuiltIn(storageGroupOf(kind), kind.plural);
      this.routes.set(routeKey(kind), this.storedRoute(kind, strategyFor(kind.group, kind.kind), fromStorage));
    }
    this.discovery = buildDiscovery(this.servedBuiltinKinds(), options.serverAddress);
    this.openapi = new OpenApiPublisher(options.api, (group, version, plural) => options.enablement.resourceEnabled(group, version, plural));
    this.inflight = new InflightLimiter(options.limits);
    reportInflight(() => Object.entries(this.inflight.current()));
    reportStoredObjects(() => storedObjectsByResource(options.spaces));
    this.deadlines = new Deadlines(options.limits.requestTimeoutMs);
  }

  private servedBuiltinKinds(): KindDefinition[] {
    return this.options.api.kinds.filter((kind) => !this.unserved.has(routeKey(kind)));
  }

  /** The stores of a stored kind: the resource and its status or finalize subresource, reading through its watch cache. */
  private storedRoute(kind: KindDefinition, strategy: Strategy, fromStorage: boolean): Route {
    const { admission } = this.options;
    const space = this.options.spaces.forPrefix(storedResourcePrefix(kind));
    const { storage } = space;
    const hasStatus = kind.subresources.some((s) => s.name === 'status');
    const cache = space.cacher.cache(storedResourcePrefix(kind));
    const cachedLookup = (key: string): KeyValue | undefined => {
      const cached = cache.get(key);
      return cached && { key, value: cached.value, modRevision: cached.revision, createRevision: 0 };
    };
    const mainStrategy = hasStatus ? withStatusReset(strategy) : strategy;
    const deletion = this.options.deletion ?? DEFAULT_DELETION;
    const store = new GenericStore(kind, mainStrategy, storage, admission, cachedLookup, '', deletion);
    const subresources = new Map<string, GenericStore>();
    for (const sub of kind.subresources) {
      // A scale write is a write of the object itself (upstream's ScaleREST updates through the main store), admitted as the scale subresource.
      const subStrategy =
        sub.name === 'status' ? statusSubresourceStrategy(strategy) : sub.name === 'finalize' ? finalizeSubresourceStrategy(strategy) : sub.name === 'scale' && kind.scale ? mainStrategy : undefined;
      if (subStrategy) subresources.set(sub.name, new GenericStore(kind, subStrategy, storage, admission, cachedLookup, sub.name, deletion));
    }
    return { kind, store, space, subresources, computed: new Map(), fromStorage, protobuf: this.protobuf.supports(apiVersionOf(kind), kind.kind) };
  }

  /**
   * Serves a kind defined at run time (a CustomResourceDefinition's version,
   * SPEC 2.1) once its watch cache exists; replaces an earlier definition of
   * the same resource. A resource a built-in kind already serves stays the
   * built-in's, as upstream's handler chain delegates to custom resources last.
   * Discovery shows it after `rebuildDiscovery`.
   */
  serveCustomKind(custom: CustomKind): boolean {
    const key = routeKey(custom.kind);
    if (this.routes.has(key) && !this.customKinds.has(key)) return false;
    this.structure[custom.kind.schemaName] = custom.structure;
    this.routes.set(key, this.storedRoute(custom.kind, custom.strategy, !this.watchCache.servesCustom()));
    this.customKinds.set(key, custom.kind);
    return true;
  }

  /** Stops serving a custom kind: its requests are 404 from now on. */
  withdrawCustomKind(group: string, version: string, plural: string): void {
    const key = `${group}/${version}/${plural}`;
    const kind = this.customKinds.get(key);
    if (!kind) return;
    this.customKinds.delete(key);
    this.routes.delete(key);
    delete this.structure[kind.schemaName];
  }

  /** The store of a served custom resource (any served version: they share one key space), or undefined. */
  customStore(group: string, plural: string): GenericStore | undefined {
    for (const [key, kind] of this.customKinds) if (kind.group === group && kind.plural === plural) return this.routes.get(key)?.store;
    return undefined;
  }

  /** The custom kinds served now, by `group/version/plural`. */
  servedCustomKinds(): ReadonlyMap<string, KindDefinition> {
    return this.customKinds;
  }

  /** Publishes the served custom kinds in discovery, once a batch of changes is done. */
  rebuildDiscovery(): void {
    this.discovery = buildDiscovery([...this.servedBuiltinKinds(), ...this.customKinds.values()], this.options.serverAddress);
  }

  /** Publishes the served custom kinds' OpenAPI paths and schemas (SPEC 4.1), once a batch of changes is done. */
  publishCustomOpenApi(parts: readonly CustomOpenApiPart[]): void {
    this.openapi.publishCustom(parts);
  }

  /** Every resource's main store, for controllers. */
  allStores(): GenericStore[] {
    return [...this.routes.values()].flatMap((r) => (r.store ? [r.store] : []));
  }

  /**
   * Serves POST on a review resource or an action subresource (SPEC 4.11) with
   * a function of the composition root's; the body is decoded as the
   * subresource's kind (TokenRequest for serviceaccounts/token) or the resource's.
   */
  serveComputed(group: string, version: string, plural: string, subresource: string | undefined, compute: ComputedCreate): void {
    const route = this.routes.get(`${group}/${version}/${plural}`);
    if (!route) throw new Error(`no resource ${group}/${version}/${plural}`);
    let kind: BodyKind = route.kind;
    if (subresource) {
      const sub = route.kind.subresources.find((s) => s.name === subresource);
      if (!sub?.verbs.includes('create')) throw new Error(`${plural}/${subresource} is not created through POST`);
      if (sub.kind && (sub.kind !== route.kind.kind || sub.group !== undefined)) {
        const body = this.options.api.bodyKinds.find((b) => b.group === sub.group && b.version === sub.version && b.kind === sub.kind);
        if (!body) throw new Error(`no body kind ${sub.group}/${sub.version} ${sub.kind}`);
        kind = body;
      }
    } else if (route.kind.stored) throw new Error(`${plural} is stored: its creates go through its store`);
    route.computed.set(subresource ?? '', { kind, compute });
  }

  /** The store of a subresource (e.g. namespaces/finalize), for controllers. */
  subresourceStore(group: string, version: string, plural: string, subresource: string): GenericStore {
    const store = this.routes.get(`${group}/${version}/${plural}`)?.subresources.get(subresource);
    if (!store) throw new Error(`no subresource ${group}/${version}/${plural}/${subresource}`);
    return store;
  }

  /** Reads one kind's objects from storage, for authenticators, admission and controllers. */
  reader(group: string, version: string, plural: string): ObjectReader {
    return this.store(group, version, plural).reader;
  }

  /** The store of a resource, for controllers and start-up hooks. */
  store(group: string, version: string, plural: string): GenericStore {
    const store = this.routes.get(`${group}/${version}/${plural}`)?.store;
    if (!store) throw new Error(`no stored resource ${group}/${version}/${plural}`);
    return store;
  }

  /**
   * One request, one direction: connection verdict, request target, request
   * info, deadline, authentication, impersonation, in-flight limit,
   * authorization, then the resource or non-resource handler.
   */
  handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const encode: EncodeOptions = { pretty: false, mediaType: JSON_TYPE, protobuf: this.protobuf, gzip: this.options.responseCompression && acceptsGzip(req.headers['accept-encoding']) };
    let deadline: Deadline | undefined;
    let release = () => {};
    let counted = false;
    let audit: RequestAudit | undefined;
    let requestInfo: RequestInfo | undefined;
    try {
      if (this.refusingNewRequests && !EXEMPT_FROM_RETRY_AFTER.test(req.url ?? '')) return refuseDuringShutdown(res);
      const refused = connectionVerdict(req);
      if (refused) throw refused;
      const target = parseRequestTarget(req.url ?? '');
      encode.pretty = wantsPretty(req, target.query);
      const info = (requestInfo = resolveRequestInfo(req.method ?? 'GET', target, this.options.requestInfo));
      // upstream's 401 and 403 on API resources are negotiated with the built-in codecs (ErrorNegotiated):
      // a client asking for protobuf gets its Status so. Discovery and other paths stay JSON.
      if (info.isResourceRequest && asksProtobufStatus(req)) encode.mediaType = PROTOBUF_TYPE;
      if (!isLongRunning(info)) {
        this.shortInFlight++;
        counted = true;
        const ms = deadlineFor(target.query, this.options.limits.requestTimeoutMs);
        deadline = this.deadlines.start(res, ms, () => writeError(res, errors.requestTimeout(), encode));
      }
      const authenticated = await this.options.authenticate(req, info.path);
      // upstream's order: audit after authentication, before impersonation.
      if (this.options.auditor && (audit = this.options.auditor.begin(req, res, info, authenticated, !counted))?.pending) await audit.pending;
      const user = await impersonate(req, authenticated, this.options.authorizer);
      if (audit && user !== authenticated) audit.impersonated(user);
      release = this.inflight.admit(info, user);
      const attributes = attributesFor(user, info);
      await authorizeRequest(this.options.authorizer, attributes, audit);
      if (info.isResourceRequest) await this.serveResource(req, res, info, target.query, user, encode, deadline);
      else await this.serveNonResource(req, res, info.path, target.query, encode);
    } catch (err) {
      if (this.options.auditor) auditFailure(this.options.auditor, audit, req, res, requestInfo, err);
      try {
        writeError(res, err, encode);
      } catch (failure) {
        // Like upstream's panic recovery: one request's failure ends that request, never the server.
        console.error('could not answer a request:', failure, 'after:', err);
        res.destroy();
      }
    } finally {
      release();
      deadline?.clear();
      if (counted && --this.shortInFlight === 0) for (const resolve of this.drained.splice(0)) resolve();
    }
  };

  /**
   * --shutdown-send-retry-after (upstream WithRetryAfter): from now on every new
   * request but the probes is answered 429 with Retry-After and its connection
   * closed, so clients go to another replica; resolves once the requests in
   * flight that are not long-running have finished.
   */
  refuseNewRequests(): Promise<void> {
    this.refusingNewRequests = true;
    if (this.shortInFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private async serveNonResource(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, encode: EncodeOptions): Promise<void> {
    const trimmed = path.length > 1 ? path.replace(/\/$/, '') : path;
    const health = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(trimmed);
    if (health) {
      const endpoint = health[1] as HealthEndpoint;
      if (!health[2]) return this.options.health.serveAll(endpoint, query, res);
      if (await this.options.health.serveOne(endpoint, health[2], res)) return;
      return writeText(res, 404, '404 page not found\n');
    }
    if ((trimmed === '/metrics' || trimmed === '/metrics/slis') && (req.method === 'GET' || req.method === 'HEAD')) {
      return this.serveMetrics(req, res, trimmed === '/metrics' ? 'metrics' : 'slis');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (this.discovery.legacy.has(trimmed) || trimmed === '/version') throw errors.methodNotAllowed();
      return writeText(res, 404, '404 page not found\n');
    }
    if (trimmed === '/version') return writeJsonText(res, 200, JSON.stringify(versionInfo()), encode);
    const document = await this.options.staticDocuments?.get(path);
    if (document) {
      // Upstream lets relying parties cache these for an hour.
      res.writeHead(200, { 'Content-Type': document.contentType, 'Cache-Control': 'public, max-age=3600' });
      res.end(req.method === 'HEAD' ? undefined : document.body);
      return;
    }
    if (this.openapi.serve(req, res, trimmed, query)) return;
    const aggregated = this.discovery.aggregated.get(trimmed);
    if (aggregated && wantsAggregatedDiscovery(req)) {
      if (req.headers['if-none-match'] === aggregated.etag) {
        res.writeHead(304, { ETag: aggregated.etag, Vary: 'Accept' });
        res.end();
        return;
      }
      res.writeHead(200, {
        'Content-Type': 'application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList',
        ETag: aggregated.etag,
        Vary: 'Accept',
        'Cache-Control': 'public',
      });
      res.end(aggregated.body);
      return;
    }
    const legacy = this.discovery.legacy.get(trimmed);
    if (legacy) return writeJsonText(res, 200, legacy, encode);
    if (/^\/apis?(\/|$)/.test(trimmed)) throw errors.routeNotFound();
    writeText(res, 404, '404 page not found\n');
  }

  /**
   * GET /metrics and /metrics/slis (SPEC 9.5): the pool's series in Prometheus
   * text format 0.0.4, as upstream's legacyregistry and slis handlers.
   */
  private async serveMetrics(req: IncomingMessage, res: ServerResponse, registry: RegistryName): Promise<void> {
    const source = this.options.metrics ?? singleProcessMetrics();
    const text = await source.gather(registry);
    res.writeHead(200, { 'Content-Type': source.contentType });
    res.end(req.method === 'HEAD' ? undefined : text);
  }

  /** A custom resource's scale subresource (SPEC 2.1): get, update and patch of its autoscaling/v1 Scale. */
  private serveScale(ctx: ResourceRequest): Promise<void> {
    const scaleKind = this.options.api.bodyKinds.find(isScale);
    if (!scaleKind) throw errors.routeNotFound();
    if (ctx.info.verb === 'get') return handleScaleGet(ctx, scaleKind);
    if (ctx.info.verb === 'update') return handleScaleUpdate(ctx, this.structure, scaleKind);
    return handleScalePatch(ctx, this.structure, scaleKind);
  }

  private async serveResource(
    req: IncomingMessage,
    res: ServerResponse,
    info: RequestInfo,
    query: URLSearchParams,
    user: UserInfo,
    encode: EncodeOptions,
    deadline: Deadline | undefined,
  ): Promise<void> {
    const key = `${info.group}/${info.version}/${info.resource}`;
    const route = this.routes.get(key);
    if (!route || this.unserved.has(key)) throw errors.routeNotFound();
    const { kind } = route;
    monitorRequest(req, res, info, query, kind, kind.deprecated);
    // A cluster-scoped kind has no namespaced path (`/api/v1/namespaces/{name}` is the namespace itself, not a prefix).
    if (!kind.namespaced && info.namespacedPath) throw errors.routeNotFound();
    if (kind.deprecated) {
      annotateDeprecated(req, kind.deprecated);
      // Upstream's installer adds the endpoint's deprecation warning ahead of whatever the handler warns.
      if (kind.deprecated.warning) encode.warnings = [kind.deprecated.warning, ...(encode.warnings ?? [])];
    }
    if (info.parts.length > 3) throw errors.routeNotFound();
    // SPEC 4.1, 4.2: a namespaced kind's objects live under a namespace; its cluster path is a
    // list-only collection. Unrouted paths are 404, a known path with another method 405 (FACTS 1.1).
    if (kind.namespaced && !info.namespacedPath && info.verb !== 'list' && info.verb !== 'watch') {
      throw info.name ? errors.routeNotFound() : errors.methodNotAllowed();
    }
    // SPEC 4.2: create is POST to a collection; update and patch address one object.
    if (info.verb === 'create' && info.name && !info.subresource) throw errors.methodNotAllowed();
    if ((info.verb === 'update' || info.verb === 'patch') && !info.name) throw errors.methodNotAllowed();
    // A review has no objects to address.
    if (!kind.stored && info.name) throw errors.routeNotFound();
    // The resource's own negotiation: a custom resource's 406 is JSON whatever the client asked for.
    encode.mediaType = JSON_TYPE;
    const negotiated = negotiate(req, info.verb, route.protobuf);
    encode.mediaType = negotiated.mediaType;
    const namespace = kind.namespaced ? info.namespace || undefined : undefined;
    let store = route.store;
    const scaleStore = info.subresource === 'scale' && kind.scale ? route.subresources.get('scale') : undefined;
    if (scaleStore) {
      if (!kind.subresources.some((s) => s.name === 'scale' && s.verbs.includes(info.verb))) throw errors.methodNotAllowed();
      const { storage, cacher } = route.space;
      return this.serveScale({ req, res, info, query, user, store: scaleStore, storage, cacher, namespace, encode, table: negotiated.table, partial: negotiated.partial, signal: deadline?.signal, fromStorage: route.fromStorage });
    }
    if (info.subresource) {
      const sub = kind.subresources.find((s) => s.name === info.subresource);
      const subStore = route.subresources.get(info.subresource);
      const computed = route.computed.get(info.subresource);
      if (!sub || (!subStore && !computed)) throw errors.routeNotFound();
      if (!sub.verbs.includes(info.verb)) throw errors.methodNotAllowed();
      if (computed) {
        const ctx = { req, res, query, user, encode, kind: computed.kind, namespace, parentName: info.name, signal: deadline?.signal };
        // A computed answer (a review, a token) is not transformed here: 406 before anything is done.
        if (negotiated.partial) throw errors.notAcceptable(SERVED_MEDIA_TYPES);
        return handleComputedCreate(ctx, computed.compute);
      }
      store = subStore;
    } else if (!kind.verbs.includes(info.verb)) {
      // No route serves this method here: upstream's router answers with its generic 405.
      throw errors.methodNotAllowed();
    }
    if (!store) {
      const computed = route.computed.get('');
      if (!computed) throw errors.routeNotFound();
      if (negotiated.partial) throw errors.notAcceptable(SERVED_MEDIA_TYPES);
      return handleComputedCreate({ req, res, query, user, encode, kind: computed.kind, namespace, signal: deadline?.signal }, computed.compute);
    }
    const { storage, cacher } = route.space;
    const ctx = new ResourceRequestContext(req, res, info, query, user, store, storage, cacher, namespace, encode, negotiated.table, negotiated.partial, deadline, route.fromStorage);
    switch (info.verb) {
      case 'get':
        return handleGet(ctx);
      case 'list':
        return handleList(ctx);
      case 'watch':
        return handleWatch(ctx, cacher, this.options.watch);
      case 'create':
        return handleCreate(ctx, this.structure);
      case 'update':
        return handleUpdate(ctx, this.structure);
      case 'patch':
        return handlePatch(ctx, this.structure);
      case 'delete':
        return handleDelete(ctx);
      case 'deletecollection':
        return handleDeleteCollection(ctx);
      default:
        throw errors.methodNotSupported(store.groupResource, info.verb);
    }
  }
}

/** The watch cache's object counts by group-resource (`plural.group`, `plural` for the core group), as upstream labels them. */
function* storedObjectsByResource(spaces: RevisionSpaces): Iterable<[string, number]> {
  for (const [prefix, count] of spaces.objectCounts()) {
    const parsed = parseResourcePrefix(prefix);
    if (parsed) yield [parsed.group ? `${parsed.resource}.${parsed.group}` : parsed.resource, count];
  }
}

/**
 * What a failed request's audit records: a failed authentication is audited
 * without a user (upstream WithFailedAuthenticationAudit); anything thrown that
 * is not a Status is the Panic stage (upstream's recovered panic).
 */
function auditFailure(auditor: Auditor, audit: RequestAudit | undefined, req: IncomingMessage, res: ServerResponse, info: RequestInfo | undefined, err: unknown): void {
  if (!audit && info && err instanceof errors.StatusError && err.code === 401) auditor.unauthenticated(req, res, info);
  else if (audit && !(err instanceof errors.StatusError) && !res.headersSent) audit.failed(err);
}

/** FACTS 9.5: a call to a deprecated version is marked on its audit event (upstream endpoints/metrics deprecatedAnnotationKey). */
function annotateDeprecated(req: IncomingMessage, deprecation: { removedRelease?: string }): void {
  annotateRequest(req, 'orch.io/deprecated', 'true');
  if (deprecation.removedRelease) annotateRequest(req, 'orch.io/removed-release', deprecation.removedRelease);
}

/** The body kind of the scale subresource (autoscaling/v1 Scale, a contract body kind). */
const isScale = (b: BodyKind) => b.group === 'autoscaling' && b.version === 'v1' && b.kind === 'Scale';

function wantsAggregatedDiscovery(req: IncomingMessage): boolean {
  for (const range of parseAccept(req.headers.accept)) {
    if (range.params.as === 'APIGroupDiscoveryList' && range.params.g === 'apidiscovery.orch.io' && (range.params.v === 'v2' || range.params.v === 'v2beta1')) return true;
    if (!range.params.as) return false;
  }
  return false;
}

/** Probes and metrics keep being served while a shutdown refuses other requests (upstream's exempt path prefixes). */
const EXEMPT_FROM_RETRY_AFTER = /^\/(readyz|livez|healthz|metrics)/;

/** Upstream's answer to a request that arrives while the server shuts down: try another replica in 5 s. */
function refuseDuringShutdown(res: ServerResponse): void {
  writeText(res, 429, 'The apiserver is shutting down, please try again later.\n', { 'Retry-After': '5', Connection: 'close' });
}

/**
 * One resource request's context, of one shape for every request (an object
 * literal with a getter was a new shape per request at the hot path's call
 * sites). The deadline's AbortController is made only when a write asks for
 * `signal`.
 */
class ResourceRequestContext implements ResourceRequest {
  constructor(
    public req: IncomingMessage,
    public res: ServerResponse,
    public info: RequestInfo,
    public query: URLSearchParams,
    public user: UserInfo,
    public store: GenericStore,
    public storage: Storage,
    public cacher: Cacher,
    public namespace: string | undefined,
    public encode: EncodeOptions,
    public table: { apiVersion: string } | undefined,
    public partial: PartialMetadataRequest | undefined,
    private readonly deadline: Deadline | undefined,
    public fromStorage: boolean,
  ) {}

  get signal(): DeadlineSignal | undefined {
    return this.deadline?.signal;
  }
}
