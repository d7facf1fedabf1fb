/**
 * The API server: the served resources (routes built from the generated kind
 * registry and from custom resource definitions, each with its stores) and
 * the entry of the request path (ARCHITECTURE "One request, one direction"):
 * the filters of filters/chain.ts, then the resource router (routes/) or the
 * non-resource endpoints (endpoints/). Nothing here knows a kind by name.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProtobufCodec } from '../api/protobuf/codec.ts';
import type { Auditor } from '../audit/request-audit.ts';
import type { Authorizer } from '../auth/authorization/authorizer.ts';
import type { UserInfo } from '../api/user.ts';
import type { WatchSettings } from '../handlers/watch.ts';
import { acceptsGzip } from '../http/gzip-body.ts';
import { JSON_TYPE } from '../http/negotiation.ts';
import type { RequestInfoOptions } from '../http/request-info.ts';
import { reportInflight, reportStoredObjects } from '../metrics/registry.ts';
import type { ComputedCreate } from '../registry/computed.ts';
import { withBuiltinConversion } from '../registry/builtin-conversion.ts';
import { ContractValidators, withContractValidation, withValidatedBody } from '../registry/contract-validation.ts';
import type { CustomKind } from '../registry/custom-resources/kind.ts';
import { apiVersionOf, storageGroupOf, storedResourcePrefix, strategyOf, type BodyKind, type GeneratedApi, type KindDefinition } from '../registry/kind.ts';
import type { ObjectReader } from '../registry/object-reader.ts';
import { DEFAULT_DELETION, GenericStore, type Admission, type DeletionSettings } from '../registry/store.ts';
import { finalizeSubresourceStrategy, statusSubresourceStrategy, withStatusReset, type Strategy } from '../registry/strategy.ts';
import type { KeyValue } from '../storage/interface.ts';
import { parseResourcePrefix } from '../storage/keys.ts';
import type { RevisionSpaces } from '../storage/revision-spaces.ts';
import type { CustomOpenApiPart } from './custom-openapi.ts';
import { buildDiscovery, DiscoveryEndpoint } from './endpoints/discovery.ts';
import { NonResourceRouter, type Endpoint } from './endpoints/endpoint.ts';
import { healthEndpoint, type HealthChecks } from './endpoints/health.ts';
import { metricsEndpoint } from './endpoints/metrics.ts';
import { openApiEndpoint } from './endpoints/openapi.ts';
import { staticDocumentsEndpoint } from './endpoints/static-documents.ts';
import { versionEndpoint } from './endpoints/version.ts';
import { ApiRequest } from './filters/api-request.ts';
import { serveThroughChain } from './filters/chain.ts';
import type { FilterServices } from './filters/filter.ts';
import { ShutdownGate } from './filters/shutdown-gate.ts';
import type { StaticDocuments } from './issuer-discovery.ts';
import { singleProcessMetrics, type MetricsSource } from './metrics/pool-metrics.ts';
import { OpenApiPublisher } from './openapi.ts';
import { Deadlines, InflightLimiter, type RequestLimits } from './request-limits.ts';
import { ResourceRouter } from './routes/resource-router.ts';
import { storeTargets, type Route } from './routes/route.ts';
import type { ApiEnablement } from './runtime-config.ts';
import { WatchCacheSettings } from './watch-cache-settings.ts';

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

/** Upstream's defaults: the watch cache on, events read from the store. */
const DEFAULT_WATCH_CACHE = new WatchCacheSettings();

const routeKey = (kind: { group: string; version: string; plural: string }) => `${kind.group}/${kind.version}/${kind.plural}`;

export class ApiServer {
  private readonly routes = new Map<string, Route>();
  /** The structure model of every schema, built-in and custom, for apply and strategic merge. */
  private readonly structure: Record<string, any>;
  private readonly customKinds = new Map<string, KindDefinition>();
  /** Routes of built-in resources --runtime-config disables: 404 as a path never served, but their stores stay for controllers and authorizers. */
  private readonly unserved = new Set<string>();
  private readonly openapi: OpenApiPublisher;
  private readonly discovery: DiscoveryEndpoint;
  /** Protobuf of the built-in kinds (SPEC 4.7). */
  private readonly protobuf: ProtobufCodec;
  /** Which resources clients read through the watch cache. */
  private readonly watchCache: WatchCacheSettings;
  private readonly shutdown = new ShutdownGate();
  /** What every filter of the chain uses of this server. */
  private readonly filterServices: FilterServices;
  private readonly resources: ResourceRouter;
  private readonly nonResources: NonResourceRouter;
  /** The contract's rules of every built-in kind and body (registry/contract-validation.ts). */
  private readonly contracts: ContractValidators;

