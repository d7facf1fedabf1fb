/**
 * Validation of the storage.orch.io/v1 kinds (SPEC 9.7; translated from
 * upstream kubernetes pkg/apis/storage/validation 1.31: ValidateStorageClass,
 * ValidateVolumeAttachment(+V1), ValidateCSIDriver, ValidateCSINode,
 * ValidateCSIStorageCapacity and their updates). Paths and words are upstream's.
 */
import { child, duplicate, forbidden, goRepr, goStringSlice, index, invalid, notSupported, required, tooLong, type FieldError } from './field-errors.ts';
import { validateLabelName, validateLabelSelector } from './label-selector.ts';
import { isDNS1123Subdomain, isQualifiedName } from './names.ts';
import { FIELD_IMMUTABLE } from './object-meta.ts';
import { compareQuantities, formatQuantity, quantityFromJson, zeroQuantity } from './quantity.ts';
import { nonNegative } from './field-values.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

/** ValidateCSIDriverName: required, at most 63 characters, a DNS subdomain once lower-cased. */
export function validateCSIDriverName(name: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (name === '') errs.push(required(path));
  if (name.length > 63) errs.push(tooLong(path, name, 63));
  errs.push(...isDNS1123Subdomain(name.toLowerCase()).map((m) => invalid(path, name, m)));
  return errs;
}

/** ValidateStorageClass, and on update ValidateStorageClassUpdate (provisioner, parameters, reclaim policy, binding mode fixed). */
export function validateStorageClass(sc: any, old?: any): FieldError[] {
  if (old) {
    const errs: FieldError[] = [];
    if (!same(sc.parameters, old.parameters)) errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
    if (str(sc.provisioner) !== str(old.provisioner)) errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
    if (str(sc.reclaimPolicy) !== str(old.reclaimPolicy)) errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
    if (str(sc.volumeBindingMode) !== str(old.volumeBindingMode)) errs.push(invalid('volumeBindingMode', str(sc.volumeBindingMode), FIELD_IMMUTABLE));
    return errs;
  }
  const errs: FieldError[] = [];
  const provisioner = str(sc.provisioner);
  if (provisioner === '') errs.push(required('provisioner'));
  else errs.push(...isQualifiedName(provisioner.toLowerCase()).map((m) => invalid('provisioner', provisioner.toLowerCase(), m)));
  const parameters = sc.parameters && typeof sc.parameters === 'object' ? (sc.parameters as Record<string, string>) : {};
  const keys = Object.keys(parameters);
  if (keys.length > MAX_PARAMETERS) errs.push(tooLong('parameters', 'Provisioner Parameters exceeded max allowed', MAX_PARAMETERS));
  else {
    let size = 0;
    for (const k of keys) {
      if (k === '') errs.push(invalid('parameters', k, 'field can not be empty.'));
      size += Buffer.byteLength(k) + Buffer.byteLength(str(parameters[k]));
    }
    if (size > MAX_PARAMETERS_SIZE) errs.push(tooLong('parameters', '', MAX_PARAMETERS_SIZE));
  }
  const reclaim = str(sc.reclaimPolicy);
  if (reclaim !== '' && !RECLAIM_POLICIES.includes(reclaim)) errs.push(notSupported('reclaimPolicy', reclaim, RECLAIM_POLICIES));
  if (typeof sc.volumeBindingMode !== 'string') errs.push(required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode)) errs.push(notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  errs.push(...validateAllowedTopologies(arr(sc.allowedTopologies)));
  return errs;
}

/**
 * validateAllowedTopologies with ValidateTopologySelectorTerm: each requirement
 * has values, each once, and a label-name key, each key once per term; no two
 * terms alike. Upstream compares each term also with as many empty terms as
 * there are terms (its list starts that long), so a term without requirements
 * is always a duplicate.
 */
