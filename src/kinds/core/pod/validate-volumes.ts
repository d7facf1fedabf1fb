/**
 * Pod volume validation (translated from upstream kubernetes
 * pkg/apis/core/validation/validation.go ValidateVolumes, validateVolumeSource
 * and the source validators, 1.31). Sources that need a node or a storage
 * system to mean anything (cloud disks, iSCSI, Ceph, ...) are counted for the
 * one-source rule and checked for their required fields only.
 */
import { type FieldError, child, duplicate, forbidden, index, invalid, notSupported, required } from '../../../registry/validation/field-errors.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../../../api/names.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Upstream fileModeErrorMsg. */
const FILE_MODE = 'must be a number between 0 and 0777 (octal), both inclusive';
const ONE_TYPE = 'may not specify more than 1 volume type';

/** Volume sources in the order upstream's validateVolumeSource checks them (its `downwarAPI` typo included). */
const SOURCES: ReadonlyArray<[key: string, forbiddenPath: string]> = [
  ['emptyDir', 'emptyDir'], ['hostPath', 'hostPath'], ['gitRepo', 'gitRepo'], ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'], ['secret', 'secret'], ['nfs', 'nfs'], ['iscsi', 'iscsi'],
  ['glusterfs', 'glusterfs'], ['flocker', 'flocker'], ['persistentVolumeClaim', 'persistentVolumeClaim'], ['rbd', 'rbd'],
  ['cinder', 'cinder'], ['cephfs', 'cephFS'], ['quobyte', 'quobyte'], ['downwardAPI', 'downwarAPI'], ['fc', 'fc'],
  ['flexVolume', 'flexVolume'], ['configMap', 'configMap'], ['azureFile', 'azureFile'], ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'], ['portworxVolume', 'portworxVolume'], ['azureDisk', 'azureDisk'],
  ['storageos', 'storageos'], ['projected', 'projected'], ['scaleIO', 'scaleIO'], ['csi', 'csi'], ['ephemeral', 'ephemeral'],
  ['image', 'image'],
];

/** Fields each node-bound source must carry (upstream's Required checks for them). */
const REQUIRED_FIELDS: Record<string, string[]> = {
  gcePersistentDisk: ['pdName'], awsElasticBlockStore: ['volumeID'], iscsi: ['targetPortal', 'iqn'], glusterfs: ['endpoints', 'path'],
  rbd: ['monitors', 'image'], cinder: ['volumeID'], cephfs: ['monitors'], flexVolume: ['driver'], azureFile: ['secretName', 'shareName'],
  vsphereVolume: ['volumePath'], photonPersistentDisk: ['pdID'], portworxVolume: ['volumeID'], azureDisk: ['diskName', 'diskURI'],
  scaleIO: ['gateway', 'system', 'volumeName'], csi: ['driver'], gitRepo: ['repository'],
};

/** Upstream validatePathNoBacksteps. */
export function validatePathNoBacksteps(target: string, path: string): FieldError[] {
  return target.split('/').includes('..') ? [invalid(path, target, "must not contain '..'")] : [];
}

/** Upstream validateLocalDescendingPath: relative, without `..` elements. */
export function validateLocalDescendingPath(target: string, path: string): FieldError[] {
  const errs = target.startsWith('/') ? [invalid(path, target, 'must be a relative path')] : [];
  return [...errs, ...validatePathNoBacksteps(target, path)];
}

/** Upstream ValidateLocalNonReservedPath: also no leading `..` (the `..data` directory the kubelet writes). */
export function validateLocalNonReservedPath(target: string, path: string): FieldError[] {
  const errs = validateLocalDescendingPath(target, path);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(invalid(path, target, "must not start with '..'"));
  return errs;
}

function validateMode(mode: unknown, path: string): FieldError[] {
  return typeof mode === 'number' && (mode > 0o777 || mode < 0) ? [invalid(path, mode, FILE_MODE)] : [];
}

/** Upstream validateKeyToPath (secret and configMap items). */
function validateKeyToPath(kp: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(kp?.key)) errs.push(required(child(path, 'key')));
  if (!str(kp?.path)) errs.push(required(child(path, 'path')));
  errs.push(...validateLocalNonReservedPath(str(kp?.path), child(path, 'path')));
  errs.push(...validateMode(kp?.mode, child(path, 'mode')));
  return errs;
}

const VOLUME_FIELD_PATHS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
/** Labels the downward API converts (K pkg/apis/core/pods ConvertDownwardAPIFieldLabel). */
const DOWNWARD_API_LABELS = new Set([
  'metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName',
  'spec.restartPolicy', 'spec.serviceAccountName', 'spec.schedulerName', 'status.phase', 'status.hostIP', 'status.hostIPs',
  'status.podIP', 'status.podIPs',
]);

