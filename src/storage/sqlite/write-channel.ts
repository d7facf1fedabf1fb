/**
 * The messages between the SQLite writer and its worker replicas (issue 10:
 * every core, writes funnelled to one writer). A worker sends each write; the
 * writer commits it in its group commit and answers with one message per
 * worker per commit, which carries the commit's events first and then that
 * worker's answers, so a worker's watch cache has a write before the write's
 * caller hears it succeeded. Errors cross as data and become the same error
 * classes on the other side.
 */
import {
  CasFailedError,
  DeadlineExceededError,
  KeyExistsError,
  StorageTimeoutError,
  StorageUnavailableError,
  type KeyValue,
  type StorageEvent,
} from '../interface.ts';

/** Anything that carries messages both ways: a cluster worker's IPC channel, a MessagePort. */
export interface Channel<Out, In> {
  send(message: Out): void;
  /** Subscribes; returns the unsubscribe. */
  onMessage(listener: (message: In) => void): () => void;
  /** Called once when the other side is gone. */
  onClose(listener: () => void): void;
}

export type WriteOp = { op: 'create'; key: string; value: string } | { op: 'update' | 'delete'; key: string; value?: string; expected: number };

export type ToWriter =
  | ({ t: 'write'; id: number } & WriteOp)
  /** The request's deadline passed: drop the write unless it already committed. */
  | { t: 'cancel'; id: number }
  /** Readiness: can the writer take writes? */
  | { t: 'ready'; id: number }
  /** Drop superseded history up to a revision (the writer alone changes the file). */
  | { t: 'compact'; id: number; revision: number };

export type WireError =
  | { kind: 'cas'; key: string; current: KeyValue | null }
  | { kind: 'exists'; key: string }
  | { kind: 'deadline' }
  | { kind: 'timeout'; message: string }
  | { kind: 'unavailable'; message: string }
  | { kind: 'other'; message: string };

export interface Answer {
  id: number;
  revision?: number;
  error?: WireError;
}

export type FromWriter = { t: 'batch'; events: StorageEvent[]; answers: Answer[] };

export type WriterChannel = Channel<ToWriter, FromWriter>;
export type ReplicaChannel = Channel<FromWriter, ToWriter>;

export function toWire(err: unknown): WireError {
  if (err instanceof CasFailedError) return { kind: 'cas', key: err.key, current: err.current };
  if (err instanceof KeyExistsError) return { kind: 'exists', key: err.key };
  if (err instanceof DeadlineExceededError) return { kind: 'deadline' };
  if (err instanceof StorageTimeoutError) return { kind: 'timeout', message: err.message };
  if (err instanceof StorageUnavailableError) return { kind: 'unavailable', message: err.message };
  return { kind: 'other', message: err instanceof Error ? err.message : String(err) };
}

export function fromWire(wire: WireError): Error {
  switch (wire.kind) {
    case 'cas':
      return new CasFailedError(wire.key, wire.current);
    case 'exists':
      return new KeyExistsError(wire.key);
    case 'deadline':
      return new DeadlineExceededError();
    case 'timeout':
      return new StorageTimeoutError(wire.message);
    case 'unavailable':
      return new StorageUnavailableError(wire.message);
    default:
      return new Error(wire.message);
  }
}
