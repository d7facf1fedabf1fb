/**
 * The scale benchmark's Markdown: per backend, one column per size, each
 * figure with its ratio to the smallest size's, and issue 10's goals marked:
 * GET and the single-namespace list flat (no more than 20 % worse from the
 * smallest size to the largest), memory per cached object ≤ 2x its JSON size,
 * restart-to-ready ≤ 15 s at 1,000,000.
 */
import { cpus } from 'node:os';
import type { Options } from './args.ts';
import { REVISION } from './report.ts';
import { FIXED_NS, namespaceName } from './scale-load.ts';
import { SETTLE_MS, type ScaleResult, type ScaleStep } from './scale-measure.ts';
import { bytes, fmt, int, percentile } from './util.ts';

const MILLION = 1_000_000;
const mark = (met: boolean | undefined, why = '') => (met === undefined ? `not measured${why}` : met ? `✅ met${why}` : `❌ not met${why}`);

interface Row {
  label: string;
  /** The figure of a step, undefined when it has none. */
  value: (s: ScaleStep) => number | undefined;
  show: (v: number, s: ScaleStep) => string;
  /** Show each figure's ratio to the first size's. */
  growth?: boolean;
  goal?: string;
  met?: (first: ScaleStep, last: ScaleStep, steps: ScaleStep[]) => string;
}

function table(r: ScaleResult, o: Options): string[] {
  const steps = r.steps;
  const emptyRss = r.empty?.rss;
  const memPer = (s: ScaleStep) => (s.rss !== undefined && emptyRss !== undefined ? (s.rss - emptyRss) / s.size : undefined);
  const msv = (v: number) => `${fmt(v, v < 10 ? 2 : 0)} ms`;
  const span = (first: ScaleStep, last: ScaleStep) => ` (${int(first.size)} → ${int(last.size)})`;
  const flat = (value: (s: ScaleStep) => number | undefined, better: 'higher' | 'lower') => (first: ScaleStep, last: ScaleStep) => {
    const a = value(first);
    const b = value(last);
    if (a === undefined || b === undefined || first === last) return mark(undefined, first === last ? ' (one size only)' : '');
    return mark(better === 'higher' ? b >= 0.8 * a : b <= 1.2 * a, span(first, last));
  };
  const rows: Row[] = [
    { label: 'objects created to reach this size', value: (s) => s.loaded, show: (v) => int(v) },
    { label: 'load rate, creates/s', value: (s) => (s.loaded * 1000) / s.loadMs, show: (v) => int(v) },
    { label: 'stop after loading and measuring (SIGTERM → exit)', value: (s) => s.stopMs, show: msv },
    {
      label: 'restart: spawn → first 200 on /readyz',
      value: (s) => s.readyMs,
      show: msv,
      growth: true,
      goal: `≤ 15 s at ${int(MILLION)}`,
      met: (_f, _l, all) => {
        const at = all.find((s) => s.size >= MILLION);
        return at?.readyMs !== undefined ? mark(at.readyMs <= 15_000, ` (at ${int(at.size)})`) : mark(undefined, ` (no size ≥ ${int(MILLION)})`);
      },
    },
    { label: 'first GET after ready (cold, with its TLS handshake)', value: (s) => s.firstGetMs, show: msv },
    { label: `first list of ${FIXED_NS} after ready (cold)`, value: (s) => s.firstListMs, show: msv },
    { label: `RSS after the restart, lowest over ${SETTLE_MS / 1000} s`, value: (s) => s.rss, show: (v) => bytes(v), growth: true },
    { label: 'peak RSS (VmHWM): loading and measuring / the restart', value: (s) => s.peakRss, show: (v, s) => `${bytes(v)} / ${bytes(s.startPeakRss)}`, growth: true },
    ...(r.backend === 'etcd3' ? [{ label: "etcd's RSS after the measurements", value: (s: ScaleStep) => s.etcdRss, show: (v: number) => bytes(v), growth: true }] : []),
    { label: 'memory per object: (RSS − empty server RSS) / objects', value: memPer, show: (v) => bytes(v) },
    { label: 'JSON size per object, as served', value: (s) => s.jsonBytes, show: (v) => bytes(v) },
    {
      label: 'memory per object ÷ JSON size',
      value: (s) => (memPer(s) !== undefined && s.jsonBytes ? memPer(s)! / s.jsonBytes : undefined),
      show: (v) => `${fmt(v, 2)}x`,
      goal: '≤ 2x',
      met: (_f, last) => {
        const m = memPer(last);
        return m !== undefined && last.jsonBytes ? mark(m / last.jsonBytes <= 2, ` (at ${int(last.size)})`) : mark(undefined);
      },
    },
    { label: 'disk per object (data dirs)', value: (s) => (s.disk !== undefined ? s.disk / s.size : undefined), show: (v) => bytes(v) },
    { label: 'GET a random object, req/s (wrk)', value: (s) => s.get?.rps, show: (v) => int(v), growth: true, goal: 'flat: ≥ 0.8x the smallest size', met: flat((s) => s.get?.rps, 'higher') },
    { label: 'GET p50 / p99', value: (s) => s.get?.p50, show: (v, s) => `${fmt(v, 2)} / ${fmt(s.get!.p99, 2)} ms` },
    { label: 'first page, limit=500, all namespaces, p50', value: (s) => s.firstPage?.p50, show: msv, growth: true },
    {
      label: `list of ${FIXED_NS} (${o.scaleFixed} objects at every size), p50`,
      value: (s) => s.fixedList?.p50,
      show: msv,
      growth: true,
      goal: 'flat: ≤ 1.2x the smallest size',
      met: flat((s) => s.fixedList?.p50, 'lower'),
    },
    { label: `list of ${namespaceName(0, o.scaleNamespaces)} (size ÷ ${int(o.scaleNamespaces)} objects), p50`, value: (s) => s.nsList?.p50, show: (v, s) => `${msv(v)} (${int(s.nsItems)} items)`, growth: true },
    {
      label: 'watch event delay after the write was sent, p50 / p99',
      value: (s) => (s.watch?.delays.length ? percentile(s.watch.delays, 50) : undefined),
      show: (v, s) => `${fmt(v, 1)} / ${fmt(percentile(s.watch!.delays, 99), 1)} ms${s.watch!.missing ? ` (${s.watch!.missing} events missing)` : ''}`,
      growth: true,
    },
    { label: "the watched writes' latency, p50 / p99", value: (s) => s.watch?.writeP50, show: (v, s) => `${fmt(v, 1)} / ${fmt(s.watch!.writeP99, 1)} ms` },
  ];
  const ok = steps.filter((s) => !s.error);
  const first = ok[0];
  const last = ok.at(-1);
  const out = [`| | ${steps.map((s) => int(s.size)).join(' | ')} | goal | |`, `|---|${steps.map(() => '---:').join('|')}|---|---|`];
  for (const row of rows) {
    const base = first ? row.value(first) : undefined;
    const cells = steps.map((s) => {
      const v = row.value(s);
      if (v === undefined || !Number.isFinite(v)) return 'n/a';
      const g = row.growth && base && s !== first ? ` (${fmt(v / base, 2)}×)` : '';
      return `${row.show(v, s)}${g}`;
    });
    out.push(`| ${row.label} | ${cells.join(' | ')} | ${row.goal ?? ''} | ${row.met ? (first && last ? row.met(first, last, ok) : mark(undefined)) : ''} |`);
  }
  return out;
}