/** Upstream validateObjectFieldSelector: a v1 field label this pod may expose, subscripts only on labels and annotations. */
export function validateObjectFieldSelector(ref: any, supported: readonly string[], path: string): FieldError[] {
  const apiVersion = str(ref?.apiVersion);
  const fieldPath = str(ref?.fieldPath);
  if (!apiVersion) return [required(child(path, 'apiVersion'))];
  if (!fieldPath) return [required(child(path, 'fieldPath'))];
  const subscripted = /^([^[]+)\['(.*)'\]$/.exec(fieldPath);
  let conversionError = '';
  if (apiVersion !== 'v1') conversionError = `unsupported pod version: ${apiVersion}`;
  else if (subscripted && !['metadata.annotations', 'metadata.labels'].includes(subscripted[1])) conversionError = `field label does not support subscript: ${fieldPath}`;
  else if (!subscripted && !DOWNWARD_API_LABELS.has(fieldPath) && fieldPath !== 'spec.host') conversionError = `field label not supported: ${fieldPath}`;
  if (conversionError) return [invalid(child(path, 'fieldPath'), fieldPath, `error converting fieldPath: ${conversionError}`)];
  if (subscripted) {
    const key = subscripted[1] === 'metadata.annotations' ? subscripted[2].toLowerCase() : subscripted[2];
    return isQualifiedName(key).map((m) => invalid(path, key, m));
  }
  const internal = fieldPath === 'spec.host' ? 'spec.nodeName' : fieldPath;
  return supported.includes(internal) ? [] : [notSupported(child(path, 'fieldPath'), internal, supported)];
}

const RESOURCE_FIELD_PATHS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];
const MEMORY_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];

/** Upstream validateContainerResourceFieldSelector and validateContainerResourceDivisor (divisors in canonical form). */
export function validateResourceFieldSelector(ref: any, path: string, volume: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const resource = str(ref.resource);
  if (volume && !str(ref.containerName)) errs.push(required(child(path, 'containerName')));
  else if (!resource) errs.push(required(child(path, 'resource')));
  else if (!RESOURCE_FIELD_PATHS.includes(resource) && !/^(requests|limits)\.hugepages-/.test(resource)) {
    errs.push(notSupported(child(path, 'resource'), resource, RESOURCE_FIELD_PATHS));
  }
  const divisor = typeof ref.divisor === 'string' ? ref.divisor : '0';
  if (divisor === '0') return errs;
  const kind = /cpu$/.test(resource) ? 'cpu' : /memory$/.test(resource) ? 'memory' : /ephemeral-storage$/.test(resource) ? 'local ephemeral storage' : /hugepages-/.test(resource) ? 'hugepages' : '';
  const allowed = kind === 'cpu' ? ['1m', '1'] : MEMORY_DIVISORS;
  if (kind && !allowed.includes(divisor)) {
    const list = kind === 'cpu' ? '1m and 1' : MEMORY_DIVISORS.join(', ');
    errs.push(invalid(child(path, 'divisor'), resource, `only divisor's values ${list} are supported with the ${kind} resource`));
  }
  return errs;
}

