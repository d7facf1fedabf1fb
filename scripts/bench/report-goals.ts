/**
 * Issue 10's table, per backend: each line's measured value, the raw baseline
 * it is compared with (same run), the ratio, the goal and whether it is met;
 * then the one core vs all cores table. A line that was not measured (its part
 * skipped or failed) says "not measured" instead of a mark.
 */
import type { Options } from './args.ts';
import type { Measurement } from './autocannon.ts';
import { RAW_KEY } from './cores.ts';
import type { BackendResult } from './load-backend.ts';
import { listRuns } from './list-targets.ts';
import { fmt, int, percentile } from './util.ts';
import type { PhaseResult } from './watch-fanout.ts';

const MiB = 1024 * 1024;

interface Line {
  line: string;
  baseline?: string;
  value: string;
  ratio?: string;
  goal: string;
  /** undefined: not measured. */
  met: boolean | undefined;
}

const mark = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? '✅ met' : '❌ not met');
const msv = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? 'n/a' : `${int(n)} ms`);
/** A measurement's failures, appended to its value so that a fast rate of errors is not mistaken for a result. */
const failures = (m: Measurement) => (m.bad || m.errors ? ` (${int(m.bad)} bad status, ${int(m.errors)} socket errors)` : '');
const clean = (m: Measurement) => !m.bad && !m.errors;

function rateLine(line: string, m: Measurement | undefined, base: Measurement | undefined, baseName: string, goal: number): Line {
  const goalText = `≥ ${goal}x ${baseName}`;
  if (!m || !base) return { line, value: 'n/a', goal: goalText, met: undefined };
  const x = m.rps / base.rps;
  return {
    line,
    baseline: `${baseName} ${int(base.rps)}`,
    value: `${int(m.rps)}${failures(m)}`,
    ratio: `${fmt(x, 3)}x ${baseName}`,
    goal: goalText,
    met: x >= goal && clean(m),
  };
}

/**
 * The create line with the create floor beside its baseline (create-floor.ts:
 * a bare durable create over HTTPS, same run, same wrk command): how far below
 * the goal the machine itself is, and how much of the floor's rate orch keeps.
 */
function withFloor(l: Line, m: Measurement | undefined, floor: Measurement | undefined, http: Measurement | undefined): Line {
  if (!floor) return l;
  const ofHttp = http ? ` = ${fmt(floor.rps / http.rps, 3)}x http` : '';
  l.baseline = `${l.baseline ?? ''}; create floor ${int(floor.rps)}${ofHttp}${failures(floor)}`;
  if (m && l.ratio) l.ratio += `; ${fmt(m.rps / floor.rps, 2)}x floor`;
  return l;
}

function latencyLine(line: string, value: number | undefined, goalMs: number, ok = true): Line {
  const measured = value !== undefined && Number.isFinite(value);
  return { line, value: msv(value), goal: `≤ ${goalMs} ms`, met: measured ? value <= goalMs && ok : undefined };
}

/**
 * A LIST line: p50 and lists/s, and beside them the raw https server's with
 * the same bytes (same run, same wrk command), with both ratios. The
 * goal is on the p50 alone.
 */
function listLine(line: string, m: Measurement | undefined, raw: Measurement | undefined, goalMs: number): Line {
  const l = latencyLine(line, m?.p50, goalMs, !!m && clean(m));
  if (!m) return l;
  const rate = (x: Measurement) => `${msv(x.p50)}, ${fmt(x.rps, 1)} lists/s${failures(x)}`;
  l.value = rate(m);
  if (raw) {
    l.baseline = `raw https ${rate(raw)}`;
    l.ratio = `p50 ${fmt(m.p50 / raw.p50, 2)}x, lists/s ${fmt(m.rps / raw.rps, 2)}x raw`;
  }
  return l;
}

function phase(r: BackendResult, rate: number): PhaseResult | undefined {
  return r.watch?.phases.find((p) => p.rate === rate);
}

