/**
 * Validation of PersistentVolume and PersistentVolumeClaim (SPEC 9.7),
 * translated from K pkg/apis/core/validation/validation.go
 * ValidatePersistentVolumeSpec, ValidatePersistentVolumeUpdate,
 * ValidatePersistentVolumeClaimSpec and ValidatePersistentVolumeClaimUpdate
 * (1.31, VolumeAttributesClass and RecoverVolumeExpansionFailure off): the
 * rules a user meets, with upstream's paths and words. A source's checks are
 * the Pod volume source's of the same type (pod-volumes.ts); the fields only a
 * PersistentVolumeSource has (secret namespaces, CSI secret references) are
 * not checked. Upstream appends a cmp.Diff of the Go structs to its
 * immutability messages; those are the message without the diff here.
 */
import { child, forbidden, invalid, notSupported, required, type FieldError } from './field-errors.ts';
import { validateLabelSelector } from './label-selector.ts';
import { FIELD_IMMUTABLE } from './object-meta.ts';
import { isDNS1123Subdomain } from './names.ts';
import { compareQuantities, parseQuantity, zeroQuantity } from './quantity.ts';
import { validatePathNoBacksteps, validateVolumeSource } from '../../kinds/core/pod/validate-volumes.ts';
import { deepEqual } from '../json-value.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
/** Go's DeepEqual of the decoded values: key order is irrelevant, nil and absent are alike. */
const same = (a: unknown, b: unknown) => deepEqual(a ?? null, b ?? null);

/** sets.List(supportedAccessModes), sets.List(supportedReclaimPolicy), sets.List(supportedVolumeModes). */
const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const VOLUME_MODES = ['Block', 'Filesystem'];

/** The PersistentVolumeSource fields, in the order ValidatePersistentVolumeSpec counts them (its Forbidden paths). */
const VOLUME_SOURCES: Array<[field: string, path: string]> = [
  ['hostPath', 'hostPath'], ['gcePersistentDisk', 'gcePersistentDisk'], ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['glusterfs', 'glusterfs'], ['flocker', 'flocker'], ['nfs', 'nfs'], ['rbd', 'rbd'], ['quobyte', 'quobyte'], ['cephfs', 'cephFS'],
  ['iscsi', 'iscsi'], ['cinder', 'cinder'], ['fc', 'fc'], ['flexVolume', 'flexVolume'], ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'], ['photonPersistentDisk', 'photonPersistentDisk'], ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'], ['scaleIO', 'scaleIO'], ['local', 'local'], ['storageos', 'storageos'], ['csi', 'csi'],
];

