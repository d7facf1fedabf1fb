/**
 * get and list (SPEC 4.2, 2.3, 4.6): the hot read paths. Whole lists are served
 * from the watch cache (consistent for an unset resourceVersion, by waiting for
 * the cache to catch up with the store); chunked and exact-revision lists read
 * the store at one revision. Items are stored JSON with the resourceVersion
 * spliced in, streamed to the socket rather than built into one response.
 */
import * as errors from '../api/status-error.ts';
import { apiVersionOf, readApiVersion, type KindDefinition, storedResourcePrefix } from '../registry/kind.ts';
import { compileFilter, type ObjectFilter } from '../registry/list-filter.ts';
import type { ListPage } from '../registry/store.ts';
import type { ResourceCache } from '../storage/cacher/resource-cache.ts';
import { CachedObject, joinJson } from '../storage/cacher/cached-object.ts';
import { CompactedError } from '../storage/interface.ts';
import { JSON_TYPE } from '../http/negotiation.ts';
import { writeJsonAround, writeJsonItems, writeJsonText, writeObject } from '../http/respond.ts';
import type { ResourceRequest } from './context.ts';
import { encodeContinueToken } from './continue-token.ts';
import { parseInt64 } from './options.ts';
import { expiredFor, parseResourceVersion, planList, requireReached, TOO_LARGE_WAIT_MS, type ListReadPlan } from './resource-version.ts';
import { writeTable } from './table-rows.ts';
import { convertForServing } from './conversion.ts';
import { PROTOBUF_TYPE } from '../api/protobuf/envelope.ts';
import { writeProtobufList, writeProtobufObject } from './protobuf-responses.ts';
import { partialFor, writePartialList, writePartialObject } from './partial-metadata.ts';

/**
 * SPEC 4.6 get, from the watch cache: unset = most recent (the cache once it has
 * caught up with the store), "0" = any (the cache as it is), other = not older
 * than (the cache once it has reached that version).
 */
export async function handleGet(ctx: ResourceRequest): Promise<void> {
  const { store } = ctx;
  const partial = partialFor(ctx, 'PartialObjectMetadata');
  const cached = await getCached(ctx);
  if (partial) return writePartialObject(ctx, partial, cached);
  if (ctx.table) return writeTable(ctx, store.kind, [cached], { resourceVersion: String(cached.revision) });
  if (ctx.encode.mediaType === PROTOBUF_TYPE) return writeProtobufObject(ctx, cached);
  writeJsonText(ctx.res, 200, cached.body(readApiVersion(store.kind)), ctx.encode);
}

/** The object a get names, at the state its resourceVersion asks for (SPEC 4.6); 404 when there is none. */
export async function getCached(ctx: ResourceRequest): Promise<CachedObject> {
  if (ctx.fromStorage) return getFromStorage(ctx);
  const { cacher, store } = ctx;
  const rv = ctx.query.get('resourceVersion');
  if (!rv) await cacher.waitUntilFresh(TOO_LARGE_WAIT_MS);
  else if (rv !== '0') await cacher.waitFor(parseResourceVersion(rv), TOO_LARGE_WAIT_MS);
  const cached = cacheOf(ctx).get(store.key(ctx.namespace, ctx.info.name));
  if (!cached) throw errors.notFound(store.groupResource, ctx.info.name);
  if (store.kind.convert) await convertForServing(store.kind, [cached]);
  return cached;
}

/**
 * A get the store serves (no watch cache for the resource; upstream's etcd3 Get):
 * the latest state whatever the resourceVersion, which only has to have been reached.
 */
async function getFromStorage(ctx: ResourceRequest): Promise<CachedObject> {
  const { store } = ctx;
  const rv = ctx.query.get('resourceVersion');
  const minimum = rv ? parseResourceVersion(rv) : 0;
  const key = store.key(ctx.namespace, ctx.info.name);
  const stored = await ctx.storage.get(key);
  if (minimum) await requireReached(ctx.storage, minimum);
  if (!stored) throw errors.notFound(store.groupResource, ctx.info.name);
  const object = new CachedObject(key, stored.value, stored.modRevision);
  if (store.kind.convert) await convertForServing(store.kind, [object]);
  return object;
}

function cacheOf(ctx: ResourceRequest): ResourceCache {
  return ctx.cacher.cache(storedResourcePrefix(ctx.store.kind));
}

export interface ListQuery {
  plan: ListReadPlan;
  filter: ObjectFilter | undefined;
  /** Key prefix of the listed collection; continue tokens are relative to it. */
  prefix: string;
}