function lines(r: BackendResult, o: Options): Line[] {
  const m = (k: string) => r.measurements.get(k);
  const out: Line[] = [
    rateLine('GET one NetworkPolicy, req/s', m('get'), m('https'), 'https', 0.7),
    withFloor(rateLine('create NetworkPolicy, every ack durable, req/s', m('create'), m('http'), 'http', 0.2), m('create'), m('create-floor'), m('http')),
  ];
  const n = int(o.listSize);
  const runs = listRuns(o);
  for (const { suffix, name } of runs) out.push(listLine(`full list of ${n}, p50, ${name}`, m(`list${suffix}`), m(`raw-list${suffix}`), 25));
  for (const { suffix, name } of runs) {
    const paged = r.paged?.get(`paged${suffix}`);
    const walks = paged?.walks.sorted();
    out.push(latencyLine(`whole paged walk, limit=${o.pageSize}, p50, ${name}`, walks?.length ? percentile(walks, 50) : undefined, 150, !!paged && !paged.badWalks));
  }
  for (const { suffix, name } of runs) out.push(listLine(`list of ${n} as Table, p50, ${name}`, m(`table${suffix}`), m(`raw-table${suffix}`), 60));
  const w = r.watch;
  const watchers = int(w?.watchers ?? o.watchers);
  const fast = phase(r, 200);
  const once = w ? w.connected === w.watchers && w.merged.perfect === w.connected && w.merged.missingOpen + w.merged.missingClosed === 0 : undefined;
  out.push({
    line: `${watchers} watchers, 200 writes/s: every event exactly once, in order`,
    value: once === undefined ? 'n/a' : once ? 'yes' : `no (${w!.merged.perfect} of ${w!.watchers} watchers got every event once)`,
    goal: 'yes',
    met: fast ? once : undefined,
  });
  out.push(latencyLine('same: the writes\' own latency, p99', fast?.writeP99, 100));
  out.push(latencyLine('same: event delay after the write was sent, p99', fast && fast.sentDelays.length ? percentile(fast.sentDelays, 99) : undefined, 250));
  out.push(latencyLine(`${watchers} watchers, 50 writes/s: write latency, p99`, phase(r, 50)?.writeP99, 50));
  const etcd = r.etcdPeakRss;
  out.push({
    line: 'peak RSS over the whole run (the server; etcd beside it)',
    value: r.peakRss === undefined ? 'n/a' : `${fmt(r.peakRss / MiB, 0)} MiB${etcd !== undefined ? ` (+ etcd ${fmt(etcd / MiB, 0)} MiB = ${fmt((r.peakRss + etcd) / MiB, 0)} MiB)` : ''}`,
    goal: '≤ 400 MiB',
    met: r.peakRss === undefined ? undefined : r.peakRss <= 400 * MiB,
  });
  out.push({
    line: 'spawn to first 200 on /readyz; idle RSS',
    value: `${fmt(r.readyMs, 0)} ms; ${r.idleRss === undefined ? 'n/a' : `${fmt(r.idleRss / MiB, 0)} MiB`}`,
    goal: '≤ 200 ms; ≤ 80 MiB',
    met: Number.isFinite(r.readyMs) && r.idleRss !== undefined ? r.readyMs <= 200 && r.idleRss <= 80 * MiB : undefined,
  });
  for (const [key, what] of [
    ['get', 'GET'],
    ['create', 'create'],
  ] as const) {
    const one = r.cores?.runs.find((x) => x.mode === 'one')?.measurements.get(key);
    const all = r.cores?.runs.find((x) => x.mode === 'all')?.measurements.get(key);
    const x = one && all ? all.rps / one.rps : undefined;
    const rawOne = r.cores?.runs.find((run) => run.mode === 'one')?.measurements.get(RAW_KEY);
    const rawAll = r.cores?.runs.find((run) => run.mode === 'all')?.measurements.get(RAW_KEY);
    const raw = rawOne && rawAll ? `; raw https, 2 processes vs 1: ${fmt(rawAll.rps / rawOne.rps, 2)}x` : '';
    out.push({
      line: `${what}, all cores vs one core, req/s`,
      baseline: one ? `one core ${int(one.rps)}${raw}` : undefined,
      value: all ? `${int(all.rps)}${failures(all)}` : 'n/a',
      ratio: x === undefined ? undefined : `${fmt(x, 2)}x`,
      goal: '≥ 1.5x one core',
      met: x === undefined ? undefined : x >= 1.5 && clean(one!) && clean(all!),
    });
  }
  return out;
}

