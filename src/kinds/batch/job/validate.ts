/**
 * ValidateJob and ValidateJobUpdate (SPEC 9.7; K pkg/apis/batch/validation,
 * 1.31), and the job spec's rules a CronJob's jobTemplate shares: counts and
 * completion mode, the policies (validate-policies.ts), the template a pod's,
 * a generated selector that names the Job's uid; on update the immutable
 * fields, and the scheduling directives a suspended Job may change.
 */
import { invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { immutable, nonNegative } from '../../../registry/validation/field-values.ts';
import { validatePodTemplate, validateSelectorAndTemplate } from '../../core/pod-template/validate.ts';
import { validateIndexedHostnames, validateJobPolicies, validateJobRestartPolicy } from './validate-policies.ts';

/** validateJobSpec: the checks a Job and a CronJob's jobTemplate share. */
export function validateJobSpec(spec: any, path: string): FieldError[] {
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
