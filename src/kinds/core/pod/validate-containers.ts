/**
 * Container validation of a pod spec (translated from upstream kubernetes
 * pkg/apis/core/validation/validation.go validateContainers,
 * validateInitContainers, validateContainerCommon, validateContainerPorts,
 * ValidateEnv, ValidateEnvFrom, ValidateVolumeMounts, validatePullPolicy,
 * ValidateResourceRequirements, 1.31). Probes, lifecycle handlers and
 * security contexts are only checked where their mere presence is refused.
 */
import { type FieldError, child, duplicate, forbidden, index, invalid, notFound, notSupported, required } from '../../../registry/validation/field-errors.ts';
import { isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPortName, isValidPortNum, maskTrailingDash, regexError } from '../../../api/names.ts';
import { validateLocalDescendingPath, validateObjectFieldSelector, validateResourceFieldSelector } from './validate-volumes.ts';
import { compareQuantities, formatQuantity, isIntegerQuantity, parseQuantity, zeroQuantity } from '../../../api/quantity.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

const ENV_NAME_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const ENV_NAME_ERR = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";
const ENV_NAME_RE = new RegExp(`^${ENV_NAME_FMT}$`);

/** Upstream IsEnvVarName: 1.31 keeps the strict rule (RelaxedEnvironmentVariableValidation is alpha, off). */
export function isEnvVarName(v: string): string[] {
  const errs = ENV_NAME_RE.test(v) ? [] : [regexError(ENV_NAME_ERR, ENV_NAME_FMT, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1')];
  if (v === '.') errs.push("must not be '.'");
  else if (v === '..') errs.push("must not be '..'");
  else if (v.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validatePorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(ports).forEach((port, i) => {
    const p = index(path, i);
    const name = str(port?.name);
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length) errs.push(...msgs.map((m) => invalid(child(p, 'name'), name, m)));
      else if (names.has(name)) errs.push(duplicate(child(p, 'name'), name));
      else names.add(name);
    }
    const containerPort = port?.containerPort ?? 0;
    if (containerPort === 0) errs.push(required(child(p, 'containerPort')));
    else errs.push(...isValidPortNum(containerPort).map((m) => invalid(child(p, 'containerPort'), containerPort, m)));
    if (port?.hostPort) errs.push(...isValidPortNum(port.hostPort).map((m) => invalid(child(p, 'hostPort'), port.hostPort, m)));
    if (!str(port?.protocol)) errs.push(required(child(p, 'protocol')));
    else if (!PROTOCOLS.includes(port.protocol)) errs.push(notSupported(child(p, 'protocol'), port.protocol, PROTOCOLS));
  });
  return errs;
}

const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];
const secretName = (name: string) => isDNS1123Subdomain(name);

function validateKeySelector(ref: any, path: string): FieldError[] {
  const name = str(ref.name);
  const errs = secretName(name).map((m) => invalid(child(path, 'name'), name, m));
  if (!str(ref.key)) errs.push(required(child(path, 'key')));
  else errs.push(...isConfigMapKey(ref.key).map((m) => invalid(child(path, 'key'), ref.key, m)));
  return errs;
}

