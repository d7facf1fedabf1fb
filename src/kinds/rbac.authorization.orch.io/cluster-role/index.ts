/**
 * rbac.authorization.orch.io ClusterRole (upstream
 * pkg/registry/rbac/clusterrole/strategy.go, 1.31): validated on create and
 * update. Aggregation is the clusterrole-aggregation controller's.
 */
import type { components } from '../../../generated/types/apis__rbac.authorization.orch.io__v1.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import type { Strategy } from '../../../registry/strategy.ts';
import { validateClusterRole } from './validate.ts';

type ClusterRole = components['schemas']['io.orch.api.rbac.v1.ClusterRole'];

const strategy: Strategy<ClusterRole> = { validate: validateClusterRole, validateUpdate: validateClusterRole };

export default defineKind({ strategy });