export function scaleReport(results: ScaleResult[], o: Options): string {
  const out = [
    '## orch-apiserver scale benchmark',
    '',
    `${REVISION} at the start; node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}; loopback. NetworkPolicies spread round-robin over ${int(o.scaleNamespaces)} namespaces, plus ${FIXED_NS} with ${o.scaleFixed}; ` +
      `GET on wrk (${o.threads} threads, ${o.connections} connections, ${o.duration} s after ${o.warmup} s warm-up); lists one request at a time for ${o.duration} s (at least 5).`,
    '',
  ];
  for (const r of results) {
    out.push(`### ${r.backend}`, '');
    if (r.skipped) {
      out.push(`skipped: ${r.skipped}`, '');
      continue;
    }
    if (r.empty) out.push(`Empty server (the namespaces and ${FIXED_NS} only), restarted: /readyz 200 after ${fmt(r.empty.readyMs, 0)} ms, RSS ${bytes(r.empty.rss)} (lowest over ${SETTLE_MS / 1000} s).`, '');
    if (r.steps.length) out.push(...table(r, o), '');
    for (const s of r.steps) {
      if (s.error) out.push(`- **${int(s.size)}: measurements failed: ${s.error.replace(/\s+/g, ' ')}**`);
      if (s.restartError) out.push(`- **${int(s.size)}: the restart failed: ${s.restartError.replace(/\s+/g, ' ').slice(0, 1500)}**`);
    }
    if (r.refused) out.push(`- **${r.refused}**`);
    if (r.aborted) out.push(`- **aborted: ${r.aborted}**`);
    if (r.serverLog?.trim()) out.push('', 'Server output (last lines):', '```', ...r.serverLog.trim().split('\n').slice(-30), '```');
    out.push('');
  }
  out.push(
    `- At each size, GET, the lists and the watch are measured on the server that loaded the objects; then it is stopped and started again on the same data (the restart figures), its first GET and list timed, and its RSS sampled every 250 ms for ${SETTLE_MS / 1000} s with no load (the lowest sample). Memory per object = (that RSS − the empty server's, measured the same way) / objects; below 100,000 objects the garbage a server has not collected yet (tens of MiB) swamps it. The JSON size is that of the first page's items as served (compact). The next size is loaded into the restarted server.`,
    `- GET: random objects among all loaded, wrk's Lua choosing one per request. The list of ${FIXED_NS} holds the same ${o.scaleFixed} objects at every size, so it shows what the surrounding objects cost a single-namespace list (the goal line); the list of ${namespaceName(0, o.scaleNamespaces)} grows with the size (size ÷ ${int(o.scaleNamespaces)} items), so its growth is expected.`,
    `- Watch: one watcher on ${FIXED_NS} from the list's resourceVersion in this process while ${o.scaleWatchWrites} PUTs are sent one after another 20 ms apart; delay = the event's arrival − the moment its PUT was sent.`,
    '- Growth: each figure in parentheses is the ratio to the smallest size\'s. "flat" goals compare the smallest size with the largest measured.',
  );
  return out.join('\n') + '\n';
}
