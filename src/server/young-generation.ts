/**
 * The young generation a forked worker starts with (issue 10: GET flat from
 * 10,000 to 1,000,000 objects). Every scavenge of V8's young generation walks
 * the list of all the old generation's pages, and on a virtual machine each
 * page's header is a TLB and cache miss: with the 1.5 GB that 1,000,000
 * cached objects take, a scavenge cost 6-7 ms whatever survived it, against
 * 0.3-0.5 ms at 10,000 objects, and random GETs ran at 5,200/s against
 * 7,600-9,200/s. A semi-space of 64 MiB instead of V8's 16 makes scavenges a
 * quarter as frequent, which brought 1,000,000 objects to 7,600/s.
 *
 * The size is only V8's to set at start, so it is chosen when a worker is
 * forked, from what the primary holds by then (the same store, the same
 * caches): a small store keeps V8's default, since a larger young generation
 * costs resident memory under load (+59 MiB for 64 MiB at 10,000 objects). An
 * operator's own semi-space flags, on the command line or in NODE_OPTIONS, win.
 */
import { getHeapStatistics } from 'node:v8';

const MIB = 1024 * 1024;

/** The semi-space, in MiB, for an old generation of `heapUsed` bytes; undefined keeps V8's default (16 MiB on 64-bit). */
export function semiSpaceMiB(heapUsed: number): number | undefined {
  if (heapUsed <= 256 * MIB) return undefined;
  return heapUsed <= 768 * MIB ? 32 : 64;
}

/** The Node flags a worker is forked with: the primary's own, plus a young generation sized to the heap. */
export function workerExecArgv(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? '', heapUsed = getHeapStatistics().used_heap_size): string[] {
  if (/--(max|min)[-_]semi[-_]space[-_]size/.test([...execArgv, nodeOptions].join(' '))) return execArgv;
  const mib = semiSpaceMiB(heapUsed);
  return mib === undefined ? execArgv : [...execArgv, `--max-semi-space-size=${mib}`];
}
