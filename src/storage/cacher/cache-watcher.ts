/**
 * One watch stream (SPEC 2.4, 4.4, 6): filters the shared events of a resource
 * cache through the watcher's namespace and selectors, turns selection changes
 * into ADDED/DELETED as upstream's cacher does, and writes shared lines to the
 * socket in batches. A watcher whose socket backs up past its budget is closed
 * rather than buffered without bound.
 */
import type { Writable } from 'node:stream';
import type { WatchEventType } from '../interface.ts';
import type { CacheEvent, WatchEncoding } from './cache-event.ts';
import type { CachedObject } from './cached-object.ts';

export interface WatchSelection {
  /** Key prefix of the namespace (or of the resource, for all namespaces). */
  keyPrefix: string;
  /** Label/field selector predicate over the parsed object; undefined selects all. */
  matches?: (obj: any) => boolean;
}

export interface CacheWatcherOptions {
  /** Bytes the socket may hold unsent before the watcher counts as too slow. */
  maxBufferedBytes: number;
  /** `{"kind","apiVersion"}` JSON prefix for BOOKMARK objects, or undefined when bookmarks were not requested. */
  bookmarkHead?: string;
  /** The apiVersion objects are sent with (a custom kind read through another version than it is stored at); as stored when undefined. */
  apiVersion?: string;
  /**
   * Makes objects ready to be sent at `apiVersion` (a conversion webhook's
   * forms, CachedObject.keepConverted) before their events are written; its
   * answer is a Status that ends the watch with an ERROR event, or undefined.
   * Events then wait for it, in order.
   */
  prepare?: (objects: ReadonlyArray<CachedObject | undefined>) => Promise<unknown>;
  /** Frames events in another encoding than JSON lines. */
  encoding?: WatchEncoding;
  onClose: (watcher: CacheWatcher) => void;
  /** Told of every event written (its line's length), for the watch-event metrics. */
  onEvent?: (bytes: number) => void;
}

/** A client's watch as the cacher starts it: served by the cache (Cacher.startWatch) or by the store (startStorageWatch, storage-watcher.ts). */
export interface WatchRequest {
  resourcePrefix: string;
  selection: WatchSelection;
  /** undefined = unset (consistent state then changes), 0 = any state then changes, n = changes after n. */
  resourceVersion: number | undefined;
  /** Send the current state as ADDED events first (SPEC 4.6 "Get State and Start at ..."). */
  initialEvents: boolean;
  /** BOOKMARK with the initial-events-end annotation after the initial events (SPEC 4.4 item 4). */
  initialEventsEndBookmark: boolean;
  bookmarkHead?: string;
  /** The version the watcher's objects are served as, when it may differ from the stored one (CacheWatcherOptions). */
  apiVersion?: string;
  /** CacheWatcherOptions.prepare. */
  prepare?: CacheWatcherOptions['prepare'];
  /** CacheWatcherOptions.onEvent. */
  onEvent?: CacheWatcherOptions['onEvent'];
  /** CacheWatcherOptions.encoding: JSON lines when undefined. */
  encoding?: CacheWatcherOptions['encoding'];
  out: Writable;
}

const dirty = new Set<CacheWatcher>();
let flushScheduled = false;
/** A flush cycle's slices are still being written: the next cycle waits for its end. */
let cycleRunning = false;

/**
 * Flush cycles start at most once per this many milliseconds: under a steady
 * stream of writes each watcher's socket then takes several events per (TLS)
 * write instead of one write per event. An idle stream flushes on the next turn.
 */
export const MIN_FLUSH_INTERVAL_MS = 40;

/** The last cycle's bounds; before any, a cycle of no length long past. */
let lastCycleStart = -MIN_FLUSH_INTERVAL_MS;
let lastCycleEnd = -MIN_FLUSH_INTERVAL_MS;

/**
 * After a cycle the loop rests from fan-out for as long as the cycle took, up
 * to this ceiling. A socket write costs nearly as much for one event as for
 * several, so below saturation the rest makes each write carry more events for
 * the same work, and the writers whose events these are find the loop free
 * (issue 10: 1,000 watchers at 50 writes/s took a whole core and held writes
 * 100-150 ms; with the rest, less CPU and writes in 10-20 ms). The
 * ceiling keeps the added delay small when fan-out needs most of the process.
 */
export const MAX_FLUSH_REST_MS = 40;

type Chunk = string | Buffer;

/**
 * Joins a watcher's pending lines into one Buffer, shared by every watcher whose
 * batch holds the same lines (the common case: all watchers of a namespace see
 * the same events), so a batch is copied once, not once per watcher.
 */
class BatchJoiner {
  private readonly byFirst = new Map<Chunk, Array<{ parts: Chunk[]; joined: Buffer }>>();

