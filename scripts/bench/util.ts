/**
 * Shared helpers of the benchmark: logging, number formatting, percentiles,
 * bounded concurrency, /proc readings, and the process/temp-dir cleanup
 * registry that runs on success, on error, on SIGINT/SIGTERM and on the
 * overall time limit.
 */
import { processTree } from './cpu-pin.ts';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** Milliseconds on CLOCK_MONOTONIC, which every process on the machine shares, relative to `epoch`. */
export function monoMs(epoch: bigint): number {
  return Number(process.hrtime.bigint() - epoch) / 1e6;
}

export function fmt(n: number | undefined, digits = 1): string {
  if (n === undefined || !Number.isFinite(n)) return 'n/a';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export const int = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? 'n/a' : Math.round(n).toLocaleString('en-US'));

export function bytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return 'n/a';
  return n >= 1024 * 1024 ? `${fmt(n / 1024 / 1024, 2)} MiB` : n >= 1024 ? `${fmt(n / 1024, 2)} KiB` : `${Math.round(n)} B`;
}

export const ratio = (value: number | undefined, base: number | undefined) => (value !== undefined && base ? `${fmt(value / base, 3)}×` : 'n/a');

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** A growable Float64Array. */
export class Samples {
  private data = new Float64Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }
  sorted(): Float64Array {
    return this.data.slice(0, this.length).sort();
  }
  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/** Runs `task(i)` for i in [0, n) with at most `limit` in flight. */
export async function bounded(n: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, n) }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

function statusKb(pid: number | undefined, field: string): number | undefined {
  if (!pid) return undefined;
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** A field summed over a process and its descendants: a server with --workers is several processes. */
function treeKb(pid: number | undefined, field: string): number | undefined {
  if (!pid) return undefined;
  const values = processTree(pid).map((p) => statusKb(p, field)).filter((v): v is number => v !== undefined);
  return values.length ? values.reduce((a, b) => a + b, 0) : undefined;
}

/** Peak resident set size (VmHWM) of a live process tree in bytes: the sum of each process's own peak (an upper bound of the tree's). */
export const peakRss = (pid: number | undefined) => treeKb(pid, 'VmHWM');
/** Current resident set size (VmRSS) of a live process tree in bytes. */
export const rss = (pid: number | undefined) => treeKb(pid, 'VmRSS');

/** Busy and total jiffies of the whole machine (first line of /proc/stat). */
export function machineCpu(): { busy: number; total: number } {
  const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = f.map(Number);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - n[3] - n[4], total };
}

// ---------------------------------------------------------------------------
// Processes and cleanup.

export const alive = (child: ChildProcess | undefined) => !!child && child.exitCode === null && child.signalCode === null;

export function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (!alive(child)) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => done(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      done(true);
    });
  });
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess | undefined, graceMs: number): Promise<void> {
  if (!child || !alive(child)) return;
  child.kill('SIGTERM');
  if (!(await waitExit(child, graceMs))) {
    log(`pid ${child.pid} ignored SIGTERM for ${graceMs} ms; sending SIGKILL`);
    child.kill('SIGKILL');
    await waitExit(child, 5_000);
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
let cleaning: Promise<void> | undefined;

/** Registers a cleanup step; steps run in reverse order of registration. */
export function onCleanup(step: () => Promise<void> | void): void {
  cleanups.push(step);
}

/** True once cleanup has begun: start nothing new. */
export const isStopping = () => cleaning !== undefined;

/** Throws once cleanup has begun, so that the main flow does not spawn anything it would orphan. */
export function assertRunning(): void {
  if (cleaning) throw new Error('the benchmark is stopping');
}

export function cleanup(): Promise<void> {
  return (cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step();
      } catch (err) {
        log(`cleanup step failed: ${String(err)}`);
      }
    }
    await reapOwnChildren();
  })());
}

/**
 * Safety net for a failed start-up in a helper that never handed back its
 * child (e.g. etcd that did not become healthy): stops this process's own
 * remaining direct children that have a `--data-dir` argument (servers), by
 * pid, and removes that dir when it is an `orch-*` dir under the temp dir.
 */
async function reapOwnChildren(): Promise<void> {
  const mine: Array<{ pid: number; dataDir?: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      const dataDir = dataDirOf(Number(entry));
      // Only servers (orch, etcd) have one; tsx's esbuild service, also a child, is left to exit with us.
      if (dataDir !== undefined) mine.push({ pid: Number(entry), dataDir });
    } catch {
      // gone already
    }
  }
  for (const { pid, dataDir } of mine) {
    log(`stopping leftover child pid ${pid} (--data-dir ${dataDir})`);
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone
    }
  }
  for (const { pid, dataDir } of mine) {
    for (let i = 0; i < 50 && existsPid(pid); i++) await sleep(100);
    if (existsPid(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    if (dataDir && dirname(resolve(dataDir)) === resolve(tmpdir()) && basename(dataDir).startsWith('orch-')) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The --data-dir argument of a running process (servers: orch, etcd), if it has one. */
export function dataDirOf(pid: number | undefined): string | undefined {
  if (!pid) return undefined;
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const i = argv.indexOf('--data-dir');
    return i >= 0 ? argv[i + 1] : undefined;
  } catch {
    return undefined;
  }
}

function existsPid(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
