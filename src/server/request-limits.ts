/**
 * Every request is bounded in time and in number (upstream
 * filters/request_deadline.go, filters/timeout.go, filters/maxinflight.go):
 * requests that are not long-running get a deadline (--request-timeout, or a
 * shorter `timeout` query parameter) after which the client gets 504 and the
 * request's writes are no longer sent to storage; at most
 * --max-requests-inflight reads and --max-mutating-requests-inflight writes run
 * at once, the rest get 429 with Retry-After.
 */
import type { ServerResponse } from 'node:http';
import * as errors from '../api/status-error.ts';
import { MASTERS_GROUP, type UserInfo } from '../api/user.ts';
import { DeadlineExceededError } from '../storage/interface.ts';
import { DeadlineAbort, type DeadlineSignal } from '../util/deadline-signal.ts';
import { DurationError, parseGoDuration } from '../util/go-duration.ts';
import type { RequestInfo } from '../http/request-info.ts';

export interface RequestLimits {
  /** --request-timeout in milliseconds; 0 = no deadline. */
  requestTimeoutMs: number;
  /** 0 = no limit. */
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
}

/** Upstream's long-running check: watches are not bounded by the request timeout nor counted in flight. */
export function isLongRunning(info: RequestInfo): boolean {
  return info.verb === 'watch';
}

/** Probes are never throttled: upstream's default priority-and-fairness configuration exempts them too. */
const PROBE_PATHS = /^\/(healthz|livez|readyz)(\/|$)/;

/**
 * The deadline of one request in milliseconds: --request-timeout, or the `timeout`
 * query parameter when it is a shorter positive Go duration; an unparsable one is 400.
 */
export function deadlineFor(query: URLSearchParams, requestTimeoutMs: number): number {
  const value = query.get('timeout');
  if (!value) return requestTimeoutMs;
  let requested: number;
  try {
    requested = parseGoDuration(value);
  } catch (err) {
    if (err instanceof DurationError) throw errors.badRequest(`invalid timeout specified in the request URL - ${err.message}`);
    throw err;
  }
  return requested > 0 && (requested < requestTimeoutMs || requestTimeoutMs === 0) ? requested : requestTimeoutMs;
}

export interface Deadline {
  /** Aborted when the deadline passes. */
  readonly signal: DeadlineSignal;
  clear(): void;
}

/** One request's deadline, itself the signal of its passing; see {@link Deadlines}. */
class RequestDeadline extends DeadlineAbort implements Deadline {
  /** Its neighbours in the list of {@link Deadlines} that watches it, while it is there. */
  older: RequestDeadline | undefined;
  newer: RequestDeadline | undefined;
  /** Who watches it: the shared list, or a timer of its own; neither once it is cleared or has expired. */
  watchedBy: Deadlines | NodeJS.Timeout | undefined;

  constructor(
    readonly at: number,
    private readonly res: ServerResponse,
    private readonly onExpiry: () => void,
  ) {
    super();
  }

  get signal(): DeadlineSignal {
    return this;
  }

  clear(): void {
    const watcher = this.watchedBy;
    if (watcher instanceof Deadlines) watcher.remove(this);
    else if (watcher) clearTimeout(watcher);
    this.watchedBy = undefined;
  }

  /** 504 if nothing was sent yet; a response already streaming is cut, as upstream's timeout handler aborts it. */
  expire(): void {
    this.watchedBy = undefined;
    this.abort(new DeadlineExceededError());
    if (this.res.writableEnded) return;
    if (this.res.headersSent) this.res.destroy();
    else this.onExpiry();
  }
}

/**
 * The deadlines of all requests. A timer per request cost about 10 us of a
 * cached GET's 50, so the deadlines of the default length share one timer:
 * they expire in the order they started, so they are kept oldest first in a
 * doubly linked list through the deadlines themselves (a finished request
 * unlinks its own), and the timer is armed for the oldest. A shorter deadline
 * from the `timeout` parameter, which is rare, gets its own timer.
 *
 * Not a Set: V8 replaces a Set's table as entries come and go, and a replaced
 * table keeps its entries and a link to its successor. Once one such table
 * had been promoted, V8's young-generation collections took every later table
 * and the requests their entries held as live, so every request that waited
 * past its loop turn (each consistent GET waits for the store's revision) was
 * copied into the old generation: 1.7 KB a GET, a full collection every 160 ms
 * and each young collection 3-4 ms instead of 0.8. A removed deadline here keeps no link.
 */
export class Deadlines {
  private oldest: RequestDeadline | undefined;
  private newest: RequestDeadline | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly defaultMs: number) {}

  /** Starts a deadline of `ms` (0: none); `onExpiry` answers the request when it passes unanswered. */
  start(res: ServerResponse, ms: number, onExpiry: () => void): Deadline {
    const deadline = new RequestDeadline(Date.now() + ms, res, onExpiry);
    if (ms <= 0) return deadline;
    if (ms !== this.defaultMs) {
      deadline.watchedBy = setTimeout(() => deadline.expire(), ms);
      return deadline;
    }
    deadline.watchedBy = this;
    deadline.older = this.newest;
    if (this.newest) this.newest.newer = deadline;
    else this.oldest = deadline;
    this.newest = deadline;
    if (!this.timer) this.arm(ms);
    return deadline;
  }

  /** Unlinks `deadline`, which this list holds, and drops its links so that nothing it once neighboured is kept through it. */
  remove(deadline: RequestDeadline): void {
    const { older, newer } = deadline;
    if (older) older.newer = newer;
    else this.oldest = newer;
    if (newer) newer.older = older;
    else this.newest = older;
    deadline.older = deadline.newer = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.expireDue(), ms);
    this.timer.unref();
  }

  private expireDue(): void {
    this.timer = undefined;
    const now = Date.now();
    for (let deadline = this.oldest; deadline; deadline = this.oldest) {
      if (deadline.at > now) return this.arm(deadline.at - now);
      this.remove(deadline);
      deadline.expire();
    }
  }
}

const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);

/** --max-requests-inflight and --max-mutating-requests-inflight. */
export class InflightLimiter {
  private readOnly = 0;
  private mutating = 0;

  constructor(private readonly limits: RequestLimits) {}

  /** The requests holding a slot now, for apiserver_current_inflight_requests. */
  current(): { readOnly: number; mutating: number } {
    return { readOnly: this.readOnly, mutating: this.mutating };
  }

  /**
   * Takes a slot for the request, or throws 429 when its kind is full; returns
   * the release. Long-running requests and probes take none; members of
   * system:masters are let through a full limit, as upstream does.
   */
  admit(info: RequestInfo, user: UserInfo): () => void {
    if (isLongRunning(info) || (!info.isResourceRequest && PROBE_PATHS.test(info.path))) return () => {};
    const mutating = !NON_MUTATING_VERBS.has(info.verb);
    const limit = mutating ? this.limits.maxMutatingRequestsInflight : this.limits.maxRequestsInflight;
    if (limit === 0) return () => {};
    if ((mutating ? this.mutating : this.readOnly) >= limit) {
      if (user.groups.includes(MASTERS_GROUP)) return () => {};
      throw errors.tooManyRequests();
    }
    if (mutating) this.mutating++;
    else this.readOnly++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (mutating) this.mutating--;
      else this.readOnly--;
    };
  }
}