  join(parts: Chunk[]): Chunk {
    if (parts.length === 1) return parts[0];
    const candidates = this.byFirst.get(parts[0]) ?? [];
    for (const candidate of candidates) {
      if (candidate.parts.length === parts.length && candidate.parts.every((p, i) => p === parts[i])) return candidate.joined;
    }
    const joined = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
    candidates.push({ parts, joined });
    this.byFirst.set(parts[0], candidates);
    return joined;
  }
}

/**
 * Watchers written per event-loop turn while a cycle is on time. Each write
 * encrypts and queues a TLS record: a thousand in one turn hold the loop for
 * tens of milliseconds, which requests and writes would wait out (issue 10:
 * writers never starved by fan-out). Between slices the loop takes its other
 * work. A cycle that runs past MIN_FLUSH_INTERVAL_MS doubles its slice for
 * each interval it is behind, so under overload a pass over every watcher
 * still ends within a few intervals (the writers then wait instead of the
 * events falling behind without bound).
 */
export const FLUSH_SLICE = 64;

/** Writes every dirty watcher's pending lines: one socket write (one chunk) per watcher per cycle. */
function flushAll(): void {
  flushScheduled = false;
  cycleRunning = true;
  lastCycleStart = performance.now();
  const watchers = [...dirty];
  dirty.clear();
  const joiner = new BatchJoiner();
  const writeSlice = (from: number) => {
    const intervalsBehind = Math.floor((performance.now() - lastCycleStart) / MIN_FLUSH_INTERVAL_MS);
    const to = Math.min(from + FLUSH_SLICE * 2 ** Math.min(intervalsBehind, 10), watchers.length);
    for (let i = from; i < to; i++) watchers[i].flush(joiner);
    if (to < watchers.length) {
      setImmediate(writeSlice, to);
      return;
    }
    cycleRunning = false;
    lastCycleEnd = performance.now();
    if (dirty.size) scheduleFlush();
  };
  writeSlice(0);
}

function scheduleFlush(): void {
  if (flushScheduled || cycleRunning) return;
  flushScheduled = true;
  const now = performance.now();
  const wait = Math.max(lastCycleStart + MIN_FLUSH_INTERVAL_MS, lastCycleEnd + Math.min(lastCycleEnd - lastCycleStart, MAX_FLUSH_REST_MS)) - now;
  if (wait <= 0) setImmediate(flushAll);
  else setTimeout(flushAll, wait);
}

export class CacheWatcher {
  private pending: Chunk[] = [];
  /** Bytes (as string lengths) of `pending`, counted against the buffer budget with what the socket holds. */
  private pendingBytes = 0;
  /** The socket refused more (its write returned false) and this watcher waits for its 'drain'. */
  private awaitingDrain = false;
  private closed = false;
  /** Events at or before this revision were sent (or predate the watch). */
  private sentRevision: number;
  /** Whether an event was written with the encoding's `first` form. */
  private wroteFirst = false;
  /** What is written once `prepare` settles, in order. */
  private prepared: Promise<void> = Promise.resolve();

  constructor(
    private readonly out: Writable,
    private readonly selection: WatchSelection,
    startRevision: number,
    private readonly options: CacheWatcherOptions,
  ) {
    this.sentRevision = startRevision;
  }

  /** The key prefix this watcher selects (a namespace's, or the whole resource's). */
  get keyPrefix(): string {
    return this.selection.keyPrefix;
  }

  /** Whether an object under the key prefix is selected. */
  private selected(object: CachedObject | undefined): boolean {
    if (!object) return false;
    return !this.selection.matches || this.selection.matches(object.parsedAs(this.options.apiVersion));
  }

  /** The type this watcher sees for an event under its key prefix, or undefined when it is not selected (FACTS 2). */
  private typeFor(event: CacheEvent): WatchEventType | undefined {
    if (event.type === 'MODIFIED') {
      const now = this.selected(event.object);
      const before = this.selected(event.prev);
      if (now && before) return 'MODIFIED';
      if (now) return 'ADDED';
      if (before) return 'DELETED';
      return undefined;
    }
    return this.selected(event.object) ? event.type : undefined;
  }

  /** Receives an event from the cache; each is delivered at most once, in revision order. */
  offer(event: CacheEvent): void {
    if (event.object.key.startsWith(this.selection.keyPrefix)) this.offerInPrefix(event);
  }

