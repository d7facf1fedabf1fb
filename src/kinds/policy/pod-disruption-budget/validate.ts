/**
 * PodDisruptionBudget validation (SPEC 9.7; translated from upstream
 * kubernetes pkg/apis/policy/validation ValidatePodDisruptionBudget and
 * ValidatePodDisruptionBudgetStatusUpdate, 1.31): minAvailable and
 * maxUnavailable exclusive, each a non-negative int or a percent up to 100%,
 * a valid selector, a known unhealthy-pod eviction policy; the status
 * conditions valid and its counts non-negative. The spec is mutable.
 */
import { goRepr, invalid, type FieldError } from '../../../registry/validation/field-errors.ts';
import { validateLabelSelector } from '../../../registry/validation/label-selector.ts';
import { validateConditions } from '../../../registry/validation/conditions.ts';
import { intOrPercent, nonNegative, notOver100 } from '../../../registry/validation/field-values.ts';

/** Where upstream prints a pointer it has, Go's %#v shows an address; one fixed address stands for it. */
const pointer = (type: string, value: unknown) => `(*${type})(${value === undefined || value === null ? 'nil' : '0xc000000000'})`;

/** Go %#v of the internal PodDisruptionBudgetSpec, which upstream prints when both bounds are set. */
function specRepr(spec: any) {
  return goRepr(
    `policy.PodDisruptionBudgetSpec{MinAvailable:${pointer('intstr.IntOrString', spec.minAvailable)}, Selector:${pointer('v1.LabelSelector', spec.selector)}, ` +
      `MaxUnavailable:${pointer('intstr.IntOrString', spec.maxUnavailable)}, UnhealthyPodEvictionPolicy:${pointer('policy.UnhealthyPodEvictionPolicyType', spec.unhealthyPodEvictionPolicy)}}`,
  );
}

/** ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudget(pdb: any): FieldError[] {
  const spec = pdb.spec ?? {};
  const errs: FieldError[] = [];
  const has = (v: unknown): boolean => v !== undefined && v !== null;
  if (has(spec.minAvailable) && has(spec.maxUnavailable)) errs.push(invalid('spec', specRepr(spec), 'minAvailable and maxUnavailable cannot be both set'));
  for (const key of ['minAvailable', 'maxUnavailable']) {
    if (has(spec[key])) errs.push(...intOrPercent(spec[key], `spec.${key}`), ...notOver100(spec[key], `spec.${key}`));
  }
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  // unhealthyPodEvictionPolicy's values are the contract's (PodDisruptionBudget.yaml).
  return errs;
}

/** ValidatePodDisruptionBudgetStatusUpdate: valid conditions; the counts are never negative. */
export function validatePodDisruptionBudgetStatus(pdb: any): FieldError[] {
  const status = pdb.status ?? {};
  return [
    ...validateConditions(status.conditions, 'status.conditions'),
    ...['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'].flatMap((key) => nonNegative(status[key], `status.${key}`)),
  ];
}
