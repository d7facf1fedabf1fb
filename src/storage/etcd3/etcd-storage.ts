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
import type { CircuitBreakerPolicy, IBackoff, IDefaultPolicyContext, IPolicy } from 'cockatiel';
import type { Etcd3, IKeyValue, IOptions, IWatchResponse, Watcher } from 'etcd3';
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
  /** Deadline of every unary call (the request timeout); 0 or absent: one minute, never none. */
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
/**
 * Objects per range call of a list (and per filtered page): etcd's 1.5 MiB
 * objects at most make 750 MiB, within gRPC's limit below.
 */
const LIST_PAGE = 500;

const GRPC_OPTIONS = {
  // upstream's etcd client accepts answers up to 2 GiB; gRPC's default is 4 MiB.
  'grpc.max_receive_message_length': 2 ** 31 - 1,
  'grpc-node.flow_control_window': 16 * 1024 * 1024,
  // gRPC's reconnect backoff grows to two minutes; etcd back after a restart should be used within seconds.
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 2_000,
};

/** The call deadline when the request timeout is off: a frozen etcd must not hold a call forever. */
const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** Consecutive failed calls that open a host's circuit: further calls fail at once instead of waiting out a deadline each. */
const BREAKER_FAILURES = 3;
/** An open circuit lets one trial call through after this long; its success closes the circuit. */
const BREAKER_HALF_OPEN_MS = 1_000;
/** The watch stream's reconnect delays (exponential with jitter), capped so a returning etcd is picked up within seconds. */
const WATCH_BACKOFF = { initialDelay: 100, maxDelay: 2_000 };


function isCompactedError(err: unknown): boolean {
  return /compacted/i.test(String((err as Error)?.message ?? err));
}

type EtcdModule = typeof import('etcd3');
type CockatielModule = typeof import('cockatiel');

/**
 * cockatiel's breaker holds every call made while its half-open trial is in
 * flight until the trial ends, which against a frozen etcd is a whole deadline;
 * those calls fail at once instead, as they do while the circuit is open.
 */
function failFastWhileTrying(cockatiel: CockatielModule, breaker: CircuitBreakerPolicy): IPolicy<IDefaultPolicyContext> {
  return {
    _altReturn: undefined as never,
    onSuccess: breaker.onSuccess,
    onFailure: breaker.onFailure,
    execute: (fn, signal) => (breaker.state === cockatiel.CircuitState.HalfOpen ? Promise.reject(new cockatiel.BrokenCircuitError()) : breaker.execute(fn, signal)),
  };
}

/**
 * Turns the client's errors into the storage errors the server renders
 * (src/server/respond.ts): a missed deadline is a 504 whose write outcome is
 * unknown; an open circuit, an unreachable or failing etcd a 500.
 */
function storageError(etcd: EtcdModule, isBrokenCircuit: (err: unknown) => boolean, err: unknown): unknown {
  if (err instanceof etcd.GRPCDeadlineExceededError) return new StorageTimeoutError(`etcd did not answer in time: ${err.message}`);
  if (isBrokenCircuit(err)) return new StorageUnavailableError('etcd is unavailable: too many failed calls, retrying shortly');
  if (err instanceof Error && (etcd.isRecoverableError(err) || err instanceof etcd.ClientClosedError)) {
    return new StorageUnavailableError(`etcd is unavailable: ${err.message}`);
  }
  return err;
}

export class EtcdStorage implements Storage {
  readonly name = 'etcd';
  private readonly client: Etcd3;
  /** Watches get their own connection: on a shared HTTP/2 connection a busy moment fills the
   * stream's window and etcd marks the watch slow, delivering events late in batches. */
  private readonly watchClient: Etcd3;
  /** Health probes get a client without a circuit breaker, so each probe asks etcd itself (upstream's prober). */
  private readonly probeClient: Etcd3;
  private readonly prefix: string;
  private readonly mapError: (err: unknown) => unknown;
  private compacted = 0;
  private lastProbe: { started: number; result: Promise<void> } | undefined;

