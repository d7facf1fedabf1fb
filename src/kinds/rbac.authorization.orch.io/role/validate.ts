/**
 * The rules of a Role or ClusterRole (upstream pkg/apis/rbac/validation
 * ValidatePolicyRule, 1.31; SPEC 5.5): verbs, and either non-resource URLs
 * (cluster rules only) or groups and resources. Evaluating them is the
 * authorizer's.
 */
import type { ApiObject } from '../../../registry/strategy.ts';
import { index, invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';

/** ValidatePolicyRule. */
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

/** Every rule of `rules`; a ClusterRole's (namespaced false) may name non-resource URLs. */
export function validateRules(obj: ApiObject, namespaced: boolean): FieldError[] {
  return (Array.isArray(obj.rules) ? obj.rules : []).flatMap((rule: unknown, i: number) => ruleErrors(rule, namespaced, index('rules', i)));
}
