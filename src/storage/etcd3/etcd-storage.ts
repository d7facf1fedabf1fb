/**
 * The etcd3 backend (DESIGN "Storage"; `--storage-backend=etcd3`): keys under a
 * prefix, values as stored JSON, resourceVersion = etcd's mod revision, every
 * write a transaction comparing create or mod revision, compaction through
 * etcd. Several servers share one etcd and see each other's writes and events.
 *
 * Faults (issue 7, SPEC 4.10): every unary call has a deadline, nothing is
 * re-sent (a write that timed out may have been applied), and a per-host
 * circuit breaker makes a dead or frozen etcd fail fast until a trial call
 * gets through again. The watch reconnects by itself and resumes after the
 * last revision it delivered.
 */
import { recordEtcdRequest } from '../../metrics/registry.ts';
import { OutcomeError } from '../../util/outcome-error.ts';
import {
  CasFailedError,
  CompactedError,
  DeadlineExceededError,
  KeyExistsError,
  StorageTimeoutError,
  StorageUnavailableError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type PackValue,
  type Storage,
  type StorageEvent,
  type Watch,
  type WriteControl,
} from '../interface.ts';
import { prefixEnd } from '../keys.ts';
import { BrokenCircuitError } from './circuit-breaker.ts';
import type { EtcdKeyValue, TxnResponse, WatchEvent } from './etcd-codec.ts';
import { EtcdClient } from './etcd-client.ts';
import { GrpcCode, GrpcError, type TlsFiles } from './grpc-session.ts';
import { WatchStream } from './watch-stream.ts';

export interface EtcdOptions {
  servers: string[];
  /** Every key is stored under this prefix (upstream: /registry). */
  prefix?: string;
  /** Deadline of every unary call (the request timeout); 0 or absent: one minute, never none. */
  callTimeoutMs?: number;
  /** Client TLS for https:// servers (--etcd-cafile, --etcd-certfile, --etcd-keyfile), read already. */
  tls?: TlsFiles;
}

/** A write whose request is already past its deadline is never sent. */
function checkDeadline(control: WriteControl | undefined): void {
  if (control?.signal?.aborted) throw new DeadlineExceededError();
}

/** Written by requestProgress; it belongs to no resource, so caches only see its revision. */
const PROGRESS_KEY = '/.orch-progress';

/**
 * Objects of a list's first range call (and of a filtered page's): etcd's
 * 1.5 MiB objects at most make 750 MiB, within the 2 GiB message limit (grpc-wire.ts).
 */
const LIST_PAGE = 500;
/**
 * What later range calls of one list grow to, by the objects' size so far:
 * about LIST_PAGE_BYTES of values, at most MAX_LIST_PAGE objects (upstream's
 * watch cache lists in pages of 10,000, storageWatchListPageSize). etcd 3.4
 * walks every key of the range to count it on each call, so a restart's list of
 * 100,000 objects in pages of 500 spent 7 of its 9.5 s waiting on etcd.
 */
const LIST_PAGE_BYTES = 64 * 1024 * 1024;
const MAX_LIST_PAGE = 10_000;

/** The objects of a list's next range call, from the values of this one (unchanged when it held none). */
function nextPageObjects(kvs: EtcdKeyValue[], current: number): number {
  if (!kvs.length) return current;
  let bytes = 0;
  for (const kv of kvs) bytes += kv.value.length;
  const average = Math.max(1, bytes / kvs.length);
  return Math.min(MAX_LIST_PAGE, Math.max(LIST_PAGE, Math.floor(LIST_PAGE_BYTES / average)));
}

/** The call deadline when the request timeout is off: a frozen etcd must not hold a call forever. */
const DEFAULT_CALL_TIMEOUT_MS = 60_000;

function isCompactedError(err: unknown): boolean {
  return /compacted/i.test(String((err as Error)?.message ?? err));
}

const textOf = (bytes: Buffer): string => bytes.toString();