function validateAllowedTopologies(terms: any[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen: string[] = terms.length ? Array.from({ length: terms.length }, () => '{}') : [];
  terms.forEach((term, i) => {
    const path = index('allowedTopologies', i);
    const exprs: Record<string, string[]> = {};
    arr(term?.matchLabelExpressions).forEach((req, j) => {
      const reqPath = index(child(path, 'matchLabelExpressions'), j);
      const values = arr(req?.values).map(str);
      if (values.length === 0) errs.push(required(child(reqPath, 'values')));
      values.forEach((v, k) => {
        if (values.indexOf(v) < k) errs.push(duplicate(index(child(reqPath, 'values'), k), v));
      });
      const key = str(req?.key);
      errs.push(...validateLabelName(key, child(reqPath, 'key')));
      if (key in exprs) errs.push(duplicate(child(reqPath, 'key'), key));
      exprs[key] = [...new Set(values)].sort();
    });
    const canonical = JSON.stringify(Object.fromEntries(Object.entries(exprs).sort(([a], [b]) => (a < b ? -1 : 1))));
    for (const other of seen) if (other === canonical) errs.push(duplicate(child(path, 'matchLabelExpressions'), ''));
    seen.push(canonical);
  });
  return errs;
}

/** Go %#v of the internal VolumeAttachmentSpec, which upstream prints when the spec changes. */
function volumeAttachmentSpecRepr(spec: any) {
  const source = spec?.source ?? {};
  const ptr = (type: string, v: unknown) => `(*${type})(${v === undefined || v === null ? 'nil' : '0xc000000000'})`;
  return goRepr(
    `storage.VolumeAttachmentSpec{Attacher:${JSON.stringify(str(spec?.attacher))}, Source:storage.VolumeAttachmentSource{PersistentVolumeName:${ptr('string', source.persistentVolumeName)}, ` +
      `InlineVolumeSpec:${ptr('core.PersistentVolumeSpec', source.inlineVolumeSpec)}}, NodeName:${JSON.stringify(str(spec?.nodeName))}}`,
  );
}

const MAX_ATTACHED_METADATA_SIZE = 256 * 1024;

/** validateVolumeAttachmentStatus: metadata at most 256 kB, error messages at most 1024 bytes, error codes not negative. */
function validateVolumeAttachmentStatus(status: any): FieldError[] {
  const errs: FieldError[] = [];
  const metadata = status.attachmentMetadata && typeof status.attachmentMetadata === 'object' ? (status.attachmentMetadata as Record<string, string>) : {};
  const size = Object.entries(metadata).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(str(v)), 0);
  if (size > MAX_ATTACHED_METADATA_SIZE) errs.push(tooLong('status.attachmentMetadata', '', MAX_ATTACHED_METADATA_SIZE));
  for (const key of ['attachError', 'detachError']) {
    const error = status[key];
    if (!error || typeof error !== 'object') continue;
    // Upstream reports the metadata limit here, not the 1024 it checks.
    if (Buffer.byteLength(str(error.message)) > 1024) errs.push(tooLong(`status.${key}.message`, '', MAX_ATTACHED_METADATA_SIZE));
    if (typeof error.errorCode === 'number' && error.errorCode < 0) errs.push(invalid(`status.${key}.errorCode`, error.errorCode, 'must be between 0 and 2147483647, inclusive'));
  }
  return errs;
}

