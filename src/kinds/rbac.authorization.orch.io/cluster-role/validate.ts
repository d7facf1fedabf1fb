/**
 * ValidateClusterRole (upstream pkg/apis/rbac/validation, 1.31; SPEC 5.5): the
 * rules as a Role's, non-resource URLs allowed, and an aggregationRule with at
 * least one valid label selector.
 */
import type { ApiObject } from '../../../registry/strategy.ts';
import { index, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { validateLabelSelector } from '../../../registry/validation/label-selector.ts';
import { validateRules } from '../role/validate.ts';

export function validateClusterRole(obj: ApiObject): FieldError[] {
  const errs = validateRules(obj, false);
  const rule = obj.aggregationRule;
  if (rule) {
    const selectors = Array.isArray(rule.clusterRoleSelectors) ? rule.clusterRoleSelectors : [];
    if (selectors.length === 0) errs.push(required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((s: unknown, i: number) => errs.push(...validateLabelSelector(s, index('aggregationRule.clusterRoleSelectors', i))));
  }
  return errs;
}
