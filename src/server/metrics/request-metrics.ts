/**
 * Recording one resource request in apiserver_request_total and
 * apiserver_request_duration_seconds, with the labels upstream's
 * pkg/endpoints/metrics MonitorRequest gives it (CanonicalVerb, CleanVerb,
 * CleanScope, cleanDryRun; FACTS 13).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestInfo } from '../../http/request-info.ts';
import { deprecatedApiRequests, longRunningRequests, requestSeries } from '../../metrics/registry.ts';
import { isLongRunning } from '../request-limits.ts';

const VALID_VERBS = new Set(['APPLY', 'CONNECT', 'CREATE', 'DELETE', 'DELETECOLLECTION', 'GET', 'LIST', 'PATCH', 'POST', 'PROXY', 'PUT', 'UPDATE', 'WATCH', 'WATCHLIST']);
const CONNECT_SUBRESOURCES = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);
/** Upstream's dry-run values (metav1.DryRunAll is the only one). */
const VALID_DRY_RUN = new Set(['All']);
const APPLY_TYPE = 'application/apply-patch+yaml';

/** A deprecated API version (upstream's deprecation.IsDeprecated result): a custom resource version marked deprecated, or a built-in one. */
export interface Deprecation {
  /** `M.m` when known. */
  removedRelease?: string;
}

/** upstream CleanScope: resource for a named object or a create, then namespace, cluster; '' for non-resource requests. */
export function cleanScope(info: RequestInfo): string {
  if (info.name || info.verb === 'create') return 'resource';
  if (info.namespace) return 'namespace';
  return info.isResourceRequest ? 'cluster' : '';
}

/** upstream CanonicalVerb then CleanVerb: the label's verb. */
export function cleanVerb(method: string, scope: string, info: RequestInfo, query: URLSearchParams, contentType: string | undefined): string {
  let verb = method.toUpperCase();
  if ((verb === 'GET' || verb === 'HEAD') && scope !== 'resource') verb = 'LIST';
  else if (verb === 'HEAD') verb = 'GET';
  if (verb === 'LIST' || verb === 'GET') {
    const watch = query.get('watch');
    if (info.verb === 'watch' || (watch !== null && watch !== '0' && watch.toLowerCase() !== 'false')) verb = 'WATCH';
  }
  if (verb === 'PATCH' && contentType?.split(';')[0].trim().toLowerCase() === APPLY_TYPE) verb = 'APPLY';
  if (CONNECT_SUBRESOURCES.has(info.subresource)) verb = 'CONNECT';
  return VALID_VERBS.has(verb) ? verb : 'other';
}

/** upstream cleanDryRun: the sorted unique values joined by ','; `invalid` when one is not a dry-run value. */
export function cleanDryRun(query: URLSearchParams): string {
  const values = query.getAll('dryRun');
  if (values.length === 0) return '';
  const unique = [...new Set(values)].sort();
  return unique.every((v) => VALID_DRY_RUN.has(v)) ? unique.join(',') : 'invalid';
}

const deprecationsSeen = new Set<string>();

/**
 * Starts measuring a resource request once it reached its route; the
 * response's end records it (upstream's InstrumentRouteFunc around the route
 * handler). 'close' comes once per response, after it finished or its
 * connection went away. `route` is the kind the request was routed to: one
 * object per group, version and resource, under which its series are found.
 */
export function monitorRequest(req: IncomingMessage, res: ServerResponse, info: RequestInfo, query: URLSearchParams, route: object, deprecation: Deprecation | undefined): void {
  const started = performance.now();
  const scope = cleanScope(info);
  const verb = cleanVerb(req.method ?? 'GET', scope, info, query, req.headers['content-type']);
  const dryRun = query.size ? cleanDryRun(query) : '';
  if (deprecation) markDeprecated(info, deprecation);
  const { group, version, resource, subresource } = info;
  const series = requestSeries.route(route, `${verb}|${dryRun}|${subresource}|${scope}`, () => ({
    verb,
    dry_run: dryRun,
    group,
    version,
    resource,
    subresource,
    scope,
    component: 'apiserver',
  }));
  const longRunning = isLongRunning(info) ? longRunningRequests.labels(verb, group, version, resource, subresource, scope, 'apiserver') : undefined;
  longRunning?.inc();
  res.once('close', () => {
    longRunning?.dec();
    series.record(res.statusCode, (performance.now() - started) / 1000);
  });
}

function markDeprecated(info: RequestInfo, deprecation: Deprecation): void {
  const key = `${info.group}|${info.version}|${info.resource}|${info.subresource}|${deprecation.removedRelease ?? ''}`;
  if (deprecationsSeen.has(key)) return;
  deprecationsSeen.add(key);
  deprecatedApiRequests.labels(info.group, info.version, info.resource, info.subresource, deprecation.removedRelease ?? '').set(1);
}