  /**
   * `offer` for an event whose key the caller found under this watcher's key
   * prefix (WatcherGroups tests each prefix once per event, not once per watcher).
   */
  offerInPrefix(event: CacheEvent): void {
    if (this.closed || event.revision <= this.sentRevision) return;
    this.sentRevision = event.revision;
    // The common case writes at once, without a closure per event and watcher.
    if (!this.options.prepare) {
      const type = this.typeFor(event);
      if (type) this.enqueue(this.lineOf(event, type));
      return;
    }
    // Selectors read the converted objects (selectable fields are the served version's).
    // Without selectors only the object is sent; with them, its previous state may be too (an object leaving the selection).
    const candidates = this.selection.matches ? [event.object, event.prev] : [event.object];
    this.whenPrepared(candidates, () => {
      const type = this.typeFor(event);
      if (type) this.enqueue(this.lineOf(event, type));
    });
  }

  /** The shared wire form of an event as this watcher sees it. */
  private lineOf(event: CacheEvent, type: WatchEventType): Buffer {
    const encoding = this.encodingNow();
    return encoding ? event.frame(type, encoding) : event.line(type, this.options.apiVersion);
  }

  /** The encoding of the next event: the `first` one until an event was written with it. */
  private encodingNow(): WatchEncoding | undefined {
    const { encoding } = this.options;
    if (!encoding?.first || this.wroteFirst) return encoding;
    this.wroteFirst = true;
    return encoding.first;
  }

  /** Runs `write` once `prepare` made the objects ready (at once without it); a failure ends the watch. */
  private whenPrepared(objects: ReadonlyArray<CachedObject | undefined>, write: () => void): void {
    const { prepare } = this.options;
    if (!prepare) return write();
    this.prepared = this.prepared.then(async () => {
      if (this.closed) return;
      const failure = await prepare(objects);
      if (this.closed) return;
      if (failure === undefined) write();
      else this.fail(failure);
    });
  }

  /** Synthetic ADDED events for the current state (SPEC 4.6 "Get State and Start at ..."). */
  sendInitial(objects: readonly CachedObject[]): void {
    this.whenPrepared(objects, () => {
      for (const object of objects) {
        if (this.selection.matches && !this.selection.matches(object.parsedAs(this.options.apiVersion))) continue;
        const encoding = this.encodingNow();
        this.enqueue(encoding ? encoding.event('ADDED', object, object.revision) : `{"type":"ADDED","object":${object.json(this.options.apiVersion)}}\n`);
      }
    });
  }

  /** SPEC 2.4: a BOOKMARK with only apiVersion, kind and metadata.resourceVersion; all changes up to it were sent. */
  bookmark(revision: number, initialEventsEnd = false): void {
    if (this.closed || !this.options.bookmarkHead || revision < this.sentRevision) return;
    this.sentRevision = revision;
    const annotations = initialEventsEnd ? ',"annotations":{"orch.io/initial-events-end":"true"}' : '';
    this.whenPrepared([], () => {
      const encoding = this.encodingNow();
      this.enqueue(encoding ? encoding.bookmark(revision, initialEventsEnd) : `{"type":"BOOKMARK","object":{${this.options.bookmarkHead},"metadata":{"resourceVersion":"${revision}"${annotations}}}}\n`);
    });
  }

  /** A terminal ERROR event carrying a Status (FACTS 2), then the stream ends. */
  fail(status: unknown): void {
    this.enqueue(this.options.encoding ? this.options.encoding.error(status) : `${JSON.stringify({ type: 'ERROR', object: status })}\n`);
    this.flush();
    this.close();
  }

  private enqueue(line: Chunk): void {
    if (this.closed) return;
    this.options.onEvent?.(line.length);
    this.pending.push(line);
    this.pendingBytes += line.length;
    dirty.add(this);
    scheduleFlush();
  }

  flush(joiner = new BatchJoiner()): void {
    if (this.closed || this.pending.length === 0) return;
    // Too slow: what was written before has not drained past the budget. Drop the
    // connection instead of buffering without bound; the client resumes from its
    // last resourceVersion or relists.
    if (this.out.writableLength + (this.awaitingDrain ? this.pendingBytes : 0) > this.options.maxBufferedBytes) {
      this.close(true);
      return;
    }
    if (this.awaitingDrain) return;
    // A socket that refused more keeps the events here, shared with the other
    // watchers, and takes them as one write once it drains: not a TLS record
    // per flush encrypted and queued per socket (issue 10: memory and CPU of
    // fan-out to clients slower than the writes).
    if (this.out.writableNeedDrain) {
      this.awaitingDrain = true;
      this.out.once('drain', this.onDrain);
      return;
    }
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.out.write(joiner.join(pending));
  }

  private readonly onDrain = (): void => {
    this.awaitingDrain = false;
    if (this.closed || this.pending.length === 0) return;
    dirty.add(this);
    scheduleFlush();
  };

  close(abort = false): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = [];
    this.pendingBytes = 0;
    dirty.delete(this);
    this.out.off('drain', this.onDrain);
    this.options.onClose(this);
    if (abort) this.out.destroy();
    else this.out.end();
  }

  isClosed(): boolean {
    return this.closed;
  }
}
