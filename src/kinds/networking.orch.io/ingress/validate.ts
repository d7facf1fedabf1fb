/**
 * Ingress validation (SPEC 9.7; translated from upstream kubernetes
 * pkg/apis/networking/validation 1.31: ValidateIngressSpec,
 * validateIngressRules, validateHTTPIngressPath, validateIngressBackend,
 * validateIngressTLS, ValidateIngressLoadBalancerStatus), and the typed
 * reference an IngressClass's parameters are. Paths and words are upstream's.
 */
import { child, goRepr, index, invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName, isValidPortName, isValidPortNum, isWildcardDNS1123Subdomain } from '../../../api/names.ts';
import { parseIPSloppy, validateIP } from '../../../registry/validation/ip-address.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const has = (v: unknown): boolean => v !== undefined && v !== null;

/** The deprecated class annotation spec.ingressClassName replaced (networking/v1beta1 AnnotationIngressClass, renamed by FACTS §0). */
export const INGRESS_CLASS_ANNOTATION = 'orch.io/ingress.class';

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];

/** A host: not an IP; a wildcard or plain DNS subdomain. Returns whether it is a wildcard. */
function hostErrors(host: string, path: string, rejectIP: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (rejectIP && parseIPSloppy(host)) errs.push(invalid(path, host, 'must be a DNS name, not an IP address'));
  const messages = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
  return [...errs, ...messages.map((m) => invalid(path, host, m))];
}

/** validateIngressTypedLocalObjectReference: apiGroup a DNS subdomain, kind and name path segments. */
export function validateTypedReference(ref: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof ref.apiGroup === 'string') errs.push(...isDNS1123Subdomain(ref.apiGroup).map((m) => invalid(child(path, 'apiGroup'), ref.apiGroup, m)));
  for (const key of ['kind', 'name']) {
    const value = str(ref[key]);
    if (value === '') errs.push(required(child(path, key), `${key} is required`));
    else errs.push(...isValidPathSegmentName(value).map((m) => invalid(child(path, key), value, m)));
  }
  return errs;
}

/** validateIngressBackend: exactly one of resource and service; a service names a port by name or number. */
function validateBackend(backend: any, path: string): FieldError[] {
  const hasResource = has(backend?.resource);
  const hasService = has(backend?.service);
  if (hasResource && hasService) return [invalid(path, '', 'cannot set both resource and service backends')];
  if (hasResource) return validateTypedReference(backend.resource, child(path, 'resource'));
  if (!hasService) return [invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const service = backend.service;
  const name = str(service.name);
  if (name === '') errs.push(required(`${path}.service.name`));
  else errs.push(...isDNS1035Label(name).map((m) => invalid(`${path}.service.name`, name, m)));
  const portName = str(service.port?.name);
  const portNumber = typeof service.port?.number === 'number' ? service.port.number : 0;
  if (portName !== '' && portNumber !== 0) errs.push(invalid(path, '', 'cannot set both port name & port number'));
  else if (portName !== '') errs.push(...isValidPortName(portName).map((m) => invalid(`${path}.service.port.name`, portName, m)));
  else if (portNumber !== 0) errs.push(...isValidPortNum(portNumber).map((m) => invalid(`${path}.service.port.number`, portNumber, m)));
  else errs.push(required(path, 'port name or number is required'));
  return errs;
}

/** validateHTTPIngressPath: a known path type, an absolute path for Exact and Prefix, a valid backend. */
function validatePath(p: any, path: string): FieldError[] {
  if (!has(p?.pathType)) return [required(child(path, 'pathType'), 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = str(p.path);
  const pathPath = child(path, 'path');
  if (p.pathType === 'Exact' || p.pathType === 'Prefix') {
    if (!value.startsWith('/')) errs.push(invalid(pathPath, value, 'must be an absolute path'));
    if (value !== '') {
      for (const seq of INVALID_PATH_SEQUENCES) if (value.includes(seq)) errs.push(invalid(pathPath, value, `must not contain '${seq}'`));
      for (const suffix of INVALID_PATH_SUFFIXES) if (value.endsWith(suffix)) errs.push(invalid(pathPath, value, `cannot end with '${suffix}'`));
    }
  } else if (p.pathType === 'ImplementationSpecific') {
    if (value !== '' && !value.startsWith('/')) errs.push(invalid(pathPath, value, 'must be an absolute path'));
  } else errs.push(notSupported(child(path, 'pathType'), p.pathType, PATH_TYPES));
  return [...errs, ...validateBackend(p.backend, child(path, 'backend'))];
}

/** validateIngressRuleValue: an http rule has paths, each valid. */
function validateRuleValue(rule: any, path: string): FieldError[] {
  if (!has(rule?.http)) return [];
  const paths = arr(rule.http.paths);
  const errs = paths.length === 0 ? [required(`${path}.http.paths`)] : [];
  paths.forEach((p, j) => errs.push(...validatePath(p, index(`${path}.http.paths`, j))));
  return errs;
}

/** Upstream's update options: what an old object already got away with stays allowed (allowInvalidSecretName, allowInvalidWildcardHostRule). */
interface IngressOptions {
  allowInvalidSecretName: boolean;
  allowInvalidWildcardHostRule: boolean;
}

function validateRules(rules: any[], opts: IngressOptions): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const path = index('spec.rules', i);
    const host = str(rule?.host);
    if (host !== '') errs.push(...hostErrors(host, child(path, 'host'), true));
    if (!host.includes('*') || !opts.allowInvalidWildcardHostRule) errs.push(...validateRuleValue(rule, path));
  });
  return errs;
}

