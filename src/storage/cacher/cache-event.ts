/**
 * A change as a resource's watchers see it (SPEC 2.4, 4.4), and the encodings
 * a watcher may frame it in besides JSON lines: each form of an event is
 * built once and shared by every watcher (never copied per watcher).
 */
import type { WatchEventType } from '../interface.ts';
import type { CachedObject } from './cached-object.ts';

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

/**
 * How a watcher writes events when not as JSON lines (the protobuf frames of
 * SPEC 4.7), made by the layer that negotiated the encoding. Watchers of one
 * encoding share each event's frame (CacheEvent.frame).
 */
export interface WatchEncoding {
  /** Tells apart the frames of different encodings of one event. */
  readonly key: string;
  /** An event of `type` carrying `object` at `revision`. */
  event(type: WatchEventType, object: CachedObject, revision: number): Buffer;
  /** A BOOKMARK at `revision`, marked as the end of the initial events when asked (SPEC 2.4, 4.4 item 4). */
  bookmark(revision: number, initialEventsEnd: boolean): Buffer;
  /** A terminal ERROR event carrying `status`. */
  error(status: unknown): Buffer;
  /**
   * The encoding of a watcher's first event, when it differs (upstream's
   * Table watch sends the column definitions in the first event only).
   */
  readonly first?: WatchEncoding;
}
