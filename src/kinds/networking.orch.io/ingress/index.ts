/**
 * networking.orch.io/v1 Ingress (SPEC 9.7; upstream
 * pkg/registry/networking/ingress/strategy.go, 1.31): status `{}` on create,
 * generation following the spec, the spec's and the status' rules, the
 * deprecated class annotation warned about; its printer's cells.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specAndStatusStrategy } from '../../../registry/strategy.ts';
import { cells } from './cells.ts';
import { INGRESS_CLASS_ANNOTATION, validateIngress, validateIngressStatus } from './validate.ts';

export default defineKind({
  strategy: {
    ...specAndStatusStrategy({ validate: validateIngress, validateStatus: (obj) => validateIngressStatus(obj) }),
    warningsOnCreate: (obj) =>
      obj.metadata.annotations && INGRESS_CLASS_ANNOTATION in obj.metadata.annotations ? [`annotation "${INGRESS_CLASS_ANNOTATION}" is deprecated, please use 'spec.ingressClassName' instead`] : [],
  },
  cells,
});
