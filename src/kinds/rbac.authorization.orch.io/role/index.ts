/** rbac.authorization.orch.io Role (upstream pkg/registry/rbac/role/strategy.go, 1.31): its rules validated on create and update. */
import type { components } from '../../../generated/types/apis__rbac.authorization.orch.io__v1.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import type { Strategy } from '../../../registry/strategy.ts';
import { validateRules } from './validate.ts';

type Role = components['schemas']['io.orch.api.rbac.v1.Role'];

const strategy: Strategy<Role> = {
  validate: (obj) => validateRules(obj, true),
  validateUpdate: (obj) => validateRules(obj, true),
};

export default defineKind({ strategy });
