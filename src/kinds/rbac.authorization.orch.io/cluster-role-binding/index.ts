/**
 * rbac.authorization.orch.io ClusterRoleBinding (SPEC 5.5): a RoleBinding
 * without a namespace, so it names ClusterRoles only; the same strategy and
 * cells (role-binding/).
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { cells } from '../role-binding/cells.ts';
import { bindingStrategy } from '../role-binding/strategy.ts';

export default defineKind({ strategy: bindingStrategy(false), cells });
