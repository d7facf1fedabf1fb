/**
 * Watch fan-out: N watchers in child processes (watchers-child.ts) watch one
 * namespace from a known resourceVersion while a writer here PUTs objects of
 * that namespace at fixed rates, one phase per rate. Every write's response
 * time and resourceVersion is recorded; the children compare each watcher's
 * events against that list (exactly once, in order) and measure the delay
 * from the write's response to the event's arrival. All times are on
 * CLOCK_MONOTONIC relative to one epoch, checked by a ping handshake.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, type TestServer } from '../../test/helpers/server.ts';
import type { Options } from './args.ts';
import { createNamespace, createPolicies, NP_PATH, type Orch } from './orch.ts';
import { assertRunning, log, monoMs, onCleanup, stopChild } from './util.ts';
import type { ChildResult, ConnectedReport, WatchersConfig } from './watchers-child.ts';
import { runWriter, type PhaseResult } from './watch-writer.ts';

export type { PhaseResult };

export interface WatchResult {
  watchers: number;
  connected: number;
  connectFailed: number;
  connectSamples: string[];
  connectMs: number;
  clockSkewMs: number;
  phases: PhaseResult[];
  writeStatuses: Record<string, number>;
  writeSamples: string[];
  /** Last write response → every open watcher had the last write, or undefined when the drain timed out. */
  drainMs: number | undefined;
  merged: Omit<ChildResult, 'type' | 'delays' | 'sentDelays' | 'cpuMs' | 'elu' | 'eldP99Ms' | 'eldMaxMs'>;
  /** The probe watcher in the writer's (lightly loaded) process: writes it missed, and how its stream ended early, if it did. */
  probe: { missing: number; closed?: string };
  childCpu: Array<{ cpuMs: number; elu: number; eldP99Ms: number; eldMaxMs: number }>;
  windowS: number;
}

type Reply = { type: string } & Record<string, any>;

class Child {
  readonly proc: ChildProcess;
  private waiting: Array<{ type: string; resolve: (m: Reply) => void }> = [];
  stderr = '';
  constructor() {
    this.proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/bench/watchers-child.ts')], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    this.proc.stderr!.on('data', (d) => (this.stderr = (this.stderr + d).slice(-4000)));
    // Sending to a child that is gone emits 'error'; ask() reports it instead.
    this.proc.on('error', (err) => (this.stderr += `\n${err.message}`));
    this.proc.on('message', (m: Reply) => {
      const i = this.waiting.findIndex((w) => w.type === m.type);
      if (i >= 0) this.waiting.splice(i, 1)[0].resolve(m);
    });
  }
  ask(message: Record<string, unknown>, replyType: string, timeoutMs: number): Promise<Reply> {
    return new Promise((resolve, reject) => {
      if (!this.proc.connected) return reject(new Error(`watchers child ${this.proc.pid} is gone\n${this.stderr}`));
      const waiter = { type: replyType, resolve: (m: Reply) => settle(() => resolve(m)) };
      const settle = (then: () => void) => {
        clearTimeout(timer);
        this.proc.off('exit', onExit);
        this.waiting = this.waiting.filter((w) => w !== waiter);
        then();
      };
      const timer = setTimeout(() => settle(() => reject(new Error(`watchers child ${this.proc.pid}: no ${replyType} reply within ${timeoutMs} ms\n${this.stderr}`))), timeoutMs);
      const onExit = () => settle(() => reject(new Error(`watchers child ${this.proc.pid} exited\n${this.stderr}`)));
      this.proc.once('exit', onExit);
      this.waiting.push(waiter);
      this.proc.send(message, (err) => err && settle(() => reject(err)));
    });
  }
}

export async function watchFanout(orch: Orch, opts: Options, ns: string, etcdPid?: number): Promise<WatchResult> {
  const children: Child[] = [];
  let closeProbe = () => {};
  try {
    return await run(orch, opts, ns, etcdPid, children, (close) => (closeProbe = close));
  } finally {
    // Also on failure, so that the next backend does not run alongside these.
    closeProbe();
    await Promise.all(children.map((c) => stopChild(c.proc, 5_000)));
  }
}

