/**
 * The strategy of RoleBinding and ClusterRoleBinding (upstream
 * pkg/registry/rbac/{rolebinding,clusterrolebinding}/strategy.go, 1.31): the
 * API group defaulted, the binding validated, its roleRef immutable.
 */
import type { components } from '../../../generated/types/apis__rbac.authorization.orch.io__v1.ts';
import type { ApiObject, Strategy } from '../../../registry/strategy.ts';
import { RBAC_GROUP, roleRefChange, validateBinding } from './validate.ts';

type Binding = components['schemas']['io.orch.api.rbac.v1.RoleBinding'] | components['schemas']['io.orch.api.rbac.v1.ClusterRoleBinding'];

/** SetDefaults_Subject and SetDefaults_*RoleBinding: the API group when left out. */
function defaultBinding(obj: ApiObject): void {
  if (obj.roleRef && typeof obj.roleRef === 'object' && !obj.roleRef.apiGroup) obj.roleRef.apiGroup = RBAC_GROUP;
  for (const subject of Array.isArray(obj.subjects) ? obj.subjects : []) {
    if (subject && typeof subject === 'object' && !subject.apiGroup && (subject.kind === 'User' || subject.kind === 'Group')) subject.apiGroup = RBAC_GROUP;
  }
}

/** A namespaced binding may name a Role; a cluster binding's ServiceAccount subjects need a namespace. */
export function bindingStrategy(namespaced: boolean): Strategy<Binding> {
  return {
    applyDefaults: defaultBinding,
    validate: (obj) => validateBinding(obj, namespaced),
    validateUpdate: (obj, old) => [...validateBinding(obj, namespaced), ...roleRefChange(obj, old)],
  };
}
