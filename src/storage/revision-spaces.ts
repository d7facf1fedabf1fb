/**
 * Where each resource is stored (--etcd-servers-overrides, upstream's
 * DefaultStorageFactory.SetEtcdLocation): every resource lives in one store,
 * the main one unless an override names its key space. Each store is its own
 * revision space (resourceVersions are that store's revisions), so each has
 * its own watch cache state: its own storage watch, revision and waiters.
 * Callers ask this module for a resource's store and cacher by its key prefix
 * (`/<group>/<resource>/`) instead of holding one of each.
 */
import { Cacher, type CacherOptions, type RuntimeResourceCaches } from './cacher/cacher.ts';
import type { ResourceCache } from './cacher/resource-cache.ts';
import type { Storage } from './interface.ts';

/** One store and the watch cache that follows it. */
export interface RevisionSpace {
  readonly storage: Storage;
  readonly cacher: Cacher;
}

/** A store some resources are moved to, and the key prefixes of those resources. */
export interface StorageOverride {
  storage: Storage;
  resourcePrefixes: readonly string[];
}

export class RevisionSpaces implements RuntimeResourceCaches {
  readonly main: RevisionSpace;
  private readonly overrides: Array<RevisionSpace & { resourcePrefixes: readonly string[] }>;
  private readonly byPrefix = new Map<string, RevisionSpace>();

  constructor(main: Storage, overrides: readonly StorageOverride[], cacherOptions: CacherOptions) {
    this.main = { storage: main, cacher: new Cacher(main, cacherOptions) };
    this.overrides = overrides.map((o) => ({ storage: o.storage, cacher: new Cacher(o.storage, cacherOptions), resourcePrefixes: o.resourcePrefixes }));
    for (const space of this.overrides) {
      for (const prefix of space.resourcePrefixes) {
        if (this.byPrefix.has(prefix)) throw new Error(`resource ${prefix} is given two stores`);
        this.byPrefix.set(prefix, space);
      }
    }
  }

  /** The space of a resource by its key prefix: an override's, or the main store's. */
  forPrefix(resourcePrefix: string): RevisionSpace {
    return this.byPrefix.get(resourcePrefix) ?? this.main;
  }

  /** The store of a resource by its key prefix. */
  storage(resourcePrefix: string): Storage {
    return this.forPrefix(resourcePrefix).storage;
  }

  /** Every space, the main one first. */
  all(): RevisionSpace[] {
    return [this.main, ...this.overrides];
  }

  /**
   * Starts every space's cacher on its own resources: each lists its resources
   * at its store's revision and watches from there. An override names only
   * resources compiled into the server, so every override prefix is cached.
   */
  async start(resourcePrefixes: readonly string[]): Promise<void> {
    await Promise.all(this.all().map((space) => space.cacher.start(resourcePrefixes.filter((prefix) => this.forPrefix(prefix) === space))));
  }

  cache(resourcePrefix: string): ResourceCache {
    return this.forPrefix(resourcePrefix).cacher.cache(resourcePrefix);
  }

  /** A resource added at run time (a custom resource): overrides apply only to built-in resources, so it is the main store's. */
  addResource(resourcePrefix: string): Promise<ResourceCache> {
    return this.main.cacher.addResource(resourcePrefix);
  }

  removeResource(resourcePrefix: string): void {
    this.main.cacher.removeResource(resourcePrefix);
  }

  /** Every space's object counts by resource prefix (for apiserver_storage_objects). */
  objectCounts(): Map<string, number> {
    return new Map(this.all().flatMap((space) => [...space.cacher.objectCounts()]));
  }

  /** For /readyz "watch-cache": every space's cache is live. */
  async check(): Promise<void> {
    await Promise.all(this.all().map((space) => space.cacher.check()));
  }

  /** SPEC 4.6 "Most Recent" over every space, for a check that reads resources of several (RBAC's escalation check). */
  async waitUntilFresh(timeoutMs: number): Promise<void> {
    await Promise.all(this.all().map((space) => space.cacher.waitUntilFresh(timeoutMs)));
  }

  stop(): void {
    for (const space of this.all()) space.cacher.stop();
  }

  /** Closes every store, the overrides' before the main one. */
  async close(): Promise<void> {
    for (const space of this.overrides) await space.storage.close();
    await this.main.storage.close();
  }
}
