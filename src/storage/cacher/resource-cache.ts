/**
 * The watch cache of one resource (DESIGN "watch cache"; SPEC 4.4, 4.6): the
 * current objects and a window of recent events, fed by the cacher's single
 * storage watch. Lists at resourceVersion "0" and every watch are served from
 * here. Each event is serialized at most once per form and shared by every
 * watcher (never copied per watcher).
 */
import { withApiVersion, withResourceVersion } from '../stored-json.ts';
import type { StorageEvent, WatchEventType } from '../interface.ts';
import type { CacheWatcher, WatchEncoding } from './cache-watcher.ts';
import { prefixEnd } from '../keys.ts';
import { adopt, release, type SlabResident } from '../value-slabs.ts';
import { leadingApiVersion, packServed, servedBytesAt, storedTextOf, textAfter } from './stored-bytes.ts';
import { SortedKeys } from './sorted-keys.ts';
import { WatcherGroups } from './watcher-groups.ts';

const COMMA = 0x2c;
/** Bytes of encoded GET bodies a process keeps (every object of 10,000 NetworkPolicies fits twice). */
const BODY_BYTES_KEPT = 32 * 1024 * 1024;
/** Bytes of shared bodies a process keeps, all resources together (sharedBody): a whole walk of 10,000 NetworkPolicies in pages of 500 is 15 MiB. */
const SHARED_BODY_BYTES = 32 * 1024 * 1024;
/** Every resource's shared bodies by `<cache id>:<key>`, oldest first, and their bytes. */
const sharedBodies = new Map<string, { body: Buffer; version: string }>();
let sharedBodyBytes = 0;
let nextCacheId = 0;
/**
 * Encoded bodies kept on objects, oldest first from `firstKept`, and the
 * object keeping each (two arrays: no object or closure per body).
 */
let keptBodies: Array<Buffer | undefined> = [];
let keptBy: Array<CachedObject | undefined> = [];
let firstKept = 0;
let bodyBytesKept = 0;

/**
 * Bodies of single objects encoded so far (reads that found none kept), and
 * how recent an object's previous encoding must be for its body to be kept:
 * within about as many encodings as the budget holds bodies. An object read
 * again later than that would have lost its body before the read anyway, so
 * keeping it only churns the budget: at 1,000,000 objects read at random,
 * every kept body was a promoted allocation that set off full collections of
 * the whole heap, and none was read again.
 */
let bodyReads = 0;
const REREAD_WINDOW = BODY_BYTES_KEPT / 1024;

/** Counts a body an object now keeps; past BODY_BYTES_KEPT the oldest are given up. */
function keepBody(object: CachedObject, body: Buffer): void {
  keptBodies.push(body);
  keptBy.push(object);
  bodyBytesKept += body.length;
  while (bodyBytesKept > BODY_BYTES_KEPT && firstKept < keptBodies.length) {
    const oldest = keptBodies[firstKept]!;
    keptBy[firstKept]!.release(oldest);
    keptBodies[firstKept] = undefined;
    keptBy[firstKept++] = undefined;
    bodyBytesKept -= oldest.length;
  }
  // Compacted once the released prefix dominates, so the queue stays amortized O(1).
  if (firstKept > 4096 && firstKept * 2 > keptBodies.length) {
    keptBodies = keptBodies.slice(firstKept);
    keptBy = keptBy.slice(firstKept);
    firstKept = 0;
  }
}

/** One object version as the cache holds it; serialized and parsed forms are made on first use. */
export class CachedObject implements SlabResident {
  private parsedObject: any;
  /** Whether the cache keeps this version as current, its bytes a slab's resident (keep, leave). */
  private kept = false;
  private encodedBody: Buffer | undefined;
  /** `bodyReads` at this version's last body encoding; -1 before the first. */
  private lastBodyRead = -1;
  /** This version in another media type (an upper layer's, e.g. the protobuf envelope), and which. */
  private alternate: { mediaType: string; body: Buffer } | undefined;
  /**
   * A form an upper layer derives from this version (the handlers' encoded
   * Table row, SPEC 4.7): made there on first use, it goes with the version.
   */
  derived: unknown;
  /** This version as other versions of its kind serve it, where a conversion webhook made them (stored JSON, no resourceVersion; parsed for selectors on first use). */
  private converted: Map<string, { value: string; parsed?: any }> | undefined;

  constructor(
    readonly key: string,
    /**
     * The store's text (JSON without resourceVersion) for one read's own
     * version; for the versions a cache keeps (keep, and a list's packServed),
     * the JSON as served, resourceVersion included, packed off V8's heap.
     */
    private stored: string | Buffer,
    readonly revision: number,
  ) {}

