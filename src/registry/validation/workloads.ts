/**
 * Validation of the apps/v1 and batch/v1 workload kinds (SPEC 9.7), the rules
 * a user meets, translated from K pkg/apis/apps/validation (ValidateDeployment,
 * ValidateReplicaSet, ValidateDaemonSet, ValidateStatefulSet,
 * ValidateControllerRevision and their updates) and K pkg/apis/batch/validation
 * (ValidateJob, ValidateCronJob): selectors that match the pod template, the
 * template validated as a pod's, non-negative counts, the update strategies,
 * immutable fields. Paths and words are upstream's.
 */
import { child, forbidden, goQuote, goRepr, invalid, notSupported, required, type FieldError, type GoRepr } from './field-errors.ts';
import { validateLabels, validateLabelSelector } from './label-selector.ts';
import { FIELD_IMMUTABLE, validateAnnotations } from './object-meta.ts';
import { alwaysRestarting, goLabels, validatePodTemplate } from '../../kinds/core/pod-template/validate.ts';
import { labelSelectorToRequirements, matchesLabels } from '../selectors/label-selector.ts';
import { cronScheduleError, isTimeZone } from './cron-schedule.ts';
import { validateIndexedHostnames, validateJobPolicies, validateJobRestartPolicy } from './job-policies.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** ValidateNonnegativeField. */
export function nonNegative(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** ValidateImmutableField. */
function immutable(value: unknown, old: unknown, path: string): FieldError[] {
  return same(value, old) ? [] : [invalid(path, value ?? null, FIELD_IMMUTABLE)];
}

interface SelectorRules {
  /** spec.selector: Required value when absent. */
  required: boolean;
  /** The kind word of `empty selector is invalid for <kind>`; no check without it. */
  emptyFor?: string;
  /** The detail of the error when the selector does not convert; no error without it. */
  unconvertible?: string;
}

/**
 * The selector and the template's labels: a nil selector selects nothing and an
 * empty one everything (LabelSelectorAsSelector), so the labels must match
 * unless the selector is empty.
 */
function validateSelectorAndTemplate(spec: any, path: string, rules: SelectorRules): FieldError[] {
  const errs: FieldError[] = [];
  const selectorPath = child(path, 'selector');
  if (spec.selector === undefined || spec.selector === null) {
    if (rules.required) errs.push(required(selectorPath));
  } else {
    errs.push(...validateLabelSelector(spec.selector, selectorPath));
    if (rules.emptyFor && Object.keys(spec.selector.matchLabels ?? {}).length + (spec.selector.matchExpressions ?? []).length === 0) {
      errs.push(invalid(selectorPath, spec.selector, `empty selector is invalid for ${rules.emptyFor}`));
    }
  }
  let requirements;
  try {
    requirements = labelSelectorToRequirements(spec.selector);
  } catch {
    return rules.unconvertible === undefined ? errs : [...errs, invalid(selectorPath, spec.selector, rules.unconvertible)];
  }
  const labels = spec.template?.metadata?.labels;
  if (!(requirements && requirements.length === 0) && !matchesLabels(requirements, labels ?? {})) {
    errs.push(invalid(`${path}.template.metadata.labels`, goLabels(labels), '`selector` does not match template `labels`'));
  }
  return errs;
}

const PERCENT = /^[0-9]+%$/;

/** ValidatePositiveIntOrPercent. */
export function intOrPercent(value: unknown, path: string): FieldError[] {
  if (typeof value === 'string') {
    return PERCENT.test(value) ? [] : [invalid(path, value, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  }
  return nonNegative(value, path);
}

/** getIntOrPercentValue. */
const intOrPercentValue = (value: unknown): number => (typeof value === 'string' ? (PERCENT.test(value) ? Number(value.slice(0, -1)) : 0) : typeof value === 'number' ? value : 0);

/** IsNotMoreThan100Percent. */
export function notOver100(value: unknown, path: string): FieldError[] {
  return typeof value === 'string' && PERCENT.test(value) && intOrPercentValue(value) > 100 ? [invalid(path, value, 'must not be greater than 100%')] : [];
}

/** ValidateDeploymentSpec. */
export function validateDeployment(obj: any, old?: any): FieldError[] {
  const spec = obj.spec ?? {};
  const errs = [...nonNegative(spec.replicas, 'spec.replicas'), ...validateSelectorAndTemplate(spec, 'spec', { required: true, emptyFor: 'deployment', unconvertible: 'invalid label selector' }), ...validatePodTemplate(spec.template, 'spec.template'), ...alwaysRestarting(spec, 'ReplicaSet', 'spec')];
  const strategy = spec.strategy ?? {};
  if (strategy.type === 'Recreate') {
    if (strategy.rollingUpdate !== undefined) errs.push(forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  } else if (strategy.type === 'RollingUpdate') {
    const ru = strategy.rollingUpdate;
    if (!isObj(ru)) errs.push(required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil'));
    else {
      errs.push(...intOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'), ...intOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'));
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) errs.push(invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
      errs.push(...notOver100(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
    }
  } else {
    errs.push(notSupported('spec.strategy', strategy, ['Recreate', 'RollingUpdate']));
  }
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (typeof spec.progressDeadlineSeconds === 'number') {
    errs.push(...nonNegative(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) errs.push(invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  if (old) errs.push(...immutable(spec.selector, old.spec?.selector, 'spec.selector'));
  return errs;
}

/** ValidateReplicaSetSpec (its empty-selector message says deployment, as upstream's). */
export function validateReplicaSet(obj: any, old?: any): FieldError[] {
  const spec = obj.spec ?? {};
  const errs = [...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...validateSelectorAndTemplate(spec, 'spec', { required: true, emptyFor: 'deployment', unconvertible: 'invalid label selector' }), ...validatePodTemplate(spec.template, 'spec.template'), ...alwaysRestarting(spec, 'ReplicaSet', 'spec')];
  if (old) errs.push(...immutable(spec.selector, old.spec?.selector, 'spec.selector'));
  return errs;
}

/** ValidateDaemonSetSpec and its update strategy. */
export function validateDaemonSet(obj: any, old?: any): FieldError[] {
  const spec = obj.spec ?? {};
  const errs = [...validateSelectorAndTemplate(spec, 'spec', { required: false, emptyFor: 'daemonset' }), ...validatePodTemplate(spec.template, 'spec.template'), ...alwaysRestarting(spec, 'DaemonSet', 'spec')];
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const strategy = spec.updateStrategy ?? {};
  if (strategy.type === 'RollingUpdate') {
    const ru = strategy.rollingUpdate;
    if (!isObj(ru)) errs.push(required('spec.updateStrategy.rollingUpdate'));
    else {
      const p = 'spec.updateStrategy.rollingUpdate';
      errs.push(...intOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`), ...intOrPercent(ru.maxSurge, `${p}.maxSurge`), ...notOver100(ru.maxUnavailable, `${p}.maxUnavailable`), ...notOver100(ru.maxSurge, `${p}.maxSurge`));
      const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
      if (hasUnavailable && hasSurge) errs.push(invalid(`${p}.maxSurge`, ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
      if (!hasUnavailable && !hasSurge) errs.push(required(`${p}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
    }
  } else if (strategy.type !== 'OnDelete') {
    errs.push(notSupported('spec.updateStrategy', strategy, ['RollingUpdate', 'OnDelete']));
  }
  if (old) errs.push(...immutable(spec.selector, old.spec?.selector, 'spec.selector'));
  return errs;
}

/** The StatefulSet spec fields an update may change (ValidateStatefulSetUpdate). */
const STATEFULSET_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

/** ValidateStatefulSetSpec, and on update the fields that may not change. */
export function validateStatefulSet(obj: any, old?: any): FieldError[] {
  const spec = obj.spec ?? {};
  const errs: FieldError[] = [];
  const policy = spec.podManagementPolicy;
  if (!policy) errs.push(required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') errs.push(invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = spec.updateStrategy ?? {};
  if (!strategy.type) errs.push(required('spec.updateStrategy'));
  else if (strategy.type === 'OnDelete' && strategy.rollingUpdate !== undefined) errs.push(invalid('spec.updateStrategy.rollingUpdate', strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
  else if (strategy.type === 'RollingUpdate') errs.push(...nonNegative(strategy.rollingUpdate?.partition, 'spec.updateStrategy.rollingUpdate.partition'));
  else if (strategy.type !== 'OnDelete') errs.push(invalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  for (const key of ['whenDeleted', 'whenScaled']) {
    const value = spec.persistentVolumeClaimRetentionPolicy?.[key];
    if (isObj(spec.persistentVolumeClaimRetentionPolicy) && value !== 'Retain' && value !== 'Delete') errs.push(notSupported(`spec.persistentVolumeClaimRetentionPolicy.${key}`, value ?? '', ['Retain', 'Delete']));
  }
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...nonNegative(spec.ordinals?.start, 'spec.ordinals.start'));
  errs.push(...validateSelectorAndTemplate(spec, 'spec', { required: true, emptyFor: 'statefulset', unconvertible: '' }));
  errs.push(...validateLabels(spec.template?.metadata?.labels, 'spec.template.metadata.labels'), ...validateAnnotations(spec.template?.metadata?.annotations, 'spec.template.metadata.annotations'));
  errs.push(...alwaysRestarting(spec, 'StatefulSet', 'spec'));
  if (old) {
    const strip = (s: any) => Object.fromEntries(Object.entries(s ?? {}).filter(([k]) => !STATEFULSET_MUTABLE.includes(k)));
    if (!same(strip(spec), strip(old.spec))) {
      errs.push(forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
    }
  }
  return errs;
}

/** ValidateControllerRevision (and its update: data is immutable). */
export function validateControllerRevision(obj: any, old?: any): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.data === undefined || obj.data === null) errs.push(required('data', 'data is mandatory'));
  errs.push(...nonNegative(obj.revision, 'revision'));
  if (old) errs.push(...immutable(obj.data, old.data, 'data'));
  return errs;
}

/** validateJobSpec: the checks a Job and a CronJob's jobTemplate share. */
function validateJobSpec(spec: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    errs.push(...nonNegative(spec[key], `${path}.${key}`));
  }
  const mode = spec.completionMode;
  if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(notSupported(`${path}.completionMode`, mode, ['NonIndexed', 'Indexed']));
  if (mode === 'Indexed' && spec.completions === undefined) errs.push(required(`${path}.completions`, `when completion mode is Indexed`));
  errs.push(...validateJobPolicies(spec, path), ...validatePodTemplate(spec.template, `${path}.template`), ...validateJobRestartPolicy(spec, path));
  return errs;
}

/** The labels a generated Job selector puts on its template (renamed from batch.kubernetes.io, FACTS 0). */
export const JOB_CONTROLLER_UID_LABEL = 'batch.orch.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.orch.io/job-name';
export const LEGACY_JOB_CONTROLLER_UID_LABEL = 'controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';

/** ValidateGeneratedSelector: without manualSelector the selector and template carry the Job's uid. */
function validateGeneratedSelector(job: any): FieldError[] {
  const uid = job.metadata?.uid;
  const labels = job.spec?.template?.metadata?.labels ?? {};
  if (!job.spec?.selector) return [];
  const errs: FieldError[] = [];
  for (const key of [LEGACY_JOB_CONTROLLER_UID_LABEL, JOB_CONTROLLER_UID_LABEL]) {
    if (labels[key] !== uid) errs.push(invalid('spec.template.metadata.labels', labels, `must be '${key}=${uid}'`));
  }
  if (job.spec.selector.matchLabels?.[JOB_CONTROLLER_UID_LABEL] !== uid) errs.push(invalid('spec.selector', job.spec.selector, '`selector` not auto-generated'));
  return errs;
}

/** Template fields a suspended Job that never started may change (upstream's mutable scheduling directives). */
const SCHEDULING_DIRECTIVES = ['nodeSelector', 'affinity', 'tolerations', 'schedulingGates'];

/** ValidateJob / ValidateJobUpdate. */
export function validateJob(job: any, old?: any): FieldError[] {
  const spec = job.spec ?? {};
  const errs = [...validateSelectorAndTemplate(spec, 'spec', { required: true }), ...validateJobSpec(spec, 'spec'), ...validateIndexedHostnames(job)];
  if (spec.manualSelector !== true) errs.push(...validateGeneratedSelector(job));
  if (!old) return errs;
  const oldSpec = old.spec ?? {};
  errs.push(...immutable(spec.selector, oldSpec.selector, 'spec.selector'), ...immutable(spec.completionMode, oldSpec.completionMode, 'spec.completionMode'));
  // ElasticIndexedJob (on in 1.31): an Indexed Job's completions change with its parallelism
  if (spec.completionMode !== 'Indexed') errs.push(...immutable(spec.completions, oldSpec.completions, 'spec.completions'));
  else if (spec.completions !== oldSpec.completions && spec.completions !== spec.parallelism) {
    errs.push(invalid('spec.completions', spec.completions ?? null, 'can only be modified in tandem with spec.parallelism'));
  }
  let template = spec.template;
  if (oldSpec.suspend === true && !old.status?.startTime && template && oldSpec.template) {
    // only the scheduling directives and the template's labels and annotations may change
    template = { ...template, metadata: { ...template.metadata, labels: oldSpec.template.metadata?.labels, annotations: oldSpec.template.metadata?.annotations }, spec: { ...template.spec } };
    for (const key of SCHEDULING_DIRECTIVES) {
      if (oldSpec.template.spec?.[key] === undefined) delete template.spec[key];
      else template.spec[key] = oldSpec.template.spec[key];
    }
  }
  errs.push(...immutable(template, oldSpec.template, 'spec.template'));
  return errs;
}

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];

/** ValidateCronJobCreate / ValidateCronJobUpdate. */
export function validateCronJob(cronJob: any, old?: any): FieldError[] {
  const spec = cronJob.spec ?? {};
  const errs: FieldError[] = [];
  const name = String(cronJob.metadata?.name ?? '');
  // the Jobs' names add 11 characters of the scheduled time to a DNS-1035 label
  if (!old && name.length > 52) errs.push(invalid('metadata.name', name, 'must be no more than 52 characters'));
  const schedule = spec.schedule;
  if (!schedule) errs.push(required('spec.schedule'));
  else {
    const parseError = cronScheduleError(schedule);
    if (parseError) errs.push(invalid('spec.schedule', schedule, parseError));
    const tzAllowed = !!old && String(old.spec?.schedule ?? '').includes('TZ');
    if (schedule.includes('TZ')) {
      if (!tzAllowed) errs.push(invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
      else if (spec.timeZone !== undefined) errs.push(invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
    }
  }
  if (spec.timeZone !== undefined) {
    if (spec.timeZone === 'Local') errs.push(invalid('spec.timeZone', spec.timeZone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
    else if (!isTimeZone(spec.timeZone)) errs.push(invalid('spec.timeZone', spec.timeZone, `unknown time zone ${spec.timeZone}`));
  }
  errs.push(...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  if (!CONCURRENCY_POLICIES.includes(spec.concurrencyPolicy)) errs.push(spec.concurrencyPolicy ? notSupported('spec.concurrencyPolicy', spec.concurrencyPolicy, CONCURRENCY_POLICIES) : required('spec.concurrencyPolicy'));
  errs.push(...nonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'), ...nonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'));
  const jobSpec = spec.jobTemplate?.spec ?? {};
  errs.push(...validateLabels(spec.jobTemplate?.metadata?.labels, 'spec.jobTemplate.metadata.labels'), ...validateAnnotations(spec.jobTemplate?.metadata?.annotations, 'spec.jobTemplate.metadata.annotations'));
  if (jobSpec.manualSelector === true) errs.push(notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  errs.push(...validateJobSpec(jobSpec, 'spec.jobTemplate.spec'));
  return errs;
}

