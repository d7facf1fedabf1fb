/**
 * A deduplicating work queue for controllers (SPEC 3): a key queued while
 * pending runs once; a failed item is retried after a delay that doubles with
 * each consecutive failure of its key, so a store that is down for a while
 * (issue 7) is retried at a bounded rate rather than in a tight loop, and the
 * work carries on by itself once it answers. One item runs at a time.
 */

/** Longest delay between retries of a failing key. */
const MAX_RETRY_MS = 5_000;

export class WorkQueue<T> {
  private readonly pending = new Map<string, T>();
  /** Consecutive failures per key; cleared when the key's item succeeds. */
  private readonly failures = new Map<string, number>();
  private running = false;
  private stopped = false;

  constructor(
    private readonly process: (item: T) => Promise<void>,
    private readonly retryMs = 200,
  ) {}

  add(key: string, item: T): void {
    if (this.stopped) return;
    this.pending.set(key, item);
    if (!this.running) void this.drain();
  }

  later(key: string, item: T, delayMs = this.retryMs): void {
    setTimeout(() => this.add(key, item), delayMs).unref();
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.pending.size && !this.stopped) {
      const [key, item] = this.pending.entries().next().value as [string, T];
      this.pending.delete(key);
      try {
        await this.process(item);
        this.failures.delete(key);
      } catch (err) {
        const code = (err as { code?: number }).code;
        // Conflicts and vanished objects are normal races: look again shortly.
        if (code === 409 || code === 404) {
          this.later(key, item);
          continue;
        }
        const failures = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, failures);
        console.error(`controller: ${key} (failure ${failures}):`, err);
        this.later(key, item, Math.min(this.retryMs * 2 ** (failures - 1), MAX_RETRY_MS));
      }
    }
    this.running = false;
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
  }
}
