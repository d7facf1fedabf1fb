/**
 * apps/v1 ReplicaSet (SPEC 9.7; K pkg/registry/apps/replicaset/strategy.go,
 * 1.31): the template a pod's defaults, status `{}` on create, generation
 * following the spec, its status rules.
 */
import { objectAt } from '../../../registry/json-value.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specAndStatusStrategy } from '../../../registry/strategy.ts';
import { validateReplicaStatus, type ReplicaStatusRules } from '../../../registry/validation/replica-status.ts';
import { defaultPodTemplate } from '../../core/pod/defaults.ts';
import { validateReplicaSet } from './validate.ts';

/** ValidateReplicaSetStatusUpdate's counters. */
const STATUS: ReplicaStatusRules = {
  counters: ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
  bounded: { counters: ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'], availableAboveReady: 'cannot be greater than readyReplicas' },
  collisionCount: false,
};

export default defineKind({
  strategy: specAndStatusStrategy({
    applyDefaults: (obj) => defaultPodTemplate(objectAt(obj, 'spec').template, 'ReplicaSet'),
    validate: validateReplicaSet,
    validateStatus: (obj, old) => validateReplicaStatus(STATUS, obj, old),
  }),
});
