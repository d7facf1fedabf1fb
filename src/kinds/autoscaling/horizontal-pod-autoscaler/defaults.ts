/**
 * HorizontalPodAutoscaler defaults (K pkg/apis/autoscaling/v2/defaults.go and
 * v1/defaults.go): minReplicas 1; at v2 a CPU utilization target of 80 when
 * no metric is given (v1's conversion does the same); a given behavior gets
 * every unset rule from GenerateHPAScaleUpRules / GenerateHPAScaleDownRules.
 */

const DEFAULT_SCALE_UP = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] };
/** Scale-down stabilization stays unset: the controller's flag decides it. */
const DEFAULT_SCALE_DOWN = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** copyHPAScalingRules over a copy of the defaults: what the rules set wins. */
function generated(rules: any, defaults: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(defaults);
  if (rules?.stabilizationWindowSeconds !== undefined) out.stabilizationWindowSeconds = rules.stabilizationWindowSeconds;
  if (rules?.selectPolicy !== undefined) out.selectPolicy = rules.selectPolicy;
  if (rules?.policies !== undefined) out.policies = rules.policies;
  return out;
}

/** SetDefaults_HorizontalPodAutoscalerBehavior for a behavior that is set. */
export function defaultedBehavior(behavior: any): Record<string, unknown> {
  return { scaleUp: generated(behavior?.scaleUp, DEFAULT_SCALE_UP), scaleDown: generated(behavior?.scaleDown, DEFAULT_SCALE_DOWN) };
}
