/**
 * A bounded cache whose entries expire (upstream's LRUExpireCache): each entry
 * has its own time to live, a read refreshes its place, and past `maxEntries`
 * the least recently used entry goes. The webhooks cache their answers here
 * (SPEC 5.1, 5.2).
 */
export class ExpiringCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    // Map order is recency order: re-inserting makes it the newest.
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` for `ttlMs`; a TTL of 0 or less keeps nothing (upstream's entry expires at once). */
  set(key: K, value: V, ttlMs: number): void {
    this.entries.delete(key);
    if (ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
