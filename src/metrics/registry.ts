/**
 * The process's metrics registry (SPEC 9.5, FACTS 13): the series upstream's
 * legacyregistry carries for kube-apiserver, plus prom-client's default
 * process_* and nodejs_* collectors. One registry per process; the pool sums
 * them for a scrape (pool-metrics.ts).
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { HistogramCell, registerScraped } from './plain-series.ts';
import { RequestSeries } from './request-series.ts';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** apiserver_request_total and apiserver_request_duration_seconds (request-series.ts). */
export const requestSeries = new RequestSeries();
requestSeries.register(metricsRegistry);

/** upstream pkg/endpoints/metrics apiRequestDeprecated: 1 once a deprecated version was requested. */
export const deprecatedApiRequests = new Gauge({
  name: 'apiserver_requested_deprecated_apis',
  help: '[STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
  labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'] as const,
  registers: [metricsRegistry],
  // Summed over the pool this would count processes; it is a flag, so the pool keeps the largest.
  aggregator: 'max',
});

/**
 * A gauge of one label whose values are read when scraped, from whatever
 * `report` last named: nothing is recorded on the request path.
 */
function scrapedGauge(name: string, help: string, labelName: string, aggregator: 'sum' | 'max') {
  let read: () => Iterable<[label: string, value: number]> = () => [];
  new Gauge({
    name,
    help,
    labelNames: [labelName],
    registers: [metricsRegistry],
    aggregator,
    collect() {
      this.reset();
      for (const [label, value] of read()) this.labels(label).set(value);
    },
  });
  return (source: typeof read) => void (read = source);
}

/** upstream pkg/server/filters currentInflightRequests: the in-flight limiter's counts (`readOnly`, `mutating`). */
export const reportInflight = scrapedGauge(
  'apiserver_current_inflight_requests',
  '[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
  'request_kind',
  'sum',
);

/**
 * upstream pkg/storage/etcd3/metrics objectCounts, labelled by group-resource
 * (`networkpolicies.networking.orch.io`, `pods`). Read from the watch cache,
 * which holds every stored object; each process of the pool holds them all, so
 * the pool reports one process's count rather than their sum.
 */
export const reportStoredObjects = scrapedGauge(
  'apiserver_storage_objects',
  '[STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
  'resource',
  'max',
);

/** Watch events per group, version and kind: their sizes' histogram, whose count is apiserver_watch_events_total. */
const watchEventCells = new Map<string, HistogramCell>();
const WATCH_EVENT_SIZE_BUCKETS = [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];

/** upstream pkg/endpoints/metrics WatchEvents. */
registerScraped(metricsRegistry, 'apiserver_watch_events_total', '[ALPHA] Number of events sent in watch clients', 'counter', () =>
  [...watchEventCells.values()].map((cell) => ({ labels: { ...cell.labels }, value: cell.count })),
);
/** upstream pkg/endpoints/metrics WatchEventsSizes, with its buckets (1 KiB doubling to 128 KiB). */
registerScraped(metricsRegistry, 'apiserver_watch_events_sizes', '[ALPHA] Watch event size distribution in bytes', 'histogram', () =>
  [...watchEventCells.values()].flatMap((cell) => cell.values('apiserver_watch_events_sizes')),
);

/** What one watch records per event (its line's bytes): the label set's cell is found once per watch, not per event. */
export function watchEventRecorder(group: string, version: string, kind: string): (bytes: number) => void {
  const key = `${group}/${version}/${kind}`;
  let cell = watchEventCells.get(key);
  if (!cell) watchEventCells.set(key, (cell = new HistogramCell({ group, version, kind }, WATCH_EVENT_SIZE_BUCKETS)));
  return (bytes) => cell.observe(bytes);
}

/** upstream pkg/endpoints/metrics longRunningRequestsGauge. */
export const longRunningRequests = new Gauge({
  name: 'apiserver_longrunning_requests',
  help: '[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
  labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const,
  registers: [metricsRegistry],
});

/** Our SQLite store's own figures (no upstream counterpart): writes per group commit, and the WAL fsync each commit waits for. */
export const sqliteCommitBatchSizes = new HistogramCell({}, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
export const sqliteFsyncSeconds = new HistogramCell({}, [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]);
registerScraped(
  metricsRegistry,
  'apiserver_storage_sqlite_commit_batch_size',
  '[ALPHA] Writes committed together in one transaction of the embedded SQLite store (group commit).',
  'histogram',
  () => (sqliteCommitBatchSizes.count ? sqliteCommitBatchSizes.values('apiserver_storage_sqlite_commit_batch_size') : []),
);
registerScraped(
  metricsRegistry,
  'apiserver_storage_sqlite_fsync_duration_seconds',
  '[ALPHA] Seconds each fsync of the embedded SQLite store\'s write-ahead log took; acknowledged commits waited for it.',
  'histogram',
  () => (sqliteFsyncSeconds.count ? sqliteFsyncSeconds.values('apiserver_storage_sqlite_fsync_duration_seconds') : []),
);

/** One (operation, type) pair of the etcd store: its latency histogram (whose count is the request count) and its failures. */
interface EtcdRequestCell {
  latency: HistogramCell;
  errors: number;
}
const etcdRequestCells = new Map<string, EtcdRequestCell>();
/** upstream's request-latency buckets, which etcd_request_duration_seconds shares. */
const ETCD_LATENCY_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/**
 * upstream pkg/storage/etcd3/metrics RecordEtcdRequest: one etcd call of an
 * operation (get, list, listWithCount, create, update, delete) on an object
 * type (`networkpolicies.networking.orch.io`, `configmaps`), and whether it failed.
 */
export function recordEtcdRequest(operation: string, type: string, seconds: number, failed: boolean): void {
  const key = `${operation}\0${type}`;
  let cell = etcdRequestCells.get(key);
  if (!cell) etcdRequestCells.set(key, (cell = { latency: new HistogramCell({ operation, type }, ETCD_LATENCY_BUCKETS), errors: 0 }));
  cell.latency.observe(seconds);
  if (failed) cell.errors++;
}

registerScraped(metricsRegistry, 'etcd_request_duration_seconds', '[ALPHA] Etcd request latency in seconds for each operation and object type.', 'histogram', () =>
  [...etcdRequestCells.values()].flatMap((cell) => cell.latency.values('etcd_request_duration_seconds')),
);
registerScraped(metricsRegistry, 'etcd_requests_total', '[ALPHA] Etcd request counts for each operation and object type.', 'counter', () =>
  [...etcdRequestCells.values()].map((cell) => ({ labels: { ...cell.latency.labels }, value: cell.latency.count }) as any),
);
registerScraped(metricsRegistry, 'etcd_request_errors_total', '[ALPHA] Etcd failed request counts for each operation and object type.', 'counter', () =>
  [...etcdRequestCells.values()].filter((cell) => cell.errors > 0).map((cell) => ({ labels: { ...cell.latency.labels }, value: cell.errors }) as any),
);
