/**
 * autoscaling HorizontalPodAutoscaler between v2 (the storage version, whose
 * shape is the internal form's) and v1 (SPEC 9.4.2; upstream
 * pkg/apis/autoscaling/v1/conversion.go and annotations.go). v1 holds one CPU
 * utilization target; what it cannot say travels in annotations, in the shapes
 * upstream writes them: the other metric specs and every current metric as
 * autoscaling/v1's (unserved) MetricSpec and MetricStatus, the conditions, and
 * the behavior as upstream marshals its internal type (Go field names).
 */
import type { ApiObject } from '../../../registry/strategy.ts';
import type { KindConversion } from '../../../registry/kind-conversion.ts';
import { defaultedBehavior } from './defaults.ts';

/** pkg/apis/autoscaling annotations.go, renamed (FACTS §0). */
export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.orch.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.orch.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.orch.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.orch.io/behavior';
const ROUND_TRIP_ANNOTATIONS = [METRIC_SPECS_ANNOTATION, BEHAVIOR_ANNOTATION, METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION];
/** autoscaling.DefaultCPUUtilization. */
export const DEFAULT_CPU_UTILIZATION = 80;

const V1 = 'autoscaling/v1';
const V2 = 'autoscaling/v2';

/** A Go value that is not a pointer: absent fields are their zero values, which JSON shows. */
const quantity = (q: unknown): string => (typeof q === 'string' ? q : '0');
/** Keys whose values are undefined are left out, as Go's omitempty pointers. */
const compact = <T extends Record<string, unknown>>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
const reference = (ref: any) => compact({ kind: ref?.kind ?? '', name: ref?.name ?? '', apiVersion: ref?.apiVersion || undefined });

const isCpuUtilization = (metric: any) => metric?.type === 'Resource' && metric.resource?.name === 'cpu' && metric.resource.target?.averageUtilization !== undefined;

/** Convert_autoscaling_MetricSpec_To_v1_MetricSpec and the per-source conversions. */
function metricSpecToV1(metric: any): unknown {
  const out: Record<string, unknown> = { type: metric.type ?? '' };
  const { object, pods, resource, containerResource, external } = metric;
  if (object) {
    out.object = compact({
      target: reference(object.describedObject),
      metricName: object.metric?.name ?? '',
      targetValue: quantity(object.target?.value),
      selector: object.metric?.selector,
      averageValue: object.target?.averageValue,
    });
  }
  if (pods) out.pods = compact({ metricName: pods.metric?.name ?? '', targetAverageValue: quantity(pods.target?.averageValue), selector: pods.metric?.selector });
  if (resource) out.resource = compact({ name: resource.name ?? '', targetAverageUtilization: resource.target?.averageUtilization, targetAverageValue: resource.target?.averageValue });
  if (containerResource) {
    out.containerResource = compact({
      name: containerResource.name ?? '',
      targetAverageUtilization: containerResource.target?.averageUtilization,
      targetAverageValue: containerResource.target?.averageValue,
      container: containerResource.container ?? '',
    });
  }
  if (external) {
    out.external = compact({ metricName: external.metric?.name ?? '', metricSelector: external.metric?.selector, targetValue: external.target?.value, targetAverageValue: external.target?.averageValue });
  }
  return out;
}

const identifier = (name: unknown, selector: unknown) => compact({ name: name ?? '', selector });

/** Convert_v1_MetricSpec_To_autoscaling_MetricSpec. */
function metricSpecFromV1(metric: any): unknown {
  const out: Record<string, unknown> = { type: metric.type ?? '' };
  const { object, pods, resource, containerResource, external } = metric;
  if (object) {
    out.object = {
      describedObject: reference(object.target),
      target: compact({ type: object.averageValue === undefined ? 'Value' : 'AverageValue', value: quantity(object.targetValue), averageValue: object.averageValue }),
      metric: identifier(object.metricName, object.selector),
    };
  }
  if (pods) out.pods = { metric: identifier(pods.metricName, pods.selector), target: { type: 'AverageValue', averageValue: quantity(pods.targetAverageValue) } };
  const resourceTarget = (r: any) =>
    compact({ type: r.targetAverageUtilization === undefined ? 'AverageValue' : 'Utilization', averageValue: r.targetAverageValue, averageUtilization: r.targetAverageUtilization });
  if (resource) out.resource = { name: resource.name ?? '', target: resourceTarget(resource) };
  if (containerResource) out.containerResource = { name: containerResource.name ?? '', target: resourceTarget(containerResource), container: containerResource.container ?? '' };
  if (external) {
    out.external = {
      metric: identifier(external.metricName, external.metricSelector),
      target: compact({ type: external.targetValue === undefined ? 'AverageValue' : 'Value', value: external.targetValue, averageValue: external.targetAverageValue }),
    };
  }
  return out;
}

