/**
 * flowcontrol.orch.io FlowSchema at v1 and v1beta3 (SPEC 9.7; K
 * pkg/apis/flowcontrol/v1/defaults.go and v1beta3/defaults.go, the same for
 * both; K pkg/registry/flowcontrol/flowschema/strategy.go): defaults, status
 * `{}` on create, generation following the spec, validation of the internal
 * form, the status subresource's conditions; its conversion and cells.
 */
import { internalForm } from '../../../registry/kind-conversion.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specAndStatusStrategy, type ApiObject } from '../../../registry/strategy.ts';
import { cells } from './cells.ts';
import { conversion } from './conversion.ts';
import { validateFlowSchema, validateStatus } from './validate.ts';

/** SetDefaults_FlowSchemaSpec (the same at v1 and v1beta3). */
function defaultFlowSchema(obj: ApiObject): void {
  if (obj.spec && !obj.spec.matchingPrecedence) obj.spec.matchingPrecedence = 1000;
}

export default defineKind({
  // validated as upstream validates it: converted to the internal form from the version it was written at
  strategy: specAndStatusStrategy({ applyDefaults: defaultFlowSchema, validate: (obj) => validateFlowSchema(internalForm(conversion, obj)), validateStatus }),
  cells,
  conversion,
});
