/**
 * The Pod columns of a Table (SPEC 2.5, 4.7; translated from upstream kubernetes
 * pkg/printers/internalversion/printers.go printPod, 1.31): Ready, Status with
 * its reason logic, Restarts with the age of the last restart, Readiness
 * Gates, and the row condition that marks a finished pod.
 */
import type { components } from '../../../generated/types/api__v1.ts';
import type { Cell, TimedCell } from '../../../registry/printer-cells.ts';
import { ageAt, timestampMs } from '../../../registry/table-time.ts';

type Pod = components['schemas']['io.orch.api.core.v1.Pod'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

/** Upstream podutil.IsRestartableInitContainer: a sidecar. */
function isSidecar(pod: any, name: string): boolean {
  return arr(pod.spec?.initContainers).some((c) => c?.name === name && c?.restartPolicy === 'Always');
}

const laterOf = (a: string | undefined, b: unknown) => (typeof b === 'string' && (a === undefined || Date.parse(b) > Date.parse(a)) ? b : a);

interface PodSummary {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  lastRestart: string | undefined;
}

/** printPod's walk over init and regular container statuses. */
function summarize(pod: any): PodSummary {
  const status = pod.status ?? {};
  const phase = typeof status.phase === 'string' ? status.phase : '';
  let reason = status.reason || phase;
  if (arr(status.conditions).some((c) => c?.type === 'PodScheduled' && c?.reason === 'SchedulingGated')) reason = 'SchedulingGated';
  const initContainers = arr(pod.spec?.initContainers);
  let total = arr(pod.spec?.containers).length + initContainers.filter((c) => c?.restartPolicy === 'Always').length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: string | undefined;
  let lastSidecarRestart: string | undefined;
  let initializing = false;
  const initStatuses = arr(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i] ?? {};
    const sidecar = isSidecar(pod, c.name);
    restarts += c.restartCount ?? 0;
    lastRestart = laterOf(lastRestart, c.lastState?.terminated?.finishedAt);
    if (sidecar) {
      sidecarRestarts += c.restartCount ?? 0;
      lastSidecarRestart = laterOf(lastSidecarRestart, c.lastState?.terminated?.finishedAt);
    }
    const terminated = c.state?.terminated;
    const waiting = c.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (sidecar && c.started === true) {
      if (c.ready) ready++;
      continue;
    }
    if (terminated) {
      if (!terminated.reason) reason = terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode ?? 0}`;
      else reason = `Init:${terminated.reason}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }
  const initialized = arr(status.conditions).some((c) => c?.type === 'Initialized' && c?.status === 'True');
  if (!initializing || initialized) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = arr(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i] ?? {};
      restarts += c.restartCount ?? 0;
      lastRestart = laterOf(lastRestart, c.lastState?.terminated?.finishedAt);
      const terminated = c.state?.terminated;
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (terminated?.reason) reason = terminated.reason;
      else if (terminated) reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
      else if (c.ready && c.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = arr(status.conditions).some((c) => c?.type === 'Ready' && c?.status === 'True') ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata?.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && phase !== 'Failed' && phase !== 'Succeeded') reason = 'Terminating';
  return { ready, total, reason, restarts, lastRestart };
}

/** The cells of the Pod columns that do not depend on the request time. */
export const cells = {
  podReady: (_v, pod) => {
    const s = summarize(pod);
    return `${s.ready}/${s.total}`;
  },
  podStatus: (_v, pod) => summarize(pod).reason,
  podReadinessGates: (_v, pod) => {
    const gates = arr(pod.spec?.readinessGates);
    if (gates.length === 0) return '<none>';
    const conditions = arr(pod.status?.conditions);
    const passed = gates.filter((g) => conditions.find((c) => c?.type === g?.conditionType)?.status === 'True').length;
    return `${passed}/${gates.length}`;
  },
} satisfies Record<string, Cell<Pod>>;

/**
 * Restarts, with the age of the last restart when there was one: the row keeps
 * the count's text, or the count and the restart's time for the age.
 */
const podRestarts: TimedCell = {
  prepare: (_v, pod) => {
    const s = summarize(pod);
    return s.restarts !== 0 && s.lastRestart !== undefined ? { restarts: s.restarts, at: timestampMs(s.lastRestart) } : String(s.restarts);
  },
  render: (prepared, now) => {
    if (typeof prepared === 'string') return prepared;
    const { restarts, at } = prepared as { restarts: number; at: number | undefined };
    return `${restarts} (${ageAt(at, now)} ago)`;
  },
};

export const timedCells = { podRestarts };

/** printPod's row conditions: a finished pod's row is Completed (kubectl dims or hides it). */
export function rowConditions(pod: any): unknown[] | undefined {
  switch (pod?.status?.phase) {
    case 'Succeeded':
      return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    case 'Failed':
      return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    default:
      return undefined;
  }
}
