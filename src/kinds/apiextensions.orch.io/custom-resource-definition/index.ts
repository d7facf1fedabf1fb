/**
 * apiextensions.orch.io/v1 CustomResourceDefinition (SPEC 9.7): its strategy
 * (strategy.ts: defaults, status and generation, validation) and how it is
 * deleted (deletion.ts: marked for the CRD finalizer controller, which deletes
 * its objects first). Serving the custom resources it defines is
 * src/registry/custom-resources' and src/server/custom-resources.ts'.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { deletion } from './deletion.ts';
import { strategy } from './strategy.ts';

export default defineKind({ strategy: { ...strategy, ...deletion } });