  /** Connects lazily: the gRPC client costs a third of a second to load, so only etcd users pay it. */
  static async connect(options: EtcdOptions): Promise<EtcdStorage> {
    const [etcd, cockatiel] = await Promise.all([import('etcd3'), import('cockatiel')]);
    const timeoutMs = options.callTimeoutMs || DEFAULT_CALL_TIMEOUT_MS;
    const base: IOptions = {
      hosts: options.servers,
      grpcOptions: GRPC_OPTIONS,
      defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeoutMs }),
    };
    const client = () =>
      new etcd.Etcd3({
        ...base,
        faultHandling: {
          // The client's default retries "recoverable" errors, deadlines included: that re-sends a
          // write etcd may already have applied (our own create would come back AlreadyExists).
          global: cockatiel.noop,
          host: () =>
            failFastWhileTrying(
              cockatiel,
              cockatiel.circuitBreaker(cockatiel.handleWhen(etcd.isRecoverableError), {
                halfOpenAfter: BREAKER_HALF_OPEN_MS,
                breaker: new cockatiel.ConsecutiveBreaker(BREAKER_FAILURES),
              }),
            ),
          // etcd3 calls next() on this for every fresh sequence, as on its own default (this same
          // factory); its declared type, an IBackoff, is what next() returns.
          watchBackoff: new cockatiel.ExponentialBackoff(WATCH_BACKOFF) as unknown as IBackoff<unknown>,
        },
      });
    const probeClient = new etcd.Etcd3({ ...base, defaultCallOptions: {}, faultHandling: { global: cockatiel.noop, host: () => cockatiel.noop } });
    const mapError = (err: unknown) => storageError(etcd, cockatiel.isBrokenCircuitError, err);
    return new EtcdStorage(client(), client(), probeClient, options.prefix ?? '/registry', mapError);
  }

  private constructor(client: Etcd3, watchClient: Etcd3, probeClient: Etcd3, prefix: string, mapError: (err: unknown) => unknown) {
    this.client = client;
    this.watchClient = watchClient;
    this.probeClient = probeClient;
    this.prefix = prefix;
    this.mapError = mapError;
  }

  /** One unary call with its errors mapped to storage errors; never retried. */
  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw this.mapError(err);
    }
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
      return await this.call(() => this.client.kv.range(request));
    } catch (err) {
      if (isCompactedError(err)) throw new CompactedError(Number(request.revision ?? 0), this.compacted);
      throw err;
    }
  }

  private txn(request: Parameters<Etcd3['kv']['txn']>[0]) {
    return this.call(() => this.client.kv.txn(request));
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
    // Pages at the first page's revision: one snapshot, and no single answer past gRPC's
    // message limit however many objects there are (a cache's start-up list of 100,000).
    for (;;) {
      const pageSize = limit && !options.filter ? Math.min(limit - items.length, LIST_PAGE) : LIST_PAGE;
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
    const res = await this.txn({
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
    const res = await this.txn({
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
    const res = await this.txn({
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

  /**
   * Streams changes after `fromRevision`. The client re-opens a broken stream by
   * itself (SIGKILL, restart); it would resume after the revision in the last
   * response header, which for a watch still catching up or just created is the
   * store's revision, not the last event delivered, so the resume point is kept
   * here: after the last event, or the last progress notification (etcd sends
   * those only to watches that have caught up). A cancelled watch (its revision
   * was compacted) reports onError; the cacher then relists.
   */
  watch(prefix: string, fromRevision: number, onEvent: (e: StorageEvent) => void, onError: (err: Error) => void): Watch {
    let stopped = false;
    if (fromRevision && fromRevision < this.compacted) {
      queueMicrotask(() => onError(new CompactedError(fromRevision, this.compacted)));
      return { stop: () => {} };
    }
    let delivered = fromRevision;
    let connectedOnce = false;
    let disconnected = false;
    const watcher: Watcher = this.watchClient
      .watch()
      .prefix(this.toEtcd(prefix))
      .withPreviousKV()
      .startRevision(String(fromRevision + 1))
      .watcher();
    // These run after the client's own listeners, which move the resume point to the header's revision.
    const resumeAfterDelivered = () => {
      watcher.request.start_revision = delivered + 1;
    };
    watcher.on('connected', () => {
      resumeAfterDelivered();
      if (disconnected) console.error(`etcd watch: reconnected, resuming after revision ${delivered}`);
      connectedOnce = true;
      disconnected = false;
    });
    watcher.on('disconnected', (err) => {
      if (stopped || disconnected) return;
      disconnected = true;
      console.error(`etcd watch: ${connectedOnce ? 'disconnected' : 'cannot connect'}, retrying: ${err.message}`);
    });
    watcher.on('data', (res: IWatchResponse) => {
      if (stopped) return;
      if (res.events.length === 0 && !res.canceled) delivered = Math.max(delivered, Number(res.header.revision));
      for (const event of res.events) {
        const kv = event.kv;
        const revision = Number(kv.mod_revision);
        delivered = Math.max(delivered, revision);
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
      resumeAfterDelivered();
    });
    let cancelledByEtcd = false;
    watcher.on('error', (err) => {
      cancelledByEtcd = true;
      if (stopped) return;
      stopped = true;
      // etcd 3.4 cancels a watch whose start revision was compacted without saying so in the reason.
      onError(isCompactedError(err) ? new CompactedError(delivered + 1, this.compacted) : new Error(`etcd cancelled the watch resuming after revision ${delivered} (compacted?): ${err.message}`));
    });
    return {
      stop: () => {
        stopped = true;
        // A watch etcd cancelled is gone from the client already; cancelling it again would never settle.
        if (!cancelledByEtcd) watcher.cancel().catch(() => {});
      },
    };
  }

  /** A write of the progress marker: its event reaches every watch under the prefix (see Storage). */
  async requestProgress(): Promise<void> {
    await this.call(() => this.client.put(this.toEtcd(PROGRESS_KEY)).value(String(Date.now())).exec());
  }

  async currentRevision(): Promise<number> {
    const res = await this.range({ key: this.toEtcd('/'), limit: 1, keys_only: true });
    return Number(res.header.revision);
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  async compact(revision: number): Promise<void> {
    try {
      await this.call(() => this.client.kv.compact({ revision, physical: false }));
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
    const result = this.call(() => this.probeClient.maintenance.status({ deadline: now + timeoutMs })).then(() => {});
    // Shared by later callers; a probe nobody awaits any more must not count as unhandled.
    result.catch(() => {});
    this.lastProbe = { started: now, result };
    return result;
  }

  async close(): Promise<void> {
    this.client.close();
    this.watchClient.close();
    this.probeClient.close();
  }
}
