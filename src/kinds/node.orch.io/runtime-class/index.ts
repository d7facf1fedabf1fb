/** node.orch.io/v1 RuntimeClass (SPEC 9.7; upstream pkg/registry/node/runtimeclass/strategy.go, 1.31): validated on create and update. */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy } from '../../../registry/strategy.ts';
import { validateRuntimeClass } from './validate.ts';

export default defineKind({ strategy: validatedBy(validateRuntimeClass) });
