/**
 * The writer of the watch fan-out: PUTs the objects of the watched namespace
 * open-loop at each phase's rate (one write in flight per object at most, so
 * it never conflicts with itself), and records each successful write's
 * resourceVersion and the time its response arrived, plus the CPU use of the
 * processes involved per phase.
 */
import { Agent } from 'node:https';
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestServer } from '../../test/helpers/server.ts';
import { NP_PATH, send } from './orch.ts';
import { log, machineCpu, percentile, rss, Samples } from './util.ts';
import { cpuSeconds, treeCpuSeconds } from './cpu-pin.ts';

export interface PhaseResult {
  rate: number;
  /** rate × phase seconds. */
  planned: number;
  /** Successful writes. */
  writes: number;
  /** Seconds the phase took: longer than planned when the server is slower than the rate (capped at twice as long). */
  seconds: number;
  /** Issued writes that did not get a 200. */
  failedWrites: number;
  achievedRate: number;
  writeP50: number;
  writeP99: number;
  /** Sorted delays (event arrival − write response arrival) of every delivered event of this phase's writes (filled in by the caller). */
  delays: Float64Array;
  /** Sorted delays from the moment the write was sent (event arrival − request sent): what a client waiting for its change sees. */
  sentDelays: Float64Array;
  /** Same two for the probe watcher in the writer's process. */
  probeDelays: Float64Array;
  probeSentDelays: Float64Array;
  /** CPU cores used during the phase. */
  cpu: { server?: number; etcd?: number; watchers?: number; writer: number; machine: number };
  /** The orch server's resident set at the end of the phase. */
  serverRss?: number;
}

export interface Writes {
  rvs: number[];
  /** Response arrival, ms since the epoch. */
  times: number[];
  /** When the request was sent, ms since the epoch. */
  sent: number[];
  phases: number[];
}

export interface WriterResult {
  writes: Writes;
  phases: PhaseResult[];
  statuses: Record<string, number>;
  samples: string[];
}

export async function runWriter(
  s: TestServer,
  ns: string,
  objects: any[],
  plan: { rates: number[]; phaseSeconds: number },
  now: () => number,
  pids: { etcd?: number; watchers: Array<number | undefined> },
): Promise<WriterResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: s.ca });
  const writes: Writes = { rvs: [], times: [], sent: [], phases: [] };
  const statuses: Record<string, number> = {};
  const samples: string[] = [];
  const busy = new Set<number>();
  const stale = new Set<number>();
  let cursor = 0;
  let seq = 0;
  const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', accept: 'application/json' };
  const request = (method: string, path: string, body?: Buffer) =>
    send(agent, s.url, method, path, headers, body, 30_000).then(
      (r) => ({ status: String(r.status), text: r.text }),
      (err: Error) => ({ status: 'error', text: err.message }),
    );
  const put = async (i: number, phase: number, lat: Samples) => {
    const path = `${NP_PATH(ns)}/${objects[i].metadata.name}`;
    if (stale.has(i)) {
      // A failed write may have left the resourceVersion stale: re-read before writing again.
      const r = await request('GET', path);
      if (r.status === '200') {
        objects[i] = JSON.parse(r.text);
        stale.delete(i);
      }
    }
    const obj = objects[i];
    obj.metadata.labels = { ...obj.metadata.labels, 'bench-seq': String(++seq) };
    const started = now();
    const r = await request('PUT', path, Buffer.from(JSON.stringify(obj)));
    const t = now();
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    if (r.status === '200') {
      const updated = JSON.parse(r.text);
      objects[i] = updated;
      writes.rvs.push(Number(updated.metadata.resourceVersion));
      writes.times.push(t);
      writes.sent.push(started);
      writes.phases.push(phase);
      lat.push(t - started);
    } else {
      stale.add(i);
      if (samples.length < 3) samples.push(`${r.status}: ${r.text.slice(0, 300)}`);
    }
  };

  const snapshot = () => {
    const watchers = pids.watchers.map(cpuSeconds);
    return {
      t: now(),
      server: treeCpuSeconds(s.process.pid),
      etcd: cpuSeconds(pids.etcd),
      watchers: watchers.some((w) => w === undefined) ? undefined : watchers.reduce((a, b) => a! + b!, 0),
      writer: process.cpuUsage(),
      machine: machineCpu(),
    };
  };
  const cores = (a: ReturnType<typeof snapshot>, b: ReturnType<typeof snapshot>): PhaseResult['cpu'] => {
    const secs = (b.t - a.t) / 1000;
    const d = (x?: number, y?: number) => (x !== undefined && y !== undefined ? (y - x) / secs : undefined);
    const w = process.cpuUsage(a.writer);
    return {
      server: d(a.server, b.server),
      etcd: d(a.etcd, b.etcd),
      watchers: d(a.watchers, b.watchers),
      writer: (w.user + w.system) / 1e6 / secs,
      machine: ((b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total)) * cpus().length,
    };
  };

  const phases: PhaseResult[] = [];
  const inflight = new Set<Promise<void>>();
  try {
    for (const [phase, rate] of plan.rates.entries()) {
      log(`watch: writer phase ${phase + 1}: ${rate} writes/s for ${plan.phaseSeconds} s`);
      const lat = new Samples();
      const cpu0 = snapshot();
      const t0 = now();
      const total = Math.round(rate * plan.phaseSeconds);
      const before = writes.rvs.length;
      let issued = 0;
      for (let k = 0; k < total; k++) {
        // A server slower than the rate stretches the phase; stop issuing at twice its planned length.
        if (now() - t0 > plan.phaseSeconds * 2000) break;
        const wait = t0 + (k * 1000) / rate - now();
        if (wait > 1) await sleep(wait);
        let i = -1;
        for (let tries = 0; tries < objects.length && i < 0; tries++) {
          const j = (cursor + tries) % objects.length;
          if (!busy.has(j)) i = j;
        }
        if (i < 0) {
          // Every object has a write in flight: wait for one to finish (the writer falls behind).
          await Promise.race(inflight);
          k--;
          continue;
        }
        cursor = (i + 1) % objects.length;
        busy.add(i);
        issued++;
        const p: Promise<void> = put(i, phase, lat).finally(() => {
          busy.delete(i);
          inflight.delete(p);
        });
        inflight.add(p);
      }
      await Promise.all(inflight);
      const n = writes.rvs.length - before;
      const cpu1 = snapshot();
      const elapsed = (now() - t0) / 1000;
      const sorted = lat.sorted();
      phases.push({
        rate,
        planned: total,
        writes: n,
        seconds: elapsed,
        failedWrites: issued - n,
        achievedRate: n / elapsed,
        writeP50: percentile(sorted, 50),
        writeP99: percentile(sorted, 99),
        delays: new Float64Array(0),
        sentDelays: new Float64Array(0),
        probeDelays: new Float64Array(0),
        probeSentDelays: new Float64Array(0),
        cpu: cores(cpu0, cpu1),
        serverRss: rss(s.process.pid),
      });
    }
  } finally {
    agent.destroy();
  }
  return { writes, phases, statuses, samples };
}
