/**
 * The status subresource's rules of the replica-counting workload kinds
 * (K pkg/apis/apps/validation ValidateDeploymentStatusUpdate,
 * ValidateReplicaSetStatusUpdate, ValidateStatefulSetStatusUpdate,
 * ValidateDaemonSetStatusUpdate).
 */
import { invalid, type FieldError } from './field-errors.ts';
import { nonNegative } from './workloads.ts';

/** A status counter that may not exceed status.replicas (ValidateDeploymentStatus and friends). */
function notAbove(status: any, key: string, limitKey: string, message: string): FieldError[] {
  return (status[key] ?? 0) > (status[limitKey] ?? 0) ? [invalid(`status.${key}`, status[key], message)] : [];
}

/** IsDecremented on status.collisionCount. */
function collisionCountKept(status: any, oldStatus: any): FieldError[] {
  const value = status.collisionCount;
  const old = oldStatus?.collisionCount;
  return old !== undefined && (value === undefined || value < old) ? [invalid('status.collisionCount', value ?? 0, 'cannot be decremented')] : [];
}

const REPLICAS_MESSAGE = 'cannot be greater than status.replicas';

/**
 * The status subresource's rules of the replica-counting kinds
 * (ValidateDeploymentStatusUpdate, ValidateReplicaSetStatusUpdate,
 * ValidateStatefulSetStatusUpdate, ValidateDaemonSetStatusUpdate):
 * non-negative counts, none above status.replicas, collisionCount never decremented.
 */
export function validateReplicaStatus(kind: 'Deployment' | 'ReplicaSet' | 'StatefulSet' | 'DaemonSet', obj: any, old: any): FieldError[] {
  const status = obj.status ?? {};
  const counters: Record<typeof kind, string[]> = {
    Deployment: ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'],
    ReplicaSet: ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
    StatefulSet: ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount'],
    DaemonSet: ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount'],
  };
  const errs = counters[kind].flatMap((key) => nonNegative(status[key], `status.${key}`));
  if (kind !== 'DaemonSet') {
    const bounded = kind === 'Deployment' ? ['updatedReplicas', 'readyReplicas', 'availableReplicas'] : kind === 'ReplicaSet' ? ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'] : ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'];
    for (const key of bounded) errs.push(...notAbove(status, key, 'replicas', REPLICAS_MESSAGE));
    errs.push(...notAbove(status, 'availableReplicas', 'readyReplicas', kind === 'StatefulSet' ? 'cannot be greater than status.readyReplicas' : 'cannot be greater than readyReplicas'));
  }
  if (kind !== 'ReplicaSet') errs.push(...collisionCountKept(status, old.status));
  return errs;
}
