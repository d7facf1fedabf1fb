/**
 * Every core, paid for only under load (issue 10). The primary is a whole
 * server; under load it forks workers, each a whole server too, that accept
 * from the primary's own listening socket, and it stops them again once the
 * load is gone. An idle server is one process (its start and its memory are a
 * single server's); a busy one uses up to `max` processes.
 *
 * Connections land on whichever process accepts first. Keep-alive clients stay
 * where they landed, so every tick the pool compares the processes'
 * connections and asks one above its fair share to close some after their
 * responses (process-load.ts): those clients reconnect, and the socket gives
 * them to the less busy processes.
 *
 * Over SQLite the primary is the store's one writer: workers read the file
 * themselves and send their writes to the primary's WriterHost. Over etcd
 * every process is a replica like any other.
 */
import type { PrimaryMetrics } from './metrics/pool-metrics.ts';
import { fork, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:https';
import type { WriterHost } from '../storage/sqlite/writer-host.ts';
import type { LoadSample, ProcessLoad } from './process-load.ts';
import { workerChannel } from './worker-channels.ts';
import { workerExecArgv } from './young-generation.ts';
import type { AuditAck, AuditMessage } from '../audit/setup.ts';
import type { AuditEvent } from '../audit/event.ts';

export const WORKER_INDEX_ENV = 'ORCH_WORKER_INDEX';

/** Messages between the primary and a worker, beside the storage channel's. */
export type ControlMessage =
  /** worker → primary: the server is built; send the listening socket. */
  | { ctl: 'ready' }
  /** primary → worker, with the socket as the handle. */
  | { ctl: 'listen' }
  /** worker → primary: accepting. */
  | { ctl: 'listening' }
  /** worker → primary, every tick. */
  | ({ ctl: 'load' } & LoadSample)
  /** primary → worker. */
  | { ctl: 'shed'; connections: number }
  /** worker → primary: audit events for the primary's backends (src/audit/setup.ts). */
  | AuditMessage;

export interface WorkerPoolOptions {
  /** Most server processes, the primary included (--workers). */
  max: number;
  /** Processes kept even when idle, the primary included (--min-workers). */
  min: number;
  /** A worker above `min` stops after the whole pool was idle this long. */
  idleMs: number;
  /** The primary's listening server, whose socket the workers share. */
  server: Server;
  /** The primary's own load. */
  load: ProcessLoad;
  /** The SQLite writer the workers' writes go to; undefined over etcd. */
  writer?: WriterHost;
  /** The primary's side of /metrics, which collects every worker's registry. */
  metrics?: PrimaryMetrics;
  /** Where the workers' audit events go: the primary's audit backends. */
  onAudit?: (events: AuditEvent[], reply?: (stored: boolean) => void) => void;
}

/** Sampling period: short enough to follow a benchmark's warm-up, long enough that a window holds many requests. */
const TICK_MS = 250;
/** Mean event-loop use over the serving processes, for two ticks in a row, that forks another worker. */
const BUSY = 0.7;
/** Event-loop use of the busiest process from which connections are moved off a crowded one. */
const SHED_BUSY = 0.5;
/** Highest event-loop use that still counts as idle. */
const IDLE = 0.1;

interface Member {
  index: number;
  child: ChildProcess;
  serving: boolean;
  /** Asked to stop (idle, or the pool stopping). */
  retiring: boolean;
  /** The shedding last asked of it. */
  shed: number;
  last: LoadSample;
}

export class WorkerPool {
  private readonly members = new Map<number, Member>();
  private readonly timer: NodeJS.Timeout;
  private busyTicks = 0;
  private idleSince = Date.now();
  private stopping: Promise<void> | undefined;
  private startingWorker = false;

  constructor(private readonly options: WorkerPoolOptions) {
    this.timer = setInterval(() => this.tick(), TICK_MS).unref();
  }

  /** Forks workers until `min` processes serve (the primary is one of them). */
  async fill(): Promise<void> {
    const started: Array<Promise<void>> = [];
    while (this.members.size + 1 < this.options.min) started.push(this.fork());
    await Promise.all(started);
  }

  /** Server processes serving now, the primary included. */
  size(): number {
    let n = 1;
    for (const member of this.members.values()) if (member.serving) n++;
    return n;
  }

  private fork(): Promise<void> {
    let index = 1;
    while (this.members.has(index)) index++;
    const child = fork(process.argv[1], process.argv.slice(2), {
      env: { ...process.env, [WORKER_INDEX_ENV]: String(index) },
      execArgv: workerExecArgv(),
      serialization: 'advanced',
      stdio: 'inherit',
    });
    const member: Member = { index, child, serving: false, retiring: false, shed: 0, last: { utilization: 0, connections: 0 } };
    this.members.set(index, member);
    this.options.writer?.attach(workerChannel(child));
    this.options.metrics?.attach(child);
    this.startingWorker = true;
    return new Promise<void>((resolve, reject) => {
      child.on('message', (message: ControlMessage) => {
        switch (message?.ctl) {
          case 'ready':
            child.send({ ctl: 'listen' } satisfies ControlMessage, this.options.server);
            return;
          case 'listening':
            member.serving = true;
            this.startingWorker = false;
            // A worker's start reads the whole store into its cache: at 1,000,000 objects, many seconds of a core.
            console.log(`worker ${index} (pid ${child.pid}) serving: ${this.size()} processes`);
            resolve();
            return;
          case 'load':
            member.last = { utilization: message.utilization, connections: message.connections };
            return;
          case 'audit':
            this.options.onAudit?.(
              message.events,
              message.id === undefined ? undefined : (ok) => child.connected && child.send({ ctl: 'audit-ack', id: message.id!, ok } satisfies AuditAck),
            );
            return;
        }
      });
      child.once('exit', (code, signal) => {
        if (this.members.get(index) === member) this.members.delete(index);
        if (!member.serving) {
          this.startingWorker = false;
          reject(new Error(`worker ${index} exited during start-up (code ${code}, signal ${signal})`));
          return;
        }
        if (this.stopping || member.retiring) return;
        console.error(`worker ${index} (pid ${child.pid}) exited (code ${code}, signal ${signal})`);
        // Below the floor, replaced at once; above it, the load decides.
        if (this.members.size + 1 < this.options.min) void this.fork().catch((err) => console.error(err.message));
      });
    });
  }

  /** Samples every process; forks under load, stops a worker after a long idle, and moves connections off a crowded process. */
  private tick(): void {
    if (this.stopping) return;
    const own = this.options.load.sample();
    const serving = [...this.members.values()].filter((m) => m.serving);
    const samples = [own, ...serving.map((m) => m.last)];
    const mean = samples.reduce((sum, s) => sum + s.utilization, 0) / samples.length;
    this.busyTicks = mean >= BUSY ? this.busyTicks + 1 : 0;
    if (this.busyTicks >= 2 && !this.startingWorker && this.members.size + 1 < this.options.max) {
      this.busyTicks = 0;
      void this.fork().catch((err) => console.error(`worker pool: ${err.message}`));
    }
    const now = Date.now();
    if (samples.some((s) => s.utilization > IDLE)) this.idleSince = now;
    else if (now - this.idleSince >= this.options.idleMs && serving.length + 1 > this.options.min) {
      this.idleSince = now;
      const newest = serving.reduce((a, b) => (a.index > b.index ? a : b));
      newest.retiring = true;
      newest.child.kill('SIGTERM');
      console.log(`worker ${newest.index} (pid ${newest.child.pid}) stopping: the pool was idle`);
    }
    // Only a busy process gains from handing clients over; under a light load connections (and a
    // client's pipelined requests) stay where they are.
    const busiest = Math.max(...samples.map((s) => s.utilization));
    this.rebalance(own, busiest >= SHED_BUSY ? serving : undefined);
  }

  /**
   * Asks each process holding more than its fair share of active connections
   * to close the excess after their responses; with `serving` undefined (a
   * light load), nobody sheds.
   */
  private rebalance(own: LoadSample, serving: Member[] | undefined): void {
    const total = own.connections + (serving ?? []).reduce((sum, m) => sum + m.last.connections, 0);
    const fair = Math.ceil(total / ((serving?.length ?? 0) + 1));
    const excess = (connections: number) => (serving && connections > fair + 1 ? connections - fair : 0);
    this.options.load.shed(excess(own.connections));
    for (const member of this.members.values()) {
      const shed = member.serving ? excess(member.last.connections) : 0;
      // A budget is spent as it is used: asked again every tick while there is excess, but "none" only once.
      if ((shed === 0 && member.shed === 0) || !member.child.connected) continue;
      member.shed = shed;
      member.child.send({ ctl: 'shed', connections: shed } satisfies ControlMessage);
    }
  }

  /** Stops every worker gracefully (SIGTERM) and resolves once all have exited. */
  stop(): Promise<void> {
    return (this.stopping ??= (async () => {
      clearInterval(this.timer);
      const exits = [...this.members.values()].map(
        ({ child }) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()))),
      );
      for (const { child } of this.members.values()) child.kill('SIGTERM');
      await Promise.all(exits);
    })());
  }
}

/**
 * A worker's side: asks for the primary's listening socket once its server is
 * built, listens on it, reports its load every tick and sheds when asked.
 */
export function listenAsWorker(load: ProcessLoad): (server: Server) => Promise<void> {
  process.on('message', (message: ControlMessage) => {
    if (message?.ctl === 'shed') load.shed(message.connections);
  });
  setInterval(() => {
    if (process.connected) process.send!({ ctl: 'load', ...load.sample() } satisfies ControlMessage);
  }, TICK_MS).unref();
  return (server) =>
    new Promise<void>((resolve, reject) => {
      const onListen = (message: ControlMessage, handle: unknown) => {
        if (message?.ctl !== 'listen' || !handle) return;
        process.off('message', onListen);
        server.once('error', reject);
        // The handle arrives as a net.Server already listening on the shared socket; ours takes its connections over.
        server.listen(handle as Server, () => {
          process.send!({ ctl: 'listening' } satisfies ControlMessage);
          resolve();
        });
      };
      process.on('message', onListen);
      process.send!({ ctl: 'ready' } satisfies ControlMessage);
    });
}
