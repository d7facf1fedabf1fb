/**
 * What the scale benchmark measures at each size: on the server that loaded
 * the objects, their JSON size, GET of random objects (wrk), the first page of
 * a limit=500 list across all namespaces, the list of the fixed-size
 * namespace and of one spread namespace (one request at a time), and one watcher's event
 * delay; then on a server restarted on that data, the first requests after
 * ready (cold) and its RSS once settled.
 */
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Backend, Options } from './args.ts';
import type { Measurement } from './autocannon.ts';
import { NP_PATH, startingWorkers, type Orch } from './orch.ts';
import { FIXED_NS, namespaceName, objectPath, objectPathFormat } from './scale-load.ts';
import { fmt, log, monoMs, peakRss, percentile, rss } from './util.ts';
import { openProbe } from './watch-fanout.ts';
import { authHeaders, measureWrk, wrkSettings } from './wrk-targets.ts';
import { randomGetScript } from './wrk-scripts.ts';

/** How long after ready the server is left alone while its RSS is sampled (start-up garbage, timers). */
export const SETTLE_MS = 5_000;

export interface WatchDelay {
  writes: number;
  /** Event arrival − the moment the PUT was sent (ms), sorted. */
  delays: Float64Array;
  missing: number;
  writeP50: number;
  writeP99: number;
}

export interface SizeMeasurements {
  /** Average compact JSON of an object as served (the first page's items). */
  jsonBytes: number;
  get: Measurement;
  firstPage: Sampled;
  fixedList: Sampled;
  nsList: Sampled;
  /** Items in the spread namespace that nsList lists. */
  nsItems: number;
  watch: WatchDelay;
  /** The server's VmHWM after these measurements (its peak since it started, loading included). */
  peakRss?: number;
}

export interface RestartMeasurements {
  firstGetMs: number;
  firstListMs: number;
  /** The lowest VmRSS sampled over SETTLE_MS after ready, and VmHWM then (the start-up's peak). */
  rss?: number;
  startPeakRss?: number;
}

const ALL_FIRST_PAGE = '/apis/networking.orch.io/v1/networkpolicies?limit=500';

/** Latencies of one request after another (one in flight). */
export interface Sampled {
  p50: number;
  p99: number;
  samples: number;
}

/**
 * GETs `path` one request at a time for `seconds` and at least 5 times, after
 * one unmeasured request that also checks the item count. One in flight, so a
 * list's latency is its own and not its wait behind others: what grows from
 * size to size is then the server's work, even when a list takes seconds.
 */
async function sequential(orch: Orch, what: string, path: string, items: number, seconds: number): Promise<Sampled> {
  const got = (JSON.parse((await orch.expect(what, [200], 'GET', path)).text) as { items: unknown[] }).items.length;
  if (got !== items) throw new Error(`${what}: ${got} items, expected ${items}`);
  const times: number[] = [];
  for (const end = performance.now() + seconds * 1000; performance.now() < end || times.length < 5; ) times.push((await timed(orch, what, path)).ms);
  const sorted = Float64Array.from(times).sort();
  const r = { p50: percentile(sorted, 50), p99: percentile(sorted, 99), samples: sorted.length };
  log(`  p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms over ${r.samples} requests`);
  return r;
}

async function timed(orch: Orch, what: string, path: string): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  const r = await orch.expect(what, [200], 'GET', path);
  return { ms: performance.now() - t0, text: r.text };
}

/**
 * On a server just restarted on `size` objects: the first requests it answers
 * (cold; the first includes a TLS handshake), then its RSS while it is left
 * alone. The lowest sample, because a collection that has not run yet
 * inflates any one reading.
 */
export async function measureRestart(orch: Orch, size: number, opts: Options): Promise<RestartMeasurements> {
  const pid = orch.server.process.pid;
  // The last object loaded; the empty server has only the fixed namespace's.
  const firstGet = await timed(orch, 'the first GET after the restart', size ? objectPath(size - 1, opts.scaleNamespaces) : `${NP_PATH(FIXED_NS)}/np-fixed-0`);
  const firstList = await timed(orch, 'the first list after the restart', NP_PATH(FIXED_NS));
  let low: number | undefined;
  for (const end = performance.now() + SETTLE_MS; performance.now() < end; ) {
    await sleep(250);
    const now = rss(pid);
    if (now !== undefined && (low === undefined || now < low)) low = now;
  }
  return { firstGetMs: firstGet.ms, firstListMs: firstList.ms, rss: low, startPeakRss: peakRss(pid) };
}

