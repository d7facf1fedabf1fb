/**
 * The strategies of the core/v1 kinds of SPEC 9.7's tranche: LimitRange,
 * ResourceQuota, PersistentVolume, PersistentVolumeClaim,
 * ReplicationController, Endpoints and PodTemplate (K
 * pkg/registry/core/{limitrange,resourcequota,persistentvolume,
 * persistentvolumeclaim,replicationcontroller,endpoint,podtemplate}/strategy.go).
 * The defaults of K pkg/apis/core/v1/defaults.go that depend on other fields
 * are here (the plain ones are the contract's x-orch-default), every
 * ResourceList in canonical form (SetDefaults_ResourceList), templates get the
 * Pod's defaults. Upstream defaults again on every read from storage, so a
 * status emptied on create still reads phase Pending: the phase is set on create
 * as well as on every write.
 */
import { specGeneration, validatedBy as validated, type ApiObject, type Strategy } from '../strategy.ts';
import { defaultPodTemplate } from '../../kinds/core/pod/defaults.ts';
import { canonicalResourceList } from '../validation/resource-list.ts';
import { validateEndpoints } from '../validation/endpoints.ts';
import { validatePodTemplateObject, validateReplicationController } from '../validation/replication-controller.ts';
import { validateLimitRange, validateResourceQuota, validateResourceQuotaStatus } from '../validation/resource-policies.ts';
import { validatePersistentVolume, validatePersistentVolumeClaim } from '../validation/storage-volumes.ts';
import { validateReplicaStatus } from '../validation/workload-status.ts';
import { deepEqual } from '../json-value.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
/** Go's DeepEqual of the decoded values: key order is irrelevant, nil and absent are alike. */
const same = (a: unknown, b: unknown) => deepEqual(a ?? null, b ?? null);

/** metav1.Now() as it serializes: RFC 3339 in whole seconds. */
const nowSeconds = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** SetDefaults_LimitRangeItem for Container limits: default from max, defaultRequest from default, then from min. */
function defaultLimitRange(obj: ApiObject): void {
  for (const item of Array.isArray(obj.spec?.limits) ? obj.spec.limits : []) {
    if (!isObj(item)) continue;
    for (const key of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) canonicalResourceList(item[key], 'LimitRange');
    if (item.type !== 'Container') continue;
    const fill = (target: string, source: unknown) => {
      for (const [name, value] of Object.entries(isObj(source) ? source : {})) {
        if (!isObj(item[target])) item[target] = {};
        item[target][name] ??= value;
      }
    };
    fill('default', item.max);
    fill('defaultRequest', item.default);
    fill('defaultRequest', item.min);
  }
}

/** SetDefaults_PersistentVolume and _PersistentVolumeClaim: a status without a phase is Pending (a Go struct's status is never absent). */
function defaultPhase(obj: ApiObject): void {
  if (!isObj(obj.status)) obj.status = {};
  obj.status.phase ||= 'Pending';
}

/** SetDefaults_ResourceList on status lists (also on a status write: the status subresource's strategy takes no applyDefaults). */
function canonicalStatusLists(obj: ApiObject, kind: string, keys: string[]): void {
  for (const key of keys) canonicalResourceList(obj.status?.[key], kind);
}

/** A claim's status: canonical capacity and allocated resources, Pending without a phase. */
function claimStatusDefaults(obj: ApiObject): void {
  canonicalStatusLists(obj, 'PersistentVolumeClaim', ['capacity', 'allocatedResources']);
  defaultPhase(obj);
}

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

/**
 * PersistentVolume status strategy: a phase change stamps lastPhaseTransitionTime
 * unless the client set a new one (PersistentVolumeLastPhaseTransitionTime, GA in 1.31).
 */
function stampPhaseTransition(obj: ApiObject, old: ApiObject): void {
  const status = isObj(obj.status) ? obj.status : (obj.status = {});
  const oldStatus = isObj(old.status) ? old.status : {};
  if (oldStatus.phase === status.phase) status.lastPhaseTransitionTime ??= oldStatus.lastPhaseTransitionTime;
  else if (status.lastPhaseTransitionTime === undefined || status.lastPhaseTransitionTime === oldStatus.lastPhaseTransitionTime) status.lastPhaseTransitionTime = nowSeconds();
  if (status.lastPhaseTransitionTime === undefined) delete status.lastPhaseTransitionTime;
}

/** The core/v1 strategies of this tranche, keyed by `group/Kind`. */
export const coreKindStrategies: Record<string, Strategy> = {
  '/LimitRange': { ...validated(validateLimitRange), applyDefaults: defaultLimitRange },
  '/ResourceQuota': {
    ...validated(validateResourceQuota),
    applyDefaults(obj) {
      canonicalResourceList(obj.spec?.hard, 'ResourceQuota');
      canonicalStatusLists(obj, 'ResourceQuota', ['hard', 'used']);
    },
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForStatusUpdate: (obj) => canonicalStatusLists(obj, 'ResourceQuota', ['hard', 'used']),
    validateStatusUpdate: (obj) => validateResourceQuotaStatus(obj),
  },
  '/PersistentVolume': {
    ...validated(validatePersistentVolume),
    applyDefaults(obj) {
      canonicalResourceList(obj.spec?.capacity, 'PersistentVolume');
      defaultPhase(obj);
    },
    prepareForCreate(obj) {
      obj.status = { phase: 'Pending', lastPhaseTransitionTime: nowSeconds() };
    },
    prepareForStatusUpdate(obj, old) {
      defaultPhase(obj);
      stampPhaseTransition(obj, old);
    },
  },
  '/PersistentVolumeClaim': {
    ...validated(validatePersistentVolumeClaim),
    applyDefaults(obj) {
      canonicalResourceList(obj.spec?.resources?.limits, 'PersistentVolumeClaim');
      canonicalResourceList(obj.spec?.resources?.requests, 'PersistentVolumeClaim');
      claimStatusDefaults(obj);
    },
    prepareForCreate(obj) {
      obj.status = { phase: 'Pending' };
    },
    prepareForStatusUpdate: claimStatusDefaults,
  },
  '/ReplicationController': {
    ...validated(validateReplicationController),
    applyDefaults: defaultReplicationController,
    prepareForCreate(obj) {
      obj.status = { replicas: 0 };
      specGeneration.prepareForCreate(obj);
    },
    prepareForUpdate: specGeneration.prepareForUpdate,
    validateStatusUpdate: (obj, old) => validateReplicaStatus('ReplicaSet', obj, old),
    // K pkg/registry/core/replicationcontroller/strategy.go DefaultGarbageCollectionPolicy: core/v1 orphans the pods
    defaultGarbageCollectionPolicy: 'Orphan',
  },
  '/Endpoints': validated(validateEndpoints),
  '/PodTemplate': {
    ...validated(validatePodTemplateObject),
    applyDefaults: (obj) => defaultPodTemplate(obj.template, 'PodTemplate'),
    // generation follows the template
    prepareForCreate(obj) {
      obj.metadata.generation = 1;
    },
    prepareForUpdate(obj, old) {
      const generation = old.metadata.generation ?? 0;
      obj.metadata.generation = same(obj.template, old.template) ? generation : generation + 1;
    },
  },
};