/** Upstream validateDownwardAPIVolumeFile. */
function validateDownwardApiFile(file: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(file?.path)) errs.push(required(child(path, 'path')));
  errs.push(...validateLocalNonReservedPath(str(file?.path), child(path, 'path')));
  if (isObj(file?.fieldRef)) {
    errs.push(...validateObjectFieldSelector(file.fieldRef, VOLUME_FIELD_PATHS, child(path, 'fieldRef')));
    if (isObj(file.resourceFieldRef)) errs.push(invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (isObj(file?.resourceFieldRef)) {
    errs.push(...validateResourceFieldSelector(file.resourceFieldRef, child(path, 'resourceFieldRef'), true));
  } else {
    errs.push(required(path, 'one of fieldRef and resourceFieldRef is required'));
  }
  errs.push(...validateMode(file?.mode, child(path, 'mode')));
  return errs;
}

/** Upstream validateProjectedVolumeSource and validateProjectionSources. */
function validateProjected(projected: any, path: string): FieldError[] {
  const errs = validateMode(projected.defaultMode, child(path, 'defaultMode'));
  const allPaths = new Set<string>();
  const claim = (p: string, value: string) => {
    if (!p) return;
    if (allPaths.has(p)) errs.push(invalid(path, value, 'conflicting duplicate paths'));
    else allPaths.add(p);
  };
  arr(projected.sources).forEach((source, i) => {
    const srcPath = index(child(path, 'sources'), i);
    let count = 0;
    for (const key of ['secret', 'configMap'] as const) {
      if (!isObj(source?.[key])) continue;
      count++;
      const projPath = child(srcPath, key);
      if (!str(source[key].name)) errs.push(required(child(projPath, 'name')));
      arr(source[key].items).forEach((kp, j) => {
        errs.push(...validateKeyToPath(kp, index(child(projPath, 'items'), j)));
        claim(str(kp?.path), str(source[key].name));
      });
    }
    if (isObj(source?.downwardAPI)) {
      count++;
      for (const file of arr(source.downwardAPI.items)) {
        errs.push(...validateDownwardApiFile(file, child(srcPath, 'downwardAPI')));
        claim(str(file?.path), str(file?.path));
      }
    }
    if (isObj(source?.serviceAccountToken)) {
      count++;
      const token = source.serviceAccountToken;
      const seconds = token.expirationSeconds ?? 0;
      const secondsPath = child(child(srcPath, 'serviceAccountToken'), 'expirationSeconds');
      if (seconds < 600) errs.push(invalid(secondsPath, seconds, 'may not specify a duration less than 10 minutes'));
      if (seconds > 2 ** 32) errs.push(invalid(secondsPath, seconds, 'may not specify a duration larger than 2^32 seconds'));
      // upstream reports the token's path errors at the projection's path, not the source's
      if (!str(token.path)) errs.push(required(child(path, 'path')));
      else errs.push(...validateLocalNonReservedPath(token.path, child(path, 'path')));
    }
    if (isObj(source?.clusterTrustBundle)) count++;
    if (count > 1) errs.push(forbidden(srcPath, 'may not specify more than 1 volume type per source'));
  });
  return errs;
}

const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

/**
 * The checks of one source (the sources a pod without a node can still mean
 * something with); a PersistentVolume's sources of the same types take them too.
 */
export function validateVolumeSource(key: string, source: any, path: string, volumeName: string, podName: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of REQUIRED_FIELDS[key] ?? []) {
    const v = source[f];
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) errs.push(required(child(path, f)));
  }
  switch (key) {
    case 'emptyDir':
      if (typeof source.sizeLimit === 'string' && source.sizeLimit.startsWith('-')) errs.push(forbidden(child(path, 'sizeLimit'), 'SizeLimit field must be a valid resource quantity'));
      break;
    case 'hostPath':
      if (!str(source.path)) return [required(child(path, 'path'))];
      errs.push(...validatePathNoBacksteps(source.path, child(path, 'path')));
      if (!HOST_PATH_TYPES.includes(str(source.type))) errs.push(notSupported(child(path, 'type'), source.type, HOST_PATH_TYPES));
      break;
    case 'gitRepo':
      errs.push(...validateLocalDescendingPath(str(source.directory), child(path, 'directory')));
      break;
    case 'secret':
    case 'configMap': {
      const nameField = key === 'secret' ? 'secretName' : 'name';
      if (!str(source[nameField])) errs.push(required(child(path, nameField)));
      errs.push(...validateMode(source.defaultMode, child(path, 'defaultMode')));
      arr(source.items).forEach((kp, i) => errs.push(...validateKeyToPath(kp, index(child(path, 'items'), i))));
      break;
    }
    case 'nfs':
      if (!str(source.server)) errs.push(required(child(path, 'server')));
      if (!str(source.path)) errs.push(required(child(path, 'path')));
      if (!str(source.path).startsWith('/')) errs.push(invalid(child(path, 'path'), str(source.path), 'must be an absolute path'));
      break;
    case 'persistentVolumeClaim':
      if (!str(source.claimName)) errs.push(required(child(path, 'claimName')));
      break;
    case 'downwardAPI':
      errs.push(...validateMode(source.defaultMode, child(path, 'defaultMode')));
      for (const file of arr(source.items)) errs.push(...validateDownwardApiFile(file, path));
      break;
    case 'projected':
      errs.push(...validateProjected(source, path));
      break;
    case 'ephemeral':
      if (!isObj(source.volumeClaimTemplate)) errs.push(required(child(path, 'volumeClaimTemplate')));
      else if (podName && volumeName) {
        const pvcName = `${podName}-${volumeName}`;
        for (const m of isDNS1123Subdomain(pvcName)) errs.push(invalid(child(path, 'name'), volumeName, `PVC name "${pvcName}": ${m}`));
      }
      break;
  }
  return errs;
}

/**
 * Upstream ValidateVolumes: names are unique DNS labels, each volume has exactly
 * one source. Returns the valid volumes by name (what volume mounts may name).
 */
export function validateVolumes(volumes: unknown, podName: string, path: string): { names: Map<string, any>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const names = new Map<string, any>();
  arr(volumes).forEach((vol, i) => {
    const idxPath = index(path, i);
    const name = str(vol?.name);
    const el: FieldError[] = [];
    let count = 0;
    for (const [key, forbiddenPath] of SOURCES) {
      if (!isObj(vol?.[key])) continue;
      if (count > 0) {
        el.push(forbidden(child(idxPath, forbiddenPath), ONE_TYPE));
        continue;
      }
      count++;
      el.push(...validateVolumeSource(key, vol[key], child(idxPath, key === 'gcePersistentDisk' ? 'persistentDisk' : key), name, podName));
    }
    if (count === 0) el.push(required(idxPath, 'must specify a volume type'));
    if (!name) el.push(required(child(idxPath, 'name')));
    else el.push(...isDNS1123Label(name).map((m) => invalid(child(idxPath, 'name'), name, m)));
    if (names.has(name)) el.push(duplicate(child(idxPath, 'name'), name));
    if (el.length === 0) names.set(name, vol);
    else errors.push(...el);
  });
  return { names, errors };
}