/** GET, the lists and the watch on a server holding `size` objects (plus the fixed namespace's). */
export async function measureSize(orch: Orch, size: number, opts: Options): Promise<SizeMeasurements> {
  const n = opts.scaleNamespaces;
  const pid = orch.server.process.pid;
  const page = JSON.parse((await timed(orch, 'the first page', ALL_FIRST_PAGE)).text) as { items: unknown[]; metadata: { continue?: string } };
  if (page.items.length !== Math.min(500, size + opts.scaleFixed) || (size + opts.scaleFixed > 500 && !page.metadata.continue)) throw new Error(`the first page had ${page.items.length} items and continue ${page.metadata.continue ? 'set' : 'unset'}`);
  const jsonBytes = page.items.reduce<number>((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0) / page.items.length;
  const nsItems = Math.ceil(size / n);
  const o = { url: orch.server.url, token: orch.server.token };
  log(`scale: ${size}: GET of random objects (wrk) …`);
  const get = await measureWrk(
    { key: 'get', label: 'GET a random NetworkPolicy', url: `${o.url}${objectPath(0, n)}`, script: () => randomGetScript(authHeaders(o), objectPathFormat(n), size, n), expect: null },
    wrkSettings(opts),
    pid,
    () => startingWorkers(orch.server),
  );
  const list = (label: string, path: string, items: number) => {
    log(`scale: ${size}: ${label} …`);
    return sequential(orch, label, path, items, opts.duration);
  };
  const firstPage = await list('first page, limit=500, all namespaces', ALL_FIRST_PAGE, Math.min(500, size + opts.scaleFixed));
  const fixedList = await list(`list of ${FIXED_NS}`, NP_PATH(FIXED_NS), opts.scaleFixed);
  const nsList = await list(`list of ${namespaceName(0, n)}`, NP_PATH(namespaceName(0, n)), nsItems);
  log(`scale: ${size}: watch event delay over ${opts.scaleWatchWrites} writes …`);
  const watch = await watchDelay(orch, FIXED_NS, opts.scaleWatchWrites);
  return {
    peakRss: peakRss(pid),
    jsonBytes,
    get,
    firstPage,
    fixedList,
    nsList,
    nsItems,
    watch,
  };
}

/**
 * One watcher on `ns` from the list's resourceVersion while this process PUTs
 * its objects one after another (20 ms apart); the delay of each event is
 * counted from the moment its PUT was sent.
 */
export async function watchDelay(orch: Orch, ns: string, writes: number): Promise<WatchDelay> {
  const epoch = process.hrtime.bigint();
  const now = () => monoMs(epoch);
  const listed = JSON.parse((await orch.expect(`list ${ns}`, [200], 'GET', NP_PATH(ns))).text);
  const items: any[] = listed.items;
  const probe = openProbe(orch.server, `${NP_PATH(ns)}?watch=1&resourceVersion=${listed.metadata.resourceVersion}`, now);
  try {
    const status = await probe.status;
    if (status !== 200) throw new Error(`watch ${ns}: HTTP ${status}`);
    const sent = new Map<number, number>();
    const latencies: number[] = [];
    for (let k = 0; k < writes; k++) {
      const i = k % items.length;
      // Unique across calls: a PUT that changes nothing is answered without a new resourceVersion or an event.
      items[i].metadata.labels = { ...items[i].metadata.labels, 'bench-seq': `${epoch.toString(36)}-${k}` };
      const t = now();
      const r = await orch.expect(`update ${items[i].metadata.name}`, [200], 'PUT', `${NP_PATH(ns)}/${items[i].metadata.name}`, items[i]);
      latencies.push(now() - t);
      items[i] = JSON.parse(r.text);
      sent.set(Number(items[i].metadata.resourceVersion), t);
      await sleep(20);
    }
    const seen = () => probe.rvs.filter((rv) => sent.has(rv)).length;
    for (const deadline = now() + 10_000; seen() < sent.size && now() < deadline && !probe.closed(); ) await sleep(20);
    const delays: number[] = [];
    probe.rvs.forEach((rv, j) => {
      const t = sent.get(rv);
      if (t !== undefined) delays.push(probe.times[j] - t);
    });
    const lat = Float64Array.from(latencies).sort();
    return { writes, delays: Float64Array.from(delays).sort(), missing: sent.size - new Set(probe.rvs.filter((rv) => sent.has(rv))).size, writeP50: percentile(lat, 50), writeP99: percentile(lat, 99) };
  } finally {
    probe.close();
  }
}

/** Bytes under `dir` (du -sb), or undefined when du fails. */
export function diskUsage(dir: string | undefined): number | undefined {
  if (!dir) return undefined;
  try {
    return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\t')[0]);
  } catch {
    return undefined;
  }
}

/** Everything measured at one size (scale.ts records the load, the restart's times and the disk usage). */
export interface ScaleStep extends Partial<SizeMeasurements>, Partial<RestartMeasurements> {
  size: number;
  /** Objects created to reach this size, and how long that took. */
  loaded: number;
  loadMs: number;
  /** SIGTERM → exit of the server that loaded them, and spawn → first 200 on /readyz of the one restarted on them. */
  stopMs?: number;
  readyMs?: number;
  /** Bytes on disk (the server's data dir, and etcd's) at this size. */
  disk?: number;
  /** etcd's VmRSS after the measurements (etcd3). */
  etcdRss?: number;
  /** Why the measurements on the loaded server failed, or the restart did. */
  error?: string;
  restartError?: string;
}

/** One backend's run of the scale benchmark, size by size, as the report reads it (scale-report.ts). */
export interface ScaleResult {
  backend: Backend;
  sizes: number[];
  /** The server restarted with the namespaces and the fixed namespace only. */
  empty?: { readyMs: number; rss?: number };
  steps: ScaleStep[];
  /** Why the remaining sizes were not measured (disk, memory). */
  refused?: string;
  aborted?: string;
  skipped?: string;
  serverLog?: string;
}
