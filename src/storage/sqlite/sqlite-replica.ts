/**
 * A worker's view of the SQLite store (issue 10: every core): reads from its
 * own connection to the file (WAL lets readers run beside the writer, each
 * statement one committed snapshot), writes and readiness through the channel
 * to the one writer, and the writer's committed events for its watches. It is
 * a Storage like any other, so the worker's watch cache, stores and
 * controllers run unchanged over it.
 */
import Database from 'better-sqlite3';
import {
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
import { checkNotCompacted, KineReader, openWatch } from './kine-log.ts';
import { fromWire, type Answer, type FromWriter, type WriteOp, type WriterChannel } from './write-channel.ts';
import { InFlightTable } from '../../util/in-flight-table.ts';

interface Pending {
  resolve: (revision: number) => void;
  reject: (err: Error) => void;
}

interface ReplicaWatcher {
  prefix: string;
  /** The last revision delivered: a replayed event may arrive again from the writer. */
  last: number;
  onEvent: (event: StorageEvent) => void;
}

export interface ReplicaOptions {
  file: string;
  channel: WriterChannel;
}

export class SqliteReplica implements Storage {
  readonly name = 'sqlite';
  private readonly db: Database.Database;
  private readonly reader: KineReader;
  private readonly pending = new InFlightTable<Pending>();
  private readonly watchers = new Set<ReplicaWatcher>();
  private nextId = 1;
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: ReplicaOptions) {
    this.db = new Database(options.file, { fileMustExist: true });
    // The writer owns every change; a reader that tried to write would take its lock.
    this.db.pragma('query_only = ON');
    this.reader = new KineReader(this.db);
    this.unsubscribe = options.channel.onMessage((message) => this.onBatch(message));
    options.channel.onClose(() => this.failAll(new StorageUnavailableError('sqlite: the writer process is gone')));
  }

  async get(key: string, revision = 0): Promise<KeyValue | null> {
    this.checkRevision(revision);
    return this.reader.get(key, revision);
  }

  async list(options: ListOptions): Promise<ListResult> {
    this.checkRevision(options.revision ?? 0);
    return this.reader.list(options, options.revision || this.reader.headRevision());
  }

  async listBytes(options: Pick<ListOptions, 'prefix' | 'revision'>, pack: PackValue): Promise<ListResult<Buffer>> {
    this.checkRevision(options.revision ?? 0);
    return this.reader.listBytes(options.prefix, options.revision || this.reader.headRevision(), pack);
  }

  async count(prefix: string): Promise<number> {
    return this.reader.count(prefix, this.reader.headRevision());
  }

  create(key: string, value: string, control?: WriteControl): Promise<number> {
    return this.write({ op: 'create', key, value }, control);
  }

  update(key: string, value: string, expectedRevision: number, control?: WriteControl): Promise<number> {
    return this.write({ op: 'update', key, value, expected: expectedRevision }, control);
  }

  delete(key: string, expectedRevision: number, control?: WriteControl): Promise<number> {
    return this.write({ op: 'delete', key, expected: expectedRevision }, control);
  }

  /**
   * Replays the file's history and then follows the writer's events, skipping
   * what the replay already gave: a commit is either in the file when the
   * replay reads it or arrives afterwards in a batch, never lost in between.
   */
  watch(prefix: string, fromRevision: number, onEvent: (e: StorageEvent) => void, onError: (err: Error) => void): Watch {
    const watcher: ReplicaWatcher = { prefix, last: fromRevision, onEvent };
    return openWatch(
      () => {
        this.checkRevision(fromRevision);
        for (const event of this.reader.history(prefix, fromRevision)) {
          onEvent(event);
          watcher.last = event.revision;
        }
        this.watchers.add(watcher);
      },
      () => this.watchers.delete(watcher),
      onError,
    );
  }

  /** The newest commit in the file: every write acknowledged before this call is in it. */
  async currentRevision(): Promise<number> {
    return this.reader.headRevision();
  }

  async compactedRevision(): Promise<number> {
    return this.reader.compactedRevision();
  }

  /** The writer compacts: a replica never changes the file. */
  async compact(revision: number): Promise<void> {
    await this.call((id) => this.send({ t: 'compact', id, revision }));
  }

  async ping(timeoutMs: number, readiness = false): Promise<void> {
    this.reader.headRevision();
    if (readiness) await this.call((id) => this.send({ t: 'ready', id }), timeoutMs);
  }

  /** One request to the writer and its answer, bounded when `timeoutMs` is given. */
  private async call(send: (id: number) => void, timeoutMs = 0): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const id = this.nextId++;
    const answered = new Promise<number>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      send(id);
      if (timeoutMs) {
        timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new StorageUnavailableError(`sqlite: the writer did not answer within ${timeoutMs} ms`));
        }, timeoutMs);
      }
    });
    try {
      return await answered;
    } catch (err) {
      this.pending.delete(id);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    this.failAll(new StorageUnavailableError('sqlite: the store is closed'));
    this.watchers.clear();
    this.db.close();
  }

  private checkRevision(revision: number): void {
    if (revision) checkNotCompacted(revision, this.reader.compactedRevision());
  }

  private send(message: Parameters<WriterChannel['send']>[0]): void {
    if (this.closed) throw new StorageUnavailableError('sqlite: the store is closed');
    this.options.channel.send(message);
  }

  private write(op: WriteOp, control?: WriteControl): Promise<number> {
    if (control?.signal?.aborted) return Promise.reject(fromWire({ kind: 'deadline' }));
    return this.call((id) => {
      this.send({ t: 'write', id, ...op });
      // The writer drops it if it has not committed yet; if it has, its answer says so.
      control?.signal?.addEventListener('abort', () => this.pending.has(id) && this.options.channel.send({ t: 'cancel', id }), { once: true });
    });
  }

  private onBatch(message: FromWriter): void {
    for (const event of message.events) {
      for (const watcher of this.watchers) {
        if (event.revision <= watcher.last || !event.key.startsWith(watcher.prefix)) continue;
        watcher.last = event.revision;
        watcher.onEvent(event);
      }
    }
    for (const answer of message.answers) this.settle(answer);
  }

  private settle({ id, revision, error }: Answer): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (error) pending.reject(fromWire(error));
    else pending.resolve(revision ?? 0);
  }

  private failAll(err: Error): void {
    for (const pending of this.pending.values()) pending.reject(err);
    this.pending.clear();
  }
}
