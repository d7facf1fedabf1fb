/**
 * ValidateDaemonSet and ValidateDaemonSetUpdate (SPEC 9.7; K
 * pkg/apis/apps/validation, 1.31): the selector and template, the update
 * strategy's surge and unavailability; the selector immutable.
 */
import { invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { immutable, intOrPercent, intOrPercentValue, nonNegative, notOver100 } from '../../../registry/validation/field-values.ts';
import { alwaysRestarting, validatePodTemplate, validateSelectorAndTemplate } from '../../core/pod-template/validate.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** ValidateDaemonSetSpec and its update strategy. */
export function validateDaemonSet(obj: any, old?: any): FieldError[] {
  const spec = obj.spec ?? {};
  const errs = [...validateSelectorAndTemplate(spec, 'spec', { required: false, emptyFor: 'daemonset' }), ...validatePodTemplate(spec.template, 'spec.template'), ...alwaysRestarting(spec, 'DaemonSet', 'spec')];
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const strategy = spec.updateStrategy ?? {};
  if (strategy.type === 'RollingUpdate') {
    const ru = strategy.rollingUpdate;
    if (!isObj(ru)) errs.push(required('spec.updateStrategy.rollingUpdate'));
    else {
      const p = 'spec.updateStrategy.rollingUpdate';
      errs.push(...intOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`), ...intOrPercent(ru.maxSurge, `${p}.maxSurge`), ...notOver100(ru.maxUnavailable, `${p}.maxUnavailable`), ...notOver100(ru.maxSurge, `${p}.maxSurge`));
      const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
      if (hasUnavailable && hasSurge) errs.push(invalid(`${p}.maxSurge`, ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
      if (!hasUnavailable && !hasSurge) errs.push(required(`${p}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
    }
  } else if (strategy.type !== 'OnDelete') {
    errs.push(notSupported('spec.updateStrategy', strategy, ['RollingUpdate', 'OnDelete']));
  }
  if (old) errs.push(...immutable(spec.selector, old.spec?.selector, 'spec.selector'));
  return errs;
}
