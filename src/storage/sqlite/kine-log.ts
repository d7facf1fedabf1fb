/**
 * The kine-style log table on SQLite (DESIGN "Storage"; k3s' kine): its schema,
 * its rows and the reads every process that opens the file makes. The writer
 * (sqlite-storage.ts) and the worker replicas (sqlite-replica.ts) read through
 * the same statements, so a replica answers exactly as the writer would.
 */
import type Database from 'better-sqlite3';
import { CompactedError, type KeyValue, type ListOptions, type ListResult, type PackValue, type StorageEvent, type Watch } from '../interface.ts';
import { prefixEnd } from '../keys.ts';

const asText = (text: string): string => text;

export interface Row {
  id: number;
  name: string;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
  old_value: string | null;
}

/**
 * The one index is kine's `(name, prev_revision)`: unique, it is the
 * compare-and-swap, and it also finds a key's rows newest first, since each row
 * of a key points at the latest one before it, so a key's rows ascend in
 * `prev_revision` as in `id` (compaction deletes whole prefixes of that chain).
 * Ranges group on it; history, compaction and revision reads go by the rowid.
 * Every index costs pages in every commit's WAL; files made before this schema
 * lose `kine_name_id_index` on open (it doubled the index pages of each create).
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS kine (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT NOT NULL,
  old_value TEXT
);
DROP INDEX IF EXISTS kine_name_id_index;
CREATE UNIQUE INDEX IF NOT EXISTS kine_name_prev_revision_uindex ON kine (name, prev_revision);
CREATE TABLE IF NOT EXISTS kine_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

const HEAD = `SELECT id, name, deleted, create_revision, prev_revision, value, old_value FROM kine`;
/** Each key of a range and its latest id at a revision, in key order: a walk of the (name, prev_revision) index, which holds each row's id. */
const LATEST_IDS = `SELECT name, MAX(id) AS mid FROM kine WHERE name >= ? AND name < ? AND id <= ? GROUP BY name ORDER BY name`;
const ROW_BY_ID = `SELECT id, deleted, create_revision, value FROM kine`;

export function toKeyValue(row: Row): KeyValue {
  return { key: row.name, value: row.value, modRevision: row.id, createRevision: row.create_revision };
}

export function toEvent(row: Row): StorageEvent {
  const type = row.deleted ? 'DELETED' : row.prev_revision === 0 || row.create_revision === row.id ? 'ADDED' : 'MODIFIED';
  const event: StorageEvent = { type, key: row.name, value: row.value, revision: row.id, createRevision: row.create_revision };
  if (row.old_value !== null) event.prevValue = row.old_value;
  return event;
}

/** The reads of the log: latest and past values, ranges at a revision, history, the head revision. */
export class KineReader {
  private readonly stmt;

