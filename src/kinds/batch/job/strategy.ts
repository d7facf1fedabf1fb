/**
 * The Job strategy (SPEC 9.7; K pkg/registry/batch/job/strategy.go and
 * pkg/apis/batch/v1/defaults.go, 1.31): the defaults that depend on other
 * fields (the plain ones are the contract's x-orch-default), the template a
 * pod's defaults, status `{}` on create, generation following the spec, the
 * generated selector and its labels, the JobManagedBy field dropped as the
 * alpha gate does, and deletes that orphan by default.
 */
import type { components } from '../../../generated/types/apis__batch__v1.ts';
import { objectAt } from '../../../registry/json-value.ts';
import { specAndStatusStrategy, type ApiObject, type Strategy } from '../../../registry/strategy.ts';
import { isDNS1123Label } from '../../../api/names.ts';
import { defaultPodTemplate } from '../../core/pod/defaults.ts';
import { JOB_CONTROLLER_UID_LABEL, JOB_NAME_LABEL, LEGACY_JOB_CONTROLLER_UID_LABEL, LEGACY_JOB_NAME_LABEL, validateJob } from './validate.ts';

type Job = components['schemas']['io.orch.api.batch.v1.Job'];

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
const MAX_INT32 = 2147483647;

/**
 * SetDefaults_Job: completions and parallelism 1 when both are unset,
 * backoffLimit 6 (the int32 maximum with backoffLimitPerIndex), the Job's
 * labels from its template's when it has none, NonIndexed, not suspended,
 * pods replaced once terminated or failed (Failed with a pod failure policy).
 */
function defaultJob(obj: ApiObject): void {
  const spec = objectAt(obj, 'spec');
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
  const spec = objectAt(job, 'spec');
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

/** Job and CronJob WarningsOnCreate: their names become pod names and hostnames. */
export function nameWarnings(obj: ApiObject): string[] {
  const labelErrors = isDNS1123Label(String(obj.metadata.name ?? ''));
  return labelErrors.length ? [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${labelErrors.join(' ')}]`] : [];
}

/** dropJobDisabledFields: the JobManagedBy gate is alpha and off in 1.31, so a managedBy the object did not have is dropped. */
function dropNewManagedBy(obj: ApiObject, old?: ApiObject): void {
  if (obj.spec && old?.spec?.managedBy === undefined) delete obj.spec.managedBy;
}

const jobWorkload = specAndStatusStrategy({ applyDefaults: defaultJob, validate: validateJob });

export const strategy: Strategy<Job> = {
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
    jobWorkload.prepareForCreate?.(obj);
    generateJobSelector(obj);
  },
};
