/**
 * RBAC kinds (SPEC 5.5): upstream's defaults (subjects' and roleRef's apiGroup)
 * and validation (pkg/apis/rbac/validation) for Role, ClusterRole,
 * RoleBinding and ClusterRoleBinding. Evaluating them is the authorizer's.
 */
import type { Strategy, ApiObject } from '../strategy.ts';
import { index, invalid, notSupported, required, type FieldError } from '../validation/field-errors.ts';
import { validateLabelSelector } from '../validation/label-selector.ts';
import { isDNS1123Subdomain, isValidPathSegmentName } from '../validation/names.ts';

export const RBAC_GROUP = 'rbac.authorization.orch.io';

/** ValidatePolicyRule: verbs, and either non-resource URLs (cluster rules only) or groups and resources. */
function ruleErrors(rule: any, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const has = (k: string) => Array.isArray(rule?.[k]) && rule[k].length > 0;
  if (!has('verbs')) errs.push(required(`${path}.verbs`, 'verbs must contain at least one value'));
  if (has('nonResourceURLs')) {
    if (namespaced) errs.push(invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (has('apiGroups') || has('resources') || has('resourceNames')) {
      errs.push(invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!has('apiGroups')) errs.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (!has('resources')) errs.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function rulesErrors(obj: ApiObject, namespaced: boolean): FieldError[] {
  return (Array.isArray(obj.rules) ? obj.rules : []).flatMap((rule: unknown, i: number) => ruleErrors(rule, namespaced, index('rules', i)));
}

/** ValidateRoleBindingSubject. */
function subjectErrors(subject: any, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = typeof subject?.name === 'string' ? subject.name : '';
  if (!name) errs.push(required(`${path}.name`));
  switch (subject?.kind) {
    case 'ServiceAccount':
      if (name) for (const msg of isDNS1123Subdomain(name)) errs.push(invalid(`${path}.name`, name, msg));
      if (subject.apiGroup) errs.push(notSupported(`${path}.apiGroup`, subject.apiGroup, ['']));
      if (!namespaced && !subject.namespace) errs.push(required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (subject.apiGroup !== RBAC_GROUP) errs.push(notSupported(`${path}.apiGroup`, subject.apiGroup ?? '', [RBAC_GROUP]));
      break;
    default:
      errs.push(notSupported(`${path}.kind`, subject?.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function bindingErrors(obj: ApiObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = obj.roleRef ?? {};
  if (ref.apiGroup !== RBAC_GROUP) errs.push(notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) errs.push(notSupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!ref.name) errs.push(required('roleRef.name'));
  else for (const msg of isValidPathSegmentName(ref.name)) errs.push(invalid('roleRef.name', ref.name, msg));
  (Array.isArray(obj.subjects) ? obj.subjects : []).forEach((s: unknown, i: number) => errs.push(...subjectErrors(s, namespaced, index('subjects', i))));
  return errs;
}

/** SetDefaults_Subject and SetDefaults_*RoleBinding: the API group when left out. */
function defaultBinding(obj: ApiObject): void {
  if (obj.roleRef && typeof obj.roleRef === 'object' && !obj.roleRef.apiGroup) obj.roleRef.apiGroup = RBAC_GROUP;
  for (const subject of Array.isArray(obj.subjects) ? obj.subjects : []) {
    if (subject && typeof subject === 'object' && !subject.apiGroup && (subject.kind === 'User' || subject.kind === 'Group')) subject.apiGroup = RBAC_GROUP;
  }
}

const roleRefChange = (obj: ApiObject, old: ApiObject): FieldError[] =>
  JSON.stringify(obj.roleRef ?? {}) === JSON.stringify(old.roleRef ?? {}) ? [] : [invalid('roleRef', obj.roleRef, 'cannot change roleRef')];

function clusterRoleErrors(obj: ApiObject): FieldError[] {
  const errs = rulesErrors(obj, false);
  const rule = obj.aggregationRule;
  if (rule) {
    const selectors = Array.isArray(rule.clusterRoleSelectors) ? rule.clusterRoleSelectors : [];
    if (selectors.length === 0) errs.push(required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((s: unknown, i: number) => errs.push(...validateLabelSelector(s, index('aggregationRule.clusterRoleSelectors', i))));
  }
  return errs;
}

export const rbacStrategies: Record<string, Strategy> = {
  [`${RBAC_GROUP}/Role`]: { validate: (obj) => rulesErrors(obj, true), validateUpdate: (obj) => rulesErrors(obj, true) },
  [`${RBAC_GROUP}/ClusterRole`]: { validate: clusterRoleErrors, validateUpdate: clusterRoleErrors },
  [`${RBAC_GROUP}/RoleBinding`]: {
    applyDefaults: defaultBinding,
    validate: (obj) => bindingErrors(obj, true),
    validateUpdate: (obj, old) => [...bindingErrors(obj, true), ...roleRefChange(obj, old)],
  },
  [`${RBAC_GROUP}/ClusterRoleBinding`]: {
    applyDefaults: defaultBinding,
    validate: (obj) => bindingErrors(obj, false),
    validateUpdate: (obj, old) => [...bindingErrors(obj, false), ...roleRefChange(obj, old)],
  },
};
