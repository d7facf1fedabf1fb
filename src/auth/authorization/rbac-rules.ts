/**
 * RBAC's matching (SPEC 5.5), as upstream's plugin/pkg/auth/authorizer/rbac
 * and pkg/apis/rbac/v1 helpers: which bindings apply to a user, and whether a
 * rule allows a request. Permissions only add up; nothing denies. The
 * authorizer that serves `--authorization-mode=RBAC` (issue 9) evaluates these
 * over an index the watch cache keeps current.
 */
import type { UserInfo } from '../../api/user.ts';
import type { AuthorizationAttributes } from './authorizer.ts';

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
  apiGroup?: string;
}

const has = (list: string[] | undefined, value: string) => !!list && (list.includes('*') || list.includes(value));

/** appliesToUser: users and groups by name (case-sensitive); service accounts in the subject's or the binding's namespace. */
export function subjectMatches(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name ?? '');
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      if (!namespace || !subject.name) return false;
      return user.name === `system:serviceaccount:${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** ResourceMatches: `*`, the exact `resource` or `resource/subresource`, or `*\/subresource`. */
function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const candidate of rule.resources ?? []) {
    if (candidate === '*' || candidate === combined) return true;
    if (subresource && candidate.length === subresource.length + 2 && candidate.startsWith('*/') && candidate.endsWith(subresource)) return true;
  }
  return false;
}

/**
 * One non-resource URL pattern: `*`, the exact path, or a prefix ending in `*`
 * (upstream's NonResourceURLMatches; ABAC's nonResourcePath matches the same way).
 */
export function nonResourcePathMatches(pattern: string, path: string): boolean {
  if (pattern === '*' || pattern === path) return true;
  return pattern.endsWith('*') && path.startsWith(pattern.replace(/\*+$/, ''));
}

function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((url) => nonResourcePathMatches(url, path));
}

/** RuleAllows: verb, then API group, resource and resource name, or the non-resource URL. */
export function ruleAllows(attributes: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, attributes.verb)) return false;
  if (!attributes.isResourceRequest) return nonResourceUrlMatches(rule, attributes.path);
  if (!has(rule.apiGroups, attributes.group)) return false;
  if (!resourceMatches(rule, attributes.resource, attributes.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(attributes.name);
}
