/**
 * The Table cells of the apps/v1 and batch/v1 workload kinds (SPEC 2.5, 4.7;
 * translated from upstream kubernetes pkg/printers/internalversion/printers.go
 * 1.31: printDeployment, printReplicaSet, printDaemonSet, printStatefulSet,
 * printJob, printCronJob, printControllerRevision and layoutContainerCells).
 */
import type { TimedCell } from '../registry/printer-cells.ts';
import { humanDuration, timestampMs } from './table-time.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

type Formatter = (value: unknown, obj: any) => unknown;

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

/** printControllerRevision: `kind.group/name` of the controlling owner (GroupKind.String lower-cased), `<none>` without one. */
function controllerOf(owners: unknown): string {
  const ref = arr(owners).find((o) => o?.controller === true);
  if (!ref) return '<none>';
  const apiVersion = String(ref.apiVersion ?? '');
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = String(ref.kind ?? '');
  const groupKind = group ? `${kind}.${group}` : kind;
  return groupKind ? `${groupKind.toLowerCase()}/${ref.name ?? ''}` : String(ref.name ?? '');
}

/** The workload formatters whose cell is the same at any request time. */
export const workloadFormatters: Record<string, Formatter> = {
  // printDeployment / printStatefulSet: `ready/desired`
  readyOfReplicas: (_v, obj) => `${int(obj.status?.readyReplicas)}/${int(obj.spec?.replicas)}`,
  controllerOf: (value) => controllerOf(value),
  jobStatus: (_v, job) => jobStatus(job),
  jobCompletions: (_v, job) => jobCompletions(job),
};

/** printJob's duration: completion − start once complete, else the time since the start; '' before the start. */
const jobDuration: TimedCell = {
  prepare: (_v, job) => ({ start: timestampMs(job.status?.startTime), end: timestampMs(job.status?.completionTime) }),
  render: (prepared, now) => {
    const { start, end } = prepared as { start: number | undefined; end: number | undefined };
    if (start === undefined) return '';
    return humanDuration((end ?? now) - start);
  },
};

/** The workload formatters whose cell is an age at the request time. */
export const workloadTimedFormatters: Record<string, TimedCell> = {
  jobDuration,
};
