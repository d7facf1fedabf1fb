/**
 * Node validation (translated from upstream kubernetes pkg/apis/core/validation
 * ValidateNode, ValidateNodeUpdate, ValidateNodeResources, validateNodeTaints,
 * ValidateNodeSpecificAnnotations; 1.31). ObjectMeta (a DNS-subdomain name, no
 * namespace) is the generic store's. Paths and messages are upstream's,
 * including the taints reported under `metadata.taints`, the path upstream
 * has always used.
 */
import * as errors from '../../../api/status-error.ts';
import { parseCIDR } from '../../../registry/validation/cidr.ts';
import { goJSONObjectError } from '../../../registry/validation/go-json.ts';
import { type FieldError, child, duplicate, forbidden, goRepr, goStringSlice, index, internalError, invalid, notSupported, required } from '../../../registry/validation/field-errors.ts';
import { goQuote } from '../../../util/go-print.ts';
import { validateLabelName } from '../../../registry/validation/label-selector.ts';
import { isQualifiedName, isValidLabelValue } from '../../../api/names.ts';
import { compareQuantities, formatQuantity, isIntegerQuantity, parseQuantity, zeroQuantity } from '../../../api/quantity.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Upstream core.TaintsAnnotationKey and core.PreferAvoidPodsAnnotationKey, renamed (FACTS 0). */
export const TAINTS_ANNOTATION = 'scheduler.alpha.orch.io/taints';
export const PREFER_AVOID_PODS_ANNOTATION = 'scheduler.alpha.orch.io/preferAvoidPods';

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** Go `%#v` of an internal core.Taint (it has no String method); a set time is a pointer upstream prints as an address. */
function taintRepr(t: any): ReturnType<typeof goRepr> {
  const time = t?.timeAdded ? '(*v1.Time)(0xc000000000)' : '(*v1.Time)(nil)';
  return goRepr(`core.Taint{Key:${goQuote(str(t?.key))}, Value:${goQuote(str(t?.value))}, Effect:${goQuote(str(t?.effect))}, TimeAdded:${time}}`);
}

/** Upstream validateTaintEffect with allowEmpty false. */
function validateTaintEffect(effect: string, path: string): FieldError[] {
  if (!effect) return [required(path)];
  return TAINT_EFFECTS.includes(effect) ? [] : [notSupported(path, effect, TAINT_EFFECTS)];
}

/** Upstream validateNodeTaints: key a label name, value a label value, a known effect, unique by key and effect. */
export function validateNodeTaints(taints: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  arr(taints).forEach((taint, i) => {
    const p = index(path, i);
    const key = str(taint?.key);
    const value = str(taint?.value);
    const effect = str(taint?.effect);
    errs.push(...validateLabelName(key, child(p, 'key')));
    const valueErrors = isValidLabelValue(value);
    if (valueErrors.length) errs.push(invalid(child(p, 'value'), value, valueErrors.join(';')));
    errs.push(...validateTaintEffect(effect, child(p, 'effect')));
    const keys = seen.get(effect);
    if (keys?.has(key)) {
      const dup = duplicate(p, taintRepr(taint));
      errs.push({ ...dup, message: `${dup.message}: taints must be unique by key and effect pair` });
      return;
    }
    if (keys) keys.add(key);
    else seen.set(effect, new Set([key]));
  });
  return errs;
}

/**
 * Go `json.Unmarshal` into a slice of structs whose fields are strings (and
 * one time): the syntax and type errors it would report, or the decoded value.
 */
function unmarshalStructs(text: string, goType: string, struct: string, stringFields: string[]): { value?: any[]; error?: string } {
  // A syntax error first, as Go's scanner reports it; a type mismatch at the top is ours to word.
  const syntax = goJSONObjectError(text);
  if (syntax !== null && !syntax.startsWith('json: cannot unmarshal')) return { error: syntax };
  const value = JSON.parse(text);
  const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'string' : 'object');
  if (value === null) return { value: [] };
  if (!Array.isArray(value)) return { error: `json: cannot unmarshal ${kindOf(value)} into Go value of type ${goType}` };
  for (const item of value) {
    if (item === null) continue;
    if (!isObj(item)) return { error: `json: cannot unmarshal ${kindOf(item)} into Go value of type ${struct}` };
    for (const [name, v] of Object.entries(item)) {
      // Go matches field names case-insensitively.
      const field = stringFields.find((f) => f.toLowerCase() === name.toLowerCase());
      if (field && v !== null && typeof v !== 'string') {
        return { error: `json: cannot unmarshal ${kindOf(v)} into Go struct field ${struct.replace(/^core\./, '')}.${name} of type string` };
      }
    }
  }
  return { value: value.map((item: any) => (item === null ? {} : Object.fromEntries(Object.entries(item).map(([k, v]) => [stringFields.find((f) => f.toLowerCase() === k.toLowerCase()) ?? k, v])))) };
}

