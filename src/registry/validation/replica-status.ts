/**
 * The status subresource's rules of the replica-counting controllers (K
 * pkg/apis/apps/validation ValidateDeploymentStatusUpdate,
 * ValidateReplicaSetStatusUpdate, ValidateStatefulSetStatusUpdate,
 * ValidateDaemonSetStatusUpdate and pkg/apis/core/validation
 * ValidateReplicationControllerStatusUpdate, 1.31): each kind states which
 * counters it has (ReplicaStatusRules).
 */
import { invalid, type FieldError } from './field-errors.ts';
import { nonNegative } from './field-values.ts';

/** One kind's status counters, in upstream's order. */
export interface ReplicaStatusRules {
  /** The counters that may not be negative. */
  counters: readonly string[];
  /**
   * The counters that may not exceed status.replicas, and the words for an
   * availableReplicas above readyReplicas; none where there is no
   * status.replicas (a DaemonSet's).
   */
  bounded?: { counters: readonly string[]; availableAboveReady: string };
  /** status.collisionCount may not be decremented (the kinds that have one). */
  collisionCount: boolean;
}

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

/** Non-negative counts, none above status.replicas, collisionCount never decremented. */
export function validateReplicaStatus(rules: ReplicaStatusRules, obj: any, old: any): FieldError[] {
  const status = obj.status ?? {};
  const errs = rules.counters.flatMap((key) => nonNegative(status[key], `status.${key}`));
  if (rules.bounded) {
    for (const key of rules.bounded.counters) errs.push(...notAbove(status, key, 'replicas', REPLICAS_MESSAGE));
    errs.push(...notAbove(status, 'availableReplicas', 'readyReplicas', rules.bounded.availableAboveReady));
  }
  if (rules.collisionCount) errs.push(...collisionCountKept(status, old.status));
  return errs;
}
