/**
 * How a CustomResourceDefinition is deleted (SPEC 3; upstream
 * apiextensions-apiserver pkg/registry/customresourcedefinition/etcd.go
 * Delete): the first DELETE only marks it, adding the cleanup finalizer and a
 * Terminating condition; the CRD finalizer controller deletes its objects and
 * then removes the finalizer, which completes the deletion.
 */
import type { Strategy } from '../../../registry/strategy.ts';

export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.orch.io';

export const deletion: Pick<Strategy, 'holdsDeletion' | 'beginDeletion' | 'genericObjectMeta'> = {
  genericObjectMeta: true,
  // Only the first DELETE: once marked, the finalizer holds it, and removing it completes the deletion.
  holdsDeletion: (obj) => !obj.metadata.deletionTimestamp,
  beginDeletion(obj) {
    const finalizers: string[] = obj.metadata.finalizers ?? [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) obj.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
    obj.status ??= {};
    const conditions: any[] = (obj.status.conditions ??= []);
    const condition = { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' };
    const existing = conditions.find((c) => c.type === 'Terminating');
    const lastTransitionTime = existing?.status === 'True' && existing.lastTransitionTime ? existing.lastTransitionTime : new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    if (existing) Object.assign(existing, condition, { lastTransitionTime });
    else conditions.push({ ...condition, lastTransitionTime });
  },
};
