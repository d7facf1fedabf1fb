/**
 * The garbage collector (SPEC 3; FACTS 3 DeleteOptions): follows ownerReferences.
 * - An object all of whose owners are gone is deleted (Background propagation);
 *   references to owners that are gone are removed from objects that keep others.
 * - An owner deleted with `foregroundDeletion` loses that finalizer once its
 *   dependents are gone (it deletes them first).
 * - An owner deleted with `orphan` loses that finalizer once its dependents no
 *   longer reference it.
 * It reads from the watch cache and writes through the generic stores, like any client.
 */
import { storedResourcePrefix } from '../registry/kind.ts';
import type { GenericStore } from '../registry/store.ts';
import type { ResourceCaches } from '../storage/cacher/cacher.ts';
import type { CacheEvent } from '../storage/cacher/cache-event.ts';
import type { CachedObject } from '../storage/cacher/cached-object.ts';
import { WorkQueue } from './work-queue.ts';

interface Located {
  store: GenericStore;
  namespace: string | undefined;
  name: string;
}

/** What deletion needs of an object. */
interface Facts {
  owners: readonly string[];
  deleting: boolean;
  finalizers: readonly string[];
}

/** What the collector keeps of an object with owners or in deletion: where it is and what deletion needs, not the object. */
interface Summary extends Located, Facts {}

/** Shared by the many summaries with no owners or finalizers. */
const NONE: readonly string[] = Object.freeze([]);

/**
 * Every object without owners and not being deleted: the collector acts on it
 * only as an owner, for which its existence is enough. Kept as this one value,
 * such objects cost the graph their uid alone (a summary with its namespace
 * and name took 210 of the 1,000,000-object cache's MB).
 */
const PRESENT: Facts = Object.freeze({ owners: NONE, deleting: false, finalizers: NONE });

const isLocated = (facts: Facts): facts is Summary => 'store' in facts;

/** Objects start's scan summarizes per event-loop turn (about 10 ms of work on a slow host). */
const SCAN_SLICE = 2_000;

/**
 * Summarizes a stored object without keeping it. Only objects that mention owners
 * or deletion are parsed; for the rest the uid is read where the cache keeps the
 * bytes: stored objects are canonical, so the first `uid` is metadata.uid (before
 * ownerReferences).
 */
function summarize(store: GenericStore, object: CachedObject): { uid: string; summary: Facts } | undefined {
  const key = object.key;
  if (!object.storedIncludes('"ownerReferences"') && !object.storedIncludes('"deletionTimestamp"')) {
    const uid = object.storedTextAfter('"uid":"');
    return uid ? { uid, summary: PRESENT } : undefined;
  }
  const meta = JSON.parse(object.value).metadata ?? {};
  if (!meta.uid) return undefined;
  const owners = (meta.ownerReferences ?? []).map((r: { uid: string }) => r.uid);
  if (!owners.length && !meta.deletionTimestamp) return { uid: meta.uid, summary: PRESENT };
  const rest = key.slice(store.prefix(undefined).length);
  const slash = rest.indexOf('/');
  const namespaced = store.kind.namespaced && slash > 0;
  const summary: Summary = {
    store,
    namespace: namespaced ? rest.slice(0, slash) : undefined,
    name: namespaced ? rest.slice(slash + 1) : rest,
    owners,
    deleting: !!meta.deletionTimestamp,
    finalizers: meta.finalizers ?? [],
  };
  return { uid: meta.uid, summary };
}

type Item = { kind: 'dependent' | 'owner'; uid: string };

export class GarbageCollector {
  readonly name = 'garbage-collector-controller';
  /** uid -> where the object lives and what deletion needs of it. */
  private readonly byUid = new Map<string, Facts>();
  /** owner uid -> uids of objects naming it in ownerReferences. */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly queue = new WorkQueue<Item>((item) => (item.kind === 'owner' ? this.processOwner(item.uid) : this.processDependent(item.uid)));
  /** True while start's scan builds the graph: work is queued once it is whole. */
  private syncing = false;
  private scanTimer: NodeJS.Immediate | undefined;

  constructor(
    private readonly stores: GenericStore[],
    private readonly cacher: ResourceCaches,
  ) {}

  /**
   * Builds the graph from the caches in slices of SCAN_SLICE objects, one per
   * event-loop turn: at 1,000,000 objects the whole scan took 5 s, which a
   * server's readiness and requests waited out. Until it is done the graph is
   * incomplete, so nothing is queued (an owner not scanned yet would look gone,
   * as upstream's collector waits for its informers to sync); events meanwhile
   * keep the graph current. Each cache is walked by a live iterator, which
   * yields an entry's newest version and skips entries deleted before it gets there.
   */
  start(): void {
    this.syncing = true;
    const walks: { store: GenericStore; objects: Iterator<CachedObject> }[] = [];
    for (const store of this.stores) {
      const cache = this.cacher.cache(storedResourcePrefix(store.kind));
      cache.listeners.add((event) => this.onEvent(store, event));
      walks.push({ store, objects: cache.all() });
    }
    const scan = () => {
      this.scanTimer = undefined;
      let budget = SCAN_SLICE;
      while (walks.length && budget > 0) {
        const next = walks[0].objects.next();
        if (next.done) {
          walks.shift();
          continue;
        }
        this.observe(walks[0].store, next.value);
        budget--;
      }
      if (walks.length) {
        this.scanTimer = setImmediate(scan);
        return;
      }
      this.syncing = false;
      for (const [uid, summary] of this.byUid) this.enqueueFor(uid, summary);
    };
    scan();
  }