/**
 * Turns the client's errors into the storage errors the server renders
 * (src/http/respond.ts): a missed deadline is a 504 whose write outcome is
 * unknown; an open circuit, an unreachable or failing etcd a 500.
 */
function storageError(err: unknown): unknown {
  if (err instanceof GrpcError && err.code === GrpcCode.DEADLINE_EXCEEDED) return new StorageTimeoutError(`etcd did not answer in time: ${err.message}`);
  if (err instanceof BrokenCircuitError) return new StorageUnavailableError(err.message);
  if (err instanceof GrpcError && (err.code === GrpcCode.UNAVAILABLE || err.code === GrpcCode.CANCELLED)) return new StorageUnavailableError(`etcd is unavailable: ${err.message}`);
  return err;
}

export class EtcdStorage implements Storage {
  readonly name = 'etcd';
  private readonly client: EtcdClient;
  private readonly prefix: string;
  private compacted = 0;
  private lastProbe: { started: number; result: Promise<void> } | undefined;

  /** Sessions open on the first call; an etcd that is down at start makes calls fail, not the constructor. */
  static async connect(options: EtcdOptions): Promise<EtcdStorage> {
    return new EtcdStorage(options);
  }

  private constructor(options: EtcdOptions) {
    this.client = new EtcdClient({ servers: options.servers, callTimeoutMs: options.callTimeoutMs || DEFAULT_CALL_TIMEOUT_MS, tls: options.tls });
    this.prefix = options.prefix ?? '/registry';
  }

  /**
   * etcd_request_duration_seconds, etcd_requests_total and etcd_request_errors_total
   * (upstream's RecordEtcdRequest): a failure is the store's, not an outcome such as
   * a lost compare-and-swap, an existing key or a compacted revision.
   */
  private async measured<T>(operation: string, type: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let failed = false;
    try {
      return await run();
    } catch (err) {
      failed = !(err instanceof OutcomeError);
      throw err;
    } finally {
      recordEtcdRequest(operation, type, (performance.now() - started) / 1000, failed);
    }
  }

