/**
 * ValidateCronJobCreate and ValidateCronJobUpdate (SPEC 9.7; K
 * pkg/apis/batch/validation, 1.31): the name's length, the schedule
 * (schedule.ts) and time zone, the policies and limits, and the job
 * template as a Job's spec.
 */
import { invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { nonNegative } from '../../../registry/validation/field-values.ts';
import { validateLabels } from '../../../registry/validation/label-selector.ts';
import { validateAnnotations } from '../../../registry/validation/object-meta.ts';
import { validateJobSpec } from '../job/validate.ts';
import { cronScheduleError, isTimeZone } from './schedule.ts';

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