/** Convert_autoscaling_MetricStatus_To_v1_MetricStatus. */
function metricStatusToV1(status: any): unknown {
  const out: Record<string, unknown> = { type: status.type ?? '' };
  const { object, pods, resource, containerResource, external } = status;
  if (object) {
    out.object = compact({
      target: reference(object.describedObject),
      metricName: object.metric?.name ?? '',
      currentValue: quantity(object.current?.value),
      selector: object.metric?.selector,
      averageValue: object.current?.averageValue,
    });
  }
  if (pods) out.pods = compact({ metricName: pods.metric?.name ?? '', currentAverageValue: quantity(pods.current?.averageValue), selector: pods.metric?.selector });
  const resourceCurrent = (r: any) => ({ currentAverageUtilization: r.current?.averageUtilization, currentAverageValue: quantity(r.current?.averageValue) });
  if (resource) out.resource = compact({ name: resource.name ?? '', ...resourceCurrent(resource) });
  if (containerResource) out.containerResource = compact({ name: containerResource.name ?? '', ...resourceCurrent(containerResource), container: containerResource.container ?? '' });
  if (external) {
    out.external = compact({ metricName: external.metric?.name ?? '', metricSelector: external.metric?.selector, currentValue: quantity(external.current?.value), currentAverageValue: external.current?.averageValue });
  }
  return out;
}

/** Convert_v1_MetricStatus_To_autoscaling_MetricStatus. */
function metricStatusFromV1(status: any): unknown {
  const out: Record<string, unknown> = { type: status.type ?? '' };
  const { object, pods, resource, containerResource, external } = status;
  if (object) {
    out.object = {
      metric: identifier(object.metricName, object.selector),
      current: compact({ value: quantity(object.currentValue), averageValue: object.averageValue }),
      describedObject: reference(object.target),
    };
  }
  if (pods) out.pods = { metric: identifier(pods.metricName, pods.selector), current: { averageValue: quantity(pods.currentAverageValue) } };
  const resourceCurrent = (r: any) => compact({ averageValue: quantity(r.currentAverageValue), averageUtilization: r.currentAverageUtilization });
  if (resource) out.resource = { name: resource.name ?? '', current: resourceCurrent(resource) };
  if (containerResource) out.containerResource = { name: containerResource.name ?? '', current: resourceCurrent(containerResource), container: containerResource.container ?? '' };
  if (external) out.external = { metric: identifier(external.metricName, external.metricSelector), current: compact({ value: quantity(external.currentValue), averageValue: external.currentAverageValue }) };
  return out;
}

/** The internal HPAScalingRules as encoding/json writes a struct without tags: Go's field names, nil as null. */
function goScalingRules(rules: any): unknown {
  if (!rules) return null;
  return {
    StabilizationWindowSeconds: rules.stabilizationWindowSeconds ?? null,
    SelectPolicy: rules.selectPolicy ?? null,
    Policies: Array.isArray(rules.policies) ? rules.policies.map((p: any) => ({ Type: p?.type ?? '', Value: p?.value ?? 0, PeriodSeconds: p?.periodSeconds ?? 0 })) : null,
  };
}

/** encoding/json reads field names case-insensitively: the Go names or the JSON ones. */
function field(obj: any, name: string): any {
  if (!obj || typeof obj !== 'object') return undefined;
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : obj[key];
}

function scalingRulesFromAnnotation(rules: any): any {
  if (!rules || typeof rules !== 'object') return undefined;
  const policies = field(rules, 'policies');
  return compact({
    stabilizationWindowSeconds: field(rules, 'stabilizationWindowSeconds') ?? undefined,
    selectPolicy: field(rules, 'selectPolicy') ?? undefined,
    policies: Array.isArray(policies) ? policies.map((p) => ({ type: field(p, 'type') ?? '', value: field(p, 'value') ?? 0, periodSeconds: field(p, 'periodSeconds') ?? 0 })) : undefined,
  });
}

/** Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler (with its spec and status conversions). */
function toV1(internal: ApiObject): ApiObject {
  const spec = internal.spec ?? {};
  const status = internal.status;
  const metadata = structuredClone(internal.metadata);
  const annotations: Record<string, string> = { ...(metadata.annotations ?? {}) };
  // Only the round-trip annotations this conversion writes: stale ones are dropped first.
  for (const key of ROUND_TRIP_ANNOTATIONS) delete annotations[key];
  const metrics: any[] = Array.isArray(spec.metrics) ? spec.metrics : [];
  const otherMetrics = metrics.filter((m) => !isCpuUtilization(m)).map(metricSpecToV1);
  const currentMetrics: any[] = Array.isArray(status?.currentMetrics) ? status.currentMetrics : [];
  const conditions: any[] = Array.isArray(status?.conditions) ? status.conditions : [];
  if (otherMetrics.length) annotations[METRIC_SPECS_ANNOTATION] = JSON.stringify(otherMetrics);
  if (currentMetrics.length) annotations[METRIC_STATUSES_ANNOTATION] = JSON.stringify(currentMetrics.map(metricStatusToV1));
  if (spec.behavior) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify({ ScaleUp: goScalingRules(spec.behavior.scaleUp), ScaleDown: goScalingRules(spec.behavior.scaleDown) });
  if (conditions.length) {
    const v1Conditions = conditions.map((c) => compact({ type: c.type ?? '', status: c.status ?? '', lastTransitionTime: c.lastTransitionTime ?? null, reason: c.reason || undefined, message: c.message || undefined }));
    annotations[CONDITIONS_ANNOTATION] = JSON.stringify(v1Conditions);
  }
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  // The first CPU metric decides: a CPU metric by value gives no utilization target.
  const cpu = metrics.find((m) => m?.type === 'Resource' && m.resource?.name === 'cpu');
  const cpuStatus = currentMetrics.filter((m) => m?.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.current?.averageUtilization !== undefined).pop();
  const out: ApiObject = {
    apiVersion: V1,
    kind: internal.kind,
    metadata,
    spec: compact({
      scaleTargetRef: reference(spec.scaleTargetRef),
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas ?? 0,
      targetCPUUtilizationPercentage: cpu?.resource?.target?.averageUtilization,
    }),
  };
  // Status is a struct, not a pointer: always there.
  out.status = compact({
    observedGeneration: status?.observedGeneration,
    lastScaleTime: status?.lastScaleTime,
    currentReplicas: status?.currentReplicas ?? 0,
    desiredReplicas: status?.desiredReplicas ?? 0,
    currentCPUUtilizationPercentage: cpuStatus?.resource?.current?.averageUtilization,
  });
  return out;
}