  stop(): void {
    if (this.scanTimer) clearImmediate(this.scanTimer);
    this.queue.stop();
  }

  private observe(store: GenericStore, object: CachedObject): string | undefined {
    const summarized = summarize(store, object);
    if (!summarized) return undefined;
    const { uid, summary } = summarized;
    this.forget(uid);
    this.byUid.set(uid, summary);
    for (const owner of summary.owners) {
      if (!this.dependents.has(owner)) this.dependents.set(owner, new Set());
      this.dependents.get(owner)!.add(uid);
    }
    return uid;
  }

  private forget(uid: string): void {
    for (const owner of this.byUid.get(uid)?.owners ?? []) this.dependents.get(owner)?.delete(uid);
    this.byUid.delete(uid);
  }

  private onEvent(store: GenericStore, event: CacheEvent): void {
    if (event.type === 'DELETED') {
      const summarized = summarize(store, event.object);
      if (!summarized) return;
      const { uid, summary } = summarized;
      this.forget(uid);
      // While syncing, the pass that ends the scan queues whatever this deletion left to do.
      if (this.syncing) return;
      for (const dependent of this.dependents.get(uid) ?? []) this.queue.add(`dependent/${dependent}`, { kind: 'dependent', uid: dependent });
      // An owner waiting in the foreground may now be free.
      for (const owner of summary.owners) this.queue.add(`owner/${owner}`, { kind: 'owner', uid: owner });
      return;
    }
    const uid = this.observe(store, event.object);
    if (uid && !this.syncing) this.enqueueFor(uid, this.byUid.get(uid)!);
  }

  private enqueueFor(uid: string, summary: Facts): void {
    if (summary.deleting && (summary.finalizers.includes('foregroundDeletion') || summary.finalizers.includes('orphan'))) {
      this.queue.add(`owner/${uid}`, { kind: 'owner', uid });
    }
    if (summary.owners.some((owner) => !this.byUid.has(owner))) {
      this.queue.add(`dependent/${uid}`, { kind: 'dependent', uid });
    }
  }

  private async processDependent(uid: string): Promise<void> {
    const dependent = this.byUid.get(uid);
    // An object with owners is always located (summarize).
    if (!dependent || dependent.deleting || !isLocated(dependent)) return;
    const alive = dependent.owners.filter((owner) => this.byUid.has(owner));
    if (alive.length === dependent.owners.length) return;
    if (alive.length === 0) {
      await dependent.store.delete(dependent.namespace, dependent.name, { dryRun: false, propagationPolicy: 'Background', preconditions: { uid } });
      return;
    }
    const gone = new Set(dependent.owners.filter((owner) => !this.byUid.has(owner)));
    await this.updateOwnerReferences(dependent, uid, (list) => list.filter((ref) => !gone.has(ref.uid)));
  }

  private async processOwner(uid: string): Promise<void> {
    const owner = this.byUid.get(uid);
    if (!owner || !owner.deleting || !isLocated(owner)) return;
    const dependents = [...(this.dependents.get(uid) ?? [])].filter((d) => this.byUid.has(d));
    if (owner.finalizers.includes('orphan')) {
      for (const dependent of dependents) {
        const target = this.byUid.get(dependent);
        if (target && isLocated(target)) await this.updateOwnerReferences(target, dependent, (list) => list.filter((ref) => ref.uid !== uid));
      }
      await this.removeFinalizer(owner, 'orphan');
      return;
    }
    if (owner.finalizers.includes('foregroundDeletion')) {
      if (dependents.length === 0) {
        await this.removeFinalizer(owner, 'foregroundDeletion');
        return;
      }
      for (const dependent of dependents) {
        const target = this.byUid.get(dependent);
        if (target && isLocated(target) && !target.deleting) {
          await target.store.delete(target.namespace, target.name, { dryRun: false, propagationPolicy: 'Foreground', preconditions: { uid: dependent } });
        }
      }
      // The dependents' DELETED events bring this owner back to the queue.
    }
  }

  private async updateOwnerReferences(where: Located, uid: string, change: (refs: any[]) => any[]): Promise<void> {
    await where.store.update(
      where.namespace,
      where.name,
      (current) => {
        if (!current || current.metadata.uid !== uid) return current!;
        const next = { ...current, metadata: { ...current.metadata } };
        const refs = change(current.metadata.ownerReferences ?? []);
        if (refs.length) next.metadata.ownerReferences = refs;
        else delete next.metadata.ownerReferences;
        delete next.metadata.resourceVersion;
        return next;
      },
      { dryRun: false },
    );
  }

  private async removeFinalizer(where: Located, finalizer: string): Promise<void> {
    await where.store.update(
      where.namespace,
      where.name,
      (current) => {
        const next = { ...current!, metadata: { ...current!.metadata } };
        next.metadata.finalizers = (current!.metadata.finalizers ?? []).filter((f: string) => f !== finalizer);
        if (next.metadata.finalizers.length === 0) delete next.metadata.finalizers;
        delete next.metadata.resourceVersion;
        return next;
      },
      { dryRun: false },
    );
  }
}