const invalidSecretName = (name: string) => name !== '' && isDNS1123Subdomain(name).length > 0;

function optionsFor(old: any): IngressOptions {
  return {
    allowInvalidSecretName: !!old && arr(old.spec?.tls).some((tls) => invalidSecretName(str(tls?.secretName))),
    allowInvalidWildcardHostRule: !!old && arr(old.spec?.rules).some((rule) => str(rule?.host).includes('*') && validateRuleValue(rule, '').length > 0),
  };
}

/** Go %#v of the rules upstream prints when neither rules nor a default backend is given. */
const rulesRepr = (rules: unknown) => goRepr(Array.isArray(rules) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)');

/**
 * ValidateIngressCreate / ValidateIngressUpdate: the spec (ValidateIngressSpec,
 * relaxed on update where the old object was already invalid) and, on create,
 * the class annotation and field not both set.
 */
export function validateIngress(ingress: any, old?: any): FieldError[] {
  const spec = ingress.spec ?? {};
  const rules = arr(spec.rules);
  const opts = optionsFor(old);
  const errs: FieldError[] = [];
  if (rules.length === 0 && !has(spec.defaultBackend)) errs.push(invalid('spec', rulesRepr(spec.rules), 'either `defaultBackend` or `rules` must be specified'));
  if (has(spec.defaultBackend)) errs.push(...validateBackend(spec.defaultBackend, 'spec.defaultBackend'));
  if (rules.length > 0) errs.push(...validateRules(rules, opts));
  arr(spec.tls).forEach((tls, i) => {
    const path = index('spec.tls', i);
    arr(tls?.hosts).forEach((host, j) => errs.push(...hostErrors(str(host), index(child(path, 'hosts'), j), false)));
    const secret = str(tls?.secretName);
    if (secret !== '' && !opts.allowInvalidSecretName) errs.push(...isDNS1123Subdomain(secret).map((m) => invalid(child(path, 'secretName'), secret, m)));
  });
  if (typeof spec.ingressClassName === 'string') errs.push(...isDNS1123Subdomain(spec.ingressClassName).map((m) => invalid('spec.ingressClassName', spec.ingressClassName, m)));
  const annotation = ingress.metadata?.annotations?.[INGRESS_CLASS_ANNOTATION];
  if (!old && typeof annotation === 'string' && has(spec.ingressClassName)) {
    errs.push(invalid(`annotations.${INGRESS_CLASS_ANNOTATION}`, annotation, 'can not be set when the class field is also set'));
  }
  return errs;
}

/** ValidateIngressLoadBalancerStatus: IPs valid, hostnames DNS names and not IPs. */
export function validateIngressStatus(ingress: any): FieldError[] {
  const errs: FieldError[] = [];
  arr(ingress.status?.loadBalancer?.ingress).forEach((lb, i) => {
    const path = index('status.loadBalancer.ingress', i);
    if (str(lb?.ip) !== '') errs.push(...validateIP(lb.ip, child(path, 'ip')));
    const hostname = str(lb?.hostname);
    if (hostname !== '') {
      errs.push(...isDNS1123Subdomain(hostname).map((m) => invalid(child(path, 'hostname'), hostname, m)));
      if (parseIPSloppy(hostname)) errs.push(invalid(child(path, 'hostname'), hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}
