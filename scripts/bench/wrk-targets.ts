/**
 * The wrk targets: the raw baselines, GET (as the admin and as an RBAC user)
 * and CREATE, each a warm-up run then a measured run of the same wrk command.
 */
import type { Options } from './args.ts';
import type { Measurement } from './autocannon.ts';
import { networkPolicy, NP_PATH } from './orch.ts';
import { processTree } from './cpu-pin.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { log, fmt } from './util.ts';
import { createScript, getScript } from './wrk-scripts.ts';
import { runWrk, wrkMeasurement, type WrkSummary } from './wrk.ts';

export interface OrchEndpoint {
  url: string;
  token: string;
}

export const authHeaders = (o: OrchEndpoint) => ({ authorization: `Bearer ${o.token}`, accept: 'application/json' });

export interface WrkTarget {
  key: string;
  label: string;
  url: string;
  /** The script of the warm-up or the measured run (a create's names differ between the two). */
  script: (run: 'warmup' | 'measured') => string;
  /** The status every response should have, or null for "2xx/3xx" counted by wrk itself. */
  expect: number | null;
  /** Called with the measured run's summary (what a script collected beyond wrk's own figures). */
  measured?: (summary: WrkSummary) => void;
}

export interface WrkSettings {
  durationS: number;
  warmupS: number;
  threads: number;
  connections: number;
  /** The CPU wrk runs on, or undefined for any. */
  clientCpu?: number;
}

/**
 * wrk's settings. Unpinned, as issue 10's table was measured, except in the
 * one core vs all cores runs (`pinned`), where wrk stays on the client CPU so
 * that it never competes with the one-core server and the client is the same
 * in both runs.
 */
export const wrkSettings = (opts: Options, pinned = false): WrkSettings => ({
  durationS: opts.duration,
  warmupS: opts.warmup,
  threads: opts.threads,
  connections: opts.connections,
  clientCpu: pinned ? opts.clientCpu : undefined,
});

/** Warm-up (discarded), then the measured run; `serverPid`'s process tree CPU use is recorded over the latter. */
export async function measureWrk(t: WrkTarget, w: WrkSettings, serverPid?: number, startingWorkers?: () => number): Promise<Measurement> {
  const base = { url: t.url, threads: w.threads, connections: w.connections, cpu: w.clientCpu };
  await warmUp(t, w, base, serverPid, startingWorkers);
  const r = await runWrk({ ...base, script: t.script('measured'), durationS: w.durationS, serverPid });
  t.measured?.(r.summary);
  const m = wrkMeasurement(t.key, t.label, r.summary, t.expect);
  m.serverCores = r.serverCores;
  log(`  ${fmt(m.rps)} req/s, p50 ${fmt(m.p50, 2)} ms, p99 ${fmt(m.p99, 2)} ms, errors ${m.errors}, bad status ${m.bad}${m.serverCores !== undefined ? `, server ${fmt(m.serverCores, 2)} cores` : ''}`);
  return m;
}

/** Warm-up rounds at most: the settling below is bounded. */
const MAX_WARMUP_ROUNDS = 4;
/** Two warm-up rounds whose rates differ by less than this count as the steady state. */
const STEADY_RATE_CHANGE = 0.1;
/** Workers the warm-up waits for at most, and how long for each. */
const MAX_WORKER_WAITS = 3;
const WORKER_START_TIMEOUT_MS = 180_000;

/**
 * Waits while the server has a worker that is starting; says whether there was
 * one. A worker's start reads the whole store into its cache, at 1,000,000
 * objects about 20 s of a core: rounds in the meantime looked steady (the
 * same processes, the same rate) and the measurement ran beside that start.
 */
async function workersStarted(startingWorkers: () => number): Promise<boolean> {
  if (startingWorkers() === 0) return false;
  const deadline = Date.now() + WORKER_START_TIMEOUT_MS;
  while (startingWorkers() > 0 && Date.now() < deadline) await sleep(250);
  return true;
}

/**
 * Warms a target up until it serves at its steady rate: rounds of the warm-up
 * length until one ends with the server's process tree unchanged and a rate
 * within 10 % of the round before (at most four). The server's pool forks a
 * worker once a load lasts (src/server/worker-pool.ts); the worker's start and
 * its first seconds of unoptimized code belong to no target's steady rate, and
 * measured they made whichever target ran first look 30-60 % slower than the
 * same GET run right after it. Every target, baselines included, settles the
 * same way.
 */
