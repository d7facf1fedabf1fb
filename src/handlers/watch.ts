/**
 * watch (SPEC 2.4, 4.3, 4.4, 4.6, 6): a chunked stream of newline-delimited
 * `{type, object}` events served from the watch cache, with bookmarks,
 * streaming lists (sendInitialEvents) and timeoutSeconds.
 */
import { watchEventRecorder } from '../metrics/registry.ts';
import * as errors from '../api/status-error.ts';
import { apiVersionOf, readApiVersion, storedResourcePrefix } from '../registry/kind.ts';
import { compileFilter } from '../registry/list-filter.ts';
import type { WatchRequest } from '../storage/cacher/cache-watcher.ts';
import type { Cacher } from '../storage/cacher/cacher.ts';
import { resourcePrefix } from '../storage/keys.ts';
import type { ResourceRequest } from './context.ts';
import { invalidOptions, parseBoolean, parseInt64 } from './options.ts';
import { parseResourceVersion, TOO_LARGE_WAIT_MS } from './resource-version.ts';
import { setLongTimeout } from '../util/timers.ts';
import { toStatusError } from '../http/respond.ts';
import { convertForServing } from './conversion.ts';
import { PROTOBUF_WATCH_TYPE } from '../api/protobuf/envelope.ts';
import { negotiatedProtobuf, protobufWatchEncoding } from './protobuf-responses.ts';
import { partialFor, partialWatchEncoding } from './partial-metadata.ts';
import { includeObjectOf } from './table.ts';
import { tableWatchEncoding } from './table-watch.ts';

export interface WatchSettings {
  /** Whether the WatchList gate is on (SPEC 4.4 item 4; alpha upstream, off by default). */
  watchList: boolean;
  /**
   * --min-request-timeout: a watch without timeoutSeconds lasts a random time in
   * [this, 2x this) seconds, as upstream, so clients spread their reconnects.
   */
  minRequestTimeoutSeconds: number;
}

/** SPEC 4.3, 4.4 item 4: the option rules of a watch (FACTS 2). */
function parseWatchOptions(ctx: ResourceRequest, settings: WatchSettings) {
  const { query } = ctx;
  const rvText = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const sendInitialEvents = parseBoolean(query, 'sendInitialEvents');
  // Every violation, in upstream's order (validateWatchOptions), as one 400.
  const problems: string[] = [];
  if (sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan') problems.push('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    if (!settings.watchList) problems.push('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
  }
  if (match) {
    if (sendInitialEvents === undefined) problems.push('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
    if (match !== 'NotOlderThan') problems.push(`resourceVersionMatch: Unsupported value: ${JSON.stringify(match)}: supported values: "NotOlderThan"`);
    if (query.get('continue')) problems.push('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided');
  }
  const invalid = invalidOptions('ListOptions', problems);
  if (invalid) throw invalid;
  if (query.get('continue')) throw errors.badRequest('a continue token is not supported when watch is true');
  const resourceVersion = rvText === '' ? undefined : parseResourceVersion(rvText);
  const allowBookmarks = parseBoolean(query, 'allowWatchBookmarks') ?? false;
  const timeoutSeconds = parseInt64(query, 'timeoutSeconds');
  return { resourceVersion, sendInitialEvents, allowBookmarks, timeoutSeconds };
}

export async function handleWatch(ctx: ResourceRequest, cacher: Cacher, settings: WatchSettings): Promise<void> {
  const { store, res, req } = ctx;
  const kind = store.kind;
  const options = parseWatchOptions(ctx, settings);
  const partial = partialFor(ctx, 'PartialObjectMetadata');
  // Checked before the 200 is committed: a bad includeObject is a plain 400.
  const includeObject = ctx.table ? includeObjectOf(ctx) : undefined;
  // A watch on one object is a watch on its collection narrowed to that name (FACTS 2).
  let fieldSelector = ctx.query.get('fieldSelector') ?? undefined;
  if (ctx.info.name) {
    const byName = `metadata.name=${ctx.info.name}`;
    fieldSelector = fieldSelector ? `${fieldSelector},${byName}` : byName;
  }
  const matches = compileFilter(kind, ctx.query.get('labelSelector') ?? undefined, fieldSelector);
  const { resourceVersion, sendInitialEvents } = options;
  // SPEC 4.6 watch: unset and "0" start with the state; sendInitialEvents decides explicitly.
  const initialEvents = sendInitialEvents ?? (resourceVersion === undefined || resourceVersion === 0);
  // Waits happen before the 200 is committed, so their 504 is still a plain Status response.
  // A watch the store serves reads its state there: nothing to wait for but a version not reached yet.
  if (resourceVersion === undefined && !ctx.fromStorage) await cacher.waitUntilFresh(TOO_LARGE_WAIT_MS);
  else if (sendInitialEvents && resourceVersion) await cacher.waitFor(resourceVersion, TOO_LARGE_WAIT_MS);

  // Negotiated as protobuf: upstream's stream form of it, length-prefixed WatchEvent frames.
  // As PartialObjectMetadata or Table: JSON lines of each event's metadata, or of a one-row Table.
  const protobuf = negotiatedProtobuf(ctx.encode);
  const encoding = partial
    ? partialWatchEncoding(partial, apiVersionOf(kind), protobuf)
    : ctx.table && includeObject
      ? tableWatchEncoding(kind, ctx.table.apiVersion, includeObject)
      : protobuf
        ? protobufWatchEncoding(protobuf, kind)
        : undefined;
  const contentType = protobuf && !ctx.table ? PROTOBUF_WATCH_TYPE : 'application/json';
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  const request: WatchRequest = {
    resourcePrefix: storedResourcePrefix(kind),
    selection: { keyPrefix: store.prefix(ctx.namespace), matches },
    resourceVersion: sendInitialEvents && resourceVersion === 0 ? 0 : resourceVersion,
    initialEvents,
    initialEventsEndBookmark: !!sendInitialEvents && options.allowBookmarks,
    bookmarkHead: options.allowBookmarks ? `"kind":"${kind.kind}","apiVersion":"${apiVersionOf(kind)}"` : undefined,
    apiVersion: readApiVersion(kind),
    encoding,
    onEvent: watchEventRecorder(kind.group, kind.version, kind.kind),
    prepare: kind.convert ? (objects) => convertForServing(kind, objects).then(() => undefined, (err) => toStatusError(err).toStatus()) : undefined,
    out: res,
  };
  const watcher = ctx.fromStorage ? await cacher.startStorageWatch(request) : await cacher.startWatch(request, TOO_LARGE_WAIT_MS);
  if (!watcher) return;
  // Upstream: 0 or absent picks the randomized default; a negative timeout ends the watch at once.
  const timeoutSeconds = options.timeoutSeconds || settings.minRequestTimeoutSeconds * (1 + Math.random());
  const timer = setLongTimeout(() => watcher.close(), timeoutSeconds * 1000);
  const stop = () => {
    timer.clear();
    watcher.close(true);
  };
  req.once('close', stop);
  res.once('close', stop);
}