/** The access modes of a volume or claim: each supported, ReadWriteOncePod alone. */
function validateAccessModes(modes: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let once = false;
  let other = false;
  for (const mode of Array.isArray(modes) ? modes : []) {
    if (!ACCESS_MODES.includes(mode)) errs.push(notSupported(path, mode, ACCESS_MODES));
    if (mode === 'ReadWriteOncePod') once = true;
    else if (ACCESS_MODES.includes(mode)) other = true;
  }
  if (once && other) errs.push(forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/** ValidateClassName on a non-empty class name. */
function validateClassName(name: unknown, path: string): FieldError[] {
  return typeof name === 'string' && name ? isDNS1123Subdomain(name).map((m) => invalid(path, name, m)) : [];
}

function validateVolumeMode(mode: unknown, path: string): FieldError[] {
  return mode !== undefined && !VOLUME_MODES.includes(mode as string) ? [notSupported(path, mode, VOLUME_MODES)] : [];
}

/** ValidatePositiveQuantityValue on canonical quantity text. */
function positive(text: string, path: string): FieldError[] {
  return compareQuantities(parseQuantity(text), zeroQuantity()) <= 0 ? [invalid(path, text, 'must be greater than zero')] : [];
}

/**
 * One source's checks: the Pod volume source's of the same type (their
 * errors at the same paths: a GCE disk's at `persistentDisk`), and what only a
 * volume has (validateCSIPersistentVolumeSource's handle, validateLocalVolumeSource's path).
 */
function validatePersistentVolumeSource(field: string, source: any): FieldError[] {
  if (field === 'local') {
    const localPath = String(source.path ?? '');
    return localPath ? validatePathNoBacksteps(localPath, 'spec.local.path') : [required('spec.local.path')];
  }
  const errs = validateVolumeSource(field, source, `spec.${field === 'gcePersistentDisk' ? 'persistentDisk' : field}`, '', '');
  if (field === 'csi' && !source.volumeHandle) errs.push(required('spec.csi.volumeHandle'));
  return errs;
}

/** ValidatePersistentVolumeSpec (not inline). */
function validatePersistentVolumeSpec(spec: any): FieldError[] {
  const errs: FieldError[] = [];
  const modes = spec.accessModes;
  if (!Array.isArray(modes) || modes.length === 0) errs.push(required('spec.accessModes'));
  errs.push(...validateAccessModes(modes, 'spec.accessModes'));
  const capacity: Record<string, string> = isObj(spec.capacity) ? spec.capacity : {};
  const names = Object.keys(capacity);
  if (names.length === 0) errs.push(required('spec.capacity'));
  if (!Object.hasOwn(capacity, 'storage') || names.length > 1) errs.push(notSupported('spec.capacity', names.length ? capacity : null, ['storage']));
  for (const name of names) errs.push(...positive(capacity[name], `spec.capacity[${name}]`));
  const policy = spec.persistentVolumeReclaimPolicy;
  if (policy && !RECLAIM_POLICIES.includes(policy)) errs.push(notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  let sources = 0;
  for (const [field, path] of VOLUME_SOURCES) {
    if (!isObj(spec[field])) continue;
    // upstream counts flexVolume without the check
    if (sources > 0 && field !== 'flexVolume') {
      errs.push(forbidden(`spec.${path}`, 'may not specify more than 1 volume type'));
      continue;
    }
    sources++;
    errs.push(...validatePersistentVolumeSource(field, spec[field]));
    if (field === 'local' && !isObj(spec.nodeAffinity?.required)) errs.push(required('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  if (sources === 0) errs.push(required('spec', 'must specify a volume type'));
  const hostPath = String(spec.hostPath?.path ?? '');
  if (hostPath && hostPath.replace(/\/+/g, '/').replace(/(.)\/$/, '$1') === '/' && policy === 'Recycle') {
    errs.push(forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  errs.push(...validateClassName(spec.storageClassName, 'spec.storageClassName'), ...validateVolumeMode(spec.volumeMode, 'spec.volumeMode'));
  return errs;
}

/** The PersistentVolumeSource: the spec without the fields that are not a volume source. */
function volumeSource(spec: any): Record<string, unknown> {
  return Object.fromEntries(VOLUME_SOURCES.map(([field]) => [field, spec?.[field]]).filter(([, v]) => v !== undefined));
}

/**
 * ValidatePersistentVolume and, on update, ValidatePersistentVolumeUpdate: the
 * volume source and mode are immutable (a CSI controllerExpandSecretRef may be added).
 */
export function validatePersistentVolume(pv: any, old?: any): FieldError[] {
  const spec = isObj(pv.spec) ? pv.spec : {};
  const errs = validatePersistentVolumeSpec(spec);
  if (!old) return errs;
  const oldSpec = isObj(old.spec) ? old.spec : {};
  const newSource = volumeSource(spec);
  if (isObj(oldSpec.csi) && oldSpec.csi.controllerExpandSecretRef === undefined && isObj(newSource.csi)) {
    const { controllerExpandSecretRef: _added, ...csi } = newSource.csi as Record<string, unknown>;
    newSource.csi = csi;
  }
  if (!same(newSource, volumeSource(oldSpec))) errs.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  if (!same(spec.volumeMode, oldSpec.volumeMode)) errs.push(invalid('volumeMode', spec.volumeMode ?? null, FIELD_IMMUTABLE));
  return errs;
}

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

/** The annotation a volume's or claim's class was named by before spec.storageClassName (v1.BetaStorageClassAnnotation, renamed as FACTS 0). */
export const BETA_STORAGE_CLASS = 'volume.beta.orch.io/storage-class';

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
