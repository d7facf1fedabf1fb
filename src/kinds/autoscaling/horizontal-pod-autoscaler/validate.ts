/**
 * Validation of HorizontalPodAutoscalers on the internal (v2) form, whatever
 * version was written (K pkg/apis/autoscaling/validation 1.31
 * ValidateHorizontalPodAutoscaler): the target reference, the replica bounds,
 * each metric's source and target, the behavior's policies. Paths and words
 * are upstream's.
 */
import { child, forbidden, index, invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isValidPathSegmentName } from '../../../api/names.ts';
import { parseQuantity } from '../../../api/quantity.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const METRIC_SOURCE_TYPES = ['Object', 'Pods', 'Resource', 'External', 'ContainerResource'];
const SOURCE_FIELDS: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };

/** pathvalidation.IsValidPathSegmentName of a reference's kind and name. */
export function validateReference(ref: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['kind', 'name']) {
    const value = typeof ref?.[key] === 'string' ? ref[key] : '';
    if (!value) errs.push(required(child(path, key), ''));
    else for (const msg of isValidPathSegmentName(value)) errs.push(invalid(child(path, key), value, msg));
  }
  return errs;
}

/** Quantity.Sign() == 1. */
function positive(quantity: unknown): boolean {
  try {
    const q = parseQuantity(String(quantity));
    return q.digits !== '0' && !q.negative;
  } catch {
    return false;
  }
}