  /** Makes this the version the cache holds as current: its bytes packed into a slab and counted there until `leave` (value-slabs.ts). */
  keep(): this {
    const stored = typeof this.stored === 'string' ? (this.stored = packServed(this.stored, this.revision)) : this.stored;
    this.kept = true;
    adopt(this, stored);
    return this;
  }

  /** The cache no longer holds this version as current: its slab may be compacted without it (readers holding it still read it). */
  leave(): void {
    if (!this.kept) return;
    this.kept = false;
    release(this.stored as Buffer);
  }

  /** Takes `view`, the same bytes packed again (a relist's), as its kept bytes. */
  repack(view: Buffer): void {
    this.leave();
    this.stored = view;
    this.keep();
  }

  packedBytes(): Buffer | undefined {
    return this.kept ? (this.stored as Buffer) : undefined;
  }

  moveTo(view: Buffer): void {
    this.stored = view;
  }

  /** Stored JSON without resourceVersion, as text (decoded per call when the version is kept as bytes). */
  get value(): string {
    const stored = this.stored;
    return typeof stored === 'string' ? stored : storedTextOf(stored, this.revision);
  }

  /** Whether the JSON contains `text`, read where it is kept (kept bytes hold the resourceVersion field too, which no caller's marker matches). */
  storedIncludes(text: string): boolean {
    return this.stored.includes(text);
  }

  /** The text between the stored JSON's first `marker` and the next quote, as its own string (textAfter). */
  storedTextAfter(marker: string): string | undefined {
    return textAfter(this.stored, marker);
  }

  /**
   * JSON with metadata.resourceVersion spliced in; made per call, not kept, so
   * the cache holds each object once. With `apiVersion`, as that version of the
   * kind serves it (withApiVersion).
   */
  json(apiVersion?: string): string {
    const stored = this.stored;
    if (typeof stored !== 'string' && this.servesStored(apiVersion)) return stored.toString();
    return withResourceVersion(this.valueAs(apiVersion), this.revision);
  }

  /**
   * `json(apiVersion)` encoded, at `revision` (a DELETED event's own),
   * between `before` and `after`, in one buffer: the kept bytes are
   * copied as they are when the version serves them, never decoded, and are
   * the answer themselves when nothing goes around them (read-only: shared).
   */
  jsonBytes(apiVersion?: string, revision = this.revision, before = '', after = ''): Buffer {
    const stored = this.stored;
    if (typeof stored !== 'string' && this.servesStored(apiVersion)) {
      if (revision === this.revision && !before && !after) return stored;
      return servedBytesAt(stored, this.revision, revision, before, after);
    }
    return Buffer.from(before + withResourceVersion(this.valueAs(apiVersion), revision) + after);
  }

  /** The stored JSON as version `apiVersion` serves it: converted by its webhook when kept (keepConverted), else renamed (withApiVersion). */
  valueAs(apiVersion: string | undefined): string {
    if (apiVersion === undefined) return this.value;
    return this.converted?.get(apiVersion)?.value ?? withApiVersion(this.value, apiVersion);
  }

  /** Whether version `apiVersion` (the stored one when undefined) serves the stored JSON unchanged (`valueAs` would give it back). */
  private servesStored(apiVersion: string | undefined): boolean {
    if (apiVersion === undefined) return true;
    if (this.converted?.has(apiVersion)) return false;
    const stored = this.stored;
    return typeof stored === 'string' ? withApiVersion(stored, apiVersion) === stored : leadingApiVersion(stored) === apiVersion;
  }

  /** The parsed form selectors read at `apiVersion`: the webhook's form when kept, else the stored one (a renamed version has the same fields). */
  parsedAs(apiVersion: string | undefined): any {
    const converted = apiVersion === undefined ? undefined : this.converted?.get(apiVersion);
    if (!converted) return this.parsed();
    return (converted.parsed ??= JSON.parse(converted.value));
  }

  /** Whether this version holds its form at `apiVersion` (kept by keepConverted). */
  hasConverted(apiVersion: string): boolean {
    return this.converted?.has(apiVersion) ?? false;
  }

  /** Keeps the webhook's form of this version at `apiVersion`: it is good while the version lives. */
  keepConverted(apiVersion: string, value: string): void {
    (this.converted ??= new Map()).set(apiVersion, { value });
  }

