/**
 * PartialObjectMetadata and PartialObjectMetadataList (SPEC 2.5, 4.7;
 * apiserver endpoints/handlers/response.go asPartialObjectMetadata,
 * asPartialObjectMetadataList): an object's metadata alone, under the
 * meta group-version the client asked for. Each object version's metadata
 * JSON is made once and kept on it (derivedForm); lists are built from
 * those parts and, for a state the cache holds, encoded once for every
 * reader (ResourceCache.sharedBody); watch events are encoded once for
 * every watcher of the same group-version (CacheEvent.frame).
 */
import type { ResourceCache } from '../storage/cacher/resource-cache.ts';
import type { CachedObject } from '../storage/cacher/cached-object.ts';
import type { WatchEncoding } from '../storage/cacher/cache-event.ts';
import type { WatchEventType } from '../storage/interface.ts';
import { JSON_TYPE } from '../http/negotiation.ts';
import { sendWhole, writeAround, writeJsonAround, writeJsonText, writeObject } from '../http/respond.ts';
import { negotiatedProtobuf } from './protobuf-responses.ts';
import * as errors from '../api/status-error.ts';
import { encodeListItems, type ProtobufCodec } from '../api/protobuf/codec.ts';
import { envelope, PROTOBUF_TYPE, watchFrame } from '../api/protobuf/envelope.ts';
import { apiVersionOf } from '../registry/kind.ts';
import type { ResourceRequest } from './context.ts';
import { derivedForm, type DerivedForm } from './derived-forms.ts';

/**
 * The group-version a metadata-only answer is asked in, when the verb's
 * answer is of the kind asked (`expected`); the other kind is upstream's
 * transform error, a 406 with its words (asPartialObjectMetadata(List)).
 */
export function partialFor(ctx: ResourceRequest, expected: 'PartialObjectMetadata' | 'PartialObjectMetadataList'): string | undefined {
  const { partial } = ctx;
  if (!partial) return undefined;
  if (partial.kind === expected) return partial.apiVersion;
  const kind = ctx.store.kind;
  throw partial.kind === 'PartialObjectMetadata'
    ? new errors.StatusError(406, 'NotAcceptable', `you requested PartialObjectMetadata, but the requested object is a list (${kind.listKind})`)
    : new errors.StatusError(406, 'NotAcceptable', `you requested PartialObjectMetadataList, but the requested object is not a list (${kind.kind})`);
}

/** What makes the metadata form, as the key of its slot. */
const METADATA_FORM = {};

/** One object version's metadata JSON, resourceVersion first (as `withResourceVersion` puts it in whole objects). */
class MetadataForm implements DerivedForm {
  constructor(readonly json: string) {}

  get madeBy(): object {
    return METADATA_FORM;
  }
}

function metadataAt(object: CachedObject, revision: number, servedAs: string): string {
  return JSON.stringify({ resourceVersion: String(revision), ...object.parsedAs(servedAs).metadata });
}

/**
 * The version's metadata JSON at its own revision as `servedAs` serves it:
 * made once per version, but for an object converted to another served
 * version, whose metadata may differ (a v1beta3 PriorityLevelConfiguration's annotation).
 */
export function metadataJson(object: CachedObject, servedAs: string): string {
  if (object.hasConverted(servedAs)) return metadataAt(object, object.revision, servedAs);
  return derivedForm(object, METADATA_FORM, () => new MetadataForm(metadataAt(object, object.revision, servedAs))).json;
}

/** What makes the protobuf metadata form, as the key of its slot. */
const PROTOBUF_METADATA_FORM = {};

/** One object version's PartialObjectMetadata message (no envelope: the same under every meta group-version). */
class ProtobufMetadataForm implements DerivedForm {
  constructor(readonly message: Uint8Array) {}

  get madeBy(): object {
    return PROTOBUF_METADATA_FORM;
  }
}

function metadataMessageAt(codec: ProtobufCodec, object: CachedObject, revision: number, servedAs: string): Uint8Array {
  return codec.message('meta.orch.io/v1', 'PartialObjectMetadata', { metadata: { ...object.parsedAs(servedAs).metadata, resourceVersion: String(revision) } });
}

/** The version's PartialObjectMetadata message at its own revision as `servedAs` serves it, kept as metadataJson keeps its text. */
function metadataMessage(codec: ProtobufCodec, object: CachedObject, servedAs: string): Uint8Array {
  if (object.hasConverted(servedAs)) return metadataMessageAt(codec, object, object.revision, servedAs);
  return derivedForm(object, PROTOBUF_METADATA_FORM, () => new ProtobufMetadataForm(metadataMessageAt(codec, object, object.revision, servedAs))).message;
}

/** A PartialObjectMetadata of `metadata` (encoded) under `apiVersion` (meta.orch.io/v1, meta.k8s.io/v1beta1, ...). */
function partialObject(apiVersion: string, metadata: string): string {
  return `{"kind":"PartialObjectMetadata","apiVersion":"${apiVersion}","metadata":${metadata}}`;
}