  /** One unary call with its errors mapped to storage errors; never retried. */
  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw storageError(err);
    }
  }

  private toEtcd(key: string): Buffer {
    return Buffer.from(this.prefix + key);
  }

  private fromEtcd(kv: EtcdKeyValue): KeyValue {
    return this.fromEtcdAs(kv, textOf);
  }

  private fromEtcdAs<Value extends string | Buffer>(kv: EtcdKeyValue, valueOf: (bytes: Buffer, revision: number) => Value): KeyValue<Value> {
    return {
      key: kv.key.toString('utf8', this.prefix.length),
      value: valueOf(kv.value, kv.modRevision),
      modRevision: kv.modRevision,
      createRevision: kv.createRevision,
    };
  }

  private async range(request: Parameters<EtcdClient['range']>[0]) {
    try {
      return await this.call(() => this.client.range(request));
    } catch (err) {
      if (isCompactedError(err)) throw new CompactedError(request.revision ?? 0, this.compacted);
      throw err;
    }
  }

  private txn(request: Parameters<EtcdClient['txn']>[0]) {
    return this.call(() => this.client.txn(request));
  }

  async get(key: string, revision = 0): Promise<KeyValue | null> {
    return this.measured('get', objectType(key), () => this.getUnmeasured(key, revision));
  }

  private async getUnmeasured(key: string, revision: number): Promise<KeyValue | null> {
    if (revision && revision < this.compacted) throw new CompactedError(revision, this.compacted);
    const res = await this.range({ key: this.toEtcd(key), revision });
    return res.kvs.length ? this.fromEtcd(res.kvs[0]) : null;
  }

  async list(options: ListOptions): Promise<ListResult> {
    return this.measured('list', objectType(options.prefix), () => this.listUnmeasured(options, textOf));
  }

  async listBytes(options: Pick<ListOptions, 'prefix' | 'revision'>, pack: PackValue): Promise<ListResult<Buffer>> {
    return this.measured('list', objectType(options.prefix), () => this.listUnmeasured(options, pack));
  }

  private async listUnmeasured<Value extends string | Buffer>(
    options: ListOptions & { filter?: (kv: KeyValue<Value>) => boolean },
    valueOf: (bytes: Buffer, revision: number) => Value,
  ): Promise<ListResult<Value>> {
    if (options.revision && options.revision < this.compacted) throw new CompactedError(options.revision, this.compacted);
    const end = this.toEtcd(prefixEnd(options.prefix));
    let start = this.toEtcd(options.startKey && options.startKey > options.prefix ? options.startKey : options.prefix);
    let revision = options.revision || 0;
    const limit = options.limit ?? 0;
    const items: Array<KeyValue<Value>> = [];
    let more = false;
    let remaining = 0;
    // Pages at the first page's revision: one snapshot, and no single answer past the
    // message limit however many objects there are (a cache's start-up list of 100,000).
    let pageObjects = LIST_PAGE;
    for (;;) {
      const pageSize = limit && !options.filter ? Math.min(limit - items.length, pageObjects) : pageObjects;
      const res = await this.range({ key: start, rangeEnd: end, revision, limit: pageSize });
      revision ||= res.header.revision;
      let consumed = 0;
      pageObjects = nextPageObjects(res.kvs, pageObjects);
      for (const raw of res.kvs) {
        consumed++;
        const kv = this.fromEtcdAs(raw, valueOf);
        if (!options.filter || options.filter(kv)) items.push(kv);
        if (limit && items.length >= limit) break;
      }
      const countAfterPage = res.count - consumed;
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
    // upstream names this operation's type by its etcd key, not its resource.
    return this.measured('listWithCount', this.prefix + prefix, () => this.countUnmeasured(prefix));
  }

  private async countUnmeasured(prefix: string): Promise<number> {
    const res = await this.range({ key: this.toEtcd(prefix), rangeEnd: this.toEtcd(prefixEnd(prefix)), countOnly: true });
    return res.count;
  }

  async create(key: string, value: string, control?: WriteControl): Promise<number> {
    return this.measured('create', objectType(key), () => this.createUnmeasured(key, value, control));
  }

  private async createUnmeasured(key: string, value: string, control?: WriteControl): Promise<number> {
    checkDeadline(control);
    const k = this.toEtcd(key);
    const res = await this.txn({
      compare: [{ key: k, target: 'create', revision: 0 }],
      success: [{ put: { key: k, value: Buffer.from(value) } }],
      failure: [],
    });
    if (!res.succeeded) throw new KeyExistsError(key);
    return res.header.revision;
  }

  async update(key: string, value: string, expectedRevision: number, control?: WriteControl): Promise<number> {
    return this.measured('update', objectType(key), () => this.updateUnmeasured(key, value, expectedRevision, control));
  }

  private async updateUnmeasured(key: string, value: string, expectedRevision: number, control?: WriteControl): Promise<number> {
    checkDeadline(control);
    const k = this.toEtcd(key);
    const res = await this.txn({
      compare: [{ key: k, target: 'mod', revision: expectedRevision }],
      success: [{ put: { key: k, value: Buffer.from(value) } }],
      failure: [{ range: { key: k } }],
    });
    if (!res.succeeded) throw new CasFailedError(key, this.currentFromFailure(res));
    return res.header.revision;
  }

  async delete(key: string, expectedRevision: number, control?: WriteControl): Promise<number> {
    return this.measured('delete', objectType(key), () => this.deleteUnmeasured(key, expectedRevision, control));
  }

  private async deleteUnmeasured(key: string, expectedRevision: number, control?: WriteControl): Promise<number> {
    checkDeadline(control);
    const k = this.toEtcd(key);
    const res = await this.txn({
      compare: [{ key: k, target: 'mod', revision: expectedRevision }],
      success: [{ deleteKey: k }],
      failure: [{ range: { key: k } }],
    });
    if (!res.succeeded) throw new CasFailedError(key, this.currentFromFailure(res));
    return res.header.revision;
  }

  private currentFromFailure(res: TxnResponse): KeyValue | null {
    const kv = res.ranges[0]?.kvs[0];
    return kv ? this.fromEtcd(kv) : null;
  }

  /**
   * Streams changes after `fromRevision` (watch-stream.ts reopens a broken stream
   * and resumes after the last revision delivered). A watch etcd cancelled (its
   * revision was compacted) reports onError; the cacher then relists.
   */
  watch(prefix: string, fromRevision: number, onEvent: (e: StorageEvent) => void, onError: (err: Error) => void): Watch {
    if (fromRevision && fromRevision < this.compacted) {
      queueMicrotask(() => onError(new CompactedError(fromRevision, this.compacted)));
      return { stop: () => {} };
    }
    const stream = new WatchStream({
      session: (attempt) => this.client.watchSession(attempt),
      key: this.toEtcd(prefix),
      rangeEnd: this.toEtcd(prefixEnd(prefix)),
      afterRevision: fromRevision,
      onEvents: (events) => {
        for (const event of events) onEvent(this.toStorageEvent(event));
      },
      onCanceled: (reason, compactRevision) => {
        const after = stream.resumeAfter;
        // etcd 3.4 cancels a watch whose start revision was compacted without saying so in the reason.
        if (compactRevision || isCompactedError(reason)) onError(new CompactedError(after + 1, Math.max(this.compacted, compactRevision)));
        else onError(new Error(`etcd cancelled the watch resuming after revision ${after} (compacted?): ${reason}`));
      },
    });
    return { stop: () => stream.stop() };
  }

  private toStorageEvent(event: WatchEvent): StorageEvent {
    const { kv, prevKv } = event;
    const key = kv.key.toString('utf8', this.prefix.length);
    const revision = kv.modRevision;
    if (event.type === 'delete') {
      const prevValue = prevKv?.value.toString();
      return { type: 'DELETED', key, value: prevValue ?? '', prevValue, revision, createRevision: prevKv?.createRevision ?? 0 };
    }
    const created = kv.createRevision === kv.modRevision;
    const e: StorageEvent = { type: created ? 'ADDED' : 'MODIFIED', key, value: kv.value.toString(), revision, createRevision: kv.createRevision };
    if (!created && prevKv) e.prevValue = prevKv.value.toString();
    return e;
  }

  /** A write of the progress marker: its event reaches every watch under the prefix (see Storage). */
  async requestProgress(): Promise<void> {
    await this.call(() => this.client.put(this.toEtcd(PROGRESS_KEY), Buffer.from(String(Date.now()))));
  }

  async currentRevision(): Promise<number> {
    const res = await this.range({ key: this.toEtcd('/'), limit: 1, keysOnly: true });
    return res.header.revision;
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  async compact(revision: number): Promise<void> {
    try {
      await this.call(() => this.client.compact(revision));
    } catch (err) {
      // Another server compacted at or past this revision already.
      if (!isCompactedError(err)) throw err;
    }
    this.compacted = Math.max(this.compacted, revision);
  }

  /**
   * A status call bounded by `timeoutMs`. As upstream's etcd prober does, at most
   * one probe starts per half timeout: callers in between share its outcome, so
   * /livez and /readyz together cost one round trip.
   */
  ping(timeoutMs: number): Promise<void> {
    const now = Date.now();
    if (this.lastProbe && now - this.lastProbe.started < timeoutMs / 2) return this.lastProbe.result;
    const result = this.call(() => this.client.status(timeoutMs));
    // Shared by later callers; a probe nobody awaits any more must not count as unhandled.
    result.catch(() => {});
    this.lastProbe = { started: now, result };
    return result;
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

/** upstream's groupResourceString of a key: `networkpolicies.networking.orch.io`, `configmaps` for the core group. */
function objectType(key: string): string {
  const [, group = '', resource = ''] = key.split('/', 3);
  return group === 'core' || group === '' ? resource : `${resource}.${group}`;
}
