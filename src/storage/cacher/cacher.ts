/**
 * The cacher (DESIGN "watch cache"): one storage watch over every key of one
 * store feeds the resource caches of that store (a store of
 * --etcd-servers-overrides has a cacher of its own: ../revision-spaces.ts).
 * Because that watch sees every write, its last revision is the store's
 * revision as far as the caches know, so a consistent read waits for it to
 * reach the store's current revision instead of falling back to storage
 * (SPEC 4.6 "Most Recent"). It also sends periodic bookmarks and expires
 * history.
 *
 * Store faults (issue 7): reads the cache has reached keep being served while
 * the store is frozen or gone. A storage watch that ends with an error (its
 * revision was compacted while it was away) is replaced: the cacher relists at
 * the store's current revision, retrying until the store answers, and watches
 * again from there; watchers that cannot continue without a gap are ended and
 * resume or relist as clients do.
 */
import * as errors from '../../api/status-error.ts';
import type { KeyValue, Storage, StorageEvent, Watch } from '../interface.ts';
import { CacheWatcher, type WatchRequest } from './cache-watcher.ts';
import { ResourceCache, type ResourceCacheOptions } from './resource-cache.ts';
import { watchFromStorage } from './storage-watcher.ts';
import { resourcePrefixOfKey } from '../keys.ts';
import { bulkPacking } from '../value-slabs.ts';
import { packServed } from './stored-bytes.ts';

/** How long a consistent read waits for watch events before asking the store for progress. */
const PROGRESS_REQUEST_DELAY_MS = 50;
/** Delays between relist attempts after the storage watch failed: doubling from the first to the last. */
const RELIST_DELAY_MS = 250;
const MAX_RELIST_DELAY_MS = 5_000;

export interface CacherOptions extends ResourceCacheOptions {
  /** Interval between BOOKMARK events to watchers that asked for them (about a minute upstream). */
  bookmarkIntervalMs: number;
  /** Per-watcher unsent-bytes budget before the watcher is closed as too slow. */
  maxWatcherBufferedBytes: number;
}

/** What reads a resource's watch cache by its key prefix, whatever store holds it (a Cacher, or storage/revision-spaces.ts over several). */
export interface ResourceCaches {
  cache(resourcePrefix: string): ResourceCache;
}

/** ResourceCaches that also take the resources added and dropped at run time (custom resources). */
export interface RuntimeResourceCaches extends ResourceCaches {
  addResource(resourcePrefix: string): Promise<ResourceCache>;
  removeResource(resourcePrefix: string): void;
}

export class Cacher implements RuntimeResourceCaches {
  private readonly caches = new Map<string, ResourceCache>();
  /** Clients' watches the store serves (watchFromStorage), ended with the cache's at shutdown. */
  private readonly storageWatchers = new Set<CacheWatcher>();
  private revision = 0;
  private watch: Watch | undefined;
  private waiters: Array<{ revision: number; resolve: () => void }> = [];
  private timers: NodeJS.Timeout[] = [];
  private failure: Error | undefined;
  private revisionReadInFlight = false;
  private nextRevisionRead: Promise<number> | undefined;
  private startQueuedRead: (() => void) | undefined;
  private relistTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Resources being added at run time: the events that arrive while their first list is read. */
  private readonly adding = new Map<string, StorageEvent[]>();
  private readonly pendingAdditions = new Map<string, Promise<ResourceCache>>();
  /** Counts relists, so an addition whose list straddled one lists again. */
  private relists = 0;

  constructor(
    private readonly storage: Storage,
    private readonly options: CacherOptions,
  ) {}

  /** Lists every resource at one revision, then watches everything after it. */
  async start(resourcePrefixes: string[]): Promise<void> {
    const { revision, lists } = await this.listAll(resourcePrefixes);
    for (const [prefix, items] of lists) this.caches.set(prefix, new ResourceCache(prefix, this.options, items, revision));
    this.revision = revision;
    this.watchFrom(revision);
    this.timers.push(setInterval(() => this.sendBookmarks(), this.options.bookmarkIntervalMs).unref());
    this.timers.push(setInterval(() => this.expire(), Math.min(this.options.historyMs, 10_000)).unref());
  }