/** Upstream ValidateTaintsInNodeAnnotations. */
function validateTaintsInAnnotations(annotations: Record<string, string>, path: string): FieldError[] {
  const { value, error } = unmarshalStructs(annotations[TAINTS_ANNOTATION], '[]core.Taint', 'core.Taint', ['key', 'value', 'effect']);
  if (error) return [invalid(path, TAINTS_ANNOTATION, error)];
  return value!.length ? validateNodeTaints(value, child(path, TAINTS_ANNOTATION)) : [];
}

/**
 * Upstream ValidateAvoidPodsInNodeAnnotations: the annotation must decode as
 * v1.AvoidPods and each entry name a pod controller. An entry whose controller
 * reference leaves `controller` unset makes upstream dereference a nil
 * pointer; the recovered panic is a 500, and so it is here.
 */
function validateAvoidPodsInAnnotations(annotations: Record<string, string>, path: string): FieldError[] {
  const text = annotations[PREFER_AVOID_PODS_ANNOTATION];
  const error = goJSONObjectError(text);
  if (error) return [invalid(child(path, 'AvoidPods'), PREFER_AVOID_PODS_ANNOTATION, error.replace('map[string]interface {}', 'v1.AvoidPods'))];
  const avoids = JSON.parse(text) ?? {};
  const entries = avoids.preferAvoidPods;
  if (entries !== undefined && entries !== null && !Array.isArray(entries)) {
    const kind = typeof entries === 'object' ? 'object' : typeof entries === 'number' ? 'number' : typeof entries === 'boolean' ? 'bool' : 'string';
    return [invalid(child(path, 'AvoidPods'), PREFER_AVOID_PODS_ANNOTATION, `json: cannot unmarshal ${kind} into Go struct field AvoidPods.preferAvoidPods of type []v1.PreferAvoidPodsEntry`)];
  }
  const errs: FieldError[] = [];
  arr(entries).forEach((entry, i) => {
    const p = index(child(path, PREFER_AVOID_PODS_ANNOTATION), i);
    const controller = entry?.podSignature?.podController;
    if (!isObj(controller)) errs.push(required(child(p, 'PodSignature')));
    else if (controller.controller === undefined || controller.controller === null) throw errors.internalError(new Error('runtime error: invalid memory address or nil pointer dereference'));
    else if (controller.controller !== true) errs.push(invalid(child(child(child(p, 'PodSignature'), 'PodController'), 'Controller'), false, 'must point to a controller'));
  });
  return errs;
}

/** Upstream ValidateNodeSpecificAnnotations, at `metadata.annotations`. */
function validateNodeAnnotations(node: any): FieldError[] {
  const annotations: Record<string, string> = isObj(node.metadata?.annotations) ? node.metadata.annotations : {};
  const path = 'metadata.annotations';
  const errs: FieldError[] = [];
  if (str(annotations[TAINTS_ANNOTATION])) errs.push(...validateTaintsInAnnotations(annotations, path));
  if (str(annotations[PREFER_AVOID_PODS_ANNOTATION])) errs.push(...validateAvoidPodsInAnnotations(annotations, path));
  return errs;
}

