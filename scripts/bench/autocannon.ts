/**
 * autocannon (CommonJS, no bundled types): the slice of its programmatic API
 * the benchmark uses, and measure(), which runs one target and keeps every
 * response time (autocannon's own histogram keeps whole milliseconds only).
 */
import { createRequire } from 'node:module';
import { percentile, Samples } from './util.ts';

export type AcContext = Record<string, any>;
export interface AcRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (req: AcRequest, context: AcContext) => AcRequest | null | undefined;
  onResponse?: (status: number, body: string, context: AcContext, headers: Record<string, unknown>) => void;
}
interface AcOptions {
  url: string;
  connections: number;
  duration: number;
  timeout?: number;
  warmup?: { connections: number; duration: number };
  requests: AcRequest[];
  setupClient?: (client: unknown) => void;
}
interface AcHistogram {
  average: number;
  total: number;
  p50: number;
  p99: number;
}
interface AcResult {
  duration: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
  latency: AcHistogram & { totalCount: number };
  requests: AcHistogram & { sent: number };
  throughput: AcHistogram;
}
interface AcInstance extends PromiseLike<AcResult> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, responseTimeMs: number) => void): this;
  on(event: 'reqError', listener: (error: Error) => void): this;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: AcOptions) => AcInstance;

/**
 * autocannon clears a connection's context whenever its request list wraps,
 * i.e. after every request when there is one. This keeps the context for the
 * life of the connection instead, so a connection can carry state (the
 * resourceVersion it last read, its continue token) from one request to the
 * next. `init` gets each connection's context and its index in creation order:
 * the warm-up's connections come first, then the measured run's.
 */
export function persistentContext(init?: (context: AcContext, index: number) => void) {
  let index = 0;
  return (client: unknown) => {
    const iterator = (client as { requestIterator: { context: AcContext; resetContext(): void } }).requestIterator;
    iterator.resetContext = () => {};
    init?.(iterator.context, index++);
  };
}

export interface Target {
  key: string;
  label: string;
  url: string;
  request: AcRequest;
  /** Statuses a good response has. */
  expect: number[];
  connections: number;
  setupClient?: (client: unknown) => void;
  /**
   * Called synchronously for each response of the measured run (not the warm-up),
   * right after request.onResponse saw it, with its response time; returns a
   * class to file that time under, if any.
   */
  observe?: (ms: number) => string | undefined;
}

export interface Measurement {
  key: string;
  label: string;
  rps: number;
  p50: number;
  p99: number;
  responses: number;
  errors: number;
  bad: number;
  durationS: number;
  statuses: Record<string, number>;
  samples: string[];
  errorSamples: string[];
  bytesPerResponse: number;
  /** Sorted response times per class (see Target.observe). */
  byClass: Map<string, Float64Array>;
  tool: 'wrk' | 'autocannon';
  /** Responses with an expected status. */
  good: number;
  /** CPU cores the server's process tree used over the measured run (wrk targets). */
  serverCores?: number;
}

export async function measure(target: Target, durationS: number, warmupS: number): Promise<Measurement> {
  const samples: string[] = [];
  const userOnResponse = target.request.onResponse;
  const request: AcRequest = {
    ...target.request,
    onResponse(status, body, context, headers) {
      userOnResponse?.(status, body, context, headers);
      // Examples only (warm-up included); the counts come from the measured run's statusCodeStats.
      if (!target.expect.includes(status) && samples.length < 3) samples.push(`HTTP ${status}: ${body.slice(0, 300)}`);
    },
  };
  const times = new Samples();
  const classes = new Map<string, Samples>();
  const errorSamples: string[] = [];
  const instance = autocannon({
    url: target.url,
    connections: target.connections,
    duration: durationS,
    timeout: 30,
    ...(warmupS > 0 ? { warmup: { connections: target.connections, duration: warmupS } } : {}),
    requests: [request],
    ...(target.setupClient ? { setupClient: target.setupClient } : {}),
  });
  // The returned instance tracks the measured run only (the warm-up has its own tracker).
  instance.on('response', (_client, _status, _bytes, ms) => {
    times.push(ms);
    const c = target.observe?.(ms);
    if (c !== undefined) {
      let s = classes.get(c);
      if (!s) classes.set(c, (s = new Samples()));
      s.push(ms);
    }
  });
  instance.on('reqError', (err) => {
    if (errorSamples.length < 3 && !errorSamples.includes(String(err))) errorSamples.push(String(err));
  });
  const result = await instance;
  const sorted = times.sorted();
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
  const good = target.expect.reduce((n, s) => n + (statuses[String(s)] ?? 0), 0);
  return {
    key: target.key,
    label: target.label,
    rps: result.requests.total / result.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    responses: result.requests.total,
    errors: result.errors + result.timeouts,
    bad: result.requests.total - good,
    durationS: result.duration,
    statuses,
    samples,
    errorSamples,
    bytesPerResponse: result.latency.totalCount ? result.throughput.total / result.latency.totalCount : 0,
    byClass: new Map([...classes].map(([k, s]) => [k, s.sorted()])),
    tool: 'autocannon',
    good,
  };
}
