/**
 * Validation of flowcontrol.orch.io FlowSchema (SPEC 9.7), on the internal
 * form whatever version was written, as upstream K
 * pkg/apis/flowcontrol/validation 1.31 (ValidateFlowSchema and its status
 * update), and the status conditions a PriorityLevelConfiguration's share:
 * the rules a user meets, with upstream's paths and words.
 */
import { child, duplicate, forbidden, goRepr, goStringSlice, index, invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { goQuote } from '../../../util/go-print.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../api/names.ts';
import type { ApiObject } from '../../../registry/strategy.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** flowcontrol.FlowSchemaMaxMatchingPrecedence. */
const MAX_MATCHING_PRECEDENCE = 10000;
const SUPPORTED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

const hasWildcard = (values: readonly string[]) => values.includes('*');

/** ValidateFlowSchema (spec and status; ObjectMeta is the store's). */
export function validateFlowSchema(fs: any): FieldError[] {
  const spec = fs.spec ?? {};
  const errs: FieldError[] = [];
  const precedence = num(spec.matchingPrecedence);
  if (precedence <= 0) errs.push(invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > MAX_MATCHING_PRECEDENCE) errs.push(invalid('spec.matchingPrecedence', precedence, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
  if (precedence === 1 && fs.metadata?.name !== 'exempt') errs.push(invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const method = spec.distinguisherMethod;
  if (method && method.type !== 'ByNamespace' && method.type !== 'ByUser') {
    errs.push(notSupported('spec.distinguisherMethod.type', goRepr(`flowcontrol.FlowDistinguisherMethod{Type:${goQuote(str(method.type))}}`), ['ByNamespace', 'ByUser']));
  }
  const plName = str(spec.priorityLevelConfiguration?.name);
  if (plName) for (const msg of isDNS1123Subdomain(plName)) errs.push(invalid('spec.priorityLevelConfiguration.name', plName, msg));
  else errs.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  arr(spec.rules).forEach((rule, i) => errs.push(...validateRule(rule ?? {}, index('spec.rules', i))));
  errs.push(...validateConditions(fs.status?.conditions));
  return errs;
}

/** ValidateFlowSchemaPolicyRulesWithSubjects. */
function validateRule(rule: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = arr(rule.subjects);
  if (subjects.length) subjects.forEach((s, i) => errs.push(...validateSubject(s ?? {}, index(child(path, 'subjects'), i))));
  else errs.push(required(child(path, 'subjects'), 'subjects must contain at least one value'));
  const resourceRules = arr(rule.resourceRules);
  const nonResourceRules = arr(rule.nonResourceRules);
  if (!resourceRules.length && !nonResourceRules.length) errs.push(required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  resourceRules.forEach((r, i) => errs.push(...validateResourceRule(r ?? {}, index(child(path, 'resourceRules'), i))));
  nonResourceRules.forEach((r, i) => errs.push(...validateNonResourceRule(r ?? {}, index(child(path, 'nonResourceRules'), i))));
  return errs;
}

const SUBJECT_FIELDS = { ServiceAccount: 'serviceAccount', User: 'user', Group: 'group' } as const;

/** ValidateFlowSchemaSubject: the member its kind names, and no other. */
function validateSubject(subject: any, path: string): FieldError[] {
  const kind = str(subject.kind);
  if (!(kind in SUBJECT_FIELDS)) return [notSupported(child(path, 'kind'), kind, ['Group', 'ServiceAccount', 'User'])];
  const errs: FieldError[] = [];
  const field = SUBJECT_FIELDS[kind as keyof typeof SUBJECT_FIELDS];
  const member = subject[field];
  const memberPath = child(path, field);
  if (!member) errs.push(required(memberPath, `${field} is required when subject kind is '${kind}'`));
  else if (!str(member.name)) errs.push(required(child(memberPath, 'name'), ''));
  else if (kind === 'ServiceAccount' && member.name !== '*') {
    for (const msg of isDNS1123Subdomain(member.name)) errs.push(invalid(child(memberPath, 'name'), member.name, msg));
  }
  if (kind === 'ServiceAccount' && member) {
    const ns = str(member.namespace);
    if (ns) for (const msg of isDNS1123Label(ns)) errs.push(invalid(child(memberPath, 'namespace'), ns, msg));
    else errs.push(required(child(memberPath, 'namespace'), 'must specify namespace for service account'));
  }
  // Upstream's order: the service account, user and group members checked in turn.
  for (const [otherKind, other] of Object.entries(SUBJECT_FIELDS)) {
    if (other === field || subject[other] == null) continue;
    errs.push(forbidden(child(path, other), `${other} is forbidden when subject kind is not '${otherKind}'`));
  }
  return errs;
}

/** The verbs check both rule kinds share. */
function validateVerbs(verbs: string[], path: string): FieldError[] {
  if (!verbs.length) return [required(path, 'verbs must contain at least one value')];
  if (hasWildcard(verbs)) return verbs.length > 1 ? [invalid(path, goStringSlice(verbs), "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((v) => SUPPORTED_VERBS.includes(v)) ? [] : [notSupported(path, goStringSlice(verbs), SUPPORTED_VERBS)];
}

/** ValidateFlowSchemaNonResourcePolicyRule. */
function validateNonResourceRule(rule: any, path: string): FieldError[] {
  const errs = validateVerbs(arr(rule.verbs), child(path, 'verbs'));
  const urls: string[] = arr(rule.nonResourceURLs);
  const urlsPath = child(path, 'nonResourceURLs');
  if (!urls.length) errs.push(required(urlsPath, 'nonResourceURLs must contain at least one value'));
  else if (hasWildcard(urls)) {
    if (urls.length > 1) errs.push(invalid(urlsPath, goStringSlice(urls), "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((url, i) => {
      const msg = nonResourceURLError(str(url));
      if (msg) errs.push(invalid(index(urlsPath, i), url, msg));
    });
  }
  return errs;
}

/** ValidateNonResourceURLPath. */
function nonResourceURLError(path: string): string | undefined {
  if (!path) return 'must not be empty';
  if (path === '/') return undefined;
  if (!path.startsWith('/')) return 'must start with slash';
  if (path.includes(' ')) return 'must not contain white-space';
  if (path.includes('//')) return 'must not contain double slash';
  const wildcards = path.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && path.slice(-2) !== '/*')) return 'wildcard can only do suffix matching';
  return undefined;
}

/** ValidateFlowSchemaResourcePolicyRule. */
function validateResourceRule(rule: any, path: string): FieldError[] {
  const errs = validateVerbs(arr(rule.verbs), child(path, 'verbs'));
  const groups: string[] = arr(rule.apiGroups);
  if (!groups.length) errs.push(required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && hasWildcard(groups)) errs.push(invalid(child(path, 'apiGroups'), goStringSlice(groups), "if '*' is present, must not specify other api groups"));
  const resources: string[] = arr(rule.resources);
  if (!resources.length) errs.push(required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && hasWildcard(resources)) errs.push(invalid(child(path, 'resources'), goStringSlice(resources), "if '*' is present, must not specify other resources"));
  const namespaces: string[] = arr(rule.namespaces);
  const nsPath = child(path, 'namespaces');
  if (!namespaces.length && rule.clusterScope !== true) errs.push(required(nsPath, 'resource rules that are not cluster scoped must supply at least one namespace'));
  else if (hasWildcard(namespaces)) {
    if (namespaces.length > 1) errs.push(invalid(nsPath, goStringSlice(namespaces), "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const msg of isDNS1123Label(str(ns))) errs.push(invalid(index(nsPath, i), ns, NS_ERR_INTRO + msg));
    });
  }
  return errs;
}

/** ValidateFlowSchemaStatus / ValidatePriorityLevelConfigurationStatus: condition types set and unique. */
export function validateConditions(conditions: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(conditions).forEach((condition, i) => {
    const type = str(condition?.type);
    const path = index('status.conditions', i);
    if (seen.has(type)) errs.push(duplicate(child(path, 'type'), type));
    seen.add(type);
    if (!type) errs.push(required(child(path, 'type'), 'must not be empty'));
  });
  return errs;
}

/** The status subresource validates only status (a PriorityLevelConfiguration's alike). */
export function validateStatus(obj: ApiObject): FieldError[] {
  return validateConditions(obj.status?.conditions);
}