/** validateMetricTarget. */
function validateTarget(target: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = target?.type ?? '';
  if (!type) errs.push(required(child(path, 'type'), 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue') errs.push(invalid(child(path, 'type'), type, 'must be either Utilization, Value, or AverageValue'));
  if (typeof target?.averageUtilization === 'number' && target.averageUtilization < 1) errs.push(invalid(child(path, 'averageUtilization'), target.averageUtilization, 'must be greater than 0'));
  if (target?.value !== undefined && !positive(target.value)) errs.push(invalid(child(path, 'value'), target.value, 'must be positive'));
  if (target?.averageValue !== undefined && !positive(target.averageValue)) errs.push(invalid(child(path, 'averageValue'), target.averageValue, 'must be positive'));
  return errs;
}

/** validateMetricIdentifier. */
function validateIdentifier(metric: any, path: string): FieldError[] {
  return metric?.name ? [] : [required(child(path, 'name'), 'must specify a metric name')];
}

/** The source of each metric type: validateObjectSource, validatePodsSource, validateResourceSource, validateExternalSource, validateContainerResourceSource. */
function validateSource(type: string, source: any, path: string): FieldError[] {
  const target = source.target ?? {};
  const targetPath = child(path, 'target');
  switch (type) {
    case 'Object': {
      const errs = [...validateReference(source.describedObject, child(path, 'describedObject')), ...validateIdentifier(source.metric, child(path, 'metric')), ...validateTarget(target, targetPath)];
      if (target.value === undefined && target.averageValue === undefined) errs.push(required(child(targetPath, 'averageValue'), 'must set either a target value or averageValue'));
      return errs;
    }
    case 'Pods': {
      const errs = [...validateIdentifier(source.metric, child(path, 'metric')), ...validateTarget(target, targetPath)];
      if (target.averageValue === undefined) errs.push(required(child(targetPath, 'averageValue'), 'must specify a positive target averageValue'));
      return errs;
    }
    case 'External': {
      const errs = [...validateIdentifier(source.metric, child(path, 'metric')), ...validateTarget(target, targetPath)];
      if (target.value === undefined && target.averageValue === undefined) errs.push(required(child(targetPath, 'averageValue'), 'must set either a target value for metric or a per-pod target'));
      if (target.value !== undefined && target.averageValue !== undefined) errs.push(forbidden(child(targetPath, 'value'), 'may not set both a target value for metric and a per-pod target'));
      return errs;
    }
    default: {
      // Resource and ContainerResource.
      const errs: FieldError[] = [];
      if (!source.name) errs.push(required(child(path, 'name'), 'must specify a resource name'));
      if (type === 'ContainerResource' && !source.container) errs.push(required(child(path, 'container'), 'must specify a container'));
      errs.push(...validateTarget(target, targetPath));
      if (target.averageUtilization === undefined && target.averageValue === undefined) errs.push(required(child(targetPath, 'averageUtilization'), 'must set either a target raw value or a target utilization'));
      if (target.averageUtilization !== undefined && target.averageValue !== undefined) errs.push(forbidden(child(targetPath, 'averageValue'), 'may not set both a target raw value and a target utilization'));
      return errs;
    }
  }
}

/** validateMetricSpec: a known type, its source populated, and no other source. */
function validateMetric(metric: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = metric?.type ?? '';
  if (!type) errs.push(required(child(path, 'type'), 'must specify a metric source type'));
  const present = Object.entries(SOURCE_FIELDS).filter(([, f]) => metric?.[f] != null);
  if (present.length === 1) errs.push(...validateSource(present[0][0], metric[present[0][1]], child(path, present[0][1])));
  const expected = SOURCE_FIELDS[type];
  if (!expected) errs.push(notSupported(child(path, 'type'), type, METRIC_SOURCE_TYPES));
  else if (metric[expected] == null) errs.push(required(child(path, expected), 'must populate information for the given metric source'));
  if (present.length !== 1) for (const [, f] of present) if (f !== expected) errs.push(forbidden(child(path, f), 'must populate the given metric source only'));
  return errs;
}

/** validateBehavior: each policy's type, value and period. */
function validateBehavior(behavior: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const direction of ['scaleUp', 'scaleDown']) {
    const rules = behavior?.[direction];
    if (!rules) continue;
    const rulesPath = child(path, direction);
    const window = rules.stabilizationWindowSeconds;
    if (typeof window === 'number' && window < 0) errs.push(invalid(child(rulesPath, 'stabilizationWindowSeconds'), window, 'must be greater than or equal to zero'));
    if (typeof window === 'number' && window > 3600) errs.push(invalid(child(rulesPath, 'stabilizationWindowSeconds'), window, 'must be less than or equal to 3600'));
    const select = rules.selectPolicy;
    if (select !== undefined && !['Max', 'Min', 'Disabled'].includes(select)) errs.push(notSupported(child(rulesPath, 'selectPolicy'), select, ['Disabled', 'Max', 'Min']));
    const policies = arr(rules.policies);
    if (!policies.length) errs.push(required(child(rulesPath, 'policies'), 'must specify at least one Policy'));
    policies.forEach((policy, i) => {
      const policyPath = index(child(rulesPath, 'policies'), i);
      if (policy?.type !== 'Pods' && policy?.type !== 'Percent') errs.push(notSupported(child(policyPath, 'type'), policy?.type ?? '', ['Percent', 'Pods']));
      if (!(policy?.value > 0)) errs.push(invalid(child(policyPath, 'value'), policy?.value ?? 0, 'must be greater than zero'));
      const period = policy?.periodSeconds ?? 0;
      if (period <= 0) errs.push(invalid(child(policyPath, 'periodSeconds'), period, 'must be greater than zero'));
      if (period > 1800) errs.push(invalid(child(policyPath, 'periodSeconds'), period, 'must be less than or equal to 1800'));
    });
  }
  return errs;
}

/** ValidateHorizontalPodAutoscaler's spec (validateHorizontalPodAutoscalerSpec), scale-to-zero off (HPAScaleToZero is alpha). */
export function validateHorizontalPodAutoscaler(hpa: any): FieldError[] {
  const spec = hpa.spec ?? {};
  const errs: FieldError[] = [];
  if (typeof spec.minReplicas === 'number' && spec.minReplicas < 1) errs.push(invalid('spec.minReplicas', spec.minReplicas, 'must be greater than or equal to 1'));
  const max = spec.maxReplicas ?? 0;
  if (max < 1) errs.push(invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof spec.minReplicas === 'number' && max < spec.minReplicas) errs.push(invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  // Upstream reports the metrics only for a valid reference, and the behavior only for valid metrics.
  const refErrs = validateReference(spec.scaleTargetRef, 'spec.scaleTargetRef');
  if (refErrs.length) return [...errs, ...refErrs];
  const metricErrs = arr(spec.metrics).flatMap((m, i) => validateMetric(m ?? {}, index('spec.metrics', i)));
  if (metricErrs.length) return [...errs, ...metricErrs];
  return [...errs, ...validateBehavior(spec.behavior, 'spec.behavior')];
}

