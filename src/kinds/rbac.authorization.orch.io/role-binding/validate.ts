/**
 * ValidateRoleBinding and ValidateClusterRoleBinding (upstream
 * pkg/apis/rbac/validation, 1.31; SPEC 5.5): a roleRef into the RBAC group
 * (a ClusterRole, or a Role for a namespaced binding) that never changes, and
 * subjects of the three kinds.
 */
import type { ApiObject } from '../../../registry/strategy.ts';
import { index, invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isDNS1123Subdomain, isValidPathSegmentName } from '../../../api/names.ts';

export const RBAC_GROUP = 'rbac.authorization.orch.io';

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

/** The binding as written: its roleRef and subjects. */
export function validateBinding(obj: ApiObject, namespaced: boolean): FieldError[] {
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

/** ValidateRoleBindingUpdate: the roleRef cannot change. */
export function roleRefChange(obj: ApiObject, old: ApiObject): FieldError[] {
  return JSON.stringify(obj.roleRef ?? {}) === JSON.stringify(old.roleRef ?? {}) ? [] : [invalid('roleRef', obj.roleRef, 'cannot change roleRef')];
}
