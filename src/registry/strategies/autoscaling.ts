/**
 * HorizontalPodAutoscaler at autoscaling/v2 and v1 (SPEC 9.7; K
 * pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go): defaults per
 * served version, status `{}` on create (kept on updates by the status
 * reset), validation of the internal form.
 */
import type { ApiObject, Strategy } from '../strategy.ts';
import { autoscalingConversions, DEFAULT_CPU_UTILIZATION } from '../conversions/autoscaling.ts';
import { internalForm } from '../kind-conversion.ts';
import { validateHorizontalPodAutoscaler } from '../validation/autoscaling.ts';
import { nonNegative } from '../validation/field-values.ts';
import { defaultedBehavior } from './autoscaling-defaults.ts';

const conversion = autoscalingConversions['autoscaling/HorizontalPodAutoscaler'];

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

export const autoscalingStrategies: Record<string, Strategy> = {
  'autoscaling/HorizontalPodAutoscaler': {
    applyDefaults,
    prepareForCreate(obj) {
      obj.status = {};
    },
    validate,
    validateUpdate: (obj) => validate(obj),
    // ValidateHorizontalPodAutoscalerStatusUpdate: replica counts are never negative (upstream's path keeps its typo).
    validateStatusUpdate: (obj) => [...nonNegative(obj.status?.currentReplicas, 'status.currentReplicas'), ...nonNegative(obj.status?.desiredReplicas, 'status.desiredReplicasa')],
  },
};
