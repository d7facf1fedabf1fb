/**
 * The etcd3 backend (DESIGN "Storage"; `--storage-backend=etcd3`): keys under a
 * prefix, values as stored JSON, resourceVersion = etcd's mod revision, every
 * write a transaction comparing create or mod revision, compaction through
 * etcd. Several servers share one etcd and see each other's writes and events.
 */
import type { Etcd3, IKeyValue } from 'etcd3';
import {
  CasFailedError,
  CompactedError,
  DeadlineExceededError,
  KeyExistsError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
  type Watch,
  type WriteControl,
} from '../interface.ts';
import { prefixEnd } from '../keys.ts';

export interface EtcdOptions {
  servers: string[];
  /** Every key is stored under this prefix (upstream: /registry). */
  prefix?: string;
  /** Deadline of every unary call (the request timeout); 0 = none. */
  callTimeoutMs?: number;
}

/** A write whose request is already past its deadline is never sent. */
function checkDeadline(control: WriteControl | undefined): void {
  if (control?.signal?.aborted) throw new DeadlineExceededError();
}

/** Written by requestProgress; it belongs to no resource, so caches only see its revision. */
const PROGRESS_KEY = '/.orch-progress';

/**
 * HTTP/2's default 64 KiB window lets a busy moment of ours stall etcd's watch
 * sender; etcd then treats the watch as slow and delivers late, in batches.
 * A 16 MiB window absorbs seconds of events instead.
 */
const GRPC_OPTIONS = { 'grpc-node.flow_control_window': 16 * 1024 * 1024 };

/** Reads through a filter fetch this many keys per round trip. */
const FILTER_PAGE = 500;

function isCompactedError(err: unknown): boolean {
  return /compacted/i.test(String((err as Error)?.message ?? err));
}

export class EtcdStorage implements Storage {
  readonly name = 'etcd';
  private readonly client: Etcd3;
  /** Watches get their own connection: on a shared HTTP/2 connection a busy moment fills the
   * stream's window and etcd marks the watch slow, delivering events late in batches. */
  private readonly watchClient: Etcd3;
  private readonly prefix: string;
  private compacted = 0;

  /** Connects lazily: the gRPC client costs a third of a second to load, so only etcd users pay it. */
  static async connect(options: EtcdOptions): Promise<EtcdStorage> {
    const { Etcd3: Client } = await import('etcd3');
    const client = () => new Client({ hosts: options.servers, grpcOptions: GRPC_OPTIONS });
    return new EtcdStorage(client(), client(), options.prefix ?? '/registry');
  }

  private constructor(client: Etcd3, watchClient: Etcd3, prefix: string) {
    this.client = client;
    this.watchClient = watchClient;
    this.prefix = prefix;
  }

  private toEtcd(key: string): Buffer {
    return Buffer.from(this.prefix + key);
  }

  private fromEtcd(kv: IKeyValue): KeyValue {
    return {
      key: kv.key.toString().slice(this.prefix.length),
      value: kv.value.toString(),
      modRevision: Number(kv.mod_revision),
      createRevision: Number(kv.create_revision),
    };
  }

  private async range(request: Parameters<Etcd3['kv']['range']>[0]) {
    try {
      return await this.client.kv.range(request);
    } catch (err) {
      if (isCompactedError(err)) throw new CompactedError(Number(request.revision ?? 0), this.compacted);
      throw err;
    }
  }

  async get(key: string, revision = 0): Promise<KeyValue | null> {
    if (revision && revision < this.compacted) throw new CompactedError(revision, this.compacted);
    const res = await this.range({ key: this.toEtcd(key), revision: revision || undefined });
    return res.kvs.length ? this.fromEtcd(res.kvs[0]) : null;
  }

  async list(options: ListOptions): Promise<ListResult> {
    if (options.revision && options.revision < this.compacted) throw new CompactedError(options.revision, this.compacted);
    const end = this.toEtcd(prefixEnd(options.prefix));
    let start = this.toEtcd(options.startKey && options.startKey > options.prefix ? options.startKey : options.prefix);
    let revision = options.revision || 0;
    const limit = options.limit ?? 0;
    const items: KeyValue[] = [];
    let more = false;
    let remaining = 0;
    // Without a filter one range answers; with one, pages are fetched until the limit is met.
    for (;;) {
      const pageSize = options.filter ? FILTER_PAGE : limit ? limit - items.length : 0;
      const res = await this.range({ key: start, range_end: end, revision: revision || undefined, limit: pageSize || undefined });
      revision ||= Number(res.header.revision);
      let consumed = 0;
      for (const raw of res.kvs) {
        consumed++;
        const kv = this.fromEtcd(raw);
        if (!options.filter || options.filter(kv)) items.push(kv);
        if (limit && items.length >= limit) break;
      }
      const countAfterPage = Number(res.count) - consumed;
      if (limit && items.length >= limit) {
        more = countAfterPage > 0;
        remaining = countAfterPage;
        break;
      }
      if (!res.more) break;
      start = Buffer.concat([res.kvs[res.kvs.length - 1].key, Buffer.from([0])]);
    }
    return { items, revision, more, remaining };
  }

