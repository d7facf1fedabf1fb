/**
 * One scrape over the whole process pool (SPEC 9.5; ARCHITECTURE "Every
 * core"): a scrape lands on whichever process accepted the connection, yet
 * it must see the pool's sums so counters never go back between scrapes.
 * prom-client's AggregatorRegistry only speaks node:cluster, so the primary
 * asks each worker over our IPC pipe for its registry's JSON and merges them
 * with `AggregatorRegistry.aggregate`; a worker that gets the scrape asks the
 * primary. Per-process series (process_*, nodejs_*) are merged by the
 * aggregators prom-client gives them for a cluster: sums, except the start
 * time (omitted) and the version (the first).
 */
import type { ChildProcess } from 'node:child_process';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';
import { metricsRegistry } from '../../metrics/registry.ts';
import { sliRegistry } from '../../metrics/sli-registry.ts';

/** The registries a scrape reads: /metrics and /metrics/slis. */
export type RegistryName = 'metrics' | 'slis';
const REGISTRIES: Record<RegistryName, Registry> = { metrics: metricsRegistry, slis: sliRegistry };

type Snapshot = MetricObjectWithValues<MetricValue<string>>[];

/** The IPC messages of a scrape; `ctl` keys them apart from storage messages. */
export type MetricsMessage =
  /** worker → primary: gather the pool's metrics for me. */
  | { ctl: 'metrics-gather'; id: number; registry: RegistryName }
  /** primary → worker: the pool's exposition text. */
  | { ctl: 'metrics-gathered'; id: number; text?: string; error?: string }
  /** primary → worker: send me your registry. */
  | { ctl: 'metrics-collect'; id: number; registry: RegistryName }
  /** worker → primary: my registry. */
  | { ctl: 'metrics-collected'; id: number; snapshot: Snapshot };

/** How long the primary waits for a worker's registry before using the last one it sent. */
const COLLECT_TIMEOUT_MS = 2000;

/** Series whose value only grows: those a departed worker leaves in the sums. */
const isCumulative = (m: Snapshot[number]) => ['counter', 'histogram'].includes(String(m.type));

interface Member {
  child: ChildProcess;
  /** Each registry as it sent it last: used when it does not answer in time, so no sum drops. */
  last: Record<RegistryName, Snapshot>;
}

/** Where a scrape's text comes from: this process alone, or the pool. */
export interface MetricsSource {
  gather(registry: RegistryName): Promise<string>;
  readonly contentType: string;
}

/** A process without workers. */
export function singleProcessMetrics(): MetricsSource {
  return { gather: (registry) => REGISTRIES[registry].metrics(), contentType: metricsRegistry.contentType };
}

/** The primary's side: its own registries, every worker's and what departed workers counted. */
export class PrimaryMetrics implements MetricsSource {
  readonly contentType = metricsRegistry.contentType;
  private readonly members = new Set<Member>();
  /** The counters and histograms of workers that have exited, as they last reported them. */
  private readonly departed: Record<RegistryName, Snapshot[]> = { metrics: [], slis: [] };
  private nextId = 1;

  /** Called for every forked worker: answers its scrapes and collects its registries. */
  attach(child: ChildProcess): void {
    const member: Member = { child, last: { metrics: [], slis: [] } };
    this.members.add(member);
    child.on('message', (message: MetricsMessage) => {
      if (message?.ctl !== 'metrics-gather') return;
      this.gather(message.registry).then(
        (text) => child.connected && child.send({ ctl: 'metrics-gathered', id: message.id, text } satisfies MetricsMessage),
        (err: Error) => child.connected && child.send({ ctl: 'metrics-gathered', id: message.id, error: err.message } satisfies MetricsMessage),
      );
    });
    child.once('exit', () => {
      this.members.delete(member);
      for (const name of Object.keys(REGISTRIES) as RegistryName[]) {
        const kept = member.last[name].filter(isCumulative);
        if (kept.length) this.departed[name].push(kept);
      }
    });
  }

  async gather(registry: RegistryName): Promise<string> {
    const own = await REGISTRIES[registry].getMetricsAsJSON();
    const workers = await Promise.all([...this.members].map((m) => this.collect(m, registry)));
    return AggregatorRegistry.aggregate([own, ...workers, ...this.departed[registry]] as any).metrics();
  }

  private collect(member: Member, registry: RegistryName): Promise<Snapshot> {
    const { child } = member;
    if (!child.connected) return Promise.resolve(member.last[registry]);
    const id = this.nextId++;
    return new Promise<Snapshot>((resolve) => {
      const finish = (snapshot: Snapshot | undefined) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('disconnect', onGone);
        if (snapshot) member.last[registry] = snapshot;
        resolve(member.last[registry]);
      };
      const onMessage = (message: MetricsMessage) => {
        if (message?.ctl === 'metrics-collected' && message.id === id) finish(message.snapshot);
      };
      const onGone = () => finish(undefined);
      const timer = setTimeout(onGone, COLLECT_TIMEOUT_MS);
      child.on('message', onMessage);
      child.once('disconnect', onGone);
      child.send({ ctl: 'metrics-collect', id, registry } satisfies MetricsMessage);
    });
  }
}

/** A worker's side: sends its registry when the primary collects, and asks the primary for a scrape's text. */
export class WorkerMetrics implements MetricsSource {
  readonly contentType = metricsRegistry.contentType;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();

  constructor() {
    process.on('message', (message: MetricsMessage) => {
      if (message?.ctl === 'metrics-collect') {
        void REGISTRIES[message.registry].getMetricsAsJSON().then((snapshot) => {
          if (process.connected) process.send!({ ctl: 'metrics-collected', id: message.id, snapshot } satisfies MetricsMessage);
        });
      } else if (message?.ctl === 'metrics-gathered') {
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.text !== undefined) waiter?.resolve(message.text);
        else waiter?.reject(new Error(message.error ?? 'the primary sent no metrics'));
      }
    });
    process.once('disconnect', () => {
      for (const waiter of this.pending.values()) waiter.reject(new Error('the primary process is gone'));
      this.pending.clear();
    });
  }

  gather(registry: RegistryName): Promise<string> {
    if (!process.connected) return Promise.reject(new Error('the primary process is gone'));
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      process.send!({ ctl: 'metrics-gather', id, registry } satisfies MetricsMessage);
    });
  }
}