/** The list options shared by list and deletecollection (SPEC 4.3, 4.6). */
export function parseListQuery(ctx: ResourceRequest): ListQuery {
  const { store, query } = ctx;
  // Upstream reads a limit of 0 or below as no limit.
  const requested = parseInt64(query, 'limit');
  const limit = requested !== undefined && requested > 0 ? requested : undefined;
  // Decoded with every other ListOptions field upstream, so a malformed one is a 400 on lists too.
  parseInt64(query, 'timeoutSeconds');
  return {
    plan: planList(query, limit),
    filter: compileFilter(store.kind, query.get('labelSelector') ?? undefined, query.get('fieldSelector') ?? undefined),
    prefix: store.prefix(ctx.namespace),
  };
}

/** One page read from the store at the plan's revision (chunked and exact lists). */
export async function readPage(ctx: ResourceRequest, list: ListQuery): Promise<ListPage> {
  const { plan, prefix } = list;
  if (plan.minimumRevision) await (ctx.fromStorage ? requireReached(ctx.storage, plan.minimumRevision) : ctx.cacher.waitFor(plan.minimumRevision, TOO_LARGE_WAIT_MS));
  try {
    return await ctx.store.list({
      namespace: ctx.namespace,
      filter: list.filter,
      limit: plan.limit,
      startKey: plan.continueToken ? prefix + plan.continueToken.start : undefined,
      revision: plan.exactRevision || undefined,
    });
  } catch (err) {
    throw expiredFor(err, plan.continueToken);
  }
}

/**
 * The cache's revision once it may serve the current state (SPEC 4.6): unset
 * `rv` = most recent (caught up with the store), "0" = any, other = not older
 * than the plan's minimum.
 */
async function reachCurrentState(ctx: ResourceRequest, plan: ListReadPlan, rv: string | null): Promise<number> {
  if (!rv) await ctx.cacher.waitUntilFresh(TOO_LARGE_WAIT_MS);
  else if (plan.minimumRevision) await ctx.cacher.waitFor(plan.minimumRevision, TOO_LARGE_WAIT_MS);
  return ctx.cacher.currentRevision();
}

/**
 * A chunked or exact list (SPEC 4.4 item 5, 4.6): from the watch cache when it
 * holds the exact state at the chunk's revision (nothing in this resource
 * changed since), as a page of 500 out of 100,000 read from the store cost a
 * range scan and a count of everything after it; from the store otherwise.
 */
async function readChunk(
  ctx: ResourceRequest,
  list: ListQuery,
): Promise<{ items: readonly CachedObject[]; revision: number; lastKey?: string; remaining: number; itemsKey?: string }> {
  const { plan, prefix } = list;
  const { cacher } = ctx;
  const cache = cacheOf(ctx);
  let revision = plan.exactRevision;
  if (!revision) {
    // A token at rv -1 (its snapshot was compacted) continues at the most recent state.
    revision = await reachCurrentState(ctx, plan, plan.continueToken ? '' : ctx.query.get('resourceVersion'));
  } else if (revision < cacher.currentRevision()) {
    const compacted = await cacher.compactedRevision();
    if (revision < compacted) throw expiredFor(new CompactedError(revision, compacted), plan.continueToken);
  }
  const filter = list.filter;
  // A webhook's kind is selected by its converted objects; converted first, so the state is checked after.
  if (filter && ctx.store.kind.convert) await convertForServing(ctx.store.kind, cache.list(prefix));
  if (cache.holdsStateAt(revision, cacher.currentRevision())) {
    const startKey = plan.continueToken ? prefix + plan.continueToken.start : prefix;
    const asVersion = readApiVersion(ctx.store.kind);
    const page = cache.page(prefix, startKey, plan.limit ?? Number.MAX_SAFE_INTEGER, filter && ((o) => filter(o.parsedAs(asVersion))));
    // What names an unfiltered chunk's items: every reader asking for the same ones can share their encoding.
    return { ...page, revision, itemsKey: filter ? undefined : `${cache.stateRevision}\0${startKey}\0${plan.limit ?? ''}` };
  }
  const page = await readPage(ctx, list);
  // The cache's version of an unchanged object carries its encoded Table row; others are made for this page.
  const items = page.items.map((kv) => {
    const cached = cache.get(kv.key);
    return cached?.revision === kv.modRevision ? cached : new CachedObject(kv.key, kv.value, kv.modRevision);
  });
  return { items, revision: page.revision, lastKey: page.lastKey, remaining: page.remaining };
}

/** A list the store serves (no watch cache for the resource), whatever its options: one page at the plan's revision. */
async function readStoragePage(ctx: ResourceRequest, list: ListQuery): Promise<{ items: readonly CachedObject[]; revision: number; lastKey?: string; remaining: number; itemsKey?: string }> {
  const page = await readPage(ctx, list);
  return { ...page, items: page.items.map((kv) => new CachedObject(kv.key, kv.value, kv.modRevision)) };
}

