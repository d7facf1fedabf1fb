/**
 * The process's metrics registry (SPEC 9.5, FACTS 13): the series upstream's
 * legacyregistry carries for kube-apiserver, plus prom-client's default
 * process_* and nodejs_* collectors. One registry per process; the pool sums
 * them for a scrape (pool-metrics.ts).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** upstream pkg/endpoints/metrics requestCounter. */
export const requestCounter = new Counter({
  name: 'apiserver_request_total',
  help: '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
  labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'] as const,
  registers: [metricsRegistry],
});

/** upstream pkg/endpoints/metrics requestLatencies, with its buckets (FACTS 13). */
export const requestLatencies = new Histogram({
  name: 'apiserver_request_duration_seconds',
  help: '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
  labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const,
  buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
  registers: [metricsRegistry],
});

/** upstream pkg/endpoints/metrics apiRequestDeprecated: 1 once a deprecated version was requested. */
export const deprecatedApiRequests = new Gauge({
  name: 'apiserver_requested_deprecated_apis',
  help: '[STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
  labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'] as const,
  registers: [metricsRegistry],
  // Summed over the pool this would count processes; it is a flag, so the pool keeps the largest.
  aggregator: 'max',
});

let inflightCounts: () => { readOnly: number; mutating: number } = () => ({ readOnly: 0, mutating: 0 });

/** Where apiserver_current_inflight_requests reads the in-flight limiter's counts at scrape time (nothing on the request path). */
export function reportInflight(read: () => { readOnly: number; mutating: number }): void {
  inflightCounts = read;
}

/** upstream pkg/server/filters currentInflightRequests, read when scraped. */
export const currentInflightRequests = new Gauge({
  name: 'apiserver_current_inflight_requests',
  help: '[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
  labelNames: ['request_kind'] as const,
  registers: [metricsRegistry],
  collect() {
    const { readOnly, mutating } = inflightCounts();
    this.labels('readOnly').set(readOnly);
    this.labels('mutating').set(mutating);
  },
});

/** upstream pkg/endpoints/metrics WatchEvents. */
export const watchEvents = new Counter({
  name: 'apiserver_watch_events_total',
  help: '[ALPHA] Number of events sent in watch clients',
  labelNames: ['group', 'version', 'kind'] as const,
  registers: [metricsRegistry],
});

/** upstream pkg/endpoints/metrics WatchEventsSizes, with its buckets (1 KiB doubling to 128 KiB). */
export const watchEventsSizes = new Histogram({
  name: 'apiserver_watch_events_sizes',
  help: '[ALPHA] Watch event size distribution in bytes',
  labelNames: ['group', 'version', 'kind'] as const,
  buckets: [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072],
  registers: [metricsRegistry],
});

/** What one watch records per event: the label children are looked up once per watch, not per event. */
export function watchEventRecorder(group: string, version: string, kind: string): (bytes: number) => void {
  const count = watchEvents.labels(group, version, kind);
  const size = watchEventsSizes.labels(group, version, kind);
  return (bytes) => {
    count.inc();
    size.observe(bytes);
  };
}
