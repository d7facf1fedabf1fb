/**
 * What the layers below the server need of a request's deadline: whether it
 * has passed, why, and a call when it does. AbortSignal has this shape, so a
 * caller may pass one; the server's deadlines (src/server/request-limits.ts)
 * implement it themselves, because on Node 20 an AbortController outlived its
 * request: each one was copied into the old generation by the young
 * generation's collections (443 B a request in a bare node:https server; not
 * so on Node 22), and every write asks for its request's signal.
 */
export interface DeadlineSignal {
  readonly aborted: boolean;
  /** Why it was aborted; undefined before. */
  readonly reason: unknown;
  /** `listener` runs once, when the deadline passes; never when it has passed already (as with AbortSignal). */
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A {@link DeadlineSignal} aborted by its owner. */
export class DeadlineAbort implements DeadlineSignal {
  aborted = false;
  reason: unknown;
  private listeners: Array<() => void> | undefined;

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.listeners!.splice(at, 1);
  }

  /** Aborts once, with `reason`; each listener runs once, and one that throws is logged without keeping the rest from running. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) {
      try {
        listener();
      } catch (err) {
        console.error('an abort listener failed:', err);
      }
    }
  }
}