/** List metadata: the snapshot revision, and a continue token unless this is the last chunk (SPEC 2.3). */
export function listMetadata(page: Pick<ListPage, 'revision' | 'lastKey' | 'remaining'>, list: ListQuery): Record<string, unknown> {
  const metadata: Record<string, unknown> = { resourceVersion: String(page.revision) };
  if (page.lastKey !== undefined) {
    metadata.continue = encodeContinueToken(page.revision, page.lastKey.slice(list.prefix.length));
    if (!list.filter) metadata.remainingItemCount = page.remaining;
  }
  return metadata;
}

/** SPEC 4.6 list table: whole lists not pinned to an exact revision come from the watch cache. */
function servedFromCache(plan: ListReadPlan): boolean {
  return !plan.continueToken && !plan.limit && plan.exactRevision === 0;
}

/** A JSON list up to its first item: `{"kind":...,"metadata":{...},"items":[`. */
function listOpening(kind: KindDefinition, metadata: Record<string, unknown>): string {
  return `${JSON.stringify({ kind: kind.listKind, apiVersion: apiVersionOf(kind), metadata }).slice(0, -1)},"items":[`;
}

/** SPEC 4.2 list with selectors, limit/continue and resourceVersion. */
export async function handleList(ctx: ResourceRequest): Promise<void> {
  const partial = partialFor(ctx, 'PartialObjectMetadataList');
  const list = parseListQuery(ctx);
  const { plan, filter } = list;
  const kind = ctx.store.kind;
  const asVersion = readApiVersion(kind);
  const compactJson = !ctx.encode.pretty && ctx.encode.mediaType === JSON_TYPE;
  const cache = cacheOf(ctx);
  let items: readonly CachedObject[];
  let metadata: Record<string, unknown>;
  /**
   * What names the items of an unfiltered state the cache holds, for readers to
   * share their encoding: the version (one cache may serve a kind at several),
   * the resource's last change (`stateRevision`, taken with the items, so an
   * encoding finished after a change, as a conversion webhook's wait allows, is
   * never served as the new state's), start key and limit. Not the revision the
   * answer is at: over etcd (one revision for every key) it moves with every
   * lease renewal and event of other resources, which had made each whole Table
   * of an unchanged collection a new encoding.
   */
  let itemsKey: string | undefined;
  if (servedFromCache(plan) && !ctx.fromStorage) {
    const revision = await reachCurrentState(ctx, plan, ctx.query.get('resourceVersion'));
    metadata = { resourceVersion: String(revision) };
    // The whole collection as one shared, already-encoded body (not for a webhook's kind: its items are converted below, as of now).
    if (!filter && !ctx.table && !partial && compactJson && !kind.convert) return writeJsonAround(ctx.res, ctx.encode, listOpening(kind, metadata), cache.listBody(list.prefix, asVersion), ']}');
    const cached = cache.list(list.prefix);
    const stateRevision = cache.stateRevision;
    // A webhook's kind is selected by its converted objects: selectable fields are the served version's.
    if (filter && kind.convert) await convertForServing(kind, cached);
    items = filter ? cached.filter((o) => filter(o.parsedAs(asVersion))) : cached;
    // The whole collection is the chunk from its first key without a limit.
    if (!filter) itemsKey = `${apiVersionOf(kind)}\0${stateRevision}\0${list.prefix}\0`;
  } else {
    const chunk = ctx.fromStorage ? await readStoragePage(ctx, list) : await readChunk(ctx, list);
    items = chunk.items;
    metadata = listMetadata(chunk, list);
    if (chunk.itemsKey !== undefined) itemsKey = `${apiVersionOf(kind)}\0${chunk.itemsKey}`;
  }
  if (kind.convert) await convertForServing(kind, items);
  // Where each representation keeps its encoding of these items, for every reader of them.
  const shared = itemsKey === undefined ? undefined : { cache, key: itemsKey };
  if (partial) return writePartialList(ctx, partial, items, metadata, shared);
  if (ctx.table) return writeTable(ctx, kind, items, metadata, shared);
  if (ctx.encode.mediaType === PROTOBUF_TYPE) return writeProtobufList(ctx, items, metadata, shared);
  if (!compactJson) {
    return writeObject(ctx.res, 200, { kind: kind.listKind, apiVersion: apiVersionOf(kind), metadata, items: items.map((i) => JSON.parse(i.json(asVersion))) }, ctx.encode);
  }
  const opening = listOpening(kind, metadata);
  // Only a chunk the cache holds gets here with a key (the whole list returned its listBody above):
  // its items encoded once for every reader of them, its metadata (revision, continue token) per answer.
  if (itemsKey !== undefined) {
    const chunkItems = items;
    return writeJsonAround(ctx.res, ctx.encode, opening, cache.sharedBody(`${itemsKey}\0items`, () => joinJson(chunkItems, asVersion)), ']}');
  }
  writeJsonItems(ctx.res, ctx.encode, opening, items.length, (i) => items[i].json(asVersion), ']}');
}