  async count(prefix: string): Promise<number> {
    const res = await this.range({ key: this.toEtcd(prefix), range_end: this.toEtcd(prefixEnd(prefix)), count_only: true });
    return Number(res.count);
  }

  async create(key: string, value: string, control?: WriteControl): Promise<number> {
    checkDeadline(control);
    const k = this.toEtcd(key);
    const res = await this.client.kv.txn({
      compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
      success: [{ request_put: { key: k, value: Buffer.from(value) } }],
      failure: [],
    });
    if (!res.succeeded) throw new KeyExistsError(key);
    return Number(res.header.revision);
  }

  async update(key: string, value: string, expectedRevision: number, control?: WriteControl): Promise<number> {
    checkDeadline(control);
    const k = this.toEtcd(key);
    const res = await this.client.kv.txn({
      compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedRevision }],
      success: [{ request_put: { key: k, value: Buffer.from(value) } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) throw new CasFailedError(key, this.currentFromFailure(res));
    return Number(res.header.revision);
  }

  async delete(key: string, expectedRevision: number, control?: WriteControl): Promise<number> {
    checkDeadline(control);
    const k = this.toEtcd(key);
    const res = await this.client.kv.txn({
      compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedRevision }],
      success: [{ request_delete_range: { key: k } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) throw new CasFailedError(key, this.currentFromFailure(res));
    return Number(res.header.revision);
  }

  private currentFromFailure(res: { responses: Array<{ response_range?: { kvs: IKeyValue[] } }> }): KeyValue | null {
    const kv = res.responses[0]?.response_range?.kvs?.[0];
    return kv ? this.fromEtcd(kv) : null;
  }

  watch(prefix: string, fromRevision: number, onEvent: (e: StorageEvent) => void, onError: (err: Error) => void): Watch {
    let stopped = false;
    if (fromRevision && fromRevision < this.compacted) {
      queueMicrotask(() => onError(new CompactedError(fromRevision, this.compacted)));
      return { stop: () => {} };
    }
    const builder = this.watchClient
      .watch()
      .prefix(this.toEtcd(prefix))
      .withPreviousKV()
      .startRevision(String(fromRevision + 1));
    const watcherPromise = builder.create();
    watcherPromise.then(
      (watcher) => {
        if (stopped) {
          void watcher.cancel();
          return;
        }
        watcher.on('data', (res) => {
          for (const event of res.events) {
            const kv = event.kv;
            const revision = Number(kv.mod_revision);
            const key = kv.key.toString().slice(this.prefix.length);
            if (event.type === 'Delete') {
              const prev = event.prev_kv;
              onEvent({ type: 'DELETED', key, value: prev?.value.toString() ?? '', prevValue: prev?.value.toString(), revision, createRevision: Number(prev?.create_revision ?? 0) });
            } else {
              const created = kv.create_revision === kv.mod_revision;
              const e: StorageEvent = { type: created ? 'ADDED' : 'MODIFIED', key, value: kv.value.toString(), revision, createRevision: Number(kv.create_revision) };
              if (!created && event.prev_kv) e.prevValue = event.prev_kv.value.toString();
              onEvent(e);
            }
          }
        });
        watcher.on('error', (err) => {
          if (stopped) return;
          onError(isCompactedError(err) ? new CompactedError(fromRevision, this.compacted) : err);
        });
      },
      (err) => !stopped && onError(isCompactedError(err) ? new CompactedError(fromRevision, this.compacted) : err),
    );
    return {
      stop: () => {
        stopped = true;
        void watcherPromise.then((w) => w.cancel()).catch(() => {});
      },
    };
  }

  /** A write of the progress marker: its event reaches every watch under the prefix (see Storage). */
  async requestProgress(): Promise<void> {
    await this.client.put(this.toEtcd(PROGRESS_KEY)).value(String(Date.now()));
  }

  async currentRevision(): Promise<number> {
    const res = await this.client.kv.range({ key: this.toEtcd('/'), limit: 1, keys_only: true });
    return Number(res.header.revision);
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  async compact(revision: number): Promise<void> {
    try {
      await this.client.kv.compact({ revision, physical: false });
    } catch (err) {
      // Another server compacted at or past this revision already.
      if (!isCompactedError(err)) throw err;
    }
    this.compacted = Math.max(this.compacted, revision);
  }

  async ping(_timeoutMs: number): Promise<void> {
    await this.client.maintenance.status();
  }

  async close(): Promise<void> {
    this.client.close();
    this.watchClient.close();
  }
}
