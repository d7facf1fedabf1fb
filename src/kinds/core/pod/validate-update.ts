/**
 * Pod update and status-update validation (translated from upstream kubernetes
 * pkg/apis/core/validation/validation.go ValidatePodUpdate,
 * ValidateContainerUpdates, validateOnlyAddedTolerations,
 * validateOnlyDeletedSchedulingGates and ValidatePodStatusUpdate, 1.31). A
 * running pod's spec is fixed but for images, a shorter activeDeadlineSeconds,
 * added tolerations, removed scheduling gates and (gated pods) added node
 * selectors; the refusal carries a diff of what else changed.
 */
import { deepEqual } from '../../../registry/json-value.ts';
import { type FieldError, child, duplicate, forbidden, goRepr, index, invalid, required } from '../../../registry/validation/field-errors.ts';
import { inclusiveRangeError, isDNS1123Subdomain, isQualifiedName } from '../../../api/names.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { parseIPSloppy, validateIP } from '../../../registry/validation/ip-address.ts';
import { validatePodMetadataAndSpec, validateTolerations } from './validate.ts';
import { computePodQOS, podQOS } from './qos.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const MAX_INT32 = 2147483647;

/** Upstream updatablePodSpecFields, joined as the message joins them. */
const UPDATABLE =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';
const MAX_DIFF_LINES = 100;

/**
 * A spec as Go compares it: upstream's structs cannot tell an absent field from
 * a false, empty or zero-length one, so those are dropped before comparing.
 * Numbers are kept, since several pointer fields make 0 differ from absent.
 */
function goComparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? value.map(goComparable) : undefined;
  if (!value || typeof value !== 'object') return value === false || value === '' ? undefined : value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const c = goComparable(v);
    if (c !== undefined) out[k] = c;
  }
  return Object.keys(out).length ? out : undefined;
}

const sameSpec = (a: unknown, b: unknown) => deepEqual(goComparable(a) ?? {}, goComparable(b) ?? {});

/**
 * What changed between two specs, one line per differing field in the manner
 * of upstream's cmp.Diff (`-` old, `+` new), by JSON path.
 */
export function specDiff(oldSpec: unknown, newSpec: unknown): string {
  const lines: string[] = [];
  let more = 0;
  const emit = (line: string) => (lines.length < MAX_DIFF_LINES ? lines.push(line) : more++);
  const walk = (a: unknown, b: unknown, path: string) => {
    if (deepEqual(a, b)) return;
    const objects = a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b);
    if (objects) {
      const keys = Array.isArray(a) ? [...Array(Math.max(a.length, (b as unknown[]).length)).keys()].map(String) : [...new Set([...Object.keys(a as object), ...Object.keys(b as object)])];
      for (const k of keys) walk((a as any)[k], (b as any)[k], Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k);
      return;
    }
    if (a !== undefined) emit(`- \t${path}: ${JSON.stringify(a)}`);
    if (b !== undefined) emit(`+ \t${path}: ${JSON.stringify(b)}`);
  };
  walk(goComparable(oldSpec), goComparable(newSpec), '');
  if (more) lines.push(`  \t... // ${more} more lines`);
  return ['  v1.PodSpec{', ...lines, '  }', ''].join('\n');
}

