/**
 * A deduplicating work queue for controllers: a key queued while pending runs
 * once; a failed item is retried after a delay. One item runs at a time.
 */
export class WorkQueue<T> {
  private readonly pending = new Map<string, T>();
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
      } catch (err) {
        const code = (err as { code?: number }).code;
        // Conflicts and vanished objects are normal races: look again shortly.
        if (code !== 409 && code !== 404) console.error(`controller: ${key}:`, err);
        this.later(key, item);
      }
    }
    this.running = false;
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
  }
}
