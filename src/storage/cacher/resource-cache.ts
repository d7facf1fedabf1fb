/**
 * The watch cache of one resource (DESIGN "watch cache"; SPEC 4.4, 4.6): the
 * current objects and a window of recent events, fed by the cacher's single
 * storage watch. Lists at resourceVersion "0" and every watch are served from
 * here. Each event is serialized at most once per form and shared by every
 * watcher (never copied per watcher).
 */
import type { StorageEvent } from '../interface.ts';
import { prefixEnd } from '../keys.ts';
import { CacheEvent } from './cache-event.ts';
import { CachedObject, joinJson } from './cached-object.ts';
import { SortedKeys } from './sorted-keys.ts';
import { WatcherGroups } from './watcher-groups.ts';

/** Bytes of shared bodies a process keeps, all resources together (sharedBody): a whole walk of 10,000 NetworkPolicies in pages of 500 is 15 MiB. */
const SHARED_BODY_BYTES = 32 * 1024 * 1024;
/** Every resource's shared bodies by `<cache id>:<key>`, oldest first, and their bytes. */
const sharedBodies = new Map<string, { body: Buffer; version: string }>();
let sharedBodyBytes = 0;
let nextCacheId = 0;

/** A chunk of a list served from the cache; the shape of the store's chunks (registry ListPage). */
export interface CachePage {
  items: CachedObject[];
  /** The key of the last item returned, when more remain. */
  lastKey?: string;
  remaining: number;
}

export interface ResourceCacheOptions {
  /** Events are kept this long (SPEC 4.4 item 2, 8: 5 minutes by default). */
  historyMs: number;
  /** And at most this many, to bound memory whatever the write rate. */
  maxEvents: number;
}

export class ResourceCache {
  private objects = new Map<string, CachedObject>();
  private sortedKeys: SortedKeys;
  /**
   * The revision of the last change applied (or of the listing the cache was
   * filled from): the cache holds the exact state of every revision from this
   * one to the cacher's current revision.
   */
  private lastChange: number;
  /** Whole lists by key prefix, and their items encoded as `item,item,...`, valid until the next change. */
  private lists = new Map<string, readonly CachedObject[]>();
  private listBodies = new Map<string, Buffer>();
  /** This cache's part of the keys of `sharedBodies`, and whether it may have some there. */
  private readonly sharedPrefix = `${nextCacheId++}:`;
  private sharing = false;
  private events: CacheEvent[] = [];
  private head = 0;
  /** The revision the retained window starts after: watches from an older one get 410. */
  private windowStart: number;
  readonly watchers = new WatcherGroups();
  /** In-process subscribers (controllers): called with every event after the watchers. */
  readonly listeners = new Set<(event: CacheEvent) => void>();

  constructor(
    readonly prefix: string,
    private readonly options: ResourceCacheOptions,
    initial: Array<{ key: string; value: string | Buffer; modRevision: number }>,
    initialRevision: number,
  ) {
    for (const kv of initial) this.objects.set(kv.key, new CachedObject(kv.key, kv.value, kv.modRevision).keep());
    this.sortedKeys = SortedKeys.from(this.objects.keys());
    this.windowStart = initialRevision;
    this.lastChange = initialRevision;
  }

  /** Oldest revision a watch may start from. */
  oldestRevision(): number {
    return this.windowStart;
  }

  /** Applies one storage event and fans it out to the watchers. */
  apply(event: StorageEvent, now: number): void {
    const prev = this.objects.get(event.key);
    const object = new CachedObject(event.key, event.value, event.revision);
    if (this.lists.size) this.lists.clear();
    if (this.listBodies.size) this.listBodies.clear();
    if (this.sharing) this.dropSharedBodies();
    if (event.type === 'DELETED') {
      if (prev) {
        this.objects.delete(event.key);
        this.sortedKeys.delete(event.key);
      }
    } else {
      if (!prev) this.sortedKeys.insert(event.key);
      this.objects.set(event.key, object.keep());
    }
    prev?.leave();
    this.lastChange = Math.max(this.lastChange, event.revision);
    const prevObject = prev ?? (event.prevValue !== undefined ? new CachedObject(event.key, event.prevValue, event.revision) : undefined);
    const cacheEvent = new CacheEvent(event.type, event.type === 'DELETED' ? prevObject ?? object : object, prevObject, event.revision, now);
    this.events.push(cacheEvent);
    this.trim(now);
    this.watchers.offer(cacheEvent);
    for (const listener of this.listeners) listener(cacheEvent);
  }

