/**
 * Protobuf answers of get, list and watch (SPEC 4.7), encoded once where it
 * matters: an object version's envelope is made once and kept on its cached
 * version (CachedObject.encoded), a list's body is its items' messages
 * framed, not re-encoded, and a watch event's frame is shared by every
 * protobuf watcher (CacheEvent.frame).
 */
import { encodeListItems, type ProtobufCodec } from '../api/protobuf/codec.ts';
import { PROTOBUF_TYPE, rawOf, watchFrame } from '../api/protobuf/envelope.ts';
import { apiVersionOf, type KindDefinition } from '../registry/kind.ts';
import type { ResourceCache } from '../storage/cacher/resource-cache.ts';
import type { CachedObject } from '../storage/cacher/cached-object.ts';
import type { WatchEncoding } from '../storage/cacher/cache-event.ts';
import type { WatchEventType } from '../storage/interface.ts';
import { sendWhole, writeAround, type EncodeOptions } from '../http/respond.ts';
import type { ResourceRequest } from './context.ts';

/** A stored object (without resourceVersion) as served at `revision`. */
function atRevision(stored: any, revision: number): any {
  return { ...stored, metadata: { ...stored.metadata, resourceVersion: String(revision) } };
}

/**
 * An object version's protobuf body (its envelope), made once per version and
 * kept on it, per served version: a kind served at several versions encodes
 * the object as each converts it (CachedObject.parsedAs).
 */
export function protobufBody(codec: ProtobufCodec, kind: KindDefinition, object: CachedObject): Buffer {
  const apiVersion = apiVersionOf(kind);
  const mediaType = kind.convert ? `${PROTOBUF_TYPE};${apiVersion}` : PROTOBUF_TYPE;
  return object.encoded(mediaType, (o) => codec.encodeObject(apiVersion, kind.kind, atRevision(o.parsedAs(apiVersion), o.revision)));
}

/** SPEC 4.2 get in protobuf. */
export function writeProtobufObject(ctx: ResourceRequest, object: CachedObject): void {
  sendWhole(ctx.res, 200, ctx.encode, PROTOBUF_TYPE, protobufBody(codecOf(ctx.encode), ctx.store.kind, object));
}

/**
 * SPEC 4.2 list in protobuf: the kind's List message, its items the kept
 * messages of each version; with `shared`, the body is made once for every
 * reader of the same state (ResourceCache.sharedBody).
 */
export function writeProtobufList(
  ctx: ResourceRequest,
  items: readonly CachedObject[],
  metadata: Record<string, unknown>,
  shared: { cache: ResourceCache; key: string } | undefined,
): void {
  const codec = codecOf(ctx.encode);
  const kind = ctx.store.kind;
  const encodeItems = () => encodeListItems(items.map((item) => rawOf(protobufBody(codec, kind, item))));
  // The items are shared whatever the revision; the envelope's head, its length and the list metadata are this answer's.
  const { head, items: encoded, tail } = codec.encodeListAround(apiVersionOf(kind), kind.listKind, metadata, shared ? shared.cache.sharedBody(`${PROTOBUF_TYPE}\0${shared.key}`, encodeItems) : encodeItems());
  writeAround(ctx.res, ctx.encode, PROTOBUF_TYPE, head, encoded, tail);
}

/**
 * The frames of a protobuf watch of `kind` (apiserver serveWatchHandler with
 * the protobuf stream serializer): each event's object in its own envelope
 * inside a WatchEvent, an object at its own version reusing its kept body.
 */
export function protobufWatchEncoding(codec: ProtobufCodec, kind: KindDefinition): WatchEncoding {
  const apiVersion = apiVersionOf(kind);
  return {
    key: `${PROTOBUF_TYPE}\0${apiVersion}`,
    event(type: WatchEventType, object: CachedObject, revision: number): Buffer {
      const body = revision === object.revision ? protobufBody(codec, kind, object) : codec.encodeObject(apiVersion, kind.kind, atRevision(object.parsedAs(apiVersion), revision));
      return watchFrame(type, body);
    },
    bookmark(revision: number, initialEventsEnd: boolean): Buffer {
      const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
      if (initialEventsEnd) metadata.annotations = { 'orch.io/initial-events-end': 'true' };
      return watchFrame('BOOKMARK', codec.encodeObject(apiVersion, kind.kind, { metadata }));
    },
    error(status: unknown): Buffer {
      return watchFrame('ERROR', codec.encodeObject('v1', 'Status', status));
    },
  };
}

/** The codec when the answer was negotiated as protobuf; undefined for every other media type. */
export function negotiatedProtobuf(encode: EncodeOptions): ProtobufCodec | undefined {
  return encode.mediaType === PROTOBUF_TYPE ? encode.protobuf : undefined;
}

function codecOf(encode: EncodeOptions): ProtobufCodec {
  if (!encode.protobuf) throw new Error('protobuf negotiated without a codec');
  return encode.protobuf;
}
