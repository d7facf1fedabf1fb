/**
 * Leader election on a Lease (coordination.orch.io/v1), as client-go's
 * leaderelection with a LeaseLock does it for kube-controller-manager: with
 * several replicas on one etcd only the holder of `orch-controller-manager`
 * in orch-system runs the controllers (SPEC 2.9, 5.2 "correct with several
 * replicas").
 *
 * A lease is taken when it is absent, released, or was not renewed for its
 * duration as *this* replica measured it (the observed time of the last change,
 * never the holder's clock); the holder renews every retry period and gives up
 * when it could not renew within the renew deadline. Every write is a
 * compare-and-swap on the lease's resourceVersion, so two replicas never both
 * win the same round.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { GenericStore } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import type { Leadership } from './controller-manager.ts';

export interface LeaderElectionOptions {
  leases: GenericStore;
  namespace: string;
  name: string;
  /** --leader-elect-lease-duration (15 s). */
  leaseDurationMs: number;
  /** --leader-elect-renew-deadline (10 s). */
  renewDeadlineMs: number;
  /** --leader-elect-retry-period (2 s). */
  retryPeriodMs: number;
  identity?: string;
}

/** client-go's checks of the three durations (leaderelection.NewLeaderElector). */
export function checkLeaderElectionTimings(leaseDurationMs: number, renewDeadlineMs: number, retryPeriodMs: number): void {
  if (leaseDurationMs <= renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
  if (renewDeadlineMs <= 1.2 * retryPeriodMs) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
  if (leaseDurationMs < 1 || renewDeadlineMs < 1 || retryPeriodMs < 1) throw new Error('leaseDuration, renewDeadline and retryPeriod must be positive');
}

const microTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export class LeaseLeadership implements Leadership {
  readonly identity: string;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private leading = false;
  private lastRenewMs = 0;
  /** The lease record as last seen, and when this replica saw it change. */
  private observed: { record: string; atMs: number } | undefined;
  private callbacks: { onLead(): void; onLoss(): void } | undefined;

  constructor(private readonly options: LeaderElectionOptions) {
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
  }

  run(callbacks: { onLead(): void; onLoss(): void }): void {
    this.callbacks = callbacks;
    void this.round();
  }

  isLeader(): boolean {
    return this.leading;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.leading) return;
    this.leading = false;
    // client-go's ReleaseOnCancel: an empty holder lets another replica take over at once.
    try {
      await this.write((lease) => {
        if (!lease || lease.spec?.holderIdentity !== this.identity) return null;
        const now = Date.now();
        return { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(now), acquireTime: microTime(now) } };
      });
    } catch {
      // The lease expires by itself.
    }
  }

  private async round(): Promise<void> {
    if (this.stopped) return;
    let held = false;
    try {
      held = await this.tryAcquireOrRenew();
    } catch (err) {
      if (!this.stopped) console.error(`leader election (${this.options.namespace}/${this.options.name}):`, (err as Error).message);
    }
    if (this.stopped) return;
    const now = Date.now();
    if (held) {
      this.lastRenewMs = now;
      if (!this.leading) {
        this.leading = true;
        this.callbacks?.onLead();
      }
    } else if (this.leading && now - this.lastRenewMs >= this.options.renewDeadlineMs) {
      this.leading = false;
      this.callbacks?.onLoss();
    }
    // client-go waits a jittered retry period between attempts.
    const delay = this.leading ? this.options.retryPeriodMs : this.options.retryPeriodMs * (1 + Math.random() * 1.2);
    this.timer = setTimeout(() => void this.round(), delay);
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = Date.now();
    const next = (lease: ApiObject | null): ApiObject | null => {
      const spec = lease?.spec ?? {};
      const record = JSON.stringify([spec.holderIdentity, spec.renewTime, spec.leaseDurationSeconds]);
      if (!this.observed || this.observed.record !== record) this.observed = { record, atMs: now };
      const holder = spec.holderIdentity ?? '';
      const durationMs = (spec.leaseDurationSeconds ?? 0) * 1000;
      const ours = holder === this.identity;
      if (lease && holder && !ours && this.observed.atMs + durationMs > now) return null;
      const seconds = Math.round(this.options.leaseDurationMs / 1000);
      return {
        apiVersion: 'coordination.orch.io/v1',
        kind: 'Lease',
        metadata: lease ? lease.metadata : { name: this.options.name, namespace: this.options.namespace },
        spec: {
          holderIdentity: this.identity,
          leaseDurationSeconds: Math.max(1, seconds),
          acquireTime: ours && spec.acquireTime ? spec.acquireTime : microTime(now),
          renewTime: microTime(now),
          // client-go counts every acquisition by another identity, a released lease's too.
          leaseTransitions: (spec.leaseTransitions ?? 0) + (lease && !ours ? 1 : 0),
        },
      };
    };
    return this.write(next);
  }

  /** One compare-and-swap of the lease; false when `next` declines or another replica wrote first. */
  private async write(next: (lease: ApiObject | null) => ApiObject | null): Promise<boolean> {
    const { leases, namespace, name } = this.options;
    let declined = false;
    try {
      await leases.update(
        namespace,
        name,
        (current) => {
          const updated = next(current);
          if (!updated) {
            declined = true;
            throw new Declined();
          }
          // The resourceVersion read makes the update conditional: a concurrent writer gets a 409.
          if (current) updated.metadata = { ...updated.metadata, resourceVersion: current.metadata.resourceVersion };
          return updated;
        },
        { dryRun: false, createIfMissing: true },
      );
      return true;
    } catch (err) {
      if (declined || err instanceof Declined) return false;
      const reason = (err as { reason?: string }).reason;
      if (reason === 'Conflict' || reason === 'AlreadyExists') return false;
      throw err;
    }
  }
}

class Declined extends Error {}

/** Leadership without a lease: the embedded SQLite store has one process, which always leads. */
export const soleLeadership: Leadership = {
  run: ({ onLead }) => onLead(),
  stop: async () => {},
};
