/**
 * The namespace controller (SPEC 2.1, 3): a namespace being deleted (Terminating,
 * `orch` in spec.finalizers) has every namespaced object in it deleted, each
 * through its own store so its finalizers are respected; once none remain, the
 * `orch` finalizer is removed through /finalize and the namespace goes.
 */
import { storedResourcePrefix } from '../registry/kind.ts';
import type { GenericStore } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import type { ResourceCaches } from '../storage/cacher/cacher.ts';
import { WorkQueue } from './work-queue.ts';

const FINALIZER = 'orch';

export class NamespaceController {
  readonly name = 'namespace-controller';
  private readonly queue = new WorkQueue<string>((name) => this.sync(name), 250);

  constructor(
    private readonly namespaces: GenericStore,
    private readonly finalize: GenericStore,
    private readonly namespacedStores: GenericStore[],
    private readonly cacher: ResourceCaches,
  ) {}

  private cacheOf(store: GenericStore) {
    return this.cacher.cache(storedResourcePrefix(store.kind));
  }

  start(): void {
    const namespaces = this.cacheOf(this.namespaces);
    for (const cached of namespaces.all()) this.consider(cached.parsed());
    namespaces.listeners.add((event) => event.type !== 'DELETED' && this.consider(event.object.parsed()));
    // Content disappearing may complete a namespace's termination.
    for (const store of this.namespacedStores) {
      const prefix = store.prefix(undefined);
      this.cacheOf(store).listeners.add((event) => {
        if (event.type !== 'DELETED') return;
        // The key names the namespace: no need to parse the object.
        const ns = event.object.key.slice(prefix.length).split('/')[0];
        if (ns && this.terminating(ns)) this.queue.add(ns, ns);
      });
    }
  }

  stop(): void {
    this.queue.stop();
  }

  private terminating(name: string): boolean {
    const ns = this.cacheOf(this.namespaces).get(this.namespaces.key(undefined, name))?.parsed();
    return !!ns?.metadata?.deletionTimestamp && (ns.spec?.finalizers ?? []).includes(FINALIZER);
  }

  private consider(ns: ApiObject): void {
    if (ns.metadata?.deletionTimestamp && (ns.spec?.finalizers ?? []).includes(FINALIZER)) this.queue.add(ns.metadata.name, ns.metadata.name);
  }

  private async sync(name: string): Promise<void> {
    if (!this.terminating(name)) return;
    let remaining = 0;
    for (const store of this.namespacedStores) {
      for (const cached of this.cacheOf(store).list(store.prefix(name))) {
        remaining++;
        // Parsed for this pass only: the cache does not keep a parsed copy of every object.
        const obj = JSON.parse(cached.value);
        if (obj.metadata.deletionTimestamp) continue;
        try {
          await store.delete(name, obj.metadata.name, { dryRun: false, propagationPolicy: 'Background', preconditions: { uid: obj.metadata.uid } });
        } catch (err) {
          if ((err as { code?: number }).code !== 404 && (err as { code?: number }).code !== 409) throw err;
        }
      }
    }
    if (remaining > 0) {
      // Objects held by finalizers: look again when they go (DELETED events) or shortly.
      this.queue.later(name, name, 1000);
      return;
    }
    await this.finalize.update(
      undefined,
      name,
      (current) => {
        const next = structuredClone(current!);
        next.spec = { ...(next.spec ?? {}), finalizers: (next.spec?.finalizers ?? []).filter((f: string) => f !== FINALIZER) };
        delete next.metadata.resourceVersion;
        return next;
      },
      { dryRun: false },
    );
  }
}
