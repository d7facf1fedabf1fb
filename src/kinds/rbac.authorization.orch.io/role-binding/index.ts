/** rbac.authorization.orch.io RoleBinding (SPEC 5.5): its strategy and the cells of its printer columns. */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { cells } from './cells.ts';
import { bindingStrategy } from './strategy.ts';

export default defineKind({ strategy: bindingStrategy(true), cells });