  /** Every resource at one revision: the store's current one. */
  private async listAll(resourcePrefixes: Iterable<string>): Promise<{ revision: number; lists: Map<string, Array<KeyValue<Buffer>>> }> {
    const revision = await this.storage.currentRevision();
    const lists = new Map<string, Array<KeyValue<Buffer>>>();
    // As bytes: the cache keeps values off V8's heap (stored-bytes.ts), packed with their slabs' pages made resident ahead.
    await bulkPacking(async () => {
      for (const prefix of resourcePrefixes) lists.set(prefix, (await this.storage.listBytes({ prefix, revision: revision || undefined }, packServed)).items);
    });
    return { revision, lists };
  }

  private watchFrom(revision: number): void {
    this.watch = this.storage.watch('/', revision, (event) => this.onEvent(event), (err) => this.onError(err));
  }

  private onEvent(event: StorageEvent): void {
    const now = Date.now();
    const prefix = resourcePrefixOfKey(event.key);
    const cache = this.caches.get(prefix);
    if (cache) cache.apply(event, now);
    else this.adding.get(prefix)?.push(event);
    if (event.revision > this.revision) this.revision = event.revision;
    this.releaseWaiters();
  }

  private releaseWaiters(): void {
    if (!this.waiters.length) return;
    const ready = this.waiters.filter((w) => w.revision <= this.revision);
    this.waiters = this.waiters.filter((w) => w.revision > this.revision);
    for (const w of ready) w.resolve();
  }

  /**
   * The storage watch ended and cannot resume (the store reports its revision
   * compacted): readiness fails, the cache keeps serving what it holds, and a
   * relist replaces the watch once the store answers.
   */
  private onError(err: Error): void {
    if (this.stopped) return;
    console.error('watch cache: storage watch failed, relisting:', err.message);
    this.failure = err;
    this.watch?.stop();
    this.watch = undefined;
    this.scheduleRelist(RELIST_DELAY_MS);
  }

  private scheduleRelist(delayMs: number): void {
    clearTimeout(this.relistTimer);
    this.relistTimer = setTimeout(() => void this.relist(delayMs), delayMs);
    this.relistTimer.unref();
  }

  /**
   * Upstream's reflector relist: the current state at one revision replaces each
   * cache. When the store moved on in between, the events of the gap are
   * unknown, so every watcher is ended (it resumes from its last
   * resourceVersion and, that being older than the new window, gets 410 and
   * relists) and controllers receive the differences as events.
   */
  private async relist(delayMs: number): Promise<void> {
    let listed;
    try {
      listed = await this.listAll(this.caches.keys());
    } catch (err) {
      console.error(`watch cache: relist failed, retrying in ${Math.min(delayMs * 2, MAX_RELIST_DELAY_MS)} ms:`, (err as Error).message);
      if (!this.stopped) this.scheduleRelist(Math.min(delayMs * 2, MAX_RELIST_DELAY_MS));
      return;
    }
    if (this.stopped) return;
    this.relists++;
    const { revision, lists } = listed;
    const gap = revision !== this.revision;
    const now = Date.now();
    for (const [prefix, items] of lists) this.caches.get(prefix)!.replace(items, revision, now, gap);
    this.revision = Math.max(this.revision, revision);
    this.failure = undefined;
    this.watchFrom(revision);
    this.releaseWaiters();
    console.error(`watch cache: relisted at revision ${revision}${gap ? ', watchers ended' : ''}`);
  }