/** An annotation's JSON; upstream's conversion fails on a malformed one, which then is a 500 here too. */
function annotationJson(value: string, key: string): any {
  try {
    return JSON.parse(value);
  } catch {
    throw new Error(`the ${key} annotation is not valid JSON`);
  }
}

/** Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler. */
function fromV1(obj: ApiObject): ApiObject {
  const spec = obj.spec ?? {};
  const metadata = structuredClone(obj.metadata);
  const annotations: Record<string, string> = { ...(metadata.annotations ?? {}) };
  let metrics: any[] = [];
  if (spec.targetCPUUtilizationPercentage !== undefined) {
    metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } }];
  }
  if (METRIC_SPECS_ANNOTATION in annotations) {
    const others = annotationJson(annotations[METRIC_SPECS_ANNOTATION], METRIC_SPECS_ANNOTATION);
    metrics = [...(Array.isArray(others) ? others : []).map(metricSpecFromV1), ...metrics];
    delete annotations[METRIC_SPECS_ANNOTATION];
  }
  // autoscaling/v1 formerly had an implicit default in the controller; the conversion makes it explicit.
  if (!metrics.length) metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  let behavior: any;
  if (BEHAVIOR_ANNOTATION in annotations) {
    const encoded = annotationJson(annotations[BEHAVIOR_ANNOTATION], BEHAVIOR_ANNOTATION);
    behavior = defaultedBehavior({ scaleUp: scalingRulesFromAnnotation(field(encoded, 'scaleUp')), scaleDown: scalingRulesFromAnnotation(field(encoded, 'scaleDown')) });
    delete annotations[BEHAVIOR_ANNOTATION];
  }
  const status = obj.status;
  let currentMetrics: any[] | undefined;
  let conditions: any[] | undefined;
  if (status?.currentCPUUtilizationPercentage !== undefined) {
    currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
  }
  if (METRIC_STATUSES_ANNOTATION in annotations) {
    const current = annotationJson(annotations[METRIC_STATUSES_ANNOTATION], METRIC_STATUSES_ANNOTATION);
    currentMetrics = (Array.isArray(current) ? current : []).map(metricStatusFromV1);
    delete annotations[METRIC_STATUSES_ANNOTATION];
  }
  if (CONDITIONS_ANNOTATION in annotations) {
    const encoded = annotationJson(annotations[CONDITIONS_ANNOTATION], CONDITIONS_ANNOTATION);
    conditions = (Array.isArray(encoded) ? encoded : []).map((c: any) => compact({ type: c?.type ?? '', status: c?.status ?? '', lastTransitionTime: c?.lastTransitionTime ?? undefined, reason: c?.reason || undefined, message: c?.message || undefined }));
    delete annotations[CONDITIONS_ANNOTATION];
  }
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  const out: ApiObject = {
    apiVersion: V2,
    kind: obj.kind,
    metadata,
    spec: compact({ scaleTargetRef: reference(spec.scaleTargetRef), minReplicas: spec.minReplicas, maxReplicas: spec.maxReplicas ?? 0, metrics, behavior }),
  };
  out.status = compact({
    observedGeneration: status?.observedGeneration,
    lastScaleTime: status?.lastScaleTime,
    currentReplicas: status?.currentReplicas || undefined,
    desiredReplicas: status?.desiredReplicas ?? 0,
    currentMetrics: currentMetrics?.length ? currentMetrics : undefined,
    conditions: conditions?.length ? conditions : undefined,
  });
  return out;
}

const sameFields = (obj: ApiObject): ApiObject => structuredClone(obj);

export const conversion: KindConversion = {
  toInternal: { [V2]: sameFields, [V1]: fromV1 },
  fromInternal: { [V2]: sameFields, [V1]: toV1 },
};