/** Upstream helper.IsIntegerResourceName: the countable standard resources and extended resources. */
const INTEGER_RESOURCES = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);
const isNative = (name: string) => !name.includes('/') || name.includes('orch.io/');
const isExtended = (name: string) => !isNative(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;

/** Upstream ValidateNodeResources: capacity and allocatable quantities not negative, whole for countable resources. */
function validateNodeResources(node: any): FieldError[] {
  const errs: FieldError[] = [];
  for (const list of ['capacity', 'allocatable']) {
    const resources = node.status?.[list];
    if (!isObj(resources)) continue;
    for (const [name, text] of Object.entries(resources)) {
      // field.NewPath("status", list, name): a child, not a key, upstream
      const path = `status.${list}.${name}`;
      const q = parseQuantity(String(text));
      if (compareQuantities(q, zeroQuantity()) < 0) errs.push(invalid(path, formatQuantity(q), 'must be greater than or equal to 0'));
      if ((INTEGER_RESOURCES.has(name) || isExtended(name)) && !isIntegerQuantity(q)) errs.push(invalid(path, formatQuantity(q), 'must be an integer'));
    }
  }
  return errs;
}

/** k8s.io/utils/net IsIPv6 of a parsed network: 16 bytes that are not IPv4-mapped. */
function isIPv6Network(network: Uint8Array): boolean {
  if (network.length !== 16) return false;
  for (let k = 0; k < 10; k++) if (network[k] !== 0) return true;
  return !(network[10] === 0xff && network[11] === 0xff);
}

/** Upstream validation.IsValidCIDR. */
function validateCIDR(value: string, path: string): FieldError[] {
  return parseCIDR(value) ? [] : [invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

/** The podCIDRs part of upstream ValidateNode: each a CIDR, at most one per family, no duplicates. */
function validatePodCIDRs(node: any): FieldError[] {
  const cidrs = arr(node.spec?.podCIDRs).map(str);
  if (cidrs.length === 0) return [];
  const path = 'spec.podCIDRs';
  const errs = cidrs.flatMap((c, i) => validateCIDR(c, index(path, i)));
  if (cidrs.length > 1) {
    // netutils.IsDualStackCIDRStrings
    let dualStack = false;
    const bad = cidrs.findIndex((c) => !parseCIDR(c));
    if (bad >= 0) {
      errs.push(internalError(path, `invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[${bad}]: <nil> (invalid CIDR address: ${cidrs[bad]})`));
    } else {
      const families = cidrs.map((c) => isIPv6Network(parseCIDR(c)!.network));
      dualStack = families.includes(true) && families.includes(false);
    }
    if (!dualStack || cidrs.length > 2) errs.push(invalid(path, goStringSlice(cidrs), 'may specify no more than one CIDR for each IP family'));
    cidrs.forEach((c, i) => {
      if (cidrs.indexOf(c) < i) errs.push(duplicate(index(path, i), c));
    });
  }
  return errs;
}

/** Upstream ValidateNode beyond ObjectMeta (create, and every update of the resource itself). */
export function validateNode(node: any): FieldError[] {
  const errs = validateNodeAnnotations(node);
  if (arr(node.spec?.taints).length > 0) errs.push(...validateNodeTaints(node.spec.taints, 'metadata.taints'));
  errs.push(...validateNodeResources(node));
  errs.push(...validatePodCIDRs(node));
  return errs;
}

const CIDR_IMMUTABLE = 'node updates may not change podCIDR except from "" to valid';

/**
 * Upstream ValidateNodeUpdate beyond ObjectMeta (the whole validation of a
 * status write): addresses unique, podCIDRs and providerID fixed once set,
 * taints valid, externalID fixed.
 */
export function validateNodeUpdate(node: any, old: any): FieldError[] {
  const errs = validateNodeAnnotations(node);
  errs.push(...validateNodeResources(node));
  const seen = new Set<string>();
  arr(node.status?.addresses).forEach((address, i) => {
    const type = str(address?.type);
    const value = str(address?.address);
    const key = JSON.stringify([type, value]);
    if (seen.has(key)) errs.push(duplicate(index('status.addresses', i), goRepr(`core.NodeAddress{Type:${goQuote(type)}, Address:${goQuote(value)}}`)));
    seen.add(key);
  });
  const oldCIDRs = arr(old.spec?.podCIDRs).map(str);
  if (oldCIDRs.length > 0) {
    const cidrs = arr(node.spec?.podCIDRs).map(str);
    if (oldCIDRs.length !== cidrs.length) errs.push(forbidden('spec.podCIDRs', CIDR_IMMUTABLE));
    else oldCIDRs.forEach((c, i) => c !== cidrs[i] && errs.push(forbidden('spec.podCIDRs', CIDR_IMMUTABLE)));
  }
  const oldProvider = str(old.spec?.providerID);
  if (oldProvider && oldProvider !== str(node.spec?.providerID)) errs.push(forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  // spec.configSource and status.config cannot be stored (the strategy drops them unless the
  // stored node had them, and it never could), so their validation has nothing to see.
  if (arr(node.spec?.taints).length > 0) errs.push(...validateNodeTaints(node.spec.taints, 'metadata.taints'));
  if (str(node.spec?.externalID) !== str(old.spec?.externalID)) errs.push(forbidden('spec.externalID', 'may not be updated'));
  return errs;
}
