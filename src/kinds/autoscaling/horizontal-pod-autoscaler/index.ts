/**
 * HorizontalPodAutoscaler at autoscaling/v2 and v1 (SPEC 9.7; K
 * pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go): defaults per
 * served version, status `{}` on create (kept on updates by the status
 * reset), validation of the internal form; the conversion between the
 * versions, and the cells, printed from the stored (v2) form.
 */
import { internalForm } from '../../../registry/kind-conversion.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import type { ApiObject } from '../../../registry/strategy.ts';
import { nonNegative } from '../../../registry/validation/field-values.ts';
import { cells } from './cells.ts';
import { conversion, DEFAULT_CPU_UTILIZATION } from './conversion.ts';
import { defaultedBehavior } from './defaults.ts';
import { validateHorizontalPodAutoscaler } from './validate.ts';

/** SetDefaults_HorizontalPodAutoscaler of v2 (minReplicas, the CPU target, the behavior) and of v1 (minReplicas). */
function applyDefaults(obj: ApiObject): void {
  const spec = (obj.spec ??= {});
  spec.minReplicas ??= 1;
  if (obj.apiVersion !== 'autoscaling/v2') return;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  if (spec.behavior) spec.behavior = defaultedBehavior(spec.behavior);
}

/** The object as upstream validates it: its internal form. */
function validate(obj: ApiObject) {
  return validateHorizontalPodAutoscaler(internalForm(conversion, obj));
}

export default defineKind({
  strategy: {
    applyDefaults,
    prepareForCreate(obj) {
      obj.status = {};
    },
    validate,
    validateUpdate: (obj) => validate(obj),
    // ValidateHorizontalPodAutoscalerStatusUpdate: replica counts are never negative (upstream's path keeps its typo).
    validateStatusUpdate: (obj) => [...nonNegative(obj.status?.currentReplicas, 'status.currentReplicas'), ...nonNegative(obj.status?.desiredReplicas, 'status.desiredReplicasa')],
  },
  cells,
  conversion,
});
