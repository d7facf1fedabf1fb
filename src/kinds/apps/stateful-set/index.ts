/**
 * apps/v1 StatefulSet (SPEC 9.7; K pkg/registry/apps/statefulset/strategy.go
 * and pkg/apis/apps/v1/defaults.go, 1.31): the update strategy's and claim
 * templates' defaults, the template a pod's defaults, status `{}` on create,
 * generation following the spec, its status rules, and the ready cell a
 * Deployment prints alike.
 */
import { objectAt } from '../../../registry/json-value.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specAndStatusStrategy, type ApiObject } from '../../../registry/strategy.ts';
import { canonicalResourceList } from '../../../registry/validation/resource-list.ts';
import { validateReplicaStatus, type ReplicaStatusRules } from '../../../registry/validation/replica-status.ts';
import { defaultPodTemplate } from '../../core/pod/defaults.ts';
import { cells } from '../deployment/cells.ts';
import { validateStatefulSet } from './validate.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** ValidateStatefulSetStatusUpdate's counters. */
const STATUS: ReplicaStatusRules = {
  counters: ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount'],
  bounded: { counters: ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'], availableAboveReady: 'cannot be greater than status.readyReplicas' },
  collisionCount: true,
};

/** SetDefaults_StatefulSet: RollingUpdate (partition 0 when given), PVCs retained (StatefulSetAutoDeletePVC, beta and on in 1.31). */
function defaultStatefulSet(obj: ApiObject): void {
  const spec = objectAt(obj, 'spec');
  const strategy = objectAt(spec, 'updateStrategy');
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate' && isObj(strategy.rollingUpdate)) strategy.rollingUpdate.partition ??= 0;
  if (!isObj(spec.persistentVolumeClaimRetentionPolicy)) spec.persistentVolumeClaimRetentionPolicy = {};
  spec.persistentVolumeClaimRetentionPolicy.whenDeleted ||= 'Retain';
  spec.persistentVolumeClaimRetentionPolicy.whenScaled ||= 'Retain';
  // SetObjectDefaults_StatefulSet on each volume claim template: SetDefaults_PersistentVolumeClaim(Spec) and the ResourceLists
  for (const claim of Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : []) {
    if (!isObj(claim)) continue;
    if (!isObj(claim.spec)) claim.spec = {};
    claim.spec.volumeMode ??= 'Filesystem';
    canonicalResourceList(claim.spec.resources?.limits, 'StatefulSet');
    canonicalResourceList(claim.spec.resources?.requests, 'StatefulSet');
    claim.status = { ...(isObj(claim.status) ? claim.status : {}), phase: claim.status?.phase || 'Pending' };
  }
  defaultPodTemplate(spec.template, 'StatefulSet');
}

export default defineKind({
  strategy: specAndStatusStrategy({ applyDefaults: defaultStatefulSet, validate: validateStatefulSet, validateStatus: (obj, old) => validateReplicaStatus(STATUS, obj, old) }),
  cells,
});
