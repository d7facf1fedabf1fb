/**
 * policy/v1 PodDisruptionBudget (SPEC 9.7; upstream
 * pkg/registry/policy/poddisruptionbudget/strategy.go, 1.31): status `{}` on
 * create, generation following the spec, the spec's rules and the status'.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specAndStatusStrategy } from '../../../registry/strategy.ts';
import { validatePodDisruptionBudget, validatePodDisruptionBudgetStatus } from './validate.ts';

export default defineKind({
  strategy: specAndStatusStrategy({ validate: (obj) => validatePodDisruptionBudget(obj), validateStatus: (obj) => validatePodDisruptionBudgetStatus(obj) }),
});
