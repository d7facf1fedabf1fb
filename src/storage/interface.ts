/**
 * The one storage interface every backend implements (DESIGN "Storage"). Keys
 * are opaque strings ordered bytewise; values are serialized objects without
 * their resourceVersion, which is the backend's global revision (SPEC 4.6).
 */
import { OutcomeError } from '../util/outcome-error.ts';
import type { DeadlineSignal } from '../util/deadline-signal.ts';

export interface KeyValue<Value extends string | Buffer = string> {
  key: string;
  /** Serialized object as stored: JSON text, or its UTF-8 bytes (Storage.listBytes). */
  value: Value;
  /** Revision of the write that produced this value: the object's resourceVersion. */
  modRevision: number;
  createRevision: number;
}

export interface ListOptions {
  /** Every key starting with this prefix. */
  prefix: string;
  /** First key to return (inclusive); continues a chunked list. */
  startKey?: string;
  /** At most this many items; 0 or absent = all. */
  limit?: number;
  /** Read the state as of this revision; 0 or absent = current. */
  revision?: number;
  /** Items failing this are skipped without counting towards limit. */
  filter?: (kv: KeyValue) => boolean;
}

export interface ListResult<Value extends string | Buffer = string> {
  items: Array<KeyValue<Value>>;
  /** The revision the list was read at. */
  revision: number;
  /** More matching keys exist after the last item. */
  more: boolean;
  /** Keys after the last returned item (before filtering), when more. */
  remaining: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StorageEvent {
  type: WatchEventType;
  key: string;
  /** The new value; for DELETED the last value before deletion. */
  value: string;
  /** For MODIFIED and DELETED, the value the write replaced. */
  prevValue?: string;
  revision: number;
  createRevision: number;
}

export interface Watch {
  stop(): void;
}

/** A revision older than the compacted revision was requested. */
export class CompactedError extends OutcomeError {
  constructor(readonly requested: number, readonly compacted: number) {
    super(`required revision ${requested} has been compacted (compacted revision ${compacted})`);
  }
}

/** A compare-and-swap lost: the key changed or (dis)appeared since it was read. */
export class CasFailedError extends OutcomeError {
  constructor(readonly key: string, readonly current: KeyValue | null) {
    super(`compare-and-swap failed for ${key}`);
  }
}

export class KeyExistsError extends OutcomeError {
  constructor(readonly key: string) {
    super(`key ${key} already exists`);
  }
}

/**
 * What bounds one write. A request past its deadline (--request-timeout) has
 * already been answered 504; its write must not reach the store afterwards, so
 * a refused request changes nothing (DESIGN: every request bounded in time).
 */
export interface WriteControl {
  /** Aborted at the request's deadline: a write not yet handed to the store is dropped with DeadlineExceededError. */
  signal?: DeadlineSignal;
}

/** The request's deadline passed before its write reached the store; nothing was written. */
export class DeadlineExceededError extends OutcomeError {
  constructor() {
    super('request did not complete within the allotted timeout');
  }
}

/**
 * The store did not answer in time (a frozen or partitioned etcd). For a write
 * the outcome is unknown: it may still be applied, as with upstream's etcd
 * timeouts; a watch that follows will show it.
 */
export class StorageTimeoutError extends Error {}

/** The store refused or could not take the call (unreachable, disk full, I/O error). */
export class StorageUnavailableError extends Error {}

/** Makes the bytes a list keeps of a stored value at its revision (Storage.listBytes). */
export type PackValue = (value: string | Buffer, revision: number) => Buffer;

export interface Storage {
  readonly name: string;
  /** Current value of a key at a revision (0 = latest), or null. */
  get(key: string, revision?: number): Promise<KeyValue | null>;
  list(options: ListOptions): Promise<ListResult>;
  /**
   * A whole range as `list` reads it, each value handed to `pack` with its
   * revision as it is read, and kept as what `pack` makes of it: the watch
   * cache packs values into its slabs off V8's heap (value-slabs.ts), and
   * 1,000,000 values kept as text until the list ended were 1.5 GB of strings
   * for V8 to copy and collect. The store's text or bytes, whichever it holds.
   */
  listBytes(options: Pick<ListOptions, 'prefix' | 'revision'>, pack: PackValue): Promise<ListResult<Buffer>>;
  /** Counts live keys under a prefix at the current revision. */
  count(prefix: string): Promise<number>;
  /** Writes a key that must not exist; resolves to the new revision. */
  create(key: string, value: string, control?: WriteControl): Promise<number>;
  /** Replaces a key whose modRevision is still `expectedRevision`; throws CasFailedError otherwise. */
  update(key: string, value: string, expectedRevision: number, control?: WriteControl): Promise<number>;
  /** Deletes a key whose modRevision is still `expectedRevision`; throws CasFailedError otherwise. */
  delete(key: string, expectedRevision: number, control?: WriteControl): Promise<number>;
  /** Streams every change under the prefix after `fromRevision`, in revision order. */
  watch(prefix: string, fromRevision: number, onEvent: (event: StorageEvent) => void, onError: (err: Error) => void): Watch;
  currentRevision(): Promise<number>;
  /** Oldest revision still readable (everything at or before is compacted). */
  compactedRevision(): Promise<number>;
  /** Drops superseded history at or before `revision`. */
  compact(revision: number): Promise<void>;
  /**
   * Makes every open watch observe a revision at least as new as the current one,
   * even when the latest writes were outside the watched keys. etcd 3.4 has no
   * on-demand progress request, so etcd writes a marker key under its prefix;
   * SQLite's watch sees every revision already and does not need it.
   */
  requestProgress?(): Promise<void>;
  /**
   * A cheap round trip for the health checks (SPEC 4.10); rejects when it takes
   * longer than `timeoutMs`. With `readiness` the store must also be able to take
   * writes (an embedded store whose disk is full stays live but is not ready).
   */
  ping(timeoutMs: number, readiness?: boolean): Promise<void>;
  close(): Promise<void>;
}
