/**
 * Events expire --event-ttl after their last write (kube-apiserver's
 * `--event-ttl`, default 1 h). Upstream attaches an etcd lease to every write
 * of an Event, so an event nobody updates disappears from storage, with a
 * DELETED watch event, one TTL after its last change, finalizers or not. Both
 * of our stores lack leases, so the leading replica does the same: it
 * remembers when each event was last written and deletes it from storage, by
 * compare-and-swap on the revision it saw, once the TTL has passed. A write
 * that lands first wins and starts a new TTL.
 *
 * The last write of an event already stored when a replica starts leading is
 * its newest managedFields time or its creationTimestamp, so a restart does
 * not give old events a fresh hour.
 */
import { CasFailedError, type Storage } from '../storage/interface.ts';
import type { ResourceCaches } from '../storage/cacher/cacher.ts';
import type { CachedObject } from '../storage/cacher/cached-object.ts';
import { resourcePrefix } from '../storage/keys.ts';
import type { Controller } from './controller-manager.ts';

/** How often expired events are looked for: a quarter of the TTL, between 250 ms and 10 s. */
function sweepInterval(ttlMs: number): number {
  return Math.max(250, Math.min(ttlMs / 4, 10_000));
}

/** When a stored event was last written, as far as the object tells. */
export function lastWriteOf(event: any): number {
  const fields: unknown[] = Array.isArray(event?.metadata?.managedFields) ? event.metadata.managedFields : [];
  const times = [event?.metadata?.creationTimestamp, ...fields.map((entry: any) => entry?.time)]
    .map((text) => (typeof text === 'string' ? Date.parse(text) : NaN))
    .filter((time) => !Number.isNaN(time));
  return times.length ? Math.max(...times) : Date.now();
}

export class EventExpiry implements Controller {
  readonly name = 'event-ttl';
  /** Storage key → when it expires (ms since the epoch). */
  private readonly expiresAt = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    private readonly cacher: ResourceCaches,
    private readonly ttlMs: number,
  ) {}

  private get cache() {
    return this.cacher.cache(resourcePrefix('', 'events'));
  }

  start(): void {
    const cache = this.cache;
    // Parsed for this pass only: parsed() would keep a parsed copy of every event in the cache.
    for (const cached of cache.list(resourcePrefix('', 'events'))) this.expiresAt.set(cached.key, lastWriteOf(JSON.parse(cached.value)) + this.ttlMs);
    cache.listeners.add(this.listener);
    this.timer = setInterval(() => void this.sweep(), sweepInterval(this.ttlMs));
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    this.cache.listeners.delete(this.listener);
    clearInterval(this.timer);
    this.expiresAt.clear();
  }

  /** Every write starts a new TTL from the moment it is seen, as a fresh lease would. */
  private readonly listener = (event: { type: string; object: CachedObject }) => {
    if (event.type === 'DELETED') this.expiresAt.delete(event.object.key);
    else this.expiresAt.set(event.object.key, Date.now() + this.ttlMs);
  };

  /** Deletes the events whose TTL has passed; one sweep at a time. */
  private async sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return;
    this.sweeping = true;
    try {
      const now = Date.now();
      for (const [key, at] of this.expiresAt) {
        if (this.stopped) return;
        if (at > now) continue;
        const cached = this.cache.get(key);
        if (!cached) {
          this.expiresAt.delete(key);
          continue;
        }
        try {
          await this.storage.delete(key, cached.revision);
          this.expiresAt.delete(key);
        } catch (err) {
          // Written or deleted since it was seen: the listener has its new TTL, or has dropped it.
          if (!(err instanceof CasFailedError)) console.error(`event-ttl: could not delete ${key}:`, (err as Error).message);
        }
      }
    } finally {
      this.sweeping = false;
    }
  }
}
