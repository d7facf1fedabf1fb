/**
 * Timers for durations a client or an operator chooses. Node's setTimeout
 * holds at most 2^31-1 ms (about 24.8 days); a longer delay fires after 1 ms,
 * so a watch asking for timeoutSeconds=99999999 would end at once. These chain
 * shorter timers instead, and treat any delay that is not a finite number as
 * "never".
 */

const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LongTimer {
  clear(): void;
}

/** Runs `callback` once after `ms` milliseconds, however large; `unref` lets the process exit meanwhile. */
export function setLongTimeout(callback: () => void, ms: number, options: { unref?: boolean } = {}): LongTimer {
  let timer: NodeJS.Timeout | undefined;
  let cleared = false;
  const deadline = Date.now() + Math.max(0, ms);
  const arm = () => {
    if (cleared) return;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return callback();
    timer = setTimeout(arm, Math.min(remaining, MAX_TIMER_MS));
    if (options.unref) timer.unref();
  };
  if (Number.isFinite(deadline)) {
    timer = setTimeout(arm, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    if (options.unref) timer.unref();
  }
  return {
    clear() {
      cleared = true;
      clearTimeout(timer);
    },
  };
}

/** Resolves after `ms` milliseconds, however large. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setLongTimeout(resolve, ms));
}

/** setInterval for operator-chosen periods: clamped to the timer range, so a huge period is "rarely", never "every millisecond". */
export function setClampedInterval(callback: () => void, ms: number): NodeJS.Timeout {
  return setInterval(callback, Math.min(Math.max(1, ms), MAX_TIMER_MS));
}

/** Runs `task` until it succeeds, waiting `intervalMs` between tries, for at most `totalMs`; then the last failure. */
export async function retryFor<T>(totalMs: number, intervalMs: number, task: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + totalMs;
  for (;;) {
    try {
      return await task();
    } catch (err) {
      if (Date.now() + intervalMs > deadline) throw err;
      await sleep(intervalMs);
    }
  }
}