  /**
   * Takes the state listed at `revision` after the storage watch was replaced.
   * With a `gap` (the store moved on while unwatched) the history restarts at
   * `revision` and every watcher is ended, since the events in between are
   * unknown; listeners (controllers) get one event per key that differs, as an
   * informer's relist does, so their indexes converge.
   */
  replace(items: Array<{ key: string; value: string | Buffer; modRevision: number }>, revision: number, now: number, gap: boolean): void {
    const before = this.objects;
    this.objects = new Map();
    for (const kv of items) {
      const prev = before.get(kv.key);
      if (prev?.revision !== kv.modRevision) this.objects.set(kv.key, new CachedObject(kv.key, kv.value, kv.modRevision).keep());
      else {
        // Unchanged: it keeps its encoded and parsed forms, and takes the listed bytes, so every slab the list filled is adopted.
        if (typeof kv.value !== 'string') prev.repack(kv.value);
        this.objects.set(kv.key, prev);
      }
    }
    for (const [key, prev] of before) if (this.objects.get(key) !== prev) prev.leave();
    this.sortedKeys = SortedKeys.from(this.objects.keys());
    this.lastChange = Math.max(this.lastChange, revision);
    this.lists.clear();
    this.listBodies.clear();
    this.dropSharedBodies();
    if (gap) {
      this.events = [];
      this.head = 0;
      this.windowStart = revision;
      for (const watcher of [...this.watchers]) watcher.close();
    }
    const changes: CacheEvent[] = [];
    for (const [key, object] of this.objects) {
      const prev = before.get(key);
      if (!prev) changes.push(new CacheEvent('ADDED', object, undefined, object.revision, now));
      else if (prev !== object) changes.push(new CacheEvent('MODIFIED', object, prev, object.revision, now));
    }
    for (const [key, prev] of before) if (!this.objects.has(key)) changes.push(new CacheEvent('DELETED', prev, prev, revision, now));
    for (const change of changes) for (const listener of this.listeners) listener(change);
  }