function validateEnv(env: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(env).forEach((ev, i) => {
    const p = index(path, i);
    const name = str(ev?.name);
    if (!name) errs.push(required(child(p, 'name')));
    else errs.push(...isEnvVarName(name).map((m) => invalid(child(p, 'name'), name, m)));
    const from = ev?.valueFrom;
    if (!isObj(from)) return;
    const fp = child(p, 'valueFrom');
    let sources = 0;
    if (isObj(from.fieldRef)) {
      sources++;
      errs.push(...validateObjectFieldSelector(from.fieldRef, ENV_FIELD_PATHS, child(fp, 'fieldRef')));
    }
    if (isObj(from.resourceFieldRef)) {
      sources++;
      errs.push(...validateResourceFieldSelector(from.resourceFieldRef, child(fp, 'resourceFieldRef'), false));
    }
    for (const key of ['configMapKeyRef', 'secretKeyRef']) {
      if (!isObj(from[key])) continue;
      sources++;
      errs.push(...validateKeySelector(from[key], child(fp, key)));
    }
    if (sources === 0) errs.push(invalid(fp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (str(ev.value)) errs.push(invalid(fp, '', 'may not be specified when `value` is not empty'));
    else if (sources > 1) errs.push(invalid(fp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateEnvFrom(envFrom: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(envFrom).forEach((ev, i) => {
    const p = index(path, i);
    const prefix = str(ev?.prefix);
    if (prefix) errs.push(...isEnvVarName(prefix).map((m) => invalid(child(p, 'prefix'), prefix, m)));
    let sources = 0;
    for (const key of ['configMapRef', 'secretRef']) {
      if (!isObj(ev?.[key])) continue;
      sources++;
      const name = str(ev[key].name);
      if (!name) errs.push(required(child(child(p, key), 'name')));
      else errs.push(...isDNS1123Subdomain(maskTrailingDash(name)).map((m) => invalid(child(child(p, key), 'name'), name, m)));
    }
    // upstream reports these at the list's path, not the entry's
    if (sources === 0) errs.push(invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

const PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];
const RECURSIVE_READ_ONLY = ['Disabled', 'Enabled', 'IfPossible'];

function validateVolumeMounts(c: any, volumes: Map<string, any>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mountPaths = new Set<string>();
  const devices = arr(c.volumeDevices);
  const privileged = c.securityContext?.privileged === true;
  arr(c.volumeMounts).forEach((m, i) => {
    const p = index(path, i);
    const name = str(m?.name);
    const mountPath = str(m?.mountPath);
    if (!name) errs.push(required(child(p, 'name')));
    if (!volumes.has(name)) errs.push(notFound(child(p, 'name'), name));
    if (!mountPath) errs.push(required(child(p, 'mountPath')));
    if (mountPaths.has(mountPath)) errs.push(invalid(child(p, 'mountPath'), mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    if (devices.some((d) => str(d?.name) === name)) errs.push(invalid(child(p, 'name'), name, 'must not already exist in volumeDevices'));
    if (devices.some((d) => str(d?.devicePath) === mountPath)) errs.push(invalid(child(p, 'mountPath'), mountPath, 'must not already exist as a path in volumeDevices'));
    // upstream reports subPath, subPathExpr, mountPropagation and recursiveReadOnly at the list's path
    if (str(m?.subPath)) errs.push(...validateLocalDescendingPath(m.subPath, child(path, 'subPath')));
    if (str(m?.subPathExpr)) {
      if (str(m.subPath)) errs.push(invalid(child(p, 'subPathExpr'), m.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(m.subPathExpr, child(path, 'subPathExpr')));
    }
    const propagation = m?.mountPropagation;
    if (propagation !== undefined) {
      if (!PROPAGATIONS.includes(propagation)) errs.push(notSupported(child(path, 'mountPropagation'), propagation, PROPAGATIONS));
      if (propagation === 'Bidirectional' && !privileged) errs.push(forbidden(child(path, 'mountPropagation'), 'Bidirectional mount propagation is available only to privileged containers'));
    }
    const rro = m?.recursiveReadOnly;
    if (rro === 'Enabled' || rro === 'IfPossible') {
      if (m.readOnly !== true) errs.push(forbidden(child(path, 'recursiveReadOnly'), 'may only be specified when readOnly is true'));
      if (propagation !== undefined && propagation !== 'None') errs.push(forbidden(child(path, 'recursiveReadOnly'), 'may only be specified when mountPropagation is None or not specified'));
    } else if (rro !== undefined && rro !== 'Disabled') errs.push(notSupported(child(path, 'recursiveReadOnly'), rro, RECURSIVE_READ_ONLY));
  });
  return errs;
}

/** Upstream IsStandardResourceName's set (the hugepages prefixes are checked apart). */
export const STANDARD_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps',
  'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);
const isHugePages = (name: string) => name.startsWith('hugepages-');
/** Upstream IsNativeResource with the renamed default prefix `orch.io/`. */
const isNative = (name: string) => !name.includes('/') || name.includes('orch.io/');
/** Upstream IsExtendedResourceName. */
export const isExtended = (name: string) => !isNative(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;

/** Upstream validateResourceName: a qualified name, and a standard one when it has no domain. */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => invalid(path, name, m));
  if (errs.length) return errs;
  if (!name.includes('/') && !STANDARD_RESOURCES.has(name) && !isHugePages(name) && !/^(requests|limits)\.hugepages-/.test(name)) return [invalid(path, name, 'must be a standard resource type or fully qualified')];
  return [];
}

/** Upstream validateContainerResourceName. */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (errs.length) return errs;
  if (!name.includes('/')) {
    if (!['cpu', 'memory', 'ephemeral-storage'].includes(name) && !isHugePages(name)) return [invalid(path, name, 'must be a standard resource for containers')];
  } else if (!isNative(name) && !isExtended(name)) {
    return [invalid(path, name, "doesn't follow extended resource name standard")];
  }
  return [];
}

/**
 * Upstream ResourceRequirements validation: names, non-negative quantities,
 * integers for extended resources, requests <= limits (== for resources that
 * cannot be overcommitted). Quantities are already canonical (the decoder's
 * part). A bad quantity's value is printed as its text, where upstream prints
 * the Go struct.
 */
export function validateResources(resources: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObj(resources)) return errs;
  const limits: Record<string, string> = isObj(resources.limits) ? resources.limits : {};
  const requests: Record<string, string> = isObj(resources.requests) ? resources.requests : {};
  const limPath = child(path, 'limits');
  const reqPath = child(path, 'requests');
  let cpuOrMemory = false;
  let hugePages = false;
  const checkValue = (name: string, text: string, p: string) => {
    errs.push(...validateContainerResourceName(name, p));
    const q = parseQuantity(text);
    if (compareQuantities(q, zeroQuantity()) < 0) errs.push(invalid(p, text, 'must be greater than or equal to 0'));
    if (isExtended(name) && !isIntegerQuantity(q)) errs.push(invalid(p, text, 'must be an integer'));
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
    if (isHugePages(name)) hugePages = true;
    return q;
  };
  for (const [name, text] of Object.entries(limits)) checkValue(name, text, index(limPath, name));
  for (const [name, text] of Object.entries(requests)) {
    const q = checkValue(name, text, index(reqPath, name));
    const overcommit = isNative(name) && !isHugePages(name);
    if (Object.hasOwn(limits, name)) {
      const cmp = compareQuantities(q, parseQuantity(limits[name]));
      if (cmp !== 0 && !overcommit) errs.push(invalid(reqPath, formatQuantity(q), `must be equal to ${name} limit of ${limits[name]}`));
      else if (cmp > 0) errs.push(invalid(reqPath, formatQuantity(q), `must be less than or equal to ${name} limit of ${limits[name]}`));
    } else if (!overcommit) errs.push(required(limPath, 'Limit must be set for non overcommitable resources'));
  }
  if (!cpuOrMemory && hugePages) errs.push(forbidden(path, 'HugePages require cpu or memory'));
  return errs;
}

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];

/** Upstream validateContainerCommon. */
function validateContainerCommon(c: any, volumes: Map<string, any>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c.name);
  if (!name) errs.push(required(child(path, 'name')));
  else errs.push(...isDNS1123Label(name).map((m) => invalid(child(path, 'name'), name, m)));
  if (!str(c.image)) errs.push(required(child(path, 'image')));
  const policy = str(c.terminationMessagePolicy);
  if (!policy) errs.push(required(child(path, 'terminationMessagePolicy')));
  else if (!MESSAGE_POLICIES.includes(policy)) errs.push(notSupported(child(path, 'terminationMessagePolicy'), policy, MESSAGE_POLICIES));
  errs.push(...validatePorts(c.ports, child(path, 'ports')));
  errs.push(...validateEnv(c.env, child(path, 'env')));
  errs.push(...validateEnvFrom(c.envFrom, child(path, 'envFrom')));
  errs.push(...validateVolumeMounts(c, volumes, child(path, 'volumeMounts')));
  const pull = str(c.imagePullPolicy);
  if (!pull) errs.push(required(child(path, 'imagePullPolicy')));
  else if (!PULL_POLICIES.includes(pull)) errs.push(notSupported(child(path, 'imagePullPolicy'), pull, PULL_POLICIES));
  errs.push(...validateResources(c.resources, child(path, 'resources')));
  return errs;
}

/** Upstream checkHostPortConflicts: hostIP/protocol/hostPort unique across a container list. */
function hostPortConflicts(containers: any[], path: string): FieldError[] {
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  containers.forEach((c, i) =>
    arr(c?.ports).forEach((port, j) => {
      if (!port?.hostPort) return;
      const key = `${str(port.hostIP)}/${str(port.protocol)}/${port.hostPort}`;
      if (seen.has(key)) errs.push(duplicate(child(index(child(index(path, i), 'ports'), j), 'hostPort'), key));
      else seen.add(key);
    }),
  );
  return errs;
}

/** Upstream validateContainers: at least one, names unique, restartPolicy only on init containers. */
export function validateContainers(containers: unknown, volumes: Map<string, any>, path: string): FieldError[] {
  const list = arr(containers);
  if (list.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((c, i) => {
    const p = index(path, i);
    errs.push(...validateContainerCommon(c ?? {}, volumes, p));
    const name = str(c?.name);
    if (names.has(name)) errs.push(duplicate(child(p, 'name'), name));
    else names.add(name);
    if (c?.restartPolicy !== undefined) errs.push(forbidden(child(p, 'restartPolicy'), 'may not be set for non-init containers'));
  });
  return [...errs, ...hostPortConflicts(list, path)];
}

const INIT_ONLY = 'may not be set for init containers without restartPolicy=Always';

/** Upstream validateInitContainers: names unique across init and regular containers; sidecars (restartPolicy Always) may probe. */
export function validateInitContainers(containers: unknown, regular: unknown, volumes: Map<string, any>, path: string): FieldError[] {
  const list = arr(containers);
  const errs: FieldError[] = [];
  const names = new Set(arr(regular).map((c) => str(c?.name)));
  list.forEach((c, i) => {
    const p = index(path, i);
    errs.push(...validateContainerCommon(c ?? {}, volumes, p));
    const restartAlways = c?.restartPolicy === 'Always';
    if (c?.restartPolicy !== undefined && !restartAlways) errs.push(notSupported(child(p, 'restartPolicy'), c.restartPolicy, ['Always']));
    const name = str(c?.name);
    if (names.has(name)) errs.push(duplicate(child(p, 'name'), name));
    else if (name) names.add(name);
    if (!restartAlways) {
      for (const key of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) if (c?.[key] !== undefined) errs.push(forbidden(child(p, key), INIT_ONLY));
    }
  });
  return [...errs, ...hostPortConflicts(list, path)];
}
