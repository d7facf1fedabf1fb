/** The Table cells of Job (SPEC 2.5, 4.7; upstream pkg/printers/internalversion/printers.go printJob, 1.31). */
import type { components } from '../../../generated/types/apis__batch__v1.ts';
import type { Cell, TimedCell } from '../../../registry/printer-cells.ts';
import { humanDuration, timestampMs } from '../../../registry/table-time.ts';

type Job = components['schemas']['io.orch.api.batch.v1.Job'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** hasJobCondition: a condition of the type whose status is True. */
function hasJobCondition(job: any, type: string): boolean {
  return arr(job.status?.conditions).some((c) => c?.type === type && c?.status === 'True');
}

/** printJob's status: the first of Complete, Failed, Terminating, Suspended, FailureTarget, SuccessCriteriaMet; else Running. */
function jobStatus(job: any): string {
  if (hasJobCondition(job, 'Complete')) return 'Complete';
  if (hasJobCondition(job, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasJobCondition(job, 'Suspended')) return 'Suspended';
  if (hasJobCondition(job, 'FailureTarget')) return 'FailureTarget';
  if (hasJobCondition(job, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

/** printJob's completions: `succeeded/completions`, or `succeeded/1` (`of parallelism` when more than one) for a work queue. */
function jobCompletions(job: any): string {
  const succeeded = int(job.status?.succeeded);
  if (typeof job.spec?.completions === 'number') return `${succeeded}/${job.spec.completions}`;
  const parallelism = int(job.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

export const cells = {
  jobStatus: (_v, job) => jobStatus(job),
  jobCompletions: (_v, job) => jobCompletions(job),
} satisfies Record<string, Cell<Job>>;

export const timedCells = {
  /** printJob's duration: completion − start once complete, else the time since the start; '' before the start. */
  jobDuration: {
    prepare: (_v, job) => ({ start: timestampMs(job.status?.startTime), end: timestampMs(job.status?.completionTime) }),
    render: (prepared, now) => {
      const { start, end } = prepared as { start: number | undefined; end: number | undefined };
      if (start === undefined) return '';
      return humanDuration((end ?? now) - start);
    },
  },
} satisfies Record<string, TimedCell<Job>>;