async function run(orch: Orch, opts: Options, ns: string, etcdPid: number | undefined, children: Child[], onProbe: (close: () => void) => void): Promise<WatchResult> {
  const epoch = process.hrtime.bigint();
  const now = () => monoMs(epoch);
  const s = orch.server;
  await createNamespace(orch, ns);
  await createPolicies(orch, ns, opts.watchObjects, Math.min(opts.createConcurrency, opts.watchObjects));
  const listed = JSON.parse((await orch.expect('list the watched namespace', [200], 'GET', NP_PATH(ns))).text);
  const objects: any[] = listed.items;
  const rv0: string = listed.metadata.resourceVersion;

  // Children, the clock handshake, and the watchers.
  assertRunning();
  for (let i = 0; i < opts.watchProcs; i++) children.push(new Child());
  onCleanup(() => Promise.all(children.map((c) => stopChild(c.proc, 5_000))).then(() => {}));
  let clockSkewMs = 0;
  for (const c of children) {
    let best = { rtt: Infinity, skew: 0 };
    for (let i = 0; i < 5; i++) {
      const t0 = now();
      const pong = await c.ask({ type: 'ping', t0, epoch: String(epoch) }, 'pong', 30_000);
      const t1 = now();
      // On one machine CLOCK_MONOTONIC is shared, so the child's reading lies in [t0, t1]; anything else is skew.
      const skew = pong.t < t0 ? pong.t - t0 : pong.t > t1 ? pong.t - t1 : 0;
      if (t1 - t0 < best.rtt) best = { rtt: t1 - t0, skew };
    }
    if (Math.abs(best.skew) > Math.abs(clockSkewMs)) clockSkewMs = best.skew;
  }
  if (clockSkewMs) log(`watch: child clock differs by ${clockSkewMs.toFixed(3)} ms; delays are not corrected for it`);
  const per = Math.ceil(opts.watchers / opts.watchProcs);
  const path = `${NP_PATH(ns)}?watch=1&resourceVersion=${rv0}`;
  const probe = openProbe(s, path, now);
  onProbe(probe.close);
  onCleanup(probe.close);
  const probeStatus = await probe.status;
  if (probeStatus !== 200) throw new Error(`probe watch: HTTP ${probeStatus}`);
  log(`watch: connecting ${opts.watchers} watchers from ${opts.watchProcs} processes (${path}) …`);
  const connected = (await Promise.all(
    children.map((c, i) => {
      const config: WatchersConfig = { epoch: String(epoch), url: s.url, ca: s.ca, token: s.token, path, count: Math.min(per, opts.watchers - i * per), connectConcurrency: 50 };
      return c.ask({ type: 'connect', config }, 'connected', 120_000);
    }),
  )) as unknown as ConnectedReport[];
  const ok = connected.reduce((n, c) => n + c.ok, 0);
  const connectMs = Math.max(...connected.map((c) => c.ms));
  log(`watch: ${ok} watchers connected in ${connectMs.toFixed(0)} ms${ok < opts.watchers ? `; ${opts.watchers - ok} failed: ${connected.flatMap((c) => c.failSamples).join(' | ')}` : ''}`);

  // The writer, while the watchers record.
  for (const c of children) c.proc.send({ type: 'mark' });
  const windowStart = now();
  const { writes, phases, statuses, samples: writeSamples } = await runWriter(s, ns, objects, { rates: opts.watchRates, phaseSeconds: opts.watchPhaseSeconds }, now, {
    etcd: etcdPid,
    watchers: children.map((c) => c.proc.pid),
  });
  const lastWriteAt = now();

  // Drain: wait until every open watcher has the last write (or the drain limit).
  const lastRv = writes.rvs.reduce((a, b) => Math.max(a, b), 0);
  let drainMs: number | undefined;
  const drainDeadline = lastWriteAt + opts.watchDrainSeconds * 1000;
  while (writes.rvs.length && now() < drainDeadline) {
    const progress = await Promise.all(children.map((c) => c.ask({ type: 'progress', rv: lastRv }, 'progress', 30_000)));
    if (progress.every((p) => p.caughtUp === p.open) && (probe.closed() || probe.rvs.includes(lastRv))) {
      drainMs = now() - lastWriteAt;
      break;
    }
    await sleep(100);
  }
  const windowS = (now() - windowStart) / 1000;

  // Analysis in the children, against the writer's list in resourceVersion order.
  const order = writes.rvs.map((_, i) => i).sort((a, b) => writes.rvs[a] - writes.rvs[b]);
  const payload = {
    type: 'analyze',
    rvs: Float64Array.from(order, (i) => writes.rvs[i]),
    times: Float64Array.from(order, (i) => writes.times[i]),
    sent: Float64Array.from(order, (i) => writes.sent[i]),
    phases: Uint8Array.from(order, (i) => writes.phases[i]),
    nPhases: phases.length,
  };
  const results = (await Promise.all(children.map((c) => c.ask(payload, 'result', 120_000)))) as unknown as ChildResult[];
  for (const c of children) if (c.proc.connected) c.proc.send({ type: 'exit' });
  await Promise.all(children.map((c) => stopChild(c.proc, 5_000)));
  probe.close();
  const probeDelays = phases.map(() => [] as number[]);
  const probeSentDelays = phases.map(() => [] as number[]);
  const index = new Map(writes.rvs.map((rv, i) => [rv, i]));
  const probeSeen = new Set<number>();
  probe.rvs.forEach((rv, j) => {
    const i = index.get(rv);
    if (i === undefined || probeSeen.has(i)) return;
    probeSeen.add(i);
    probeDelays[writes.phases[i]].push(probe.times[j] - writes.times[i]);
    probeSentDelays[writes.phases[i]].push(probe.times[j] - writes.sent[i]);
  });
  phases.forEach((p, i) => {
    p.probeDelays = Float64Array.from(probeDelays[i]).sort();
    p.probeSentDelays = Float64Array.from(probeSentDelays[i]).sort();
  });

  const merge = (parts: Float64Array[]) => {
    const all = new Float64Array(parts.reduce((n, d) => n + d.length, 0));
    let off = 0;
    for (const d of parts) {
      all.set(d, off);
      off += d.length;
    }
    return all.sort();
  };
  for (const [p, phase] of phases.entries()) {
    phase.delays = merge(results.map((r) => r.delays[p]));
    phase.sentDelays = merge(results.map((r) => r.sentDelays[p]));
  }
  const merged: WatchResult['merged'] = {
    watchers: 0, events: 0, missingOpen: 0, missingClosed: 0, duplicates: 0, outOfOrder: 0, unexpected: 0, perfect: 0,
    closedEarly: 0, closeReasons: {}, firstCloseMs: undefined, types: {}, errorSamples: [], badLines: 0,
  };
  for (const r of results) {
    for (const k of ['watchers', 'events', 'missingOpen', 'missingClosed', 'duplicates', 'outOfOrder', 'unexpected', 'perfect', 'closedEarly', 'badLines'] as const) merged[k] += r[k];
    for (const [k, v] of Object.entries(r.closeReasons)) merged.closeReasons[k] = (merged.closeReasons[k] ?? 0) + v;
    for (const [k, v] of Object.entries(r.types)) merged.types[k] = (merged.types[k] ?? 0) + v;
    merged.errorSamples.push(...r.errorSamples);
    if (r.firstCloseMs !== undefined) merged.firstCloseMs = Math.min(merged.firstCloseMs ?? Infinity, r.firstCloseMs - windowStart);
  }
  return {
    watchers: opts.watchers,
    connected: ok,
    connectFailed: opts.watchers - ok,
    connectSamples: connected.flatMap((c) => c.failSamples),
    connectMs,
    clockSkewMs,
    phases,
    writeStatuses: statuses,
    writeSamples,
    drainMs,
    merged,
    childCpu: results.map((r) => ({ cpuMs: r.cpuMs, elu: r.elu, eldP99Ms: r.eldP99Ms, eldMaxMs: r.eldMaxMs })),
    windowS,
    probe: { missing: writes.rvs.length - probeSeen.size, closed: probe.closed() },
  };
}

/**
 * One more watcher, in this process: its delays show what a client that is not
 * CPU-starved sees (also the scale benchmark's watcher).
 */
export function openProbe(s: TestServer, path: string, now: () => number) {
  const rvs: number[] = [];
  const times: number[] = [];
  let closed: string | undefined;
  let closing = false;
  let buffer = '';
  const end = (why: string) => (closed ??= closing ? undefined : why);
  let resolveStatus!: (status: number) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const req = httpsRequest(new URL(path, s.url), { ca: s.ca, agent: false, headers: { authorization: `Bearer ${s.token}`, accept: 'application/json' } }, (res) => {
    resolveStatus(res.statusCode ?? 0);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const t = now();
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (!line.trim()) continue;
        const event = JSON.parse(line);
        if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
          rvs.push(Number(event.object.metadata.resourceVersion));
          times.push(t);
        }
      }
    });
    res.on('end', () => end('server ended the stream'));
    res.on('close', () => end('connection closed'));
  });
  req.on('error', (err) => {
    resolveStatus(0);
    end(`error: ${err.message}`);
  });
  req.end();
  return {
    rvs,
    times,
    status,
    closed: () => closed,
    close: () => {
      closing = true;
      req.destroy();
    },
  };
}