  /** For /readyz: the cache is live. */
  async check(): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.watch) throw new Error('not started');
  }

  cache(resourcePrefix: string): ResourceCache {
    const cache = this.caches.get(resourcePrefix);
    if (!cache) throw new Error(`no watch cache for ${resourcePrefix}`);
    return cache;
  }

  /**
   * Caches a resource added at run time (a custom resource, SPEC 2.1): its
   * objects listed at the cacher's revision, then the events the storage watch
   * delivered meanwhile. Objects may already exist (written before a restart, or
   * by another replica), so the cache starts from the store, not empty.
   */
  addResource(resourcePrefix: string): Promise<ResourceCache> {
    const existing = this.caches.get(resourcePrefix);
    if (existing) return Promise.resolve(existing);
    let pending = this.pendingAdditions.get(resourcePrefix);
    if (!pending) {
      pending = this.listNewResource(resourcePrefix).finally(() => this.pendingAdditions.delete(resourcePrefix));
      this.pendingAdditions.set(resourcePrefix, pending);
    }
    return pending;
  }

  private async listNewResource(resourcePrefix: string): Promise<ResourceCache> {
    for (;;) {
      const existing = this.caches.get(resourcePrefix);
      if (existing) return existing;
      const events: StorageEvent[] = [];
      this.adding.set(resourcePrefix, events);
      const revision = this.revision;
      const relists = this.relists;
      let items: Array<KeyValue<Buffer>>;
      try {
        items = (await bulkPacking(() => this.storage.listBytes({ prefix: resourcePrefix, revision: revision || undefined }, packServed))).items;
      } finally {
        this.adding.delete(resourcePrefix);
      }
      // A relist in between may have skipped events this list did not see: list again.
      if (relists !== this.relists || this.stopped) {
        if (this.stopped) throw new Error('watch cache stopped');
        continue;
      }
      const cache = new ResourceCache(resourcePrefix, this.options, items, revision);
      const now = Date.now();
      for (const event of events) if (event.revision > revision) cache.apply(event, now);
      this.caches.set(resourcePrefix, cache);
      return cache;
    }
  }

  /** Drops a resource no longer served (its definition deleted): its watchers end cleanly. */
  removeResource(resourcePrefix: string): void {
    const cache = this.caches.get(resourcePrefix);
    if (!cache) return;
    this.caches.delete(resourcePrefix);
    for (const watcher of [...cache.watchers]) watcher.close();
    cache.discard();
  }

  /** The objects each resource's cache holds now, by resource prefix (for apiserver_storage_objects). */
  objectCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const [prefix, cache] of this.caches) counts.set(prefix, cache.size());
    return counts;
  }

  currentRevision(): number {
    return this.revision;
  }

  /** The store's compacted revision: state before it is gone, even where the cache still holds it (SPEC 4.4 item 2). */
  compactedRevision(): Promise<number> {
    return this.storage.compactedRevision();
  }

  /**
   * Resolves once the cache has seen `revision`; 504 Too large resource version
   * after `timeoutMs`. What the cache has reached is served even while its
   * storage watch is being replaced; anything newer waits for the relist.
   */
  waitFor(revision: number, timeoutMs: number): Promise<void> {
    if (revision <= this.revision) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = { revision, resolve: () => (clearTimeout(timer), resolve()) };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(errors.tooLargeResourceVersion(revision, this.revision, 1));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** SPEC 4.6 "Most Recent": waits until the cache reflects everything the store has committed. */
  async waitUntilFresh(timeoutMs: number): Promise<number> {
    const current = await this.storeRevision();
    const caughtUp = this.waitFor(current, timeoutMs);
    if (current > this.revision && this.storage.requestProgress) {
      // The newest revisions may belong to keys no cache watches (another etcd user):
      // if no event arrives promptly, ask for progress instead of waiting for a write.
      const timer = setTimeout(() => {
        if (current > this.revision) this.storage.requestProgress!().catch((err) => console.error('progress request failed:', err));
      }, PROGRESS_REQUEST_DELAY_MS);
      caughtUp.finally(() => clearTimeout(timer)).catch(() => {});
    }
    await caughtUp;
    return this.revision;
  }

  /**
   * The store's current revision, read after the call began. Callers share
   * reads: a read starts once the loop turn that asked for it is over
   * (setImmediate), after every request that turn received, and a caller
   * joins the next read to start, never one already in flight (which may
   * predate its request). Each caller still observes every write acknowledged
   * before it arrived, with one read per loop turn at most, and at most two
   * reads at a time: a worker's GETs over SQLite had each cost a read of the
   * file's head, 7 % of the worker's CPU.
   */
  private storeRevision(): Promise<number> {
    if (this.nextRevisionRead) return this.nextRevisionRead;
    let start!: () => void;
    this.nextRevisionRead = new Promise<number>((resolve, reject) => {
      start = () => {
        // Callers from here on may predate this read's answer but not its start: they wait for the next.
        this.nextRevisionRead = undefined;
        this.revisionReadInFlight = true;
        this.storage
          .currentRevision()
          .finally(() => {
            this.revisionReadInFlight = false;
            if (this.nextRevisionRead) this.startQueuedRead?.();
          })
          .then(resolve, reject);
      };
    });
    this.startQueuedRead = start;
    if (!this.revisionReadInFlight) setImmediate(start);
    return this.nextRevisionRead;
  }

  /** Registers a watcher: initial state if asked, replayed history, then live events (SPEC 4.4, 4.6). */
  async startWatch(request: WatchRequest, freshTimeoutMs: number): Promise<CacheWatcher | undefined> {
    const cache = this.cache(request.resourcePrefix);
    if (request.resourceVersion === undefined) await this.waitUntilFresh(freshTimeoutMs);
    const from = request.resourceVersion || this.revision;
    const watcher = new CacheWatcher(request.out, request.selection, request.initialEvents ? this.revision : from, {
      maxBufferedBytes: this.options.maxWatcherBufferedBytes,
      bookmarkHead: request.bookmarkHead,
      apiVersion: request.apiVersion,
      prepare: request.prepare,
      onEvent: request.onEvent,
      encoding: request.encoding,
      onClose: (w) => cache.watchers.delete(w),
    });
    if (request.initialEvents) {
      watcher.sendInitial(cache.list(request.selection.keyPrefix));
      if (request.initialEventsEndBookmark) watcher.bookmark(this.revision, true);
    } else {
      const history = cache.eventsAfter(from);
      if (!history) {
        watcher.fail(errors.expired(`too old resource version: ${from} (${cache.oldestRevision()})`).toStatus());
        return undefined;
      }
      for (const event of history) watcher.offer(event);
    }
    cache.watchers.add(watcher);
    return watcher;
  }

  /**
   * A client's watch served by the store, for a resource the cache does not
   * serve to clients (--watch-cache, --watch-cache-sizes): any revision the
   * store still holds, one storage watch each.
   */
  async startStorageWatch(request: WatchRequest): Promise<CacheWatcher | undefined> {
    const watcher = await watchFromStorage(this.storage, request, this.options.maxWatcherBufferedBytes, (w) => this.storageWatchers.delete(w));
    if (watcher.isClosed()) return undefined;
    this.storageWatchers.add(watcher);
    return watcher;
  }

  private sendBookmarks(): void {
    for (const cache of this.caches.values()) for (const watcher of cache.watchers) watcher.bookmark(this.revision);
  }

  private expire(): void {
    const now = Date.now();
    for (const cache of this.caches.values()) cache.expire(now);
  }

  /** Ends every watch cleanly (graceful shutdown) and stops the storage watch. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.relistTimer);
    for (const timer of this.timers) clearInterval(timer);
    this.watch?.stop();
    for (const cache of this.caches.values()) for (const watcher of [...cache.watchers]) watcher.close();
    for (const watcher of [...this.storageWatchers]) watcher.close();
  }
}
