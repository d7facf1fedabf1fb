/**
 * A resource cache's watchers grouped by key prefix (SPEC 4.4): an event's key
 * is tested against each distinct prefix once, and only the watchers of the
 * prefixes it falls under see it. Watchers of a namespace share one prefix, so
 * a thousand of them cost one comparison per event, where a comparison per
 * watcher took a sixth of a fan-out's CPU (String#startsWith is a few hundred
 * nanoseconds in V8). As upstream's cacher indexes its watchers by namespace.
 */
import type { CacheWatcher } from './cache-watcher.ts';
import type { CacheEvent } from './cache-event.ts';

export class WatcherGroups implements Iterable<CacheWatcher> {
  private readonly byPrefix = new Map<string, Set<CacheWatcher>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(watcher: CacheWatcher): void {
    let group = this.byPrefix.get(watcher.keyPrefix);
    if (!group) this.byPrefix.set(watcher.keyPrefix, (group = new Set()));
    if (group.has(watcher)) return;
    group.add(watcher);
    this.count++;
  }

  delete(watcher: CacheWatcher): boolean {
    const group = this.byPrefix.get(watcher.keyPrefix);
    if (!group?.delete(watcher)) return false;
    this.count--;
    if (group.size === 0) this.byPrefix.delete(watcher.keyPrefix);
    return true;
  }

  /** Hands `event` to every watcher whose key prefix holds its key, in the order they were added within a prefix. */
  offer(event: CacheEvent): void {
    const key = event.object.key;
    for (const [prefix, group] of this.byPrefix) {
      if (!key.startsWith(prefix)) continue;
      for (const watcher of group) watcher.offerInPrefix(event);
    }
  }

  *[Symbol.iterator](): Iterator<CacheWatcher> {
    for (const group of this.byPrefix.values()) yield* group;
  }
}
