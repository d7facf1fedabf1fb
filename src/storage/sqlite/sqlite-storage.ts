/**
 * Embedded SQLite backend in the style of k3s' kine: one append-only log table
 * whose autoincrement id is the global revision (SPEC 4.6 resourceVersion);
 * `UNIQUE(name, prev_revision)` is the compare-and-swap; deletes append
 * tombstones; compaction drops superseded rows in batches. Writes queued in one
 * event-loop turn commit in one WAL transaction (group commit) and are
 * acknowledged only after it, so an acknowledged write survives kill -9; with
 * `synchronous: 'FULL'` (the default) only after the WAL was also fsynced, on
 * libuv's thread pool rather than inside COMMIT on the event loop (issue 10).
 */
import Database from 'better-sqlite3';
import { sqliteCommitBatchSizes, sqliteFsyncSeconds } from '../../metrics/registry.ts';
import { closeSync, fsync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CasFailedError,
  DeadlineExceededError,
  KeyExistsError,
  StorageUnavailableError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
  type Watch,
  type WriteControl,
  type PackValue,
} from '../interface.ts';
import { checkNotCompacted, KineReader, openWatch, SCHEMA, toKeyValue, type Row } from './kine-log.ts';
import { WalCheckpointer, type CheckpointOutcome } from './wal-checkpointer.ts';
import type { DeadlineSignal } from '../../util/deadline-signal.ts';

interface PendingWrite {
  apply: () => StorageEvent;
  signal?: DeadlineSignal;
  resolve: (revision: number) => void;
  reject: (err: unknown) => void;
}

interface Watcher {
  prefix: string;
  onEvent: (event: StorageEvent) => void;
}

const COMPACT_BATCH = 1000;
/** Bytes the WAL file is truncated to when it rewinds (journal_size_limit). */
const WAL_SIZE_LIMIT = 64 * 1024 * 1024;
/** Writes within this window of the previous commit wait for it, to share the next commit's fsync. */
const GROUP_COMMIT_WINDOW_MS = 2;

export interface SqliteOptions {
  /** Path of the database file. */
  file: string;
  /** Acknowledge a write once the WAL holding it is fsynced (FULL) rather than rely on the WAL surviving a process crash (NORMAL). */
  synchronous?: 'FULL' | 'NORMAL';
  /** How long checkpoints stay on their thread after the write rate fell (wal-checkpointer.ts; 30 s). */
  backgroundCheckpointIdleMs?: number;
}

/** SQLite implementation of the Storage interface (DESIGN "Storage"). */
export class SqliteStorage implements Storage {
  readonly name = 'sqlite';
  private readonly db: Database.Database;
  private readonly reader: KineReader;
  private revision: number;
  private compacted: number;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private lastFlush = 0;
  private watchers = new Set<Watcher>();
  /** The last commit failed (disk full, I/O error) and none has succeeded since: readiness fails. */
  private writeFailure: unknown;
  private readonly stmt;
  private readonly file: string;
  private readonly syncCommits: boolean;
  /** The WAL, opened after the first commit made it, for the fsyncs that make commits durable. */
  private walFd: number | undefined;
  /** Committed batches waiting for the next fsync of the WAL; one fsync runs at a time and covers all before it. */
  private awaitingSync: Array<(error?: unknown) => void> = [];
  private syncing: Promise<void> | undefined;
  private readonly checkpointer: WalCheckpointer;

