/**
 * Pod spec validation on create and on every update (translated from upstream
 * kubernetes pkg/apis/core/validation/validation.go ValidatePodSpec,
 * validatePodMetadataAndSpec and ValidatePodCreate, 1.31). ObjectMeta (name a
 * DNS subdomain) is checked by the store. Left to the parts of upstream that
 * need nodes: affinity, topology spread, OS-specific and security-context
 * rules, probes and lifecycle handlers.
 */
import { type FieldError, child, duplicate, forbidden, goStringSlice, index, invalid, notSupported, required } from '../../../registry/validation/field-errors.ts';
import { validateLabelName, validateLabels } from '../../../registry/validation/label-selector.ts';
import { inclusiveRangeError, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../../api/names.ts';
import { validateIP } from '../../../registry/validation/ip-address.ts';
import { validateContainers, validateInitContainers } from './validate-containers.ts';
import { validateVolumes } from './validate-volumes.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
const MAX_INT32 = 2147483647;

function enumField(value: unknown, path: string, supported: readonly string[]): FieldError[] {
  const v = str(value);
  if (!v) return [required(path)];
  return supported.includes(v) ? [] : [notSupported(path, v, supported)];
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** Upstream ValidateTolerations. */
export function validateTolerations(tolerations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(tolerations).forEach((t, i) => {
    const p = index(path, i);
    const key = str(t?.key);
    const operator = str(t?.operator);
    const value = str(t?.value);
    const effect = str(t?.effect);
    if (key) errs.push(...validateLabelName(key, child(p, 'key')));
    if (!key && operator !== 'Exists') errs.push(invalid(child(p, 'operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (t?.tolerationSeconds !== undefined && effect !== 'NoExecute') errs.push(invalid(child(p, 'effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (operator === 'Equal' || operator === '') {
      const msgs = isValidLabelValue(value);
      if (msgs.length) errs.push(invalid(child(p, 'operator'), value, msgs.join(';')));
    } else if (operator === 'Exists') {
      if (value) errs.push(invalid(child(p, 'operator'), value, "value must be empty when `operator` is 'Exists'"));
    } else errs.push(notSupported(child(p, 'operator'), operator, ['Equal', 'Exists']));
    if (effect && !TAINT_EFFECTS.includes(effect)) errs.push(notSupported(child(p, 'effect'), effect, TAINT_EFFECTS));
  });
  return errs;
}

/** Upstream validatePodDNSConfig. */
function validateDNSConfig(config: unknown, dnsPolicy: string, path: string): FieldError[] {
  if (dnsPolicy === 'None') {
    if (!isObj(config)) return [required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (arr(config.nameservers).length === 0) return [required(child(path, 'nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!isObj(config)) return [];
  const errs: FieldError[] = [];
  const nameservers = arr(config.nameservers).map(str);
  if (nameservers.length > 3) errs.push(invalid(child(path, 'nameservers'), goStringSlice(nameservers), 'must not have more than 3 nameservers'));
  nameservers.forEach((ns, i) => errs.push(...validateIP(ns, index(child(path, 'nameservers'), i))));
  const searches = arr(config.searches).map(str);
  if (searches.length > 32) errs.push(invalid(child(path, 'searches'), goStringSlice(searches), 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) errs.push(invalid(child(path, 'searches'), goStringSlice(searches), 'must not have more than 2048 characters (including spaces) in the search list'));
  searches.forEach((s, i) => {
    const search = s.endsWith('.') ? s.slice(0, -1) : s;
    errs.push(...isDNS1123Subdomain(search).map((m) => invalid(index(child(path, 'searches'), i), search, m)));
  });
  arr(config.options).forEach((o, i) => {
    if (!str(o?.name)) errs.push(required(index(child(path, 'options'), i), 'must not be empty'));
  });
  return errs;
}

function subdomainField(value: unknown, path: string): FieldError[] {
  const v = str(value);
  return v ? isDNS1123Subdomain(v).map((m) => invalid(path, v, m)) : [];
}

/** Upstream ValidatePodSpec, in its order; `podName` names the PVCs of ephemeral volumes. */
export function validatePodSpec(spec: any, podName: string, path = 'spec'): FieldError[] {
  const s = isObj(spec) ? spec : {};
  const errs: FieldError[] = [];
  if (s.terminationGracePeriodSeconds === undefined) errs.push(required(child(path, 'terminationGracePeriodSeconds')));
  const { names: volumes, errors } = validateVolumes(s.volumes, podName, child(path, 'volumes'));
  errs.push(...errors);
  errs.push(...validateContainers(s.containers, volumes, child(path, 'containers')));
  errs.push(...validateInitContainers(s.initContainers, s.containers, volumes, child(path, 'initContainers')));
  if (s.hostNetwork === true) {
    arr(s.containers).forEach((c, i) =>
      arr(c?.ports).forEach((port, j) => {
        if ((port?.hostPort ?? 0) !== (port?.containerPort ?? 0)) {
          errs.push(invalid(child(index(child(index(child(path, 'containers'), i), 'ports'), j), 'hostPort'), port?.hostPort ?? 0, 'must match `containerPort` when `hostNetwork` is true'));
        }
      }),
    );
  }
  errs.push(...enumField(s.restartPolicy, child(path, 'restartPolicy'), ['Always', 'OnFailure', 'Never']));
  errs.push(...enumField(s.dnsPolicy, child(path, 'dnsPolicy'), ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  errs.push(...validateLabels(s.nodeSelector, child(path, 'nodeSelector')));
  errs.push(...validateDNSConfig(s.dnsConfig, str(s.dnsPolicy), child(path, 'dnsConfig')));
  arr(s.readinessGates).forEach((g, i) => {
    const type = str(g?.conditionType);
    errs.push(...isQualifiedName(type).map((m) => invalid(child(index(child(path, 'readinessGates'), i), 'conditionType'), type, m)));
  });
  const gates = new Set<string>();
  arr(s.schedulingGates).forEach((g, i) => {
    const name = str(g?.name);
    const p = index(child(path, 'schedulingGates'), i);
    errs.push(...isQualifiedName(name).map((m) => invalid(p, name, m)));
    if (gates.has(name)) errs.push(duplicate(p, name));
    gates.add(name);
  });
  errs.push(...subdomainField(s.serviceAccountName, child(path, 'serviceAccountName')));
  errs.push(...subdomainField(s.nodeName, child(path, 'nodeName')));
  if (s.activeDeadlineSeconds !== undefined && (s.activeDeadlineSeconds < 1 || s.activeDeadlineSeconds > MAX_INT32)) {
    errs.push(invalid(child(path, 'activeDeadlineSeconds'), s.activeDeadlineSeconds, inclusiveRangeError(1, MAX_INT32)));
  }
  for (const key of ['hostname', 'subdomain']) {
    const v = str(s[key]);
    if (v) errs.push(...isDNS1123Label(v).map((m) => invalid(child(path, key), v, m)));
  }
  errs.push(...validateTolerations(s.tolerations, child(path, 'tolerations')));
  arr(s.hostAliases).forEach((a, i) => {
    const p = index(child(path, 'hostAliases'), i);
    errs.push(...validateIP(str(a?.ip), child(p, 'ip')));
    arr(a?.hostnames).forEach((h, j) => errs.push(...isDNS1123Subdomain(str(h)).map((m) => invalid(index(child(p, 'hostnames'), j), str(h), m))));
  });
  errs.push(...subdomainField(s.priorityClassName, child(path, 'priorityClassName')));
  if (s.runtimeClassName !== undefined) errs.push(...isDNS1123Subdomain(str(s.runtimeClassName)).map((m) => invalid(child(path, 'runtimeClassName'), str(s.runtimeClassName), m)));
  if (s.preemptionPolicy !== undefined) errs.push(...enumField(s.preemptionPolicy, child(path, 'preemptionPolicy'), ['PreemptLowerPriority', 'Never']));
  if (isObj(s.os) && !['linux', 'windows'].includes(str(s.os.name))) {
    errs.push(str(s.os.name) ? notSupported(child(child(path, 'os'), 'name'), s.os.name, ['linux', 'windows']) : required(child(child(path, 'os'), 'name')));
  }
  return errs;
}

/**
 * Upstream validatePodMetadataAndSpec beyond ObjectMeta: the spec, a projected
 * service-account token only with a service account, images without
 * surrounding white space.
 */
export function validatePodMetadataAndSpec(pod: any): FieldError[] {
  const spec = pod?.spec ?? {};
  const errs = validatePodSpec(spec, str(pod?.metadata?.name));
  if (!str(spec.serviceAccountName)) {
    arr(spec.volumes).forEach((v, i) =>
      arr(v?.projected?.sources).forEach((source, j) => {
        if (isObj(source?.serviceAccountToken)) {
          errs.push(forbidden(`spec.volumes[${i}].projected.sources[${j}].serviceAccountToken`, 'must not be specified when serviceAccountName is not set'));
        }
      }),
    );
  }
  for (const key of ['containers', 'initContainers']) {
    arr(spec[key]).forEach((c, i) => {
      const image = str(c?.image);
      if (image.length !== image.trim().length) errs.push(invalid(`spec.${key}[${i}].image`, image, 'must not have leading or trailing whitespace'));
    });
  }
  return errs;
}

/** Upstream ValidatePodCreate: ephemeral containers come only through their subresource; a gated pod has no node. */
export function validatePodCreate(pod: any): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod);
  const spec = pod?.spec ?? {};
  if (arr(spec.ephemeralContainers).length > 0) errs.push(forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (str(spec.nodeName) && arr(spec.schedulingGates).length > 0) errs.push(forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  return errs;
}
