/**
 * How far V8 lets the old generation grow past the live data before its next
 * full collection (issue 10: peak RSS). Under a high allocation rate, as a
 * burst of creates is, V8's own factor rises towards 4x, so a server holding
 * 100 MB of cached objects could sit at 400 MB per process, twice over in a
 * pool. A fixed 1.3x (the factor V8 itself uses when memory is scarce) took a
 * two-process pool under 12 s of creates from 724 to about 490 MiB at the same
 * create rate (scripts/bench measures it as peak RSS).
 *
 * Applied once the server is ready, so that loading a large store into the
 * watch cache at start keeps V8's own, faster-growing schedule. An operator's
 * own `--heap-growing-percent` (on the command line or in NODE_OPTIONS) wins.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 30;

/** Sets the growth factor unless the operator set one; says whether it did. */
export function boundHeapGrowth(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (/--heap[-_]growing[-_]percent/.test([...execArgv, nodeOptions].join(' '))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
