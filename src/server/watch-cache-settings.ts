/**
 * Which resources the watch cache serves (upstream's --watch-cache and
 * --watch-cache-sizes, kube-apiserver 1.31): a resource whose size is 0 has its
 * API reads and watches served by the store itself, as upstream's undecorated
 * storage. The server's own readers (controllers, authorizers, admission) keep
 * the cache either way; only what clients see changes.
 */

/** `resource.group`, the core group without a dot: schema.GroupResource's String(). */
export type GroupResourceName = string;

/**
 * kube-apiserver's DefaultWatchCacheSizes: events are read from the store, not
 * cached for clients, unless --watch-cache-sizes says otherwise.
 */
const DEFAULT_SIZES: ReadonlyArray<[GroupResourceName, number]> = [
  ['events', 0],
  ['events.events.orch.io', 0],
];

/** One `resource[.group]#size` entry as upstream's ParseWatchCacheSizes reads it, with its messages. */
function parseEntry(entry: string): [GroupResourceName, number] {
  const tokens = entry.split('#');
  if (tokens.length !== 2) throw new Error(`invalid value of watch cache size: ${entry}`);
  // strconv.Atoi: an optional sign and decimal digits, within int64.
  if (!/^[+-]?\d+$/.test(tokens[1]) || !Number.isSafeInteger(Number(tokens[1]))) throw new Error(`invalid size of watch cache size: ${entry}`);
  const size = Number(tokens[1]);
  if (size < 0) throw new Error(`watch cache size cannot be negative: ${entry}`);
  return [groupResourceName(tokens[0]), size];
}

/** schema.ParseGroupResource then String(): the resource up to the first dot, the group after it. */
function groupResourceName(text: string): GroupResourceName {
  const dot = text.indexOf('.');
  if (dot < 0) return text;
  // "events." names the core group's events, as a missing group does.
  const group = text.slice(dot + 1);
  return group ? text : text.slice(0, dot);
}

export class WatchCacheSettings {
  private readonly sizes: Map<GroupResourceName, number>;

  /**
   * @param enabled --watch-cache: false serves every resource, built-in or custom, from the store.
   * @param entries --watch-cache-sizes; later entries win, and they override the defaults.
   */
  constructor(
    readonly enabled = true,
    entries: readonly string[] = [],
  ) {
    this.sizes = new Map(DEFAULT_SIZES);
    for (const entry of entries) {
      const [name, size] = parseEntry(entry);
      this.sizes.set(name, size);
    }
  }

  /** Checks a --watch-cache-sizes value at start-up: upstream refuses the server on any bad entry. */
  static validate(entries: readonly string[]): void {
    for (const entry of entries) parseEntry(entry);
  }

  /**
   * Whether clients' reads of a built-in resource go through the watch cache.
   * Upstream sizes apply to resources built into the server; custom resources
   * follow --watch-cache alone.
   */
  servesBuiltIn(group: string, resource: string): boolean {
    if (!this.enabled) return false;
    return this.sizes.get(group ? `${resource}.${group}` : resource) !== 0;
  }

  servesCustom(): boolean {
    return this.enabled;
  }

  /** Non-zero sizes name no limit: upstream sizes its caches itself and only logs that it drops them. */
  ignoredSizes(): GroupResourceName[] {
    return [...this.sizes].filter(([, size]) => size > 0).map(([name]) => name);
  }
}