/** ValidateVolumeAttachment and ValidateVolumeAttachmentV1; on update the spec is read-only. */
export function validateVolumeAttachment(va: any, old?: any): FieldError[] {
  const spec = va.spec ?? {};
  const source = spec.source ?? {};
  const errs: FieldError[] = [];
  if (str(spec.attacher) === '') errs.push(required('spec.attacher'));
  const hasPV = typeof source.persistentVolumeName === 'string';
  const hasInline = source.inlineVolumeSpec !== undefined && source.inlineVolumeSpec !== null;
  if (!hasPV && !hasInline) errs.push(required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPV && hasInline) errs.push(forbidden('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPV && source.persistentVolumeName === '') errs.push(required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  errs.push(...isDNS1123Subdomain(str(spec.nodeName)).map((m) => invalid('spec.nodeName', str(spec.nodeName), m)));
  errs.push(...validateVolumeAttachmentStatus(va.status ?? {}));
  errs.push(...validateCSIDriverName(str(spec.attacher), 'spec.attacher'));
  if (hasPV) errs.push(...isDNS1123Subdomain(source.persistentVolumeName).map((m) => invalid('spec.source.persistentVolumeName', source.persistentVolumeName, m)));
  if (old && !same(va.spec, old.spec)) errs.push(invalid('spec', volumeAttachmentSpecRepr(va.spec), FIELD_IMMUTABLE));
  return errs;
}

const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
// Upstream lists them in this order, not sorted.
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];

/** validateCSIDriverSpec, and on update ValidateCSIDriverUpdate's immutable attachRequired and volumeLifecycleModes (the name is ObjectMeta's, a DNS subdomain). */
export function validateCSIDriver(driver: any, old?: any): FieldError[] {
  const spec = driver.spec ?? {};
  const errs: FieldError[] = [];
  // The path says attachedRequired, as upstream's does.
  for (const [key, path] of [['attachRequired', 'attachedRequired'], ['podInfoOnMount', 'podInfoOnMount'], ['storageCapacity', 'storageCapacity']]) {
    if (typeof spec[key] !== 'boolean') errs.push(required(`spec.${path}`));
  }
  if (spec.fsGroupPolicy !== undefined && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy)) errs.push(notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FS_GROUP_POLICIES));
  const audiences = new Set<string>();
  arr(spec.tokenRequests).forEach((t, i) => {
    const path = index('spec.tokenRequests', i);
    const audience = str(t?.audience);
    if (audiences.has(audience)) {
      errs.push(duplicate(child(path, 'audience'), audience));
      return;
    }
    audiences.add(audience);
    if (typeof t?.expirationSeconds === 'number') {
      if (t.expirationSeconds < 600) errs.push(invalid(child(path, 'expirationSeconds'), t.expirationSeconds, 'may not specify a duration less than 10 minutes'));
      if (t.expirationSeconds > 2 ** 32) errs.push(invalid(child(path, 'expirationSeconds'), t.expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
    }
  });
  for (const mode of arr(spec.volumeLifecycleModes)) if (!LIFECYCLE_MODES.includes(mode)) errs.push(notSupported('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES));
  if (typeof spec.seLinuxMount !== 'boolean') errs.push(required('spec.seLinuxMount'));
  if (old) {
    const was = old.spec ?? {};
    if (spec.attachRequired !== was.attachRequired) errs.push(invalid('spec.attachedRequired', spec.attachRequired ?? null, FIELD_IMMUTABLE));
    if (!same(spec.volumeLifecycleModes, was.volumeLifecycleModes)) {
      errs.push(invalid('spec.volumeLifecycleModes', goStringSlice(arr(spec.volumeLifecycleModes), '[]storage.VolumeLifecycleMode'), FIELD_IMMUTABLE));
    }
  }
  return errs;
}

/** Go %#v of an internal CSINodeDriver, which upstream prints when a registered driver changes. */
function csiNodeDriverRepr(driver: any) {
  const keys = Array.isArray(driver.topologyKeys) ? goStringSlice(driver.topologyKeys.map(str)).text : '[]string(nil)';
  const allocatable = driver.allocatable ? '(*storage.VolumeNodeResources)(0xc000000000)' : '(*storage.VolumeNodeResources)(nil)';
  return goRepr(`storage.CSINodeDriver{Name:${JSON.stringify(str(driver.name))}, NodeID:${JSON.stringify(str(driver.nodeID))}, TopologyKeys:${keys}, Allocatable:${allocatable}}`);
}

/**
 * ValidateCSINode: each driver named as a CSI driver, once; a node ID; topology
 * keys qualified names, once each. On update (ValidateCSINodeUpdate) a driver
 * already registered cannot change; drivers may come and go.
 */
export function validateCSINode(node: any, old?: any): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(node.spec?.drivers).forEach((driver, i) => {
    const path = index('spec.drivers', i);
    const name = str(driver?.name);
    errs.push(...validateCSIDriverName(name, child(path, 'name')));
    const nodeID = str(driver?.nodeID);
    if (nodeID === '') errs.push(required(child(path, 'nodeID')));
    // The API's strategy allows the longer node IDs (CSINodeValidationOptions.AllowLongNodeID).
    if (nodeID.length > 256) errs.push(invalid(child(path, 'nodeID'), nodeID, 'must be 256 characters or less'));
    if (typeof driver?.allocatable?.count === 'number') errs.push(...nonNegative(driver.allocatable.count, child(child(path, 'allocatable'), 'count')));
    if (names.has(name)) errs.push(duplicate(child(path, 'name'), name));
    const keys = new Set<string>();
    for (const key of arr(driver?.topologyKeys).map(str)) {
      if (key === '') errs.push(required(path));
      if (keys.has(key)) errs.push(duplicate(path, key));
      keys.add(key);
      errs.push(...isQualifiedName(key).map((m) => invalid(path, key, m)));
    }
    names.add(name);
  });
  for (const was of arr(old?.spec?.drivers)) {
    for (const now of arr(node.spec?.drivers)) {
      if (str(now?.name) === str(was?.name) && !same(now, was)) errs.push(invalid('spec.drivers', csiNodeDriverRepr(now), FIELD_IMMUTABLE));
    }
  }
  return errs;
}

/** ValidateNonnegativeQuantity. */
function nonNegativeQuantity(value: unknown, path: string): FieldError[] {
  if (value === undefined || value === null) return [];
  const q = quantityFromJson(value);
  return compareQuantities(q, zeroQuantity()) < 0 ? [invalid(path, formatQuantity(q), 'must be greater than or equal to 0')] : [];
}

/** LabelSelector.String() (its generated protobuf printer), or null for no selector, as field.Invalid prints a pointer. */
function labelSelectorString(selector: any) {
  if (!selector || typeof selector !== 'object') return null;
  const labels = selector.matchLabels ?? {};
  const matchLabels = Object.keys(labels)
    .sort()
    .map((k) => `${k}: ${labels[k]},`)
    .join('');
  const expressions = arr(selector.matchExpressions)
    .map((e) => `LabelSelectorRequirement{Key:${str(e?.key)},Operator:${str(e?.operator)},Values:[${arr(e?.values).join(' ')}],},`)
    .join('');
  return goRepr(`&LabelSelector{MatchLabels:map[string]string{${matchLabels}},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`);
}

/** ValidateCSIStorageCapacity, and on update the immutable node topology and storage class. */
export function validateCSIStorageCapacity(capacity: any, old?: any): FieldError[] {
  const errs = validateLabelSelector(capacity.nodeTopology, 'nodeTopology');
  const className = str(capacity.storageClassName);
  errs.push(...isDNS1123Subdomain(className).map((m) => invalid('storageClassName', className, m)));
  errs.push(...nonNegativeQuantity(capacity.capacity, 'capacity'));
  if (old) {
    if (!same(capacity.nodeTopology, old.nodeTopology)) errs.push(invalid('nodeTopology', labelSelectorString(capacity.nodeTopology), FIELD_IMMUTABLE));
    if (className !== str(old.storageClassName)) errs.push(invalid('storageClassName', className, FIELD_IMMUTABLE));
  }
  return errs;
}
