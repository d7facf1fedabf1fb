/**
 * The strategies of the named groups' single-version kinds (SPEC 9.7;
 * upstream kubernetes pkg/registry/{discovery/endpointslice,
 * policy/poddisruptionbudget, node/runtimeclass, storage/*, networking/ingress,
 * networking/ingressclass}/strategy.go, 1.31): the defaults that are not plain
 * (the rest are the contract's x-orch-default), empty status on create and
 * generation following the spec for the kinds with a status subresource (the
 * status reset on writes to the main resource is the generic withStatusReset),
 * and validation.
 */
import { emptyStatusAndSpecGeneration, specGeneration, validatedBy as validated, type ApiObject, type Strategy } from '../strategy.ts';
import type { FieldError } from '../validation/field-errors.ts';
import { validateEndpointSlice } from '../validation/endpoint-slice.ts';
import { isDNS1123Subdomain } from '../validation/names.ts';
import { INGRESS_CLASS_ANNOTATION, validateIngress, validateIngressClass, validateIngressStatus } from '../validation/ingress.ts';
import { validatePodDisruptionBudget, validatePodDisruptionBudgetStatus } from '../validation/pod-disruption-budget.ts';
import { validateRuntimeClass } from '../validation/runtime-class.ts';
import { validateCSIDriver, validateCSINode, validateCSIStorageCapacity, validateStorageClass, validateVolumeAttachment } from '../validation/storage.ts';

/** A kind with a status subresource: status empties on create, generation counts spec changes. */
function withStatus(validate: (obj: ApiObject, old?: ApiObject) => FieldError[], validateStatus: (obj: ApiObject, old: ApiObject) => FieldError[]): Strategy {
  return { ...validated(validate), ...emptyStatusAndSpecGeneration, validateStatusUpdate: validateStatus };
}

/** corev1.LabelHostname, renamed by FACTS §0. */
const HOSTNAME_LABEL = 'orch.io/hostname';

/**
 * dropTopologyOnV1: the v1 API drops writes to endpoints' deprecatedTopology,
 * keeping a node name it held before (when the endpoints changed; unchanged
 * endpoints keep theirs).
 */
function dropTopology(obj: ApiObject, old?: ApiObject): void {
  if (!Array.isArray(obj.endpoints)) return;
  if (old && JSON.stringify(old.endpoints ?? null) === JSON.stringify(obj.endpoints)) return;
  const previous = new Set<string>();
  for (const ep of Array.isArray(old?.endpoints) ? old.endpoints : []) {
    const name = ep?.deprecatedTopology?.[HOSTNAME_LABEL];
    if (typeof name === 'string' && name !== '') previous.add(name);
  }
  for (const ep of obj.endpoints) {
    if (!ep || typeof ep !== 'object') continue;
    const name = ep.deprecatedTopology?.[HOSTNAME_LABEL];
    if (ep.nodeName === undefined && typeof name === 'string' && previous.has(name) && isDNS1123Subdomain(name).length === 0) ep.nodeName = name;
    delete ep.deprecatedTopology;
  }
}

/** EndpointSlice PrepareForCreate/PrepareForUpdate: generation 1, +1 when anything beyond metadata or the labels change; topology dropped. */
const endpointSliceStrategy = {
  prepareForCreate(obj: ApiObject) {
    obj.metadata.generation = 1;
    dropTopology(obj);
  },
  prepareForUpdate(obj: ApiObject, old: ApiObject) {
    const { metadata: _n, ...rest } = obj;
    const { metadata: _o, ...oldRest } = old;
    const changed = JSON.stringify(rest) !== JSON.stringify(oldRest) || JSON.stringify(obj.metadata.labels ?? {}) !== JSON.stringify(old.metadata.labels ?? {});
    obj.metadata.generation = (old.metadata.generation ?? 0) + (changed ? 1 : 0);
    dropTopology(obj, old);
  },
};

/** SetDefaults_CSIDriver: an empty volumeLifecycleModes gets Persistent (the contract defaults only an absent one). */
function defaultCSIDriver(obj: ApiObject): void {
  if (obj.spec && typeof obj.spec === 'object' && (!Array.isArray(obj.spec.volumeLifecycleModes) || obj.spec.volumeLifecycleModes.length === 0)) {
    obj.spec.volumeLifecycleModes = ['Persistent'];
  }
}

/** The strategies of the named groups' kinds, keyed by `group/Kind`. */
export const namedGroupStrategies: Record<string, Strategy> = {
  'discovery.orch.io/EndpointSlice': { ...validated(validateEndpointSlice), ...endpointSliceStrategy },
  'policy/PodDisruptionBudget': withStatus((obj) => validatePodDisruptionBudget(obj), (obj) => validatePodDisruptionBudgetStatus(obj)),
  'node.orch.io/RuntimeClass': validated(validateRuntimeClass),
  'storage.orch.io/StorageClass': validated(validateStorageClass),
  // The spec is read-only, so no generation; status.attached is a plain bool upstream, present as false.
  'storage.orch.io/VolumeAttachment': {
    ...validated(validateVolumeAttachment),
    validateStatusUpdate: (obj, old) => validateVolumeAttachment(obj, old),
    prepareForCreate(obj) {
      obj.status = { attached: false };
    },
  },
  // No generation on create; a spec change counts from there (K pkg/registry/storage/csidriver/strategy.go).
  'storage.orch.io/CSIDriver': { ...validated(validateCSIDriver), applyDefaults: defaultCSIDriver, prepareForUpdate: specGeneration.prepareForUpdate },
  'storage.orch.io/CSINode': validated(validateCSINode),
  'storage.orch.io/CSIStorageCapacity': validated(validateCSIStorageCapacity),
  'networking.orch.io/Ingress': {
    ...withStatus(validateIngress, (obj) => validateIngressStatus(obj)),
    warningsOnCreate: (obj) =>
      obj.metadata.annotations && INGRESS_CLASS_ANNOTATION in obj.metadata.annotations ? [`annotation "${INGRESS_CLASS_ANNOTATION}" is deprecated, please use 'spec.ingressClassName' instead`] : [],
  },
  // Generation 1 on create, +1 per spec change (K pkg/registry/networking/ingressclass/strategy.go).
  'networking.orch.io/IngressClass': { ...validated(validateIngressClass), ...specGeneration },
};
