/**
 * Validation of PersistentVolume (SPEC 9.7), translated from K
 * pkg/apis/core/validation/validation.go ValidatePersistentVolumeSpec and
 * ValidatePersistentVolumeUpdate (1.31, VolumeAttributesClass off), and the
 * rules a claim shares (access modes, class name, volume mode, a positive
 * size): the rules a user meets, with upstream's paths and words. A source's
 * checks are the Pod volume source's of the same type
 * (core/pod/validate-volumes.ts); the fields only a PersistentVolumeSource has
 * (secret namespaces, CSI secret references) are not checked. Upstream
 * appends a cmp.Diff of the Go structs to its immutability messages; those are
 * the message without the diff here.
 */
import { forbidden, invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { isDNS1123Subdomain } from '../../../api/names.ts';
import { compareQuantities, parseQuantity, zeroQuantity } from '../../../api/quantity.ts';
import { validatePathNoBacksteps, validateVolumeSource } from '../pod/validate-volumes.ts';
import { deepEqual } from '../../../registry/json-value.ts';

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
export function validateAccessModes(modes: unknown, path: string): FieldError[] {
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
export function validateClassName(name: unknown, path: string): FieldError[] {
  return typeof name === 'string' && name ? isDNS1123Subdomain(name).map((m) => invalid(path, name, m)) : [];
}

export function validateVolumeMode(mode: unknown, path: string): FieldError[] {
  return mode !== undefined && !VOLUME_MODES.includes(mode as string) ? [notSupported(path, mode, VOLUME_MODES)] : [];
}

/** ValidatePositiveQuantityValue on canonical quantity text. */
export function positive(text: string, path: string): FieldError[] {
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

/** The annotation a volume's or claim's class was named by before spec.storageClassName (v1.BetaStorageClassAnnotation, renamed as FACTS 0). */
export const BETA_STORAGE_CLASS = 'volume.beta.orch.io/storage-class';
