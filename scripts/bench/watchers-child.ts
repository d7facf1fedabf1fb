/**
 * watchers-child.ts — one process of the watch fan-out benchmark
 * (scripts/bench/watch-fanout.ts), so the watchers do not share an event loop
 * with the orch server or with the writer.
 *
 * Opens N watch streams, each over its own TLS connection (no agent, so no
 * keep-alive), parses their newline-delimited JSON and records, per watcher,
 * the resourceVersion and the arrival time of every event on CLOCK_MONOTONIC
 * (process.hrtime, shared by all processes of the machine) relative to the
 * parent's epoch. Driven over the IPC channel (advanced serialization):
 *
 *   {type:'ping', t0}                        → {type:'pong', t0, t}
 *   {type:'connect', config}                 → {type:'connected', ...}
 *   {type:'mark'}                            (start of the writes: CPU and event-loop baselines)
 *   {type:'progress', rv}                    → {type:'progress', open, caughtUp, closedEarly}
 *   {type:'analyze', rvs, times, sent, phases, nPhases} → {type:'result', ...}
 *   {type:'exit'}
 *
 * Exits when the parent goes away (IPC disconnect).
 */
import { request as httpsRequest } from 'node:https';
import type { ClientRequest } from 'node:http';
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import { Samples } from './util.ts';

export interface WatchersConfig {
  epoch: string;
  url: string;
  ca: string;
  token: string;
  path: string;
  count: number;
  connectConcurrency: number;
}

export interface ConnectedReport {
  type: 'connected';
  ok: number;
  failed: number;
  failSamples: string[];
  ms: number;
}

export interface ChildResult {
  type: 'result';
  /** Delays (event arrival − write response arrival, ms) per writer phase. */
  delays: Float64Array[];
  /** Delays (event arrival − write request sent, ms) per writer phase. */
  sentDelays: Float64Array[];
  watchers: number;
  events: number;
  missingOpen: number;
  missingClosed: number;
  duplicates: number;
  outOfOrder: number;
  unexpected: number;
  perfect: number;
  closedEarly: number;
  closeReasons: Record<string, number>;
  firstCloseMs: number | undefined;
  types: Record<string, number>;
  errorSamples: string[];
  badLines: number;
  cpuMs: number;
  elu: number;
  /** Event-loop delay of this process from the start of the writes (how late it could notice arrivals). */
  eldP99Ms: number;
  eldMaxMs: number;
}

interface Watcher {
  req?: ClientRequest;
  ok: boolean;
  rvs: Samples;
  times: Samples;
  buffer: string;
  closedEarly?: string;
  closedAt?: number;
}

let epoch = 0n;
const now = () => Number(process.hrtime.bigint() - epoch) / 1e6;
const watchers: Watcher[] = [];
const types: Record<string, number> = {};
const errorSamples: string[] = [];
let badLines = 0;
let closing = false;
let mark: { cpu: NodeJS.CpuUsage; elu: EventLoopUtilization; eld: IntervalHistogram } | undefined;

function send(message: unknown): void {
  process.send?.(message);
}

/**
 * Reads each event's type and resourceVersion without parsing the object: 1,000
 * watchers on two shared cores cannot JSON.parse 200 events/s each, and the
 * benchmark measures the server, not a client's decoding. The server writes
 * `{"type":"T","object":{"apiVersion":..,"kind":..,"metadata":{"resourceVersion":"N"`,
 * so the first resourceVersion of a line is the object's.
 */
const TYPE_PREFIX = '{"type":"';
const RV_KEY = '"resourceVersion":"';

function onLines(w: Watcher, chunk: string, t: number): void {
  w.buffer += chunk;
  let start = 0;
  for (let nl = w.buffer.indexOf('\n', start); nl >= 0; nl = w.buffer.indexOf('\n', start)) {
    const lineStart = start;
    start = nl + 1;
    if (nl === lineStart) continue;
    if (!w.buffer.startsWith(TYPE_PREFIX, lineStart) || w.buffer[nl - 1] !== '}') {
      badLines++;
      continue;
    }
    const typeEnd = w.buffer.indexOf('"', lineStart + TYPE_PREFIX.length);
    const type = w.buffer.slice(lineStart + TYPE_PREFIX.length, typeEnd);
    types[type] = (types[type] ?? 0) + 1;
    if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') {
      const at = w.buffer.indexOf(RV_KEY, typeEnd);
      if (at < 0 || at > nl) {
        badLines++;
        continue;
      }
      const rvStart = at + RV_KEY.length;
      w.rvs.push(Number(w.buffer.slice(rvStart, w.buffer.indexOf('"', rvStart))));
      w.times.push(t);
    } else if (type === 'ERROR' && errorSamples.length < 5) errorSamples.push(w.buffer.slice(lineStart, Math.min(nl, lineStart + 300)));
  }
  w.buffer = start < w.buffer.length ? w.buffer.slice(start) : '';
}

function open(config: WatchersConfig, w: Watcher): Promise<string | undefined> {
  return new Promise((resolve) => {
    const ended = (reason: string) => {
      if (closing || w.closedEarly) return;
      w.closedEarly = reason;
      w.closedAt = now();
    };
    const req = httpsRequest(
      new URL(config.path, config.url),
      { ca: config.ca, agent: false, headers: { authorization: `Bearer ${config.token}`, accept: 'application/json' }, timeout: 60_000 },
      (res) => {
        req.setTimeout(0);
        if (res.statusCode !== 200) {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve(`HTTP ${res.statusCode}: ${body.slice(0, 200)}`));
          res.on('error', () => resolve(`HTTP ${res.statusCode}`));
          return;
        }
        w.ok = true;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => onLines(w, chunk, now()));
        res.on('end', () => ended('server ended the stream'));
        res.on('aborted', () => ended('connection aborted'));
        res.on('error', (err) => ended(`response error: ${err.message}`));
        res.on('close', () => ended('connection closed'));
        resolve(undefined);
      },
    );
    w.req = req;
    req.on('timeout', () => req.destroy(new Error('no response headers within 60 s')));
    req.on('error', (err) => {
      if (!w.ok) resolve(err.message);
      else ended(`request error: ${err.message}`);
    });
    req.end();
  });
}