/** SPEC 4.2 get as PartialObjectMetadata. */
export function writePartialObject(ctx: ResourceRequest, apiVersion: string, object: CachedObject): void {
  const servedAs = apiVersionOf(ctx.store.kind);
  const codec = negotiatedProtobuf(ctx.encode);
  if (codec) return sendWhole(ctx.res, 200, ctx.encode, PROTOBUF_TYPE, envelope(apiVersion, 'PartialObjectMetadata', [metadataMessage(codec, object, servedAs)]));
  writeJsonText(ctx.res, 200, partialObject(apiVersion, metadataJson(object, servedAs)), ctx.encode);
}

/**
 * SPEC 4.2 list as PartialObjectMetadataList: the list's metadata
 * (resourceVersion, continue, remainingItemCount) and one
 * PartialObjectMetadata per item; with `shared` (whose key names the items,
 * whatever the revision), the items are made once for every reader of them,
 * encoding and group-version, and each answer writes its own head (with the
 * list's metadata) around them.
 */
export function writePartialList(
  ctx: ResourceRequest,
  apiVersion: string,
  items: readonly CachedObject[],
  metadata: Record<string, unknown>,
  shared: { cache: ResourceCache; key: string } | undefined,
): void {
  const servedAs = apiVersionOf(ctx.store.kind);
  const codec = negotiatedProtobuf(ctx.encode);
  const key = shared && `PartialObjectMetadataList\0${ctx.encode.mediaType}\0${apiVersion}\0${shared.key}`;
  if (codec) {
    const make = () => encodeListItems(items.map((item) => metadataMessage(codec, item, servedAs)));
    const { head, items: encoded, tail } = codec.encodeListAround(apiVersion, 'PartialObjectMetadataList', metadata, shared ? shared.cache.sharedBody(key!, make) : make());
    return writeAround(ctx.res, ctx.encode, PROTOBUF_TYPE, head, encoded, tail);
  }
  const make = () => Buffer.from(items.map((item) => partialObject(apiVersion, metadataJson(item, servedAs))).join(','));
  const head = `${JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion, metadata }).slice(0, -1)},"items":[`;
  // Pretty output (and YAML) is re-encoded from the whole document.
  if (ctx.encode.pretty || ctx.encode.mediaType !== JSON_TYPE) return writeJsonText(ctx.res, 200, `${head}${make()}]}`, ctx.encode);
  writeJsonAround(ctx.res, ctx.encode, head, shared ? shared.cache.sharedBody(key!, make) : make(), ']}');
}

/**
 * A watch whose events carry PartialObjectMetadata (apiserver watchEncoder
 * with the metadata transform): bookmarks too, as upstream transforms every
 * event's object. An object at its own version reuses its kept metadata.
 */
export function partialWatchEncoding(apiVersion: string, servedAs: string, codec?: ProtobufCodec): WatchEncoding {
  if (codec) return partialProtobufWatchEncoding(apiVersion, servedAs, codec);
  return {
    key: `PartialObjectMetadata\0${apiVersion}\0${servedAs}`,
    event(type: WatchEventType, object: CachedObject, revision: number): Buffer {
      const metadata = revision === object.revision ? metadataJson(object, servedAs) : metadataAt(object, revision, servedAs);
      return Buffer.from(`{"type":"${type}","object":${partialObject(apiVersion, metadata)}}\n`);
    },
    bookmark(revision: number, initialEventsEnd: boolean): Buffer {
      const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
      if (initialEventsEnd) metadata.annotations = { 'orch.io/initial-events-end': 'true' };
      return Buffer.from(`{"type":"BOOKMARK","object":${partialObject(apiVersion, JSON.stringify(metadata))}}\n`);
    },
    error(status: unknown): Buffer {
      return Buffer.from(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
    },
  };
}

/** The protobuf frames of a metadata-only watch (upstream's protobuf stream serializer over the transformed objects). */
function partialProtobufWatchEncoding(apiVersion: string, servedAs: string, codec: ProtobufCodec): WatchEncoding {
  const frame = (type: string, message: Uint8Array) => watchFrame(type, envelope(apiVersion, 'PartialObjectMetadata', [message]));
  return {
    key: `${PROTOBUF_TYPE}\0PartialObjectMetadata\0${apiVersion}\0${servedAs}`,
    event(type: WatchEventType, object: CachedObject, revision: number): Buffer {
      return frame(type, revision === object.revision ? metadataMessage(codec, object, servedAs) : metadataMessageAt(codec, object, revision, servedAs));
    },
    bookmark(revision: number, initialEventsEnd: boolean): Buffer {
      const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
      if (initialEventsEnd) metadata.annotations = { 'orch.io/initial-events-end': 'true' };
      return frame('BOOKMARK', codec.message(apiVersion, 'PartialObjectMetadata', { metadata }));
    },
    error(status: unknown): Buffer {
      return watchFrame('ERROR', codec.encodeObject('v1', 'Status', status));
    },
  };
}

/**
 * A write's answer (apiserver transformResponseObject): the object, or with
 * `partial` (partialFor, checked before the write) its metadata alone; a
 * delete's Status passes through, as upstream's transform lets it.
 */
export function writeAsAsked(ctx: ResourceRequest, status: number, object: any, partial: string | undefined): void {
  if (partial === undefined || object?.kind === 'Status') return writeObject(ctx.res, status, object, ctx.encode);
  writeObject(ctx.res, status, { kind: 'PartialObjectMetadata', apiVersion: partial, metadata: object.metadata }, ctx.encode);
}
