/**
 * Deleting a CustomResourceDefinition deletes its objects first (SPEC 3;
 * upstream apiextensions-apiserver pkg/controller/finalizer): the first DELETE
 * marks the definition Terminating with the cleanup finalizer; this controller
 * deletes every object of the resource through its store (so their own
 * finalizers and the garbage collector apply), waits until none is left, and
 * removes the finalizer, which completes the definition's deletion.
 */
import type { GenericStore } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { CLEANUP_FINALIZER } from '../kinds/apiextensions.orch.io/custom-resource-definition/deletion.ts';
import type { ResourceCaches } from '../storage/cacher/cacher.ts';
import { resourcePrefix } from '../storage/keys.ts';
import { findCondition, setCondition } from './crd-names.ts';
import { WorkQueue } from './work-queue.ts';

/** How often objects still held by their own finalizers are looked at again. */
const RECHECK_MS = 5_000;

export class CrdFinalizer {
  readonly name = 'crd-finalizer';
  private readonly queue = new WorkQueue<string>((name) => this.sync(name));
  private readonly onEvent = (event: { object: { parsed(): ApiObject } }) => {
    const crd = event.object.parsed();
    if (crd.metadata.deletionTimestamp) this.queue.add(crd.metadata.name, crd.metadata.name);
  };

  constructor(
    private readonly definitions: GenericStore,
    private readonly status: GenericStore,
    private readonly cacher: ResourceCaches,
    /** The store serving a definition's objects (any served version: they share one storage key space). */
    private readonly objectsOf: (crd: ApiObject) => GenericStore | undefined,
  ) {}

  private cache() {
    return this.cacher.cache(resourcePrefix(this.definitions.kind.group, this.definitions.kind.plural));
  }

  start(): void {
    this.cache().listeners.add(this.onEvent);
    for (const cached of this.cache().all()) if (cached.parsed().metadata.deletionTimestamp) this.queue.add(cached.parsed().metadata.name, cached.parsed().metadata.name);
  }

  stop(): void {
    this.cache().listeners.delete(this.onEvent);
    this.queue.stop();
  }

  private async sync(name: string): Promise<void> {
    const crd = this.cache().get(this.definitions.key(undefined, name))?.parsed();
    if (!crd?.metadata.deletionTimestamp || !(crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) return;
    let outcome;
    if (findCondition(crd, 'Established')?.status !== 'True') {
      outcome = { type: 'Terminating', status: 'False' as const, reason: 'NeverEstablished', message: 'resource was never established' };
    } else {
      await this.setStatus(name, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
      const store = this.objectsOf(crd);
      if (store) {
        const listed = await store.list({ namespace: undefined });
        await store.deleteListed(listed.items, { dryRun: false });
        const left = (await store.list({ namespace: undefined })).items.length;
        if (left > 0) {
          // Objects with finalizers of their own go when those are done: look again later.
          await this.setStatus(name, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionCheck', message: `could not confirm zero CustomResources remaining: ${left} remaining` });
          this.queue.later(name, name, RECHECK_MS);
          return;
        }
      }
      outcome = { type: 'Terminating', status: 'False' as const, reason: 'InstanceDeletionCompleted', message: 'removed all instances' };
    }
    await this.setStatus(name, outcome);
    await this.ignoringGone(() =>
      this.definitions.update(
        undefined,
        name,
        (current) => {
          if (!current) return current!;
          return { ...current, metadata: { ...current.metadata, finalizers: (current.metadata.finalizers ?? []).filter((f: string) => f !== CLEANUP_FINALIZER) } };
        },
        { dryRun: false },
      ),
    );
  }

  private setStatus(name: string, condition: Parameters<typeof setCondition>[1]): Promise<unknown> {
    return this.ignoringGone(() =>
      this.status.update(
        undefined,
        name,
        (current) => {
          if (!current) return current!;
          const next = structuredClone(current);
          setCondition(next, condition);
          return next;
        },
        { dryRun: false },
      ),
    );
  }

  private async ignoringGone<T>(write: () => Promise<T>): Promise<T | undefined> {
    try {
      return await write();
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }
}
