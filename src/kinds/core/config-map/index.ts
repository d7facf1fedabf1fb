/** core/v1 ConfigMap (upstream pkg/registry/core/configmap/strategy.go, 1.31): validated on create and update. */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy } from '../../../registry/strategy.ts';
import { validateConfigMap } from './validate.ts';

export default defineKind({ strategy: validatedBy(validateConfigMap) });
