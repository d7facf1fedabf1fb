/**
 * ValidateStatefulSet and ValidateStatefulSetUpdate (SPEC 9.7; K
 * pkg/apis/apps/validation, 1.31): pod management and update strategy, the
 * claim retention policy, counts, the selector and template labels; on update
 * only the fields upstream lets change.
 */
import { forbidden, invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { nonNegative } from '../../../registry/validation/field-values.ts';
import { validateLabels } from '../../../registry/validation/label-selector.ts';
import { validateAnnotations } from '../../../registry/validation/object-meta.ts';
import { alwaysRestarting, validateSelectorAndTemplate } from '../../core/pod-template/validate.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The StatefulSet spec fields an update may change (ValidateStatefulSetUpdate). */
const STATEFULSET_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

/** ValidateStatefulSetSpec, and on update the fields that may not change. */
export function validateStatefulSet(obj: any, old?: any): FieldError[] {
  const spec = obj.spec ?? {};
  const errs: FieldError[] = [];
  const policy = spec.podManagementPolicy;
  if (!policy) errs.push(required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') errs.push(invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = spec.updateStrategy ?? {};
  if (!strategy.type) errs.push(required('spec.updateStrategy'));
  else if (strategy.type === 'OnDelete' && strategy.rollingUpdate !== undefined) errs.push(invalid('spec.updateStrategy.rollingUpdate', strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
  else if (strategy.type === 'RollingUpdate') errs.push(...nonNegative(strategy.rollingUpdate?.partition, 'spec.updateStrategy.rollingUpdate.partition'));
  else if (strategy.type !== 'OnDelete') errs.push(invalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  for (const key of ['whenDeleted', 'whenScaled']) {
    const value = spec.persistentVolumeClaimRetentionPolicy?.[key];
    if (isObj(spec.persistentVolumeClaimRetentionPolicy) && value !== 'Retain' && value !== 'Delete') errs.push(notSupported(`spec.persistentVolumeClaimRetentionPolicy.${key}`, value ?? '', ['Retain', 'Delete']));
  }
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...nonNegative(spec.ordinals?.start, 'spec.ordinals.start'));
  errs.push(...validateSelectorAndTemplate(spec, 'spec', { required: true, emptyFor: 'statefulset', unconvertible: '' }));
  errs.push(...validateLabels(spec.template?.metadata?.labels, 'spec.template.metadata.labels'), ...validateAnnotations(spec.template?.metadata?.annotations, 'spec.template.metadata.annotations'));
  errs.push(...alwaysRestarting(spec, 'StatefulSet', 'spec'));
  if (old) {
    const strip = (s: any) => Object.fromEntries(Object.entries(s ?? {}).filter(([k]) => !STATEFULSET_MUTABLE.includes(k)));
    if (!same(strip(spec), strip(old.spec))) {
      errs.push(forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
    }
  }
  return errs;
}
