/**
 * apiserver_request_total and apiserver_request_duration_seconds (upstream
 * pkg/endpoints/metrics requestCounter and requestLatencies; FACTS 13), kept as
 * plain numbers per label set and handed to prom-client only when scraped: a
 * request adds to one route's counts (one Map lookup by a key made once per
 * request) instead of paying prom-client's label validation and hashing on the
 * request path, twice.
 */
import type { MetricValue, Registry } from 'prom-client';

/** Upstream's buckets for apiserver_request_duration_seconds. */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** The labels both series share (the counter adds `code`). */
export interface RouteLabels {
  verb: string;
  dry_run: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: string;
}

/** One label set's figures. */
export class RouteSeries {
  readonly byCode = new Map<number, number>();
  /** Observations per bucket, not cumulative; the last slot is +Inf. */
  readonly buckets = new Float64Array(REQUEST_DURATION_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  constructor(readonly labels: RouteLabels) {}

  record(code: number, seconds: number): void {
    this.byCode.set(code, (this.byCode.get(code) ?? 0) + 1);
    let i = 0;
    while (i < REQUEST_DURATION_BUCKETS.length && seconds > REQUEST_DURATION_BUCKETS[i]) i++;
    this.buckets[i]++;
    this.sum += seconds;
    this.count++;
  }
}

/** The label sets seen, and the two prom-client metrics that read them. */
export class RequestSeries {
  private readonly routes = new Map<string, RouteSeries>();

  /** The series of a label set, by a key the caller makes from the same labels. */
  route(key: string, labels: () => RouteLabels): RouteSeries {
    let series = this.routes.get(key);
    if (!series) this.routes.set(key, (series = new RouteSeries(labels())));
    return series;
  }

  /** Registers both series in `registry`. */
  register(registry: Registry): void {
    registry.registerMetric(exported(TOTAL_NAME, TOTAL_HELP, 'counter', () =>
      [...this.routes.values()].flatMap((s) => [...s.byCode].map(([code, value]) => ({ labels: { ...s.labels, code: String(code) }, value }))),
    ));
    registry.registerMetric(exported(DURATION_NAME, DURATION_HELP, 'histogram', () => [...this.routes.values()].flatMap(histogramValues)));
  }
}

const TOTAL_NAME = 'apiserver_request_total';
const TOTAL_HELP = '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.';
const DURATION_NAME = 'apiserver_request_duration_seconds';
const DURATION_HELP = '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.';

/** A metric prom-client's registry formats and aggregates like its own: what `get()` answers is what it exposes. */
function exported(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue<string>[]): any {
  const get = async () => ({ name, help, type, aggregator: 'sum', values: values() });
  return { name, help, type, aggregator: 'sum', get, reset: () => {} };
}

function histogramValues(series: RouteSeries): MetricValue<string>[] {
  const out: MetricValue<string>[] = [];
  let cumulative = 0;
  for (let i = 0; i <= REQUEST_DURATION_BUCKETS.length; i++) {
    cumulative += series.buckets[i];
    const le = i < REQUEST_DURATION_BUCKETS.length ? REQUEST_DURATION_BUCKETS[i] : '+Inf';
    out.push({ metricName: `${DURATION_NAME}_bucket`, labels: { ...series.labels, le }, value: cumulative } as MetricValue<string>);
  }
  out.push({ metricName: `${DURATION_NAME}_sum`, labels: { ...series.labels }, value: series.sum } as MetricValue<string>);
  out.push({ metricName: `${DURATION_NAME}_count`, labels: { ...series.labels }, value: series.count } as MetricValue<string>);
  return out;
}
