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
import type { GenericStore } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import type { Cacher } from '../storage/cacher/cacher.ts';
import type { CacheEvent } from '../storage/cacher/resource-cache.ts';
import { resourcePrefix } from '../storage/keys.ts';
import { WorkQueue } from './work-queue.ts';

interface Located {
  store: GenericStore;
  namespace: string | undefined;
  name: string;
}

type Item = { kind: 'dependent' | 'owner'; uid: string };

export class GarbageCollector {
  /** uid -> where the object lives. */
  private readonly byUid = new Map<string, Located>();
  /** owner uid -> uids of objects naming it in ownerReferences. */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly queue = new WorkQueue<Item>((item) => (item.kind === 'owner' ? this.processOwner(item.uid) : this.processDependent(item.uid)));
  private readonly objects = new Map<string, ApiObject>();

  constructor(
    private readonly stores: GenericStore[],
    private readonly cacher: Cacher,
  ) {}

  start(): void {
    for (const store of this.stores) {
      const cache = this.cacher.cache(resourcePrefix(store.kind.group, store.kind.plural));
      for (const cached of cache.all()) this.observe(store, cached.parsed());
      cache.listeners.add((event) => this.onEvent(store, event));
    }
    for (const [uid, obj] of this.objects) this.enqueueFor(uid, obj);
  }

  stop(): void {
    this.queue.stop();
  }

  private observe(store: GenericStore, obj: ApiObject): void {
    const uid = obj.metadata?.uid;
    if (!uid) return;
    this.forget(uid);
    this.objects.set(uid, obj);
    this.byUid.set(uid, { store, namespace: obj.metadata.namespace, name: obj.metadata.name });
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (!this.dependents.has(ref.uid)) this.dependents.set(ref.uid, new Set());
      this.dependents.get(ref.uid)!.add(uid);
    }
  }

  private forget(uid: string): void {
    const old = this.objects.get(uid);
    for (const ref of old?.metadata.ownerReferences ?? []) this.dependents.get(ref.uid)?.delete(uid);
    this.objects.delete(uid);
    this.byUid.delete(uid);
  }

  private onEvent(store: GenericStore, event: CacheEvent): void {
    const obj = event.object.parsed() as ApiObject;
    const uid = obj.metadata?.uid;
    if (!uid) return;
    if (event.type === 'DELETED') {
      this.forget(uid);
      for (const dependent of this.dependents.get(uid) ?? []) this.queue.add(`dependent/${dependent}`, { kind: 'dependent', uid: dependent });
      // An owner waiting in the foreground may now be free.
      for (const ref of obj.metadata.ownerReferences ?? []) this.queue.add(`owner/${ref.uid}`, { kind: 'owner', uid: ref.uid });
      return;
    }
    this.observe(store, obj);
    this.enqueueFor(uid, obj);
  }

  private enqueueFor(uid: string, obj: ApiObject): void {
    const finalizers: string[] = obj.metadata.finalizers ?? [];
    if (obj.metadata.deletionTimestamp && (finalizers.includes('foregroundDeletion') || finalizers.includes('orphan'))) {
      this.queue.add(`owner/${uid}`, { kind: 'owner', uid });
    }
    if ((obj.metadata.ownerReferences ?? []).some((ref: { uid: string }) => !this.byUid.has(ref.uid))) {
      this.queue.add(`dependent/${uid}`, { kind: 'dependent', uid });
    }
  }

  private async processDependent(uid: string): Promise<void> {
    const obj = this.objects.get(uid);
    const where = this.byUid.get(uid);
    if (!obj || !where || obj.metadata.deletionTimestamp) return;
    const refs: Array<{ uid: string }> = obj.metadata.ownerReferences ?? [];
    const alive = refs.filter((ref) => this.byUid.has(ref.uid));
    if (alive.length === refs.length) return;
    if (alive.length === 0) {
      await where.store.delete(where.namespace, where.name, { dryRun: false, propagationPolicy: 'Background', preconditions: { uid } });
      return;
    }
    const gone = new Set(refs.filter((ref) => !this.byUid.has(ref.uid)).map((ref) => ref.uid));
    await this.updateOwnerReferences(where, uid, (list) => list.filter((ref) => !gone.has(ref.uid)));
  }

  private async processOwner(uid: string): Promise<void> {
    const owner = this.objects.get(uid);
    const where = this.byUid.get(uid);
    if (!owner || !where || !owner.metadata.deletionTimestamp) return;
    const finalizers: string[] = owner.metadata.finalizers ?? [];
    const dependents = [...(this.dependents.get(uid) ?? [])].filter((d) => this.byUid.has(d));
    if (finalizers.includes('orphan')) {
      for (const dependent of dependents) {
        await this.updateOwnerReferences(this.byUid.get(dependent)!, dependent, (list) => list.filter((ref) => ref.uid !== uid));
      }
      await this.removeFinalizer(where, 'orphan');
      return;
    }
    if (finalizers.includes('foregroundDeletion')) {
      if (dependents.length === 0) {
        await this.removeFinalizer(where, 'foregroundDeletion');
        return;
      }
      for (const dependent of dependents) {
        const target = this.byUid.get(dependent)!;
        const dep = this.objects.get(dependent)!;
        if (!dep.metadata.deletionTimestamp) {
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
