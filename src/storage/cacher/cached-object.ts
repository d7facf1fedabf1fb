/**
 * One object version as the watch cache holds and serves it (DESIGN "watch
 * cache"): the stored JSON kept as served bytes off V8's heap (value-slabs.ts,
 * stored-bytes.ts), its forms at other versions, and its encoded bodies, kept
 * for the objects read again soon within one budget for the process. A
 * resource's cache (resource-cache.ts), its events (cache-event.ts) and the
 * layers that serve them read objects as these.
 */
import { withApiVersion, withResourceVersion } from '../stored-json.ts';
import { adopt, release, type SlabResident } from '../value-slabs.ts';
import { leadingApiVersion, packServed, servedBytesAt, storedTextOf, textAfter } from './stored-bytes.ts';

const COMMA = 0x2c;
/** Bytes of encoded GET bodies a process keeps (every object of 10,000 NetworkPolicies fits twice). */
const BODY_BYTES_KEPT = 32 * 1024 * 1024;
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
