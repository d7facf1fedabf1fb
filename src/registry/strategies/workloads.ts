/**
 * The strategies of the apps/v1 and batch/v1 workload kinds (SPEC 9.7;
 * K pkg/registry/apps/{deployment,replicaset,daemonset,statefulset,controllerrevision}/strategy.go,
 * K pkg/registry/batch/{job,cronjob}/strategy.go): the defaults of K
 * pkg/apis/{apps,batch}/v1/defaults.go that depend on other fields (the plain
 * ones are the contract's x-orch-default), the pod template's defaults as a
 * Pod's, generation bumps on spec changes, the Job's generated selector, and
 * validation. The status reset on writes to the main resource is the generic
 * withStatusReset every kind with a status subresource gets.
 */
import { emptyStatusAndSpecGeneration, validatedBy, type ApiObject, type Strategy } from '../strategy.ts';
import { defaultPodTemplate } from '../../kinds/core/pod/defaults.ts';
import { canonicalResourceList } from '../validation/resource-list.ts';
import { isDNS1123Label } from '../validation/names.ts';
import {
  JOB_CONTROLLER_UID_LABEL,
  JOB_NAME_LABEL,
  LEGACY_JOB_CONTROLLER_UID_LABEL,
  LEGACY_JOB_NAME_LABEL,
  validateControllerRevision,
  validateCronJob,
  validateDaemonSet,
  validateDeployment,
  validateJob,
  validateReplicaSet,
  validateStatefulSet,
} from '../validation/workloads.ts';
import { validateReplicaStatus } from '../validation/workload-status.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
const MAX_INT32 = 2147483647;

function specOf(obj: ApiObject): Record<string, any> {
  if (!isObj(obj.spec)) obj.spec = {};
  return obj.spec;
}

/** The strategy object at `key`, with its type defaulted (a Go struct field is never absent upstream). */
function strategyObject(spec: Record<string, any>, key: string, type: string): Record<string, any> {
  if (!isObj(spec[key])) spec[key] = {};
  spec[key].type ||= type;
  return spec[key];
}