async function connect(config: WatchersConfig): Promise<ConnectedReport> {
  epoch = BigInt(config.epoch);
  const t0 = now();
  const failSamples: string[] = [];
  let failed = 0;
  let next = 0;
  for (let i = 0; i < config.count; i++) watchers.push({ ok: false, rvs: new Samples(), times: new Samples(), buffer: '' });
  await Promise.all(
    Array.from({ length: Math.min(config.connectConcurrency, config.count) }, async () => {
      while (next < config.count) {
        const error = await open(config, watchers[next++]);
        if (error !== undefined) {
          failed++;
          if (failSamples.length < 3 && !failSamples.includes(error)) failSamples.push(error);
        }
      }
    }),
  );
  return { type: 'connected', ok: config.count - failed, failed, failSamples, ms: now() - t0 };
}

function analyze(rvs: Float64Array, times: Float64Array, sent: Float64Array, phases: Uint8Array, nPhases: number): ChildResult {
  const index = new Map<number, number>();
  rvs.forEach((rv, i) => index.set(rv, i));
  const delays = Array.from({ length: nPhases }, () => new Samples());
  const sentDelays = Array.from({ length: nPhases }, () => new Samples());
  const seen = new Uint8Array(rvs.length);
  const r: ChildResult = {
    type: 'result', delays: [], sentDelays: [], watchers: 0, events: 0, missingOpen: 0, missingClosed: 0, duplicates: 0, outOfOrder: 0, unexpected: 0,
    perfect: 0, closedEarly: 0, closeReasons: {}, firstCloseMs: undefined, types, errorSamples, badLines, cpuMs: 0, elu: 0, eldP99Ms: NaN, eldMaxMs: NaN,
  };
  for (const w of watchers) {
    if (!w.ok) continue;
    r.watchers++;
    seen.fill(0);
    let distinct = 0;
    let lastIdx = -1;
    let bad = 0;
    const rvs = w.rvs.view();
    const arrivals = w.times.view();
    for (let j = 0; j < rvs.length; j++) {
      r.events++;
      const idx = index.get(rvs[j]);
      if (idx === undefined) {
        r.unexpected++;
        bad++;
      } else if (seen[idx]) {
        r.duplicates++;
        bad++;
      } else {
        seen[idx] = 1;
        distinct++;
        if (idx < lastIdx) {
          r.outOfOrder++;
          bad++;
        } else lastIdx = idx;
        delays[phases[idx]].push(arrivals[j] - times[idx]);
        sentDelays[phases[idx]].push(arrivals[j] - sent[idx]);
      }
    }
    const missing = rvs.length - distinct;
    if (w.closedEarly) {
      r.closedEarly++;
      r.missingClosed += missing;
      r.closeReasons[w.closedEarly] = (r.closeReasons[w.closedEarly] ?? 0) + 1;
      if (r.firstCloseMs === undefined || w.closedAt! < r.firstCloseMs) r.firstCloseMs = w.closedAt;
    } else r.missingOpen += missing;
    if (!missing && !bad) r.perfect++;
  }
  r.delays = delays.map((d) => d.view().slice());
  r.sentDelays = sentDelays.map((d) => d.view().slice());
  if (mark) {
    const cpu = process.cpuUsage(mark.cpu);
    r.cpuMs = (cpu.user + cpu.system) / 1000;
    r.elu = performance.eventLoopUtilization(mark.elu).utilization;
    mark.eld.disable();
    r.eldP99Ms = mark.eld.percentile(99) / 1e6;
    r.eldMaxMs = mark.eld.max / 1e6;
  }
  return r;
}

process.on('message', (m: any) => {
  switch (m.type) {
    case 'ping':
      send({ type: 'pong', t0: m.t0, t: Number(process.hrtime.bigint() - BigInt(m.epoch)) / 1e6 });
      break;
    case 'connect':
      void connect(m.config as WatchersConfig).then(send);
      break;
    case 'mark': {
      const eld = monitorEventLoopDelay({ resolution: 10 });
      eld.enable();
      mark = { cpu: process.cpuUsage(), elu: performance.eventLoopUtilization(), eld };
      break;
    }
    case 'progress': {
      let open = 0;
      let caughtUp = 0;
      let closedEarly = 0;
      for (const w of watchers) {
        if (!w.ok) continue;
        if (w.closedEarly) closedEarly++;
        else {
          open++;
          if (w.rvs.length && w.rvs.view()[w.rvs.length - 1] >= m.rv) caughtUp++;
        }
      }
      send({ type: 'progress', open, caughtUp, closedEarly });
      break;
    }
    case 'analyze':
      send(analyze(m.rvs, m.times, m.sent, m.phases, m.nPhases));
      break;
    case 'exit':
      shutdown();
      break;
  }
});

function shutdown(): void {
  closing = true;
  for (const w of watchers) w.req?.destroy();
  process.exit(0);
}
process.on('disconnect', shutdown);
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