/** Upstream ValidateContainerUpdates: same count; images present and without surrounding white space. */
function validateContainerUpdates(next: unknown, prev: unknown, path: string): { errs: FieldError[]; stop: boolean } {
  if (arr(next).length !== arr(prev).length) return { errs: [forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  arr(next).forEach((c, i) => {
    const image = str(c?.image);
    if (!image) errs.push(required(child(index(path, i), 'image')));
    if (image.trim().length !== image.length) errs.push(invalid(child(index(path, i), 'image'), image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

function validateOnlyAddedTolerations(next: unknown, prev: unknown, path: string): FieldError[] {
  for (const old of arr(prev)) {
    const kept = arr(next).some((t) => sameSpec({ ...old, tolerationSeconds: t?.tolerationSeconds }, t));
    if (!kept) return [forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(next, path);
}

function validateOnlyDeletedSchedulingGates(next: unknown, prev: unknown, path: string): FieldError[] {
  const old = new Set(arr(prev).map((g) => str(g?.name)));
  const added = new Map<string, number>();
  arr(next).forEach((g, i) => added.set(str(g?.name), i));
  return [...added].filter(([name]) => !old.has(name)).map(([name, i]) => forbidden(child(index(path, i), 'name'), `only deletion is allowed, but found new scheduling gate '${name}'`));
}

/** Upstream ValidatePodUpdate beyond ObjectMeta (the store checks that). */
export function validatePodUpdate(pod: any, old: any): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod);
  const spec = pod.spec ?? {};
  const oldSpec = old.spec ?? {};
  for (const key of ['containers', 'initContainers']) {
    const { errs: containerErrs, stop } = validateContainerUpdates(spec[key], oldSpec[key], `spec.${key}`);
    errs.push(...containerErrs);
    if (stop) return errs;
  }
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined) {
    if (deadline < 0 || deadline > MAX_INT32) return [...errs, invalid('spec.activeDeadlineSeconds', deadline, inclusiveRangeError(0, MAX_INT32))];
    if (oldSpec.activeDeadlineSeconds !== undefined && oldSpec.activeDeadlineSeconds < deadline) {
      return [...errs, invalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value')];
    }
  } else if (oldSpec.activeDeadlineSeconds !== undefined) {
    // upstream prints the nil pointer as the string "null"
    errs.push(invalid('spec.activeDeadlineSeconds', 'null', 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(spec.tolerations, oldSpec.tolerations, 'spec.tolerations'));
  if (arr(spec.schedulingGates).length > 0) errs.push(...validateOnlyDeletedSchedulingGates(spec.schedulingGates, oldSpec.schedulingGates, 'spec.schedulingGates'));
  if (sameSpec(spec, oldSpec)) return errs;
  // upstream names `metadata` here (its field path variable still points there)
  if (podQOS(old) !== computePodQOS(spec)) errs.push(invalid('metadata', str(pod.status?.qosClass), 'Pod QoS is immutable'));
  const munged = structuredClone(spec);
  for (const key of ['containers', 'initContainers']) {
    arr(munged[key]).forEach((c, i) => {
      if (oldSpec[key][i].image === undefined) delete c.image;
      else c.image = oldSpec[key][i].image;
    });
  }
  for (const key of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations']) {
    if (oldSpec[key] === undefined) delete munged[key];
    else munged[key] = oldSpec[key];
  }
  if (oldSpec.terminationGracePeriodSeconds < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = oldSpec.terminationGracePeriodSeconds;
  if (arr(oldSpec.schedulingGates).length > 0 && !sameSpec(munged.nodeSelector, oldSpec.nodeSelector)) {
    // a pod still gated may gain node selectors, not lose or change them
    const next = munged.nodeSelector ?? {};
    if (Object.entries(oldSpec.nodeSelector ?? {}).some(([k, v]) => next[k] !== v)) {
      errs.push(invalid('spec.nodeSelector', goRepr(`map[string]string{${Object.entries(next).map(([k, v]) => `"${k}":"${v}"`).join(', ')}}`), 'only additions to spec.nodeSelector are allowed (no mutations or deletions)'));
    }
    if (oldSpec.nodeSelector === undefined) delete munged.nodeSelector;
    else munged.nodeSelector = oldSpec.nodeSelector;
  }
  if (!sameSpec(munged, oldSpec)) errs.push(forbidden('spec', `${UPDATABLE}\n${specDiff(oldSpec, munged)}`));
  return errs;
}

const SYSTEM_CONDITIONS = ['PodScheduled', 'Ready', 'Initialized'];

/** Upstream ValidateContainerStateTransition: without restarts, a terminated container stays terminated. */
function validateStateTransitions(next: unknown, prev: unknown, path: string, restartPolicy: string, restartable: (name: string) => boolean): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  arr(prev).forEach((old, i) => {
    const terminated = old?.state?.terminated;
    if (!terminated || ((terminated.exitCode ?? 0) !== 0 && restartPolicy === 'OnFailure') || restartable(str(old.name))) return;
    for (const s of arr(next)) {
      if (str(s?.name) === str(old.name) && !s?.state?.terminated) errs.push(forbidden(child(index(path, i), 'state'), 'may not be transitioned to non-terminated state'));
    }
  });
  return errs;
}

/** Upstream validatePodIPs / validateHostIPs: valid, at most one per family, no duplicates. */
function validateStatusIPs(list: unknown, path: string, typeName: string): FieldError[] {
  const ips = arr(list).map((e) => str(e?.ip));
  const errs = ips.flatMap((ip, i) => validateIP(ip, index(path, i)));
  if (ips.length > 1) {
    const families = ips.map((ip) => parseIPSloppy(ip)?.length);
    const dualStack = families.every((f) => f !== undefined) && families.includes(4) && families.includes(16);
    if (!dualStack || ips.length > 2) errs.push(invalid(path, goRepr(`[]core.${typeName}{${ips.map((ip) => `core.${typeName}{IP:"${ip}"}`).join(', ')}}`), 'may specify no more than one IP for each IP family'));
    ips.forEach((ip, i) => {
      if (ips.indexOf(ip) < i) errs.push(duplicate(index(path, i), goRepr(`core.${typeName}{IP:"${ip}"}`)));
    });
  }
  return errs;
}

/** Upstream ValidatePodStatusUpdate beyond ObjectMeta. */
export function validatePodStatusUpdate(pod: any, old: any): FieldError[] {
  const status = pod.status ?? {};
  const oldStatus = old.status ?? {};
  const errs: FieldError[] = [];
  arr(status.conditions).forEach((c, i) => {
    const type = str(c?.type);
    // upstream validates conditions under `metadata.conditions[i].Type`, a path it never fixed
    if (!SYSTEM_CONDITIONS.includes(type)) errs.push(...isQualifiedName(type).map((m) => invalid(`metadata.conditions[${i}].Type`, type, m)));
  });
  const nominated = str(status.nominatedNodeName);
  if (nominated && nominated !== str(oldStatus.nominatedNodeName)) errs.push(...isDNS1123Subdomain(nominated).map((m) => invalid('status.nominatedNodeName', nominated, m)));
  if (str(status.qosClass) !== str(oldStatus.qosClass)) errs.push(invalid('status.qosClass', str(status.qosClass), FIELD_IMMUTABLE));
  const restartPolicy = str(old.spec?.restartPolicy);
  const sidecars = new Set(arr(old.spec?.initContainers).filter((c) => c?.restartPolicy === 'Always').map((c) => str(c.name)));
  errs.push(...validateStateTransitions(status.containerStatuses, oldStatus.containerStatuses, 'status.containerStatuses', restartPolicy, () => false));
  errs.push(...validateStateTransitions(status.initContainerStatuses, oldStatus.initContainerStatuses, 'status.initContainerStatuses', restartPolicy, (n) => sidecars.has(n)));
  errs.push(...validateStateTransitions(status.ephemeralContainerStatuses, oldStatus.ephemeralContainerStatuses, 'status.ephemeralContainerStatuses', 'Never', () => false));
  errs.push(...validateStatusIPs(status.podIPs, 'status.podIPs', 'PodIP'));
  const hostIPs = arr(status.hostIPs);
  if (hostIPs.length > 0 && str(status.hostIP) !== str(hostIPs[0]?.ip)) errs.push(invalid('status.hostIPs[0].ip', str(hostIPs[0]?.ip), 'must be equal to `hostIP`'));
  errs.push(...validateStatusIPs(status.hostIPs, 'status.hostIPs', 'HostIP'));
  return errs;
}