/** SetDefaults_Deployment: RollingUpdate with 25% unavailable and 25% surge. */
function defaultDeployment(obj: ApiObject): void {
  const spec = specOf(obj);
  const strategy = strategyObject(spec, 'strategy', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    if (!isObj(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    strategy.rollingUpdate.maxUnavailable ??= '25%';
    strategy.rollingUpdate.maxSurge ??= '25%';
  }
  defaultPodTemplate(spec.template, 'Deployment');
}

/** SetDefaults_DaemonSet: RollingUpdate with 1 unavailable and no surge. */
function defaultDaemonSet(obj: ApiObject): void {
  const spec = specOf(obj);
  const strategy = strategyObject(spec, 'updateStrategy', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    if (!isObj(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    strategy.rollingUpdate.maxUnavailable ??= 1;
    strategy.rollingUpdate.maxSurge ??= 0;
  }
  defaultPodTemplate(spec.template, 'DaemonSet');
}

/** SetDefaults_StatefulSet: RollingUpdate (partition 0 when given), PVCs retained (StatefulSetAutoDeletePVC, beta and on in 1.31). */
function defaultStatefulSet(obj: ApiObject): void {
  const spec = specOf(obj);
  const strategy = strategyObject(spec, 'updateStrategy', 'RollingUpdate');
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

/**
 * SetDefaults_Job: completions and parallelism 1 when both are unset,
 * backoffLimit 6 (the int32 maximum with backoffLimitPerIndex), the Job's
 * labels from its template's when it has none, NonIndexed, not suspended,
 * pods replaced once terminated or failed (Failed with a pod failure policy).
 */
function defaultJob(obj: ApiObject): void {
  const spec = specOf(obj);
  if (spec.completions === undefined && spec.parallelism === undefined) spec.completions = 1;
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? MAX_INT32 : 6;
  const templateLabels = spec.template?.metadata?.labels;
  if (isObj(templateLabels) && Object.keys(obj.metadata.labels ?? {}).length === 0) obj.metadata.labels = { ...templateLabels };
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy !== undefined ? 'Failed' : 'TerminatingOrFailed';
  for (const rule of Array.isArray(spec.podFailurePolicy?.rules) ? spec.podFailurePolicy.rules : []) {
    for (const pattern of Array.isArray(rule?.onPodConditions) ? rule.onPodConditions : []) if (isObj(pattern)) pattern.status ||= 'True';
  }
  defaultPodTemplate(spec.template, 'Job');
}

/**
 * Job strategy generateSelector: unless the user asked for a manual selector,
 * the template carries the job name and uid labels and the selector selects the uid.
 */
function generateJobSelector(job: ApiObject): void {
  const spec = specOf(job);
  spec.manualSelector ??= false;
  if (spec.manualSelector) return;
  if (!isObj(spec.template)) spec.template = {};
  if (!isObj(spec.template.metadata)) spec.template.metadata = {};
  const labels = (spec.template.metadata.labels = isObj(spec.template.metadata.labels) ? spec.template.metadata.labels : {});
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) labels[key] ??= String(job.metadata.name ?? '');
  for (const key of [LEGACY_JOB_CONTROLLER_UID_LABEL, JOB_CONTROLLER_UID_LABEL]) labels[key] ??= job.metadata.uid;
  if (!isObj(spec.selector)) spec.selector = {};
  if (!isObj(spec.selector.matchLabels)) spec.selector.matchLabels = {};
  spec.selector.matchLabels[JOB_CONTROLLER_UID_LABEL] ??= job.metadata.uid;
}

/** The apps/v1 kinds' shape: defaults, status emptied on create, generation following spec changes. */
function workloadStrategy(applyDefaults: (obj: ApiObject) => void, validate: (obj: any, old?: any) => ReturnType<typeof validateDeployment>, replicaStatus?: Parameters<typeof validateReplicaStatus>[0]): Strategy {
  return {
    ...(replicaStatus ? { validateStatusUpdate: (obj: ApiObject, old: ApiObject) => validateReplicaStatus(replicaStatus, obj, old) } : {}),
    applyDefaults,
    ...emptyStatusAndSpecGeneration,
    ...validatedBy(validate),
  };
}

/**
 * Deployment PrepareForUpdate: a spec or annotation change bumps generation,
 * as annotations are copied to the Deployment's ReplicaSets.
 */
const deploymentGeneration = (obj: ApiObject, old: ApiObject) => {
  const changed = JSON.stringify(obj.spec) !== JSON.stringify(old.spec) || JSON.stringify(obj.metadata.annotations ?? {}) !== JSON.stringify(old.metadata.annotations ?? {});
  obj.metadata.generation = (old.metadata.generation ?? 0) + (changed ? 1 : 0);
};

/** apps/v1 keeps the internal spec.templateGeneration in this annotation (K pkg/apis/apps/v1/conversion.go). */
const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

function templateGenerationOf(obj: ApiObject): number {
  const value = Number(obj.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION]);
  return Number.isInteger(value) ? value : 0;
}

function setTemplateGeneration(obj: ApiObject, value: number): void {
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [TEMPLATE_GENERATION_ANNOTATION]: String(value) };
}

/**
 * DaemonSet PrepareForCreate/PrepareForUpdate: template generation at least 1
 * on create; a template change bumps it and generation, another spec change
 * generation only.
 */
const daemonSetGenerations = {
  prepareForCreate(obj: ApiObject) {
    obj.status = {};
    obj.metadata.generation = 1;
    setTemplateGeneration(obj, Math.max(templateGenerationOf(obj), 1));
  },
  prepareForUpdate(obj: ApiObject, old: ApiObject) {
    const generation = old.metadata.generation ?? 0;
    setTemplateGeneration(obj, templateGenerationOf(old));
    if (JSON.stringify(obj.spec?.template) !== JSON.stringify(old.spec?.template)) {
      setTemplateGeneration(obj, templateGenerationOf(old) + 1);
      obj.metadata.generation = generation + 1;
    } else {
      obj.metadata.generation = JSON.stringify(obj.spec) === JSON.stringify(old.spec) ? generation : generation + 1;
    }
  },
};

/** Job and CronJob WarningsOnCreate: their names become pod names and hostnames. */
function nameWarnings(obj: ApiObject): string[] {
  const labelErrors = isDNS1123Label(String(obj.metadata.name ?? ''));
  return labelErrors.length ? [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${labelErrors.join(' ')}]`] : [];
}

/** dropJobDisabledFields: the JobManagedBy gate is alpha and off in 1.31, so a managedBy the object did not have is dropped. */
function dropNewManagedBy(obj: ApiObject, old?: ApiObject): void {
  if (obj.spec && old?.spec?.managedBy === undefined) delete obj.spec.managedBy;
}

const jobWorkload = workloadStrategy(defaultJob, validateJob);
const job: Strategy = {
  ...jobWorkload,
  prepareForUpdate(obj, old) {
    dropNewManagedBy(obj, old);
    jobWorkload.prepareForUpdate?.(obj, old);
  },
  // K pkg/registry/batch/job/strategy.go DefaultGarbageCollectionPolicy: batch/v1 orphans the pods
  // for compatibility, and storage.go Delete says so when the client chose nothing.
  warningsOnCreate: nameWarnings,
  defaultGarbageCollectionPolicy: 'Orphan',
  defaultPolicyWarning:
    'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning',
  prepareForCreate(obj) {
    dropNewManagedBy(obj);
    emptyStatusAndSpecGeneration.prepareForCreate(obj);
    generateJobSelector(obj);
  },
};

/** The workload strategies, keyed by `group/Kind`. */
export const workloadStrategies: Record<string, Strategy> = {
  'apps/Deployment': { ...workloadStrategy(defaultDeployment, validateDeployment, 'Deployment'), prepareForUpdate: deploymentGeneration },
  'apps/ReplicaSet': workloadStrategy((obj) => defaultPodTemplate(specOf(obj).template, 'ReplicaSet'), validateReplicaSet, 'ReplicaSet'),
  'apps/DaemonSet': { ...workloadStrategy(defaultDaemonSet, validateDaemonSet, 'DaemonSet'), ...daemonSetGenerations },
  'apps/StatefulSet': workloadStrategy(defaultStatefulSet, validateStatefulSet, 'StatefulSet'),
  // ControllerRevisions have no spec or status: data and revision only.
  'apps/ControllerRevision': validatedBy(validateControllerRevision),
  'batch/Job': job,
  'batch/CronJob': { ...workloadStrategy((obj) => defaultPodTemplate(specOf(obj).jobTemplate?.spec?.template, 'CronJob'), validateCronJob), warningsOnCreate: nameWarnings },
};
