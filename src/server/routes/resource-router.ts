/**
 * The router of API resources (upstream's installer routes, SPEC 4.1, 4.2):
 * group/version/resource to its route, the path rules that make an unrouted
 * path 404 and a known path with another method 405 (FACTS 1.1), the
 * resource's negotiation, then the route table's handler for the verb on the
 * addressed subresource.
 */
import * as errors from '../../api/status-error.ts';
import { annotateRequest } from '../../audit/request-audit.ts';
import { JSON_TYPE, negotiate } from '../../http/negotiation.ts';
import type { RequestInfo } from '../../http/request-info.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import type { ApiRequest } from '../filters/api-request.ts';
import { monitorRequest } from '../metrics/request-metrics.ts';
import type { Route } from './route.ts';
import { ROUTE_TABLE, type RouteServices } from './route-table.ts';

interface PathRule {
  refuses(info: RequestInfo, kind: KindDefinition): boolean;
  answer(): errors.StatusError;
}

const clusterPathOfNamespacedKind = (info: RequestInfo, kind: KindDefinition) => kind.namespaced && !info.namespacedPath && info.verb !== 'list' && info.verb !== 'watch';

/** Checked in this order; the first that refuses answers. */
const PATH_RULES: readonly PathRule[] = [
  // Nothing lies deeper than resource/name/subresource.
  { refuses: (info) => info.parts.length > 3, answer: errors.routeNotFound },
  // SPEC 4.1, 4.2: a namespaced kind's objects live under a namespace; its cluster path is a list-only collection.
  { refuses: (info, kind) => clusterPathOfNamespacedKind(info, kind) && info.name !== '', answer: errors.routeNotFound },
  { refuses: clusterPathOfNamespacedKind, answer: errors.methodNotAllowed },
  // SPEC 4.2: create is POST to a collection; update and patch address one object.
  { refuses: (info) => info.verb === 'create' && info.name !== '' && !info.subresource, answer: errors.methodNotAllowed },
  { refuses: (info) => (info.verb === 'update' || info.verb === 'patch') && !info.name, answer: errors.methodNotAllowed },
  // A review has no objects to address.
  { refuses: (info, kind) => !kind.stored && info.name !== '', answer: errors.routeNotFound },
];

const routeKeyOf = (info: RequestInfo) => `${info.group}/${info.version}/${info.resource}`;

export class ResourceRouter {
  constructor(
    /** The served routes by `group/version/plural`, as the server adds and withdraws them. */
    private readonly routes: ReadonlyMap<string, Route>,
    /** Routes --runtime-config disables: 404 as a path never served. */
    private readonly unserved: ReadonlySet<string>,
    private readonly services: RouteServices,
  ) {}

  route(request: ApiRequest): Promise<void> {
    const { req, res, encode } = request;
    const info = request.info!;
    const key = routeKeyOf(info);
    const route = this.routes.get(key);
    if (!route || this.unserved.has(key)) throw errors.routeNotFound();
    const { kind } = route;
    monitorRequest(req, res, info, request.target!.query, kind, kind.deprecated);
    // A cluster-scoped kind has no namespaced path (`/api/v1/namespaces/{name}` is the namespace itself, not a prefix);
    // such a path is no call to the kind, deprecated or not.
    if (!kind.namespaced && info.namespacedPath) throw errors.routeNotFound();
    if (kind.deprecated) {
      annotateDeprecated(request, kind.deprecated);
      // Upstream's installer adds the endpoint's deprecation warning ahead of whatever the handler warns.
      if (kind.deprecated.warning) encode.warnings = [kind.deprecated.warning, ...(encode.warnings ?? [])];
    }
    for (let i = 0; i < PATH_RULES.length; i++) if (PATH_RULES[i].refuses(info, kind)) throw PATH_RULES[i].answer();
    // The resource's own negotiation: a custom resource's 406 is JSON whatever the client asked for.
    encode.mediaType = JSON_TYPE;
    const negotiated = negotiate(req, info.verb, route.protobuf);
    encode.mediaType = negotiated.mediaType;
    const target = route.targets.get(info.subresource);
    if (!target) throw errors.routeNotFound();
    // No route serves this method here: upstream's router answers with its generic 405.
    if (!target.verbs.includes(info.verb)) throw errors.methodNotAllowed();
    const row = ROUTE_TABLE[target.kind];
    const handler = row.verbs[info.verb];
    if (!handler) throw errors.methodNotSupported({ group: kind.group, resource: kind.plural }, info.verb);
    const namespace = kind.namespaced ? info.namespace || undefined : undefined;
    return handler(row.context(request, route, target, negotiated, namespace), this.services);
  }
}

/** FACTS 9.5: a call to a deprecated version is marked on its audit event (upstream endpoints/metrics deprecatedAnnotationKey). */
function annotateDeprecated({ req }: ApiRequest, deprecation: { removedRelease?: string }): void {
  annotateRequest(req, 'orch.io/deprecated', 'true');
  if (deprecation.removedRelease) annotateRequest(req, 'orch.io/removed-release', deprecation.removedRelease);
}
