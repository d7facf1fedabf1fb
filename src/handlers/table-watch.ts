/**
 * A watch as Table (SPEC 2.5, 4.7; apiserver watchEmbeddedEncoder): each
 * event's object is a Table of one row, with the column definitions in the
 * watcher's first event only (upstream sets NoHeaders after it), and
 * `includeObject` as for get and list. Rows come from the version's encoded
 * row (table-rows.ts), so a version's cells are encoded once; each event's
 * line is shared by the watchers of the same form (CacheEvent.frame).
 */
import { apiVersionOf, type KindDefinition } from '../registry/kind.ts';
import { CachedObject } from '../storage/cacher/cached-object.ts';
import type { WatchEncoding } from '../storage/cacher/cache-event.ts';
import type { WatchEventType } from '../storage/interface.ts';
import { rowRenderer, tablePlan } from './table-rows.ts';
import type { IncludeObject } from './table.ts';

/** The watch encoding of `kind` as Tables of `tableApiVersion` (meta.orch.io/v1, ...). */
export function tableWatchEncoding(kind: KindDefinition, tableApiVersion: string, includeObject: IncludeObject): WatchEncoding {
  const plan = tablePlan(kind);
  const head = `"object":{"kind":"Table","apiVersion":${JSON.stringify(tableApiVersion)},"metadata":{"resourceVersion":"`;
  const line = (type: WatchEventType | 'BOOKMARK', object: CachedObject, headers: boolean, include: IncludeObject): Buffer => {
    let row: string;
    try {
      row = rowRenderer(plan, [object], include, tableApiVersion, Date.now())(0);
    } catch {
      // Upstream logs a failed transform and sends the object as it is.
      return Buffer.from(`{"type":"${type}","object":${object.json(plan.apiVersion)}}\n`);
    }
    return Buffer.from(`{"type":"${type}",${head}${object.revision}"},"columnDefinitions":${headers ? plan.columnDefinitions : 'null'},"rows":[${row}]}}\n`);
  };
  const encoding = (headers: boolean): WatchEncoding => ({
    // Watchers of another served version of the kind get their own frames (its objects convert).
    key: `Table\0${tableApiVersion}\0${apiVersionOf(kind)}\0${includeObject}${headers ? '\0headers' : ''}`,
    event(type: WatchEventType, object: CachedObject, revision: number): Buffer {
      // A DELETED for an object leaving the selection carries its previous state at the event's revision.
      const at = revision === object.revision ? object : new CachedObject(object.key, object.value, revision);
      return line(type, at, headers, includeObject);
    },
    bookmark(revision: number, initialEventsEnd: boolean): Buffer {
      // Upstream converts the bookmark object to a Table like any other; the end-of-initial-events mark keeps its metadata whatever includeObject says.
      const metadata = initialEventsEnd ? { annotations: { 'orch.io/initial-events-end': 'true' } } : {};
      const bookmark = new CachedObject('', JSON.stringify({ kind: kind.kind, apiVersion: apiVersionOf(kind), metadata }), revision);
      return line('BOOKMARK', bookmark, headers, initialEventsEnd ? 'Metadata' : includeObject);
    },
    error(status: unknown): Buffer {
      return Buffer.from(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
    },
    first: headers ? undefined : encoding(true),
  });
  return encoding(false);
}