async function warmUp(
  t: WrkTarget,
  w: WrkSettings,
  base: Omit<Parameters<typeof runWrk>[0], 'script' | 'durationS'>,
  serverPid: number | undefined,
  startingWorkers: (() => number) | undefined,
): Promise<void> {
  let previousRate: number | undefined;
  let waits = 0;
  for (let round = 1; w.warmupS > 0 && round <= MAX_WARMUP_ROUNDS; round++) {
    const processes = serverPid === undefined ? 0 : processTree(serverPid).length;
    const { summary } = await runWrk({ ...base, script: t.script('warmup'), durationS: w.warmupS });
    const rate = summary.requests / (summary.durationUs / 1e6);
    if (startingWorkers && waits < MAX_WORKER_WAITS && (await workersStarted(startingWorkers))) {
      // The rounds run while a worker loaded its cache measured neither pool: warm up afresh.
      waits++;
      log(`  warm-up round ${round}: ${fmt(rate)} req/s while a worker started; waited for it to serve`);
      previousRate = undefined;
      round = 0;
      continue;
    }
    const grew = serverPid !== undefined && processTree(serverPid).length !== processes;
    const steady = !grew && previousRate !== undefined && Math.abs(rate - previousRate) <= STEADY_RATE_CHANGE * previousRate;
    if (steady) return;
    if (round < MAX_WARMUP_ROUNDS) log(`  warm-up round ${round}: ${fmt(rate)} req/s${grew ? ', the server grew to ' + processTree(serverPid!).length + ' processes' : ''}; not settled yet`);
    previousRate = rate;
  }
  // A worker forked by the last round must not start beside the measured run either.
  if (startingWorkers) await workersStarted(startingWorkers);
}

export function baselineTargets(ports: { http: number; https: number }): WrkTarget[] {
  const script = () => getScript({});
  return [
    { key: 'http', label: 'raw node:http GET', url: `http://127.0.0.1:${ports.http}/`, script, expect: null },
    { key: 'https', label: 'raw node:https GET', url: `https://127.0.0.1:${ports.https}/`, script, expect: null },
  ];
}

export function getTarget(o: OrchEndpoint, ns: string, name: string): WrkTarget {
  return { key: 'get', label: 'GET NetworkPolicy', url: `${o.url}${NP_PATH(ns)}/${name}`, script: () => getScript(authHeaders(o)), expect: null };
}

/** The same GET as a user RBAC allows through a RoleBinding, not as system:masters: the cost of an RBAC decision. */
export function rbacGetTarget(o: OrchEndpoint, token: string, ns: string, name: string): WrkTarget {
  return { ...getTarget({ ...o, token }, ns, name), key: 'get-rbac', label: 'GET NetworkPolicy as an RBAC user' };
}

/** The body of a create, split where each request's name goes. */
function createBody(ns: string): { before: string; after: string } {
  const MARK = '@@NAME@@';
  const [before, after] = JSON.stringify(networkPolicy(MARK, ns)).split(MARK);
  return { before, after };
}

/** POST of the NetworkPolicy with a unique name each (`np-<runId>-<w|m>-<thread>-<n>`), expecting 201. */
export function createTarget(o: OrchEndpoint, ns: string, runId: string): WrkTarget {
  const { before, after } = createBody(ns);
  const headers = { ...authHeaders(o), 'content-type': 'application/json' };
  return {
    key: 'create',
    label: 'CREATE NetworkPolicy',
    url: `${o.url}${NP_PATH(ns)}`,
    script: (run) => createScript(NP_PATH(ns), headers, before, after, `np-${runId}-${run === 'warmup' ? 'w' : 'm'}-`, 201),
    expect: 201,
  };
}

/** The same POSTs to the create floor (create-floor.ts): what a durable create costs without an API server's work. */
export function createFloorTarget(port: number, ns: string, runId: string): WrkTarget {
  const { before, after } = createBody(ns);
  return {
    key: 'create-floor',
    label: 'create floor: raw node:https + JSON + SQLite group commit',
    url: `https://127.0.0.1:${port}${NP_PATH(ns)}`,
    script: (run) => createScript(NP_PATH(ns), { 'content-type': 'application/json' }, before, after, `np-${runId}-${run === 'warmup' ? 'w' : 'm'}-`, 201),
    expect: 201,
  };
}