  /**
   * The JSON of a GET: a kept version's bytes themselves (packServed); for a
   * version held as text, encoded once and kept for the objects read again
   * soon (readAgainSoon), within BODY_BYTES_KEPT: kept for every object read,
   * the copies doubled the cache's memory, and at 1,000,000 objects their
   * growth set off full collections of the whole heap.
   */
  body(apiVersion?: string): Buffer {
    // Another version's body is made for the request: the kept one is the stored form.
    if (!this.servesStored(apiVersion)) return this.jsonBytes(apiVersion);
    // A kept version's body is its bytes themselves.
    if (typeof this.stored !== 'string') return this.stored;
    if (this.encodedBody) return this.encodedBody;
    const body = this.jsonBytes();
    if (this.readAgainSoon()) {
      this.encodedBody = body;
      keepBody(this, body);
    }
    return body;
  }

  /**
   * This version encoded in another media type by `encode` (an upper layer's
   * codec: the protobuf of SPEC 4.7), made once and kept like `body`, within
   * the same budget; the last media type asked for is the one kept.
   */
  encoded(mediaType: string, encode: (object: CachedObject) => Buffer): Buffer {
    if (this.alternate?.mediaType === mediaType) return this.alternate.body;
    const body = encode(this);
    if (this.readAgainSoon()) {
      this.alternate = { mediaType, body };
      keepBody(this, body);
    }
    return body;
  }

  /** Counts an encoding; true when this version's previous one was within REREAD_WINDOW encodings (see bodyReads). */
  private readAgainSoon(): boolean {
    const previous = this.lastBodyRead;
    this.lastBodyRead = ++bodyReads;
    return previous >= 0 && bodyReads - previous <= REREAD_WINDOW;
  }

  /** Gives up a kept body (keepBody's budget), if this version still holds it. */
  release(body: Buffer): void {
    if (this.encodedBody === body) this.encodedBody = undefined;
    if (this.alternate?.body === body) this.alternate = undefined;
  }

  /** Parsed object for selectors; treat as read-only, it is shared. */
  parsed(): any {
    return (this.parsedObject ??= JSON.parse(this.value));
  }
}

/** `objects` as version `apiVersion` serves them, encoded as `item,item,...` in one buffer (their bytes copied, not decoded). */
export function joinJson(objects: readonly CachedObject[], apiVersion?: string, before = '', after = ''): Buffer {
  const parts: Buffer[] = new Array(objects.length);
  let length = Buffer.byteLength(before) + Buffer.byteLength(after) + Math.max(0, objects.length - 1);
  for (let i = 0; i < objects.length; i++) length += (parts[i] = objects[i].jsonBytes(apiVersion)).length;
  const out = Buffer.allocUnsafe(length);
  let n = out.write(before, 0);
  for (let i = 0; i < parts.length; i++) {
    if (i) out[n++] = COMMA;
    n += parts[i].copy(out, n);
  }
  out.write(after, n);
  return out;
}

/** A change as watchers see it; the wire line of each form is built once and shared. */
export class CacheEvent {
  /** Made on the first watcher's read: most events in the history window are never sent (no watcher). */
  private lines: Map<string, Buffer> | undefined;

  constructor(
    readonly type: WatchEventType,
    /** The object after the change; for DELETED its last state. */
    readonly object: CachedObject,
    /** The object before the change (MODIFIED, DELETED). */
    readonly prev: CachedObject | undefined,
    readonly revision: number,
    readonly time: number,
  ) {}

  /**
   * The newline-terminated `{"type","object"}` line (SPEC 2.4). `asType` is the type
   * a filtered watcher sees; a DELETED for an object leaving a selection carries
   * the previous state at this event's revision (upstream cacher).
   */
  line(asType: WatchEventType, apiVersion?: string): Buffer {
    this.lines ??= new Map();
    // One line per type and served version: watchers of one version share it.
    const key = apiVersion === undefined ? asType : `${asType}\0${apiVersion}`;
    let line = this.lines.get(key);
    if (line === undefined) {
      const source = asType === 'DELETED' && this.type === 'MODIFIED' ? this.prev! : this.object;
      // Encoded once: every watcher writes this same Buffer, no per-watcher copy or UTF-8 pass.
      line = source.jsonBytes(apiVersion, this.revision, `{"type":"${asType}","object":`, '}\n');
      this.lines.set(key, line);
    }
    return line;
  }

  /** The event as `encoding` frames it for a watcher that sees it as `asType` (as `line`), made once for all its watchers. */
  frame(asType: WatchEventType, encoding: WatchEncoding): Buffer {
    this.lines ??= new Map();
    const key = `${asType}\0\0${encoding.key}`;
    let frame = this.lines.get(key);
    if (frame === undefined) {
      frame = encoding.event(asType, asType === 'DELETED' && this.type === 'MODIFIED' ? this.prev! : this.object, this.revision);
      this.lines.set(key, frame);
    }
    return frame;
  }
}

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