function coresTable(r: BackendResult): string[] {
  const c = r.cores;
  if (!c) return r.coresSkipped ? [`One core vs all cores: skipped, ${r.coresSkipped}.`, ''] : [];
  const out = [
    `#### ${r.backend}: one core vs all cores`,
    '',
    '| target | server on | server processes / threads | req/s | p50 (ms) | p99 (ms) | server CPU cores used | bad + errors | all / one |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const key of [RAW_KEY, 'get', 'create']) {
    const one = c.runs.find((x) => x.mode === 'one')?.measurements.get(key);
    for (const run of c.runs) {
      const m = run.measurements.get(key);
      if (!m) continue;
      const x = run.mode === 'all' && one ? `${fmt(m.rps / one.rps, 2)}x` : '—';
      out.push(
        `| ${m.label} | ${run.mode === 'one' ? `one core (CPU ${run.cpus})` : `all cores (CPUs ${run.cpus})`} | ${key === RAW_KEY ? (run.mode === 'one' ? '1' : '2') : `${run.processes} / ${run.threads}`} | ${fmt(m.rps)} | ${fmt(m.p50, 2)} | ${fmt(m.p99, 2)} | ${m.serverCores === undefined ? 'n/a' : fmt(m.serverCores, 2)} | ${m.bad + m.errors} | ${x} |`,
      );
    }
  }
  const repinned = c.pins.reduce((n, p) => n + p.repinned, 0);
  out.push(
    '',
    `Two fresh servers with the same fixtures, one after the other; the one-core server started under \`taskset -c ${c.serverCpu}\`, its process tree checked before each target (${repinned ? `${repinned} processes had to be re-pinned` : 'every thread was on its CPU'}); wrk on the same CPU in every run. Before each, a raw node:https server with the same GET bytes, under the same CPU restriction: one process, then two sharing one socket as orch's pool does (its ratio is what a second process can gain here at all).`,
  );
  if (c.error) out.push('', `**one core vs all cores failed: ${c.error}**`);
  return [...out, ''];
}

/** What the LIST lines measure, under the goals tables. */
function listNote(o: Options): string {
  const [many] = listRuns(o);
  const concurrent =
    many.connections > 1
      ? `"${many.name}" = ${many.connections} connections, each asking for the next list as soon as its last one arrived, so its p50 includes the wait behind the other connections' lists and, on a small machine, the client's and the TLS layer's work for them; `
      : '';
  return (
    `LIST lines are wrk over HTTPS for ${o.duration} s after a ${o.warmup} s warm-up each (at most ${o.threads} threads; the paged walk one thread per connection): ${concurrent}` +
    `"one client" = one connection, one list at a time: a list's own latency. A paged walk's time is the sum of its ${Math.ceil(o.listSize / o.pageSize)} page times. ` +
    `The raw baseline is a bare node:https server (bench/baselines-child.ts, its own process, orch's serving certificate) answering with the exact bytes of orch's full-list or Table response, measured by the same wrk command just before orch's LISTs: ` +
    'what TLS and the client alone cost at that concurrency. Ratio = orch\'s p50 ÷ raw p50 (1x: as fast as a server with nothing to compute) and orch\'s lists/s ÷ raw lists/s; the goals are issue 10\'s, on orch\'s p50 alone.'
  );
}

export function goalTables(results: BackendResult[], o: Options): string[] {
  const out: string[] = [];
  for (const r of results) {
    if (r.skipped) continue;
    out.push(
      `### ${r.backend}: issue 10's table`,
      '',
      '| line | raw baseline, same run | measured | ratio | goal | |',
      '|---|---:|---:|---:|---:|---|',
      ...lines(r, o).map((l) => `| ${l.line} | ${l.baseline ?? ''} | ${l.value} | ${l.ratio ?? ''} | ${l.goal} | ${mark(l.met)} |`),
      '',
      ...coresTable(r),
    );
  }
  if (out.length) {
    out.push(
      `Rates are req/s from wrk (${o.threads} threads, ${o.connections} connections, HTTPS, ${o.duration} s after a ${o.warmup} s warm-up); a rate with failed responses is never "met". ` +
        (o.only.has('list') ? `${listNote(o)} ` : '') +
        `Event delay = the event's arrival at a watcher − the moment its write was sent. Peak RSS is the main server's VmHWM over its whole run (the goal is compared with the server alone).`,
      '',
    );
  }
  return out;
}