  constructor(private readonly options: ApiServerOptions) {
    this.structure = { ...options.api.structure };
    this.contracts = new ContractValidators(options.api.validation);
    this.protobuf = options.protobuf ?? new ProtobufCodec(options.api.protobuf);
    this.watchCache = options.watchCache ?? DEFAULT_WATCH_CACHE;
    for (const generated of options.api.kinds) {
      const kind = withBuiltinConversion(generated, options.api.kinds);
      if (!options.enablement.resourceEnabled(kind.group, kind.version, kind.plural)) this.unserved.add(routeKey(kind));
      if (!kind.stored) {
        const subresources = new Map<string, GenericStore>();
        const protobuf = this.protobuf.supports(apiVersionOf(kind), kind.kind);
        this.routes.set(routeKey(kind), { kind, space: options.spaces.main, subresources, computed: new Map(), targets: storeTargets(kind, undefined, subresources), fromStorage: false, protobuf });
        continue;
      }
      const fromStorage = !this.watchCache.servesBuiltIn(storageGroupOf(kind), kind.plural);
      const strategy = withContractValidation(strategyOf(kind), this.contracts.forSchema(kind.schemaName));
      this.routes.set(routeKey(kind), this.storedRoute(kind, strategy, fromStorage));
    }
    this.discovery = new DiscoveryEndpoint(buildDiscovery(this.servedBuiltinKinds(), options.serverAddress));
    this.openapi = new OpenApiPublisher(options.api, (group, version, plural) => options.enablement.resourceEnabled(group, version, plural));
    const inflight = new InflightLimiter(options.limits);
    reportInflight(() => Object.entries(inflight.current()));
    reportStoredObjects(() => storedObjectsByResource(options.spaces));
    const { limits, authenticate, auditor, authorizer } = options;
    this.filterServices = { shutdown: this.shutdown, requestInfo: options.requestInfo, limits, deadlines: new Deadlines(limits.requestTimeoutMs), authenticate, auditor, authorizer, inflight };
    const scaleKind = options.api.bodyKinds.find(isScale);
    const scaleContract = scaleKind && this.contracts.forSchema(scaleKind.schemaName);
    this.resources = new ResourceRouter(this.routes, this.unserved, { structure: this.structure, watch: options.watch, scaleKind, scaleContract });
    this.nonResources = new NonResourceRouter(this.nonResourceEndpoints());
  }

  /** The non-resource paths, in the order they are consulted. */
  private nonResourceEndpoints(): Endpoint[] {
    const { health, metrics, staticDocuments } = this.options;
    return [
      healthEndpoint(health),
      metricsEndpoint(metrics ?? singleProcessMetrics()),
      versionEndpoint,
      ...(staticDocuments ? [staticDocumentsEndpoint(staticDocuments)] : []),
      openApiEndpoint(this.openapi),
      this.discovery,
    ];
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
    const protobuf = this.protobuf.supports(apiVersionOf(kind), kind.kind);
    return { kind, store, space, subresources, computed: new Map(), targets: storeTargets(kind, store, subresources), fromStorage, protobuf };
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
    this.discovery.documents = buildDiscovery([...this.servedBuiltinKinds(), ...this.customKinds.values()], this.options.serverAddress);
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
      route.targets.set(subresource, { kind: 'computed', verbs: sub.verbs, store: undefined });
    } else if (route.kind.stored) throw new Error(`${plural} is stored: its creates go through its store`);
    route.computed.set(subresource ?? '', { kind, compute: withValidatedBody(kind, this.contracts.forSchema(kind.schemaName), compute) });
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
   * One request, one direction: the filters of filters/chain.ts in their
   * order, then the resource or the non-resource router.
   */
  handle = (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const gzip = this.options.responseCompression && acceptsGzip(req.headers['accept-encoding']);
    const request = new ApiRequest(req, res, { pretty: false, mediaType: JSON_TYPE, protobuf: this.protobuf, gzip });
    return serveThroughChain(request, this.filterServices, this.direct);
  };

  /** The end of the chain (upstream's director): API resources to their router, every other path to the non-resource endpoints. */
  private readonly direct = (request: ApiRequest): Promise<void> => (request.info!.isResourceRequest ? this.resources.route(request) : this.nonResources.serve(request));

  /**
   * --shutdown-send-retry-after (upstream WithRetryAfter): from now on every new
   * request but the probes is answered 429 with Retry-After and its connection
   * closed, so clients go to another replica; resolves once the requests in
   * flight that are not long-running have finished.
   */
  refuseNewRequests(): Promise<void> {
    return this.shutdown.refuseNewRequests();
  }
}

/** The watch cache's object counts by group-resource (`plural.group`, `plural` for the core group), as upstream labels them. */
function* storedObjectsByResource(spaces: RevisionSpaces): Iterable<[string, number]> {
  for (const [prefix, count] of spaces.objectCounts()) {
    const parsed = parseResourcePrefix(prefix);
    if (parsed) yield [parsed.group ? `${parsed.resource}.${parsed.group}` : parsed.resource, count];
  }
}

/** The body kind of the scale subresource (autoscaling/v1 Scale, a contract body kind). */
const isScale = (b: BodyKind) => b.group === 'autoscaling' && b.version === 'v1' && b.kind === 'Scale';
