/** The WATCH fan-out tables of the report. */
import { cpus } from 'node:os';
import type { BackendResult } from './load-backend.ts';
import { bytes, fmt, int, percentile } from './util.ts';

const ms = (n: number | undefined) => fmt(n, 2);

export function watchRows(results: BackendResult[]): string[] {
  const rows = results.filter((r) => r.watch);
  if (!rows.length) return [];
  const lines = [
    '| backend | writes/s (target) | writes/s (achieved) | writes done / planned (phase length, s) | write p50 / p99 (ms) | events delivered | delay after the response p50 / p99 / max (ms) | delay after the write was sent p50 / p99 / max (ms) | probe watcher, after the response p50 / p99 / max (ms) | probe, after sent p50 / p99 / max (ms) | server RSS at phase end |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const tail = (d: Float64Array) => `${ms(percentile(d, 50))} / ${ms(percentile(d, 99))} / ${ms(d[d.length - 1])}`;
  for (const r of rows) {
    for (const p of r.watch!.phases) {
      lines.push(
        `| ${r.backend} | ${fmt(p.rate, 0)} | ${fmt(p.achievedRate)} | ${int(p.writes)} / ${int(p.planned)} (${fmt(p.seconds)}) | ${ms(p.writeP50)} / ${ms(p.writeP99)} | ${int(p.delays.length)} of ${int(p.writes * r.watch!.connected)} | ${tail(p.delays)} | ${tail(p.sentDelays)} | ${tail(p.probeDelays)} | ${tail(p.probeSentDelays)} | ${bytes(p.serverRss)} |`,
      );
    }
  }
  lines.push(
    '',
    `| backend | writes/s (target) | CPU cores: orch server | etcd | watcher processes | writer (+ probe) | whole machine (of ${cpus().length}) |`,
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const r of rows) {
    for (const p of r.watch!.phases) {
      const c = (x: number | undefined) => (x === undefined ? '—' : fmt(x, 2));
      lines.push(`| ${r.backend} | ${fmt(p.rate, 0)} | ${c(p.cpu.server)} | ${c(p.cpu.etcd)} | ${c(p.cpu.watchers)} | ${c(p.cpu.writer)} | ${c(p.cpu.machine)} |`);
    }
  }
  lines.push(
    '',
    '| backend | watchers connected | connect time (ms) | closed by server early | missing at the end (open watchers) | missing (closed watchers) | duplicates | out of order | unexpected | watchers with every event once, in order | drain after last write (ms) | each watcher process: event-loop use, event-loop delay p99 / max (ms) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  );
  for (const r of rows) {
    const w = r.watch!;
    const m = w.merged;
    const child = w.childCpu.map((c) => `${fmt(c.elu * 100, 0)} %, ${fmt(c.eldP99Ms, 0)} / ${fmt(c.eldMaxMs, 0)}`).join('; ');
    lines.push(
      `| ${r.backend} | ${w.connected} of ${w.watchers} | ${fmt(w.connectMs, 0)} | ${m.closedEarly} | ${int(m.missingOpen)} | ${int(m.missingClosed)} | ${m.duplicates} | ${m.outOfOrder} | ${m.unexpected} | ${m.perfect} of ${w.connected} | ${w.drainMs === undefined ? 'timed out' : fmt(w.drainMs, 0)} | ${child} |`,
    );
  }
  return lines;
}
