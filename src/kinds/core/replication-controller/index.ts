/**
 * core/v1 ReplicationController (SPEC 9.7; K
 * pkg/registry/core/replicationcontroller/strategy.go, 1.31): selector and
 * labels defaulted from the template, the template a pod's defaults,
 * status `{replicas: 0}` on create, generation following the spec, the status
 * rules of a ReplicaSet, and deletes that orphan by default.
 */
import type { components } from '../../../generated/types/api__v1.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specGeneration, validatedBy, type ApiObject, type Strategy } from '../../../registry/strategy.ts';
import { validateReplicaStatus, type ReplicaStatusRules } from '../../../registry/validation/replica-status.ts';
import { defaultPodTemplate } from '../pod/defaults.ts';
import { validateReplicationController } from './validate.ts';

type ReplicationController = components['schemas']['io.orch.api.core.v1.ReplicationController'];

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** ValidateReplicationControllerStatusUpdate's counters: a ReplicaSet's. */
const STATUS: ReplicaStatusRules = {
  counters: ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
  bounded: { counters: ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'], availableAboveReady: 'cannot be greater than readyReplicas' },
  collisionCount: false,
};

/** SetDefaults_ReplicationController: selector and labels from the template's labels when empty (replicas: x-orch-default). */
function defaultReplicationController(obj: ApiObject): void {
  const spec = obj.spec;
  if (!isObj(spec)) return;
  const labels = spec.template?.metadata?.labels;
  if (isObj(labels)) {
    if (Object.keys(isObj(spec.selector) ? spec.selector : {}).length === 0) spec.selector = { ...labels };
    if (Object.keys(obj.metadata.labels ?? {}).length === 0) obj.metadata.labels = { ...labels };
  }
  defaultPodTemplate(spec.template, 'ReplicationController');
}

const strategy: Strategy<ReplicationController> = {
  ...validatedBy(validateReplicationController),
  applyDefaults: defaultReplicationController,
  prepareForCreate(obj) {
    obj.status = { replicas: 0 };
    specGeneration.prepareForCreate(obj);
  },
  prepareForUpdate: specGeneration.prepareForUpdate,
  validateStatusUpdate: (obj, old) => validateReplicaStatus(STATUS, obj, old),
  // K pkg/registry/core/replicationcontroller/strategy.go DefaultGarbageCollectionPolicy: core/v1 orphans the pods
  defaultGarbageCollectionPolicy: 'Orphan',
};

export default defineKind({ strategy });
