/**
 * A client's watch served by the store itself, for a resource the watch cache
 * does not serve to clients (--watch-cache=false, --watch-cache-sizes
 * `<resource>#0`; upstream's undecorated storage, as kube-apiserver serves
 * events): one storage watch per client watch, so a watch may start from any
 * revision the store still holds, not only from the cache's window. The same
 * CacheWatcher filters, turns selection changes into ADDED/DELETED, batches
 * lines and bounds the socket.
 */
import * as errors from '../../api/status-error.ts';
import { CompactedError, type Storage, type StorageEvent, type Watch } from '../interface.ts';
import { CacheWatcher, type WatchRequest } from './cache-watcher.ts';
import { CacheEvent } from './cache-event.ts';
import { CachedObject } from './cached-object.ts';

function cacheEventOf(event: StorageEvent): CacheEvent {
  const object = new CachedObject(event.key, event.value, event.revision);
  // The replaced version's own revision is not in the event; only its content is sent (a DELETED for a watcher it leaves), at this event's revision.
  const prev = event.prevValue === undefined ? undefined : new CachedObject(event.key, event.prevValue, event.revision);
  return new CacheEvent(event.type, object, prev, event.revision, Date.now());
}

/** How a failed storage watch ends the client's: 410 for a compacted start (upstream's etcd watcher), 500 otherwise. */
function statusOf(err: Error): unknown {
  if (err instanceof CompactedError) return errors.expired(err.message).toStatus();
  return errors.internalError(err).toStatus();
}

/**
 * Starts a client's watch on the store: the current state as ADDED events when
 * asked (read at one revision, then changes after it), else the changes after
 * the requested revision, or after the current one for "0".
 */
export async function watchFromStorage(
  storage: Storage,
  request: WatchRequest,
  maxBufferedBytes: number,
  onClose: (watcher: CacheWatcher) => void,
): Promise<CacheWatcher> {
  const { selection } = request;
  let from: number;
  let initial: CachedObject[] | undefined;
  try {
    if (request.initialEvents) {
      const state = await storage.list({ prefix: selection.keyPrefix });
      // A sendInitialEvents watch not older than its resourceVersion: the state read is the store's current one, at or after it.
      initial = state.items.map((kv) => new CachedObject(kv.key, kv.value, kv.modRevision));
      from = state.revision;
    } else {
      from = request.resourceVersion || (await storage.currentRevision());
    }
  } catch (err) {
    // The 200 is already sent: the failure is the stream's one ERROR event.
    const failed = new CacheWatcher(request.out, selection, 0, { maxBufferedBytes, encoding: request.encoding, onClose });
    failed.fail(statusOf(err as Error));
    return failed;
  }
  let storageWatch: Watch | undefined;
  const watcher = new CacheWatcher(request.out, selection, from, {
    maxBufferedBytes,
    // Bookmarks only end the initial events: the store's watch reports no progress outside the watched keys.
    bookmarkHead: request.initialEventsEndBookmark ? request.bookmarkHead : undefined,
    apiVersion: request.apiVersion,
    encoding: request.encoding,
    prepare: request.prepare,
    onEvent: request.onEvent,
    onClose: (closed) => {
      storageWatch?.stop();
      onClose(closed);
    },
  });
  if (initial) {
    watcher.sendInitial(initial);
    if (request.initialEventsEndBookmark) watcher.bookmark(from, true);
  }
  storageWatch = storage.watch(
    selection.keyPrefix,
    from,
    (event) => watcher.offer(cacheEventOf(event)),
    (err) => watcher.fail(statusOf(err)),
  );
  // A watch the store refused at once (a compacted start) has already ended the watcher.
  if (watcher.isClosed()) storageWatch.stop();
  return watcher;
}