  constructor(readonly db: Database.Database) {
    this.stmt = {
      // Both walk the key's index entries from the newest (see SCHEMA); at a revision, the one
      // row that may still follow it (prev_revision < revision < id) is skipped in the index.
      latest: db.prepare(`${HEAD} WHERE name = ? ORDER BY prev_revision DESC LIMIT 1`),
      atRevision: db.prepare(`${HEAD} WHERE name = ? AND prev_revision < ? AND id <= ? ORDER BY prev_revision DESC LIMIT 1`),
      // Grouping walks the (name, prev_revision) index, which holds each row's id, in name
      // order, so a limited page stops early instead of grouping the whole remaining range first.
      listRange: db.prepare(
        `SELECT k.id, k.name, k.deleted, k.create_revision, k.prev_revision, k.value, k.old_value
         FROM (${LATEST_IDS}) AS g
         CROSS JOIN kine AS k ON k.id = g.mid WHERE k.deleted = 0 ORDER BY g.name`,
      ),
      // A whole range in two passes (listWhole): each key's latest id from the index, in key order, then the rows by id.
      latestIds: db.prepare(LATEST_IDS).raw(),
      rowsByIdRange: db.prepare(`${ROW_BY_ID} WHERE id >= ? AND id <= ?`).raw(),
      rowById: db.prepare(`${ROW_BY_ID} WHERE id = ?`).raw(),
      begin: db.prepare('BEGIN'),
      commit: db.prepare('COMMIT'),
      countRange: db.prepare(
        `SELECT COUNT(*) AS n FROM kine WHERE id IN (SELECT MAX(id) FROM kine WHERE name >= ? AND name < ? AND id <= ? GROUP BY name) AND deleted = 0`,
      ),
      history: db.prepare(`${HEAD} WHERE name >= ? AND name < ? AND id > ? ORDER BY id`),
      maxRevision: db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'kine'`),
      getMeta: db.prepare(`SELECT value FROM kine_meta WHERE key = ?`),
    };
  }

  latestRow(key: string): Row | undefined {
    return this.stmt.latest.get(key) as Row | undefined;
  }

  /** The newest committed revision in the file. */
  headRevision(): number {
    return (this.stmt.maxRevision.get() as { seq: number } | undefined)?.seq ?? 0;
  }

  compactedRevision(): number {
    return (this.stmt.getMeta.get('compact_rev') as { value: number } | undefined)?.value ?? 0;
  }

  get(key: string, revision: number): KeyValue | null {
    const row = (revision ? this.stmt.atRevision.get(key, revision, revision) : this.stmt.latest.get(key)) as Row | undefined;
    return row && !row.deleted ? toKeyValue(row) : null;
  }

  /** A consistent range read at `revision` (one statement is one snapshot). */
  list(options: ListOptions, revision: number): ListResult {
    const end = prefixEnd(options.prefix);
    const start = options.startKey && options.startKey > options.prefix ? options.startKey : options.prefix;
    const limit = options.limit ?? 0;
    if (!limit) return { items: this.listWhole(start, end, revision, options.filter, asText), revision, more: false, remaining: 0 };
    const items: KeyValue[] = [];
    let more = false;
    let lastKey = '';
    for (const row of this.stmt.listRange.iterate(start, end, revision) as IterableIterator<Row>) {
      if (limit && items.length >= limit) {
        more = true;
        break;
      }
      lastKey = row.name;
      const kv = toKeyValue(row);
      if (!options.filter || options.filter(kv)) items.push(kv);
    }
    const remaining = more ? (this.stmt.countRange.get(lastKey + '\0', end, revision) as { n: number }).n : 0;
    return { items, revision, more, remaining };
  }

  /**
   * Every key of [start, end) at `revision`, in key order, read in two passes
   * in one snapshot: each key's latest id from the index, then those rows in
   * id order. Joining each key to its row in key order reads the table's
   * pages at random: a watch cache's start on 1,000,000 objects spent 12 s in
   * that join, most of it in the kernel copying pages, and reading the rows
   * in the order they are stored takes a third of that.
   */
  private listWhole<Value extends string | Buffer>(
    start: string,
    end: string,
    revision: number,
    filter: ((kv: KeyValue<Value>) => boolean) | undefined,
    valueOf: (text: string, revision: number) => Value,
  ): Array<KeyValue<Value>> {
    const own = !this.db.inTransaction;
    if (own) this.stmt.begin.run();
    try {
      const names: string[] = [];
      const modRevisions: number[] = [];
      let first = Infinity;
      let last = 0;
      for (const [name, id] of this.stmt.latestIds.iterate(start, end, revision) as IterableIterator<[string, number]>) {
        names.push(name);
        modRevisions.push(id);
        if (id < first) first = id;
        if (id > last) last = id;
      }
      const count = names.length;
      // Parallel arrays rather than each row's array: what is kept is the value, and a row array kept until the end would be promoted with it.
      const values: Value[] = new Array(count);
      const createRevisions = new Float64Array(count);
      const live = new Uint8Array(count);
      const take = (row: [number, number, number, string], at: number) => {
        if (row[1]) return;
        live[at] = 1;
        createRevisions[at] = row[2];
        values[at] = valueOf(row[3], row[0]);
      };
      if (count && count >= (last - first + 1) / 2) {
        // Dense (most ids between the first and the last are wanted): one scan, each id's position found by its offset.
        const positions = new Int32Array(last - first + 1).fill(-1);
        for (let i = 0; i < count; i++) positions[modRevisions[i] - first] = i;
        for (const row of this.stmt.rowsByIdRange.iterate(first, last) as IterableIterator<[number, number, number, string]>) {
          const at = positions[row[0] - first];
          if (at >= 0) take(row, at);
        }
      } else {
        // Sparse: a lookup per row, still in id order.
        const order = Array.from(modRevisions.keys()).sort((x, y) => modRevisions[x] - modRevisions[y]);
        for (const at of order) take(this.stmt.rowById.get(modRevisions[at]) as [number, number, number, string], at);
      }
      const items: Array<KeyValue<Value>> = [];
      for (let i = 0; i < count; i++) {
        if (!live[i]) continue;
        const kv = { key: names[i], value: values[i], modRevision: modRevisions[i], createRevision: createRevisions[i] };
        if (!filter || filter(kv)) items.push(kv);
      }
      return items;
    } finally {
      if (own) this.stmt.commit.run();
    }
  }

  /** Every key under `prefix` at `revision` as `list` reads it, each value as its bytes (Storage.listBytes). */
  listBytes(prefix: string, revision: number, pack: PackValue): ListResult<Buffer> {
    // Packed as each row is read: a value's text dies young, never promoted with the rest of the list.
    return { items: this.listWhole(prefix, prefixEnd(prefix), revision, undefined, pack), revision, more: false, remaining: 0 };
  }

  count(prefix: string, revision: number): number {
    return (this.stmt.countRange.get(prefix, prefixEnd(prefix), revision) as { n: number }).n;
  }

  /** Every change under `prefix` after `fromRevision`, in revision order. */
  *history(prefix: string, fromRevision: number): Generator<StorageEvent> {
    for (const row of this.stmt.history.iterate(prefix, prefixEnd(prefix), fromRevision) as IterableIterator<Row>) yield toEvent(row);
  }
}

/** Reading at a revision at or before the compacted one is 410 (SPEC 4.4 item 2). */
export function checkNotCompacted(revision: number, compacted: number): void {
  if (revision && revision < compacted) throw new CompactedError(revision, compacted);
}

/**
 * A watch whose replay and registration happen in one synchronous turn (so no
 * commit slips between them); a failure to start (a compacted revision)
 * reaches `onError` asynchronously, as a watch's errors do.
 */
export function openWatch(start: () => void, stop: () => void, onError: (err: Error) => void): Watch {
  let stopped = false;
  try {
    start();
  } catch (err) {
    queueMicrotask(() => !stopped && onError(err as Error));
  }
  return {
    stop: () => {
      stopped = true;
      stop();
    },
  };
}
