/**
 * get and list (SPEC 4.2, 2.3): the hot read paths. They serve stored JSON with
 * the resourceVersion spliced in, and stream list items to the socket instead
 * of building the whole response in memory.
 */
import { apiVersionOf } from '../registry/kind.ts';
import { compileFilter } from '../registry/list-filter.ts';
import { withResourceVersion } from '../registry/object-meta.ts';
import type { ResourceRequest } from './context.ts';
import { encodeContinueToken } from './continue-token.ts';
import { parseInteger } from './options.ts';
import { expiredFor, parseResourceVersion, planList, waitForRevision } from './resource-version.ts';
import { JSON_TYPE, writeJsonText, writeObject } from '../server/respond.ts';
import { toTable } from './table.ts';
import type { Storage } from '../storage/interface.ts';

/** SPEC 4.6 get: unset = most recent, "0" = any, other = not older than. */
export async function handleGet(ctx: ResourceRequest, storage: Storage): Promise<void> {
  const rv = ctx.query.get('resourceVersion');
  if (rv && rv !== '0') await waitForRevision(storage, parseResourceVersion(rv));
  const kv = await ctx.store.getRaw(ctx.namespace, ctx.info.name);
  const json = withResourceVersion(kv.value, kv.modRevision);
  if (ctx.table) return writeObject(ctx.res, 200, toTable(ctx.store.kind, [JSON.parse(json)], { resourceVersion: String(kv.modRevision) }, ctx), ctx.encode);
  writeJsonText(ctx.res, 200, json, ctx.encode);
}

/** SPEC 4.2 list with selectors, limit/continue and resourceVersion (SPEC 4.6). */
export async function handleList(ctx: ResourceRequest, storage: Storage): Promise<void> {
  const { store, query } = ctx;
  const limit = parseInteger(query, 'limit', 'ListOptions') || undefined;
  const plan = planList(query, limit);
  const filter = compileFilter(store.kind, query.get('labelSelector') ?? undefined, query.get('fieldSelector') ?? undefined);
  if (plan.minimumRevision) await waitForRevision(storage, plan.minimumRevision);
  const prefix = store.prefix(ctx.namespace);
  let page;
  try {
    page = await store.list({
      namespace: ctx.namespace,
      filter,
      limit: plan.limit,
      startKey: plan.continueToken ? prefix + plan.continueToken.start : undefined,
      revision: plan.exactRevision || undefined,
    });
  } catch (err) {
    throw expiredFor(err, !!plan.continueToken);
  }
  const metadata: Record<string, unknown> = { resourceVersion: String(page.revision) };
  if (page.lastKey !== undefined) {
    metadata.continue = encodeContinueToken(page.revision, page.lastKey.slice(prefix.length));
    // SPEC 2.3: only without selectors, and never on the last chunk.
    if (!filter) metadata.remainingItemCount = page.remaining;
  }
  const kind = store.kind;
  if (ctx.table) {
    const objects = page.items.map((kv) => JSON.parse(withResourceVersion(kv.value, kv.modRevision)));
    return writeObject(ctx.res, 200, toTable(kind, objects, metadata, ctx), ctx.encode);
  }
  const head = { kind: kind.listKind, apiVersion: apiVersionOf(kind), metadata };
  if (ctx.encode.pretty || ctx.encode.mediaType !== JSON_TYPE) {
    const items = page.items.map((kv) => JSON.parse(withResourceVersion(kv.value, kv.modRevision)));
    return writeObject(ctx.res, 200, { ...head, items }, ctx.encode);
  }
  streamList(ctx, JSON.stringify(head), page.items);
}

/** Writes `{head..., "items":[...]}` item by item, in bounded chunks. */
function streamList(ctx: ResourceRequest, headJson: string, items: Array<{ value: string; modRevision: number }>): void {
  const { res } = ctx;
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Cache-Control', 'no-cache, private');
  if (ctx.encode.warnings?.length) res.setHeader('Warning', ctx.encode.warnings.map((w) => `299 - ${JSON.stringify(w)}`));
  res.writeHead(200);
  let chunk = `${headJson.slice(0, -1)},"items":[`;
  for (let i = 0; i < items.length; i++) {
    chunk += (i ? ',' : '') + withResourceVersion(items[i].value, items[i].modRevision);
    if (chunk.length > 65536) {
      res.write(chunk);
      chunk = '';
    }
  }
  res.end(chunk + ']}');
}
