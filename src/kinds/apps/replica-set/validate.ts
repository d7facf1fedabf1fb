/**
 * ValidateReplicaSet and ValidateReplicaSetUpdate (SPEC 9.7; K
 * pkg/apis/apps/validation, 1.31): counts, a selector that matches the
 * template, the template a pod's whose pods restart Always; the selector
 * immutable.
 */
import type { FieldError } from '../../../registry/validation/field-errors.ts';
import { immutable, nonNegative } from '../../../registry/validation/field-values.ts';
import { alwaysRestarting, validatePodTemplate, validateSelectorAndTemplate } from '../../core/pod-template/validate.ts';

/** ValidateReplicaSetSpec (its empty-selector message says deployment, as upstream's). */
export function validateReplicaSet(obj: any, old?: any): FieldError[] {
  const spec = obj.spec ?? {};
  const errs = [...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...validateSelectorAndTemplate(spec, 'spec', { required: true, emptyFor: 'deployment', unconvertible: 'invalid label selector' }), ...validatePodTemplate(spec.template, 'spec.template'), ...alwaysRestarting(spec, 'ReplicaSet', 'spec')];
  if (old) errs.push(...immutable(spec.selector, old.spec?.selector, 'spec.selector'));
  return errs;
}
