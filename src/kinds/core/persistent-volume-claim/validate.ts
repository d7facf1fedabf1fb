/**
 * Validation of PersistentVolumeClaim (SPEC 9.7), translated from K
 * pkg/apis/core/validation/validation.go ValidatePersistentVolumeClaimSpec and
 * ValidatePersistentVolumeClaimUpdate (1.31, VolumeAttributesClass and
 * RecoverVolumeExpansionFailure off), with the rules a volume shares
 * (persistent-volume/validate.ts). Upstream appends a cmp.Diff of the Go
 * structs to its immutability messages; those are the message without the
 * diff here.
 */
import { child, forbidden, invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { validateLabelSelector } from '../../../registry/validation/label-selector.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { isDNS1123Subdomain } from '../../../api/names.ts';
import { compareQuantities, parseQuantity, zeroQuantity } from '../../../api/quantity.ts';
import { deepEqual } from '../../../registry/json-value.ts';
import { BETA_STORAGE_CLASS, positive, validateAccessModes, validateClassName, validateVolumeMode } from '../persistent-volume/validate.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
/** Go's DeepEqual of the decoded values: key order is irrelevant, nil and absent are alike. */
const same = (a: unknown, b: unknown) => deepEqual(a ?? null, b ?? null);

/** ValidatePersistentVolumeClaimSpec. */
function validateClaimSpec(spec: any): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0) errs.push(required('spec.accessModes', 'at least 1 access mode is required'));
  if (spec.selector !== undefined && spec.selector !== null) errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  errs.push(...validateAccessModes(spec.accessModes, 'spec.accessModes'));
  const storage = spec.resources?.requests?.storage;
  if (storage === undefined) errs.push(required('spec.resources[storage]'));
  else errs.push(...positive(storage, 'spec.resources[storage]'));
  errs.push(...validateClassName(spec.storageClassName, 'spec.storageClassName'), ...validateVolumeMode(spec.volumeMode, 'spec.volumeMode'));
  for (const key of ['dataSource', 'dataSourceRef']) {
    const ref = spec[key];
    if (!isObj(ref)) continue;
    const path = child('spec', key);
    if (!ref.name) errs.push(required(child(path, 'name')));
    if (!ref.kind) errs.push(required(child(path, 'kind')));
    if (!ref.apiGroup && ref.kind !== 'PersistentVolumeClaim') errs.push(invalid(path, ref.kind ?? '', "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
    if (ref.apiGroup) errs.push(...isDNS1123Subdomain(ref.apiGroup).map((m) => invalid(child(path, 'apiGroup'), ref.apiGroup, m)));
  }
  return errs;
}

/**
 * ValidatePersistentVolumeClaim and, on update, ValidatePersistentVolumeClaimUpdate:
 * the spec is immutable except volumeName once, the storage request of a bound
 * claim (never below its previous value) and a class set where there was none.
 */
export function validatePersistentVolumeClaim(pvc: any, old?: any): FieldError[] {
  const spec = isObj(pvc.spec) ? pvc.spec : {};
  const errs = validateClaimSpec(spec);
  if (!old) return errs;
  const oldSpec = isObj(old.spec) ? old.spec : {};
  const newClone = structuredClone(spec);
  const oldClone = structuredClone(oldSpec);
  if (!oldSpec.volumeName) oldClone.volumeName = newClone.volumeName;
  const oldAnnotation = old.metadata?.annotations?.[BETA_STORAGE_CLASS];
  const newAnnotation = pvc.metadata?.annotations?.[BETA_STORAGE_CLASS];
  const fromAnnotation = oldAnnotation !== undefined && oldSpec.storageClassName === undefined && spec.storageClassName !== undefined && spec.storageClassName === oldAnnotation && (newAnnotation === undefined || newAnnotation === oldAnnotation);
  if (fromAnnotation) delete newClone.storageClassName;
  else {
    if ((newAnnotation ?? '') !== (oldAnnotation ?? '')) errs.push(invalid(`metadata.annotations.${BETA_STORAGE_CLASS}`, newAnnotation ?? '', FIELD_IMMUTABLE));
    if (spec.storageClassName !== undefined && oldSpec.storageClassName === undefined && (oldAnnotation === undefined || spec.storageClassName === oldAnnotation)) {
      newClone.storageClassName = oldClone.storageClassName;
      if (newClone.storageClassName === undefined) delete newClone.storageClassName;
    }
  }
  if (pvc.status?.phase === 'Bound' && isObj(newClone.resources?.requests)) newClone.resources.requests.storage = oldSpec.resources?.requests?.storage;
  newClone.volumeAttributesClassName = oldClone.volumeAttributesClassName;
  if (!same(newClone, oldClone)) errs.push(forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
  const oldSize = oldSpec.resources?.requests?.storage;
  const newSize = spec.resources?.requests?.storage;
  const sizeOf = (text: unknown) => (typeof text === 'string' ? parseQuantity(text) : zeroQuantity());
  if (compareQuantities(sizeOf(newSize), sizeOf(oldSize)) < 0) errs.push(forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
  if (!same(spec.volumeMode, oldSpec.volumeMode)) errs.push(invalid('volumeMode', spec.volumeMode ?? null, FIELD_IMMUTABLE));
  if (!same(spec.volumeAttributesClassName, oldSpec.volumeAttributesClassName)) {
    errs.push(forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
  }
  return errs;
}
