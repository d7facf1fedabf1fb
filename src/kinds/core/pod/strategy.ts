/**
 * The Pod strategy (K pkg/registry/core/pod/strategy.go at 1.31, SPEC 5.2
 * workloads): v1 defaults on every write, status `{phase: Pending, qosClass}` on
 * create, spec validation with upstream's update rules, status validation on
 * the status subresource, graceful deletion and the deleted object as the
 * DELETE answer. Pods carry no metadata.generation in 1.31 (upstream sets it
 * only from 1.33 on), and the status reset on update is the generic
 * withStatusReset the server applies to every kind with a status subresource.
 */
import type { components } from '../../../generated/types/api__v1.ts';
import type { ApiObject, Strategy } from '../../../registry/strategy.ts';
import { isDNS1123Label } from '../../../api/names.ts';
import { validatePodCreate } from './validate.ts';
import { podQOS } from './qos.ts';
import { validatePodStatusUpdate, validatePodUpdate } from './validate-update.ts';
import { containerLists, defaultPod } from './defaults.ts';

type Pod = components['schemas']['io.orch.api.core.v1.Pod'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Upstream DropDisabledPodFields with 1.31's default gates: the fields of
 * features that are off (DynamicResourceAllocation, InPlacePodVerticalScaling,
 * ImageVolume, ClusterTrustBundleProjection, SupplementalGroupsPolicy,
 * ResourceHealthStatus, UserNamespacesSupport) are dropped unless the stored
 * pod already used them, which it cannot since they are never stored.
 */
function dropDisabledFields(pod: ApiObject): void {
  const spec = pod.spec ?? {};
  delete spec.hostUsers;
  delete spec.resourceClaims;
  if (isObj(spec.securityContext)) delete spec.securityContext.supplementalGroupsPolicy;
  for (const list of containerLists(spec)) {
    for (const c of list) {
      if (!isObj(c)) continue;
      delete c.resizePolicy;
      if (isObj(c.resources)) delete c.resources.claims;
    }
  }
  for (const v of arr(spec.volumes)) {
    if (!isObj(v)) continue;
    delete v.image;
    for (const source of arr(v.projected?.sources)) if (isObj(source)) delete source.clusterTrustBundle;
  }
  dropDisabledStatusFields(pod.status);
}

function dropDisabledStatusFields(status: unknown): void {
  if (!isObj(status)) return;
  delete status.resize;
  delete status.resourceClaimStatuses;
  for (const key of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
    for (const s of arr(status[key])) {
      if (!isObj(s)) continue;
      for (const field of ['allocatedResources', 'resources', 'user', 'allocatedResourcesStatus']) delete s[field];
    }
  }
}

/** Upstream applySchedulingGatedCondition: a gated pod says why it is not scheduled. */
function schedulingGatedConditions(pod: ApiObject): any[] | undefined {
  if (arr(pod.spec?.schedulingGates).length === 0) return undefined;
  return [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }];
}

/**
 * Upstream mutatePodAffinity (MatchLabelKeysInPodAffinity, beta and on in 1.31):
 * each matchLabelKeys / mismatchLabelKeys key the pod carries becomes an In /
 * NotIn requirement on the term's label selector, with the pod's value.
 */
function applyMatchLabelKeys(pod: ApiObject): void {
  const labels = pod.metadata.labels ?? {};
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const affinity = pod.spec?.affinity?.[kind];
    if (!isObj(affinity)) continue;
    const terms = [...arr(affinity.requiredDuringSchedulingIgnoredDuringExecution), ...arr(affinity.preferredDuringSchedulingIgnoredDuringExecution).map((w) => w?.podAffinityTerm)];
    for (const term of terms) {
      if (!isObj(term) || !isObj(term.labelSelector)) continue;
      for (const [keys, operator] of [[term.matchLabelKeys, 'In'], [term.mismatchLabelKeys, 'NotIn']] as const) {
        for (const key of arr(keys)) {
          if (typeof key !== 'string' || !Object.hasOwn(labels, key)) continue;
          term.labelSelector.matchExpressions = [...arr(term.labelSelector.matchExpressions), { key, operator, values: [labels[key]] }];
        }
      }
    }
  }
}

/**
 * Upstream CheckGracefulDelete (and BeforeDelete's negative period): the
 * requested period, else spec.terminationGracePeriodSeconds; 0 for a pod on no
 * node or already finished; a negative period is 1 second.
 */
function gracefulDeletePeriod(pod: ApiObject, requested: number | undefined): number {
  let period = requested ?? pod.spec?.terminationGracePeriodSeconds ?? 0;
  if (requested !== undefined && requested < 0) period = 1;
  if (!pod.spec?.nodeName) period = 0;
  if (pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded') period = 0;
  return period < 0 ? 1 : period;
}

/**
 * Upstream WarningsOnCreate (and podutil.GetWarningsForPod, in part): a name that
 * is no DNS label makes a surprising hostname; a negative grace period counts as
 * one second. Pod updates get no warnings upstream.
 */
function warningsOnCreate(pod: ApiObject): string[] {
  const warnings: string[] = [];
  const labelErrors = isDNS1123Label(String(pod.metadata.name ?? ''));
  if (labelErrors.length) warnings.push(`metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [${labelErrors.join(' ')}]`);
  if (pod.spec?.terminationGracePeriodSeconds < 0) warnings.push('spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1');
  return warnings;
}

export const strategy: Strategy<Pod> = {
  applyDefaults: defaultPod,
  prepareForCreate(pod) {
    // upstream computes the class from the pod as sent, status included (GetPodQOS)
    const qosClass = podQOS(pod);
    pod.status = { phase: 'Pending', qosClass };
    dropDisabledFields(pod);
    const conditions = schedulingGatedConditions(pod);
    if (conditions) pod.status.conditions = conditions;
    applyMatchLabelKeys(pod);
  },
  prepareForUpdate(pod) {
    dropDisabledFields(pod);
  },
  validate: validatePodCreate,
  validateUpdate: validatePodUpdate,
  warningsOnCreate,
  validateStatusUpdate: validatePodStatusUpdate,
  prepareForStatusUpdate(pod, old) {
    defaultPod(pod);
    dropDisabledStatusFields(pod.status);
    // the class is fixed at creation; a kubelet that leaves it out keeps the stored one
    if (old.status?.qosClass && !pod.status?.qosClass) pod.status = { ...(pod.status ?? {}), qosClass: old.status.qosClass };
  },
  gracefulDeletePeriod,
  returnDeletedObject: true,
};
