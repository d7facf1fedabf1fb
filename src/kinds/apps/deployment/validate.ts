/**
 * ValidateDeployment and ValidateDeploymentUpdate (SPEC 9.7; K
 * pkg/apis/apps/validation, 1.31): a selector that matches the template, the
 * template a pod's whose pods restart Always, the update strategy, the counts
 * and deadlines; the selector immutable. Paths and words are upstream's.
 */
import { forbidden, invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { immutable, intOrPercent, intOrPercentValue, nonNegative, notOver100 } from '../../../registry/validation/field-values.ts';
import { alwaysRestarting, validatePodTemplate, validateSelectorAndTemplate } from '../../core/pod-template/validate.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** ValidateDeploymentSpec. */
export function validateDeployment(obj: any, old?: any): FieldError[] {
  const spec = obj.spec ?? {};
  const errs = [...nonNegative(spec.replicas, 'spec.replicas'), ...validateSelectorAndTemplate(spec, 'spec', { required: true, emptyFor: 'deployment', unconvertible: 'invalid label selector' }), ...validatePodTemplate(spec.template, 'spec.template'), ...alwaysRestarting(spec, 'ReplicaSet', 'spec')];
  const strategy = spec.strategy ?? {};
  if (strategy.type === 'Recreate') {
    if (strategy.rollingUpdate !== undefined) errs.push(forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  } else if (strategy.type === 'RollingUpdate') {
    const ru = strategy.rollingUpdate;
    if (!isObj(ru)) errs.push(required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil'));
    else {
      errs.push(...intOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'), ...intOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'));
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) errs.push(invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
      errs.push(...notOver100(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
    }
  } else {
    errs.push(notSupported('spec.strategy', strategy, ['Recreate', 'RollingUpdate']));
  }
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (typeof spec.progressDeadlineSeconds === 'number') {
    errs.push(...nonNegative(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) errs.push(invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  if (old) errs.push(...immutable(spec.selector, old.spec?.selector, 'spec.selector'));
  return errs;
}
