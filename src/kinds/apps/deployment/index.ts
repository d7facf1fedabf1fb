/**
 * apps/v1 Deployment (SPEC 9.7; K pkg/registry/apps/deployment/strategy.go and
 * pkg/apis/apps/v1/defaults.go, 1.31): the defaults that depend on other
 * fields (the plain ones are the contract's x-orch-default), the template a
 * pod's defaults, status `{}` on create, generation following spec and
 * annotations, its status rules, and its printer's cells.
 */
import { objectAt } from '../../../registry/json-value.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specAndStatusStrategy, type ApiObject } from '../../../registry/strategy.ts';
import { validateReplicaStatus, type ReplicaStatusRules } from '../../../registry/validation/replica-status.ts';
import { defaultPodTemplate } from '../../core/pod/defaults.ts';
import { cells } from './cells.ts';
import { validateDeployment } from './validate.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** ValidateDeploymentStatusUpdate's counters. */
const STATUS: ReplicaStatusRules = {
  counters: ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'],
  bounded: { counters: ['updatedReplicas', 'readyReplicas', 'availableReplicas'], availableAboveReady: 'cannot be greater than readyReplicas' },
  collisionCount: true,
};

/** SetDefaults_Deployment: RollingUpdate with 25% unavailable and 25% surge. */
function defaultDeployment(obj: ApiObject): void {
  const spec = objectAt(obj, 'spec');
  const strategy = objectAt(spec, 'strategy');
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    if (!isObj(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    strategy.rollingUpdate.maxUnavailable ??= '25%';
    strategy.rollingUpdate.maxSurge ??= '25%';
  }
  defaultPodTemplate(spec.template, 'Deployment');
}

/**
 * Deployment PrepareForUpdate: a spec or annotation change bumps generation,
 * as annotations are copied to the Deployment's ReplicaSets.
 */
const deploymentGeneration = (obj: ApiObject, old: ApiObject) => {
  const changed = JSON.stringify(obj.spec) !== JSON.stringify(old.spec) || JSON.stringify(obj.metadata.annotations ?? {}) !== JSON.stringify(old.metadata.annotations ?? {});
  obj.metadata.generation = (old.metadata.generation ?? 0) + (changed ? 1 : 0);
};

const strategy = {
  ...specAndStatusStrategy({ applyDefaults: defaultDeployment, validate: validateDeployment, validateStatus: (obj, old) => validateReplicaStatus(STATUS, obj, old) }),
  prepareForUpdate: deploymentGeneration,
};

export default defineKind({ strategy, cells });