  constructor(options: SqliteOptions) {
    mkdirSync(dirname(options.file), { recursive: true });
    this.file = options.file;
    this.db = new Database(options.file);
    this.db.pragma('journal_mode = WAL');
    // SQLite never syncs a commit itself: FULL durability comes from our own fsync of the WAL
    // after COMMIT (each FULL commit blocked the event loop for 0.23 ms, 22 % of a create-bound run).
    // Checkpoints still sync the WAL before copying it, as NORMAL does.
    this.syncCommits = (options.synchronous ?? 'FULL') === 'FULL';
    this.db.pragma('synchronous = NORMAL');
    // Under load checkpoints run on a worker thread (wal-checkpointer.ts), not inside a COMMIT on the
    // event loop; the WAL file is cut back to this size when it rewinds after a burst.
    this.db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
    this.db.exec(SCHEMA);
    this.reader = new KineReader(this.db);
    this.stmt = {
      insert: this.db.prepare(
        `INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value, old_value) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      // A created row is its own create_revision. AUTOINCREMENT gives the row sqlite_sequence's
      // seq + 1, so that is written in the INSERT itself rather than by an UPDATE after it.
      insertCreated: this.db.prepare(
        `INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value, old_value)
         VALUES (?, 1, 0, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'kine'), 0) + 1, ?, ?, NULL)`,
      ),
      setMeta: this.db.prepare(`INSERT INTO kine_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
      compactSuperseded: this.db.prepare(
        `DELETE FROM kine WHERE id IN (SELECT prev_revision FROM kine WHERE prev_revision != 0 AND id > ? AND id <= ?)`,
      ),
      compactTombstones: this.db.prepare(`DELETE FROM kine WHERE deleted = 1 AND id > ? AND id <= ?`),
      // Prepared once: exec() parsed them again for every write of every batch.
      begin: this.db.prepare('BEGIN'),
      commit: this.db.prepare('COMMIT'),
      savepoint: this.db.prepare('SAVEPOINT write'),
      release: this.db.prepare('RELEASE write'),
    };
    this.revision = this.reader.headRevision();
    this.compacted = this.reader.compactedRevision();
    this.checkpointer = new WalCheckpointer(options.file, {
      setAutocheckpoint: (pages) => this.db.pragma(`wal_autocheckpoint = ${pages}`),
      idleMs: options.backgroundCheckpointIdleMs,
    });
  }

  async get(key: string, revision = 0): Promise<KeyValue | null> {
    this.checkRevision(revision);
    return this.reader.get(key, revision);
  }

  async list(options: ListOptions): Promise<ListResult> {
    this.checkRevision(options.revision ?? 0);
    return this.reader.list(options, options.revision || this.revision);
  }

  async listBytes(options: Pick<ListOptions, 'prefix' | 'revision'>, pack: PackValue): Promise<ListResult<Buffer>> {
    this.checkRevision(options.revision ?? 0);
    return this.reader.listBytes(options.prefix, options.revision || this.revision, pack);
  }

  async count(prefix: string): Promise<number> {
    return this.reader.count(prefix, this.revision);
  }

  create(key: string, value: string, control?: WriteControl): Promise<number> {
    return this.enqueue(control, () => {
      const latest = this.reader.latestRow(key);
      if (latest && !latest.deleted) throw new KeyExistsError(key);
      const id = Number(this.stmt.insertCreated.run(key, latest?.id ?? 0, value).lastInsertRowid);
      return { type: 'ADDED', key, value, revision: id, createRevision: id };
    });
  }

  update(key: string, value: string, expectedRevision: number, control?: WriteControl): Promise<number> {
    return this.enqueue(control, () => {
      const latest = this.expectLatest(key, expectedRevision);
      const id = Number(this.stmt.insert.run(key, 0, 0, latest.create_revision, latest.id, value, latest.value).lastInsertRowid);
      return { type: 'MODIFIED', key, value, prevValue: latest.value, revision: id, createRevision: latest.create_revision };
    });
  }

  delete(key: string, expectedRevision: number, control?: WriteControl): Promise<number> {
    return this.enqueue(control, () => {
      const latest = this.expectLatest(key, expectedRevision);
      const id = Number(
        this.stmt.insert.run(key, 0, 1, latest.create_revision, latest.id, latest.value, latest.value).lastInsertRowid,
      );
      return { type: 'DELETED', key, value: latest.value, prevValue: latest.value, revision: id, createRevision: latest.create_revision };
    });
  }

  watch(prefix: string, fromRevision: number, onEvent: (e: StorageEvent) => void, onError: (err: Error) => void): Watch {
    const watcher: Watcher = { prefix, onEvent };
    return openWatch(
      () => {
        this.checkRevision(fromRevision);
        // Up to the acknowledged revision: later commits (their fsync still running) come as live events.
        if (fromRevision < this.revision) {
          for (const event of this.reader.history(prefix, fromRevision)) {
            if (event.revision > this.revision) break;
            onEvent(event);
          }
        }
        this.watchers.add(watcher);
      },
      () => this.watchers.delete(watcher),
      onError,
    );
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  /** The WAL checkpoints run so far and the last one's report (wal-checkpointer.ts). */
  checkpoints(): { background: boolean; completed: number; last: CheckpointOutcome | undefined } {
    return { background: this.checkpointer.background, completed: this.checkpointer.completed, last: this.checkpointer.last };
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  async compact(revision: number): Promise<void> {
    const target = Math.min(revision, this.revision);
    // Batches keep each transaction short so writers are never blocked for long.
    for (let from = this.compacted; from < target; from += COMPACT_BATCH) {
      const to = Math.min(from + COMPACT_BATCH, target);
      this.db.transaction(() => {
        this.stmt.compactSuperseded.run(from, to);
        this.stmt.compactTombstones.run(from, to);
        this.stmt.setMeta.run('compact_rev', to);
      })();
      this.checkpointer.committed();
      this.compacted = to;
      await new Promise((r) => setImmediate(r));
    }
  }

  /**
   * Liveness: the database answers reads. Readiness: it also takes writes; after
   * a failed commit a small probe write tells when the disk has room again, so
   * readiness returns without waiting for a client's write.
   */
  async ping(_timeoutMs: number, readiness = false): Promise<void> {
    this.reader.headRevision();
    if (!readiness || !this.writeFailure) return;
    try {
      this.db.transaction(() => this.stmt.setMeta.run('probe', Date.now()))();
    } catch (err) {
      throw storeFailure(err);
    }
    this.writeFailure = undefined;
  }

  async close(): Promise<void> {
    if (this.pending.length) this.flush();
    while (this.syncing) await this.syncing;
    this.watchers.clear();
    await this.checkpointer.close();
    if (this.walFd !== undefined) closeSync(this.walFd);
    this.db.close();
  }

  private expectLatest(key: string, expectedRevision: number): Row {
    const latest = this.reader.latestRow(key);
    if (!latest || latest.deleted || latest.id !== expectedRevision) {
      throw new CasFailedError(key, latest && !latest.deleted ? toKeyValue(latest) : null);
    }
    return latest;
  }

  private checkRevision(revision: number): void {
    checkNotCompacted(revision, this.compacted);
  }

  private enqueue(control: WriteControl | undefined, apply: () => StorageEvent): Promise<number> {
    return new Promise((resolve, reject) => {
      this.pending.push({ apply, signal: control?.signal, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // Under a steady stream of writes, gather for a moment so one fsync covers many
        // (each FULL commit blocks the event loop for about a third of a millisecond).
        if (performance.now() - this.lastFlush < GROUP_COMMIT_WINDOW_MS) setTimeout(() => this.flush(), GROUP_COMMIT_WINDOW_MS);
        else setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Commits every queued write in one transaction; each write is its own
   * savepoint so that a refused write (conflict, existing key, deadline) spares
   * the rest. A failure of the store itself (disk full, I/O error) fails the
   * whole batch: SQLite may already have rolled the transaction back, and a
   * later write of the batch must not then commit on its own. The revision and
   * the watchers only ever see committed writes.
   */
  private flush(): void {
    this.flushScheduled = false;
    this.lastFlush = performance.now();
    const batch = this.pending;
    this.pending = [];
    const outcomes: Array<{ event?: StorageEvent; error?: unknown }> = [];
    try {
      this.stmt.begin.run();
      for (const write of batch) outcomes.push(this.applyInSavepoint(write));
      this.stmt.commit.run();
      this.checkpointer.committed();
      sqliteCommitBatchSizes.observe(batch.length);
    } catch (error) {
      this.rollback();
      const failure = storeFailure(error);
      this.writeFailure = failure;
      for (const write of batch) write.reject(failure);
      return;
    }
    const settle = (syncError?: unknown) => {
      // A batch of refused writes commits nothing, so it says nothing about the disk.
      if (outcomes.some((o) => o.event)) this.writeFailure = syncError;
      batch.forEach((write, i) => {
        const { event, error } = outcomes[i];
        if (event) {
          // Committed either way: readers of the file see it, so the watchers must too.
          this.revision = event.revision;
          if (syncError) write.reject(syncError);
          else write.resolve(event.revision);
          for (const watcher of this.watchers) if (event.key.startsWith(watcher.prefix)) watcher.onEvent(event);
        } else {
          write.reject(error);
        }
      });
    };
    if (this.syncCommits && outcomes.some((o) => o.event)) this.afterSync(settle);
    else settle();
  }

  /** Runs `settle` once an fsync of the WAL begun after this call has finished. */
  private afterSync(settle: (error?: unknown) => void): void {
    this.awaitingSync.push(settle);
    if (!this.syncing) this.syncing = this.syncWal();
  }

  /** fsyncs of the WAL, one at a time, each settling every batch committed before it began. */
  private async syncWal(): Promise<void> {
    while (this.awaitingSync.length) {
      const settles = this.awaitingSync;
      this.awaitingSync = [];
      let error: unknown;
      try {
        const started = performance.now();
        await new Promise<void>((resolve, reject) => fsync(this.wal(), (err) => (err ? reject(err) : resolve())));
        sqliteFsyncSeconds.observe((performance.now() - started) / 1000);
      } catch (err) {
        error = new StorageUnavailableError(`sqlite: the commit may not be durable: fsync of the WAL failed: ${(err as Error).message}`);
      }
      for (const settle of settles) settle(error);
    }
    this.syncing = undefined;
  }

  /** The WAL's descriptor; on first use its directory entry is made durable too. */
  private wal(): number {
    if (this.walFd === undefined) {
      this.walFd = openSync(`${this.file}-wal`, 'r');
      const dir = openSync(dirname(this.file), 'r');
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
    }
    return this.walFd;
  }

  /** One write of a batch; its own refusals are its outcome, a failure of the store throws out of the batch. */
  private applyInSavepoint(write: PendingWrite): { event?: StorageEvent; error?: unknown } {
    // A request answered 504 while its write waited for this commit must not change anything.
    if (write.signal?.aborted) return { error: new DeadlineExceededError() };
    this.stmt.savepoint.run();
    try {
      const event = write.apply();
      this.stmt.release.run();
      return { event };
    } catch (error) {
      if (error instanceof Database.SqliteError) throw error;
      if (!this.db.inTransaction) throw new StorageUnavailableError(`sqlite rolled the batch back: ${(error as Error)?.message}`);
      this.db.exec('ROLLBACK TO write');
      this.db.exec('RELEASE write');
      return { error };
    }
  }

  /** Undoes an open transaction; SQLite may have done so already after an I/O error. */
  private rollback(): void {
    if (!this.db.inTransaction) return;
    try {
      this.db.exec('ROLLBACK');
    } catch (err) {
      console.error('sqlite: rollback failed:', err);
    }
  }
}

/** SQLite's own failures (disk full, I/O error) become StorageUnavailableError, a 500 (SPEC 4.6, issue 7). */
function storeFailure(error: unknown): unknown {
  if (error instanceof Database.SqliteError) return new StorageUnavailableError(`sqlite: ${error.message} (${error.code})`);
  return error;
}