  private trim(now: number): void {
    const { historyMs, maxEvents } = this.options;
    while (this.head < this.events.length && (now - this.events[this.head].time > historyMs || this.events.length - this.head > maxEvents)) {
      this.windowStart = this.events[this.head].revision;
      this.head++;
    }
    // Compact the array once the dropped prefix dominates, so trimming stays amortized O(1).
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  /** Drops events older than the window even when no writes arrive. */
  expire(now: number): void {
    this.trim(now);
  }

  /** Events after `revision`, in order; undefined when the window no longer reaches back that far. */
  eventsAfter(revision: number): CacheEvent[] | undefined {
    if (revision < this.windowStart) return undefined;
    // Binary search the first event past the revision.
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid].revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  /**
   * Current objects under `keyPrefix`, in key order (upstream list order); one
   * array shared by every reader until the next change (a Table list of 10,000
   * spent 1.5 ms or more walking the keys each time).
   */
  list(keyPrefix: string): readonly CachedObject[] {
    let listed = this.lists.get(keyPrefix);
    if (!listed) {
      listed = this.walk(keyPrefix);
      this.lists.set(keyPrefix, listed);
    }
    return listed;
  }

  private walk(keyPrefix: string): CachedObject[] {
    const out: CachedObject[] = [];
    for (const key of this.sortedKeys.from(keyPrefix, keyPrefix)) out.push(this.objects.get(key)!);
    return out;
  }

  /**
   * Whether the cache holds the exact state at `revision`, given the cacher has
   * reached `reached`: no change to this resource after it (SPEC 4.6 "Exact" and
   * "Continue Token, Exact" can then be served here, not from the store).
   */
  holdsStateAt(revision: number, reached: number): boolean {
    return this.lastChange <= revision && revision <= reached;
  }

  /**
   * The revision of the last change to this resource: the state the cache
   * holds now is the state at every revision from it on. What readers share
   * is keyed by it, not by the revision they answer at, which moves with every
   * write to other resources.
   */
  get stateRevision(): number {
    return this.lastChange;
  }

  /**
   * One chunk of the current state (SPEC 4.4 item 5): up to `limit` objects
   * under `keyPrefix` from `startKey` on that pass `filter`, as the store's
   * chunked range read returns them: `lastKey` when keys remain past the
   * chunk, and how many do.
   */
  page(keyPrefix: string, startKey: string, limit: number, filter?: (object: CachedObject) => boolean): CachePage {
    const items: CachedObject[] = [];
    let lastKey: string | undefined;
    for (const key of this.sortedKeys.from(startKey > keyPrefix ? startKey : keyPrefix, keyPrefix)) {
      if (items.length >= limit) {
        lastKey = items.length ? items[items.length - 1].key : startKey;
        break;
      }
      const object = this.objects.get(key)!;
      if (!filter || filter(object)) items.push(object);
    }
    if (lastKey === undefined) return { items, remaining: 0 };
    const remaining = this.sortedKeys.rank(prefixEnd(keyPrefix)) - this.sortedKeys.rank(lastKey + '\0');
    return { items, lastKey, remaining };
  }

  /**
   * The items of `list(keyPrefix)` encoded once as `item,item,...` (as version
   * `apiVersion` serves them, when given), shared by every reader until a change.
   */
  listBody(keyPrefix: string, apiVersion?: string): Buffer {
    const key = apiVersion === undefined ? keyPrefix : `${keyPrefix}\0${apiVersion}`;
    let body = this.listBodies.get(key);
    if (!body) {
      body = joinJson(this.list(keyPrefix), apiVersion);
      this.listBodies.set(key, body);
    }
    return body;
  }

  /**
   * A body an upper layer derives from the current state alone (a chunk of a
   * list at a revision the cache holds: SPEC 2.3), encoded once by `encode` and
   * shared by every reader asking with the same `key` until the next change,
   * within SHARED_BODY_BYTES for every resource of the process, oldest dropped first. Clients walking one
   * collection at one revision (informers relisting after a restart, kubectl
   * across namespaces) then share each chunk's bytes.
   *
   * `version` tells apart bodies of one key that are only good for a while (a
   * Table's ages, rendered once per second): a new version replaces the kept
   * one at once, since no reader asks for the old one again. Kept until the
   * budget pushed them out, a Table of 10,000 objects asked for every second
   * held five 6.4 MiB copies per process.
   */
  sharedBody(key: string, encode: () => Buffer, version = ''): Buffer {
    const fullKey = this.sharedPrefix + key;
    const kept = sharedBodies.get(fullKey);
    if (kept?.version === version) return kept.body;
    if (kept) {
      sharedBodies.delete(fullKey);
      sharedBodyBytes -= kept.body.length;
    }
    const body = encode();
    if (body.length > SHARED_BODY_BYTES) return body;
    for (const [oldestKey, oldest] of sharedBodies) {
      if (sharedBodyBytes + body.length <= SHARED_BODY_BYTES) break;
      sharedBodies.delete(oldestKey);
      sharedBodyBytes -= oldest.body.length;
    }
    sharedBodies.set(fullKey, { body, version });
    sharedBodyBytes += body.length;
    this.sharing = true;
    return body;
  }

  private dropSharedBodies(): void {
    this.sharing = false;
    for (const [key, kept] of sharedBodies) {
      if (!key.startsWith(this.sharedPrefix)) continue;
      sharedBodies.delete(key);
      sharedBodyBytes -= kept.body.length;
    }
  }

  /** The cache is no longer used (its resource is gone): its objects leave their slabs. */
  discard(): void {
    for (const object of this.objects.values()) object.leave();
  }

  /** Every current object, for controllers building their indexes. */
  all(): IterableIterator<CachedObject> {
    return this.objects.values();
  }

  get(key: string): CachedObject | undefined {
    return this.objects.get(key);
  }

  size(): number {
    return this.objects.size;
  }
}
