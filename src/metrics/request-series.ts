/**
 * apiserver_request_total and apiserver_request_duration_seconds (upstream
 * pkg/endpoints/metrics requestCounter and requestLatencies; FACTS 13), kept as
 * plain numbers per label set (plain-series.ts): a request adds to one route's
 * figures, found by one Map lookup with a key made once per request.
 */
import type { Registry } from 'prom-client';
import { HistogramCell, registerScraped } from './plain-series.ts';

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
  readonly latency: HistogramCell;

  constructor(readonly labels: RouteLabels) {
    this.latency = new HistogramCell({ ...labels }, REQUEST_DURATION_BUCKETS);
  }

  record(code: number, seconds: number): void {
    this.byCode.set(code, (this.byCode.get(code) ?? 0) + 1);
    this.latency.observe(seconds);
  }
}

/** The label sets seen, and the two prom-client metrics that read them. */
export class RequestSeries {
  /** Every label set's series, by all its labels. */
  private readonly routes = new Map<string, RouteSeries>();
  /** The same series by the route they were served through and the labels that vary on it, so a request hashes a short key. */
  private readonly byRoute = new WeakMap<object, Map<string, RouteSeries>>();

  /** The series of a label set served through `route` (an object that stands for its group, version and resource), by the rest of its labels. */
  route(route: object, key: string, labels: () => RouteLabels): RouteSeries {
    let onRoute = this.byRoute.get(route);
    if (!onRoute) this.byRoute.set(route, (onRoute = new Map()));
    let series = onRoute.get(key);
    if (series) return series;
    const all = labels();
    const fullKey = Object.values(all).join('|');
    series = this.routes.get(fullKey);
    if (!series) this.routes.set(fullKey, (series = new RouteSeries(all)));
    onRoute.set(key, series);
    return series;
  }

  /** Registers both series in `registry`. */
  register(registry: Registry): void {
    registerScraped(
      registry,
      'apiserver_request_total',
      '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      'counter',
      () => [...this.routes.values()].flatMap((s) => [...s.byCode].map(([code, value]) => ({ labels: { ...s.labels, code: String(code) }, value }))),
    );
    registerScraped(
      registry,
      'apiserver_request_duration_seconds',
      '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      'histogram',
      () => [...this.routes.values()].flatMap((s) => s.latency.values('apiserver_request_duration_seconds')),
    );
  }
}
