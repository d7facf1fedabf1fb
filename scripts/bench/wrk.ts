/**
 * wrk, the load generator of issue 10's table: 2 threads, 50 connections,
 * HTTPS (wrk does not verify certificates), a Lua script per target (see
 * wrk-scripts.ts) whose done() prints a JSON summary. Installs Debian's
 * package when it is missing and we may; runs wrk pinned to the client CPU
 * when asked, so that every target in a run has the same client; and records
 * the CPU the server's process tree used meanwhile.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Measurement } from './autocannon.ts';
import { treeCpuSeconds } from './cpu-pin.ts';
import { assertRunning, log, onCleanup, stopChild } from './util.ts';

export interface WrkSummary {
  requests: number;
  durationUs: number;
  bytes: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latencyUs: { min: number; mean: number; max: number; p50: number; p90: number; p99: number; p999: number };
  /** Filled only by scripts with a response() (create): status → count. */
  statuses: Record<string, number>;
  samples: string[];
  /** The paged walk script's (wrk-scripts.ts pagedWalkScript): whole walks' times in ms, and walks that failed. */
  walks?: number[];
  badWalks?: number;
}

/** The JSON line the scripts' done() prints, from wrk's stdout. */
export function parseWrkOutput(stdout: string): WrkSummary {
  const line = stdout.split('\n').reverse().find((l) => l.startsWith('WRK_JSON '));
  if (!line) throw new Error(`wrk printed no WRK_JSON line:\n${stdout.slice(-2000)}`);
  const s = JSON.parse(line.slice('WRK_JSON '.length)) as WrkSummary;
  if (!Number.isFinite(s.requests) || !Number.isFinite(s.durationUs) || !s.errors || !s.latencyUs) throw new Error(`wrk's summary lacks fields: ${line}`);
  return s;
}

/** wrk's summary as the benchmark's Measurement; `expect` null means "any 2xx/3xx" (wrk's own count, for scripts without response()). */
export function wrkMeasurement(key: string, label: string, s: WrkSummary, expect: number | null): Measurement {
  const durationS = s.durationUs / 1e6;
  const good = expect === null ? s.requests - s.errors.status : (s.statuses[String(expect)] ?? 0);
  const statuses = expect === null ? { '2xx/3xx': s.requests - s.errors.status, 'other': s.errors.status } : s.statuses;
  const e = s.errors;
  const errors = e.connect + e.read + e.write + e.timeout;
  return {
    key,
    label,
    rps: s.requests / durationS,
    p50: s.latencyUs.p50 / 1000,
    p99: s.latencyUs.p99 / 1000,
    responses: s.requests,
    errors,
    // Responses (expect given) whose status was not counted, e.g. the last in flight when wrk stopped, are not failures.
    bad: expect === null ? s.errors.status : Object.entries(s.statuses).reduce((n, [k, v]) => n + (k === String(expect) ? 0 : v), 0),
    durationS,
    statuses: Object.fromEntries(Object.entries(statuses).filter(([, v]) => v > 0)),
    samples: s.samples,
    errorSamples: errors ? [`wrk socket errors: connect ${e.connect}, read ${e.read}, write ${e.write}, timeout ${e.timeout}`] : [],
    bytesPerResponse: s.requests ? s.bytes / s.requests : 0,
    byClass: new Map(),
    tool: 'wrk',
    good,
  };
}

let checked = false;

/** Makes sure wrk is on PATH: installs Debian's package with apt-get when missing and we are root (or have password-less sudo). */
export function ensureWrk(): void {
  if (checked) return;
  const found = () => !spawnSync('wrk', ['-v'], { stdio: 'ignore' }).error;
  if (!found()) {
    const root = process.getuid?.() === 0;
    const sudo = !root && !spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status;
    if (!root && !sudo) throw new Error('wrk is not installed and this user cannot install it: run `sudo apt-get install -y wrk` (Debian/Ubuntu), then run the benchmark again');
    const apt = (args: string[]) => execFileSync(root ? 'apt-get' : 'sudo', root ? args : ['apt-get', ...args], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    log('wrk is missing: apt-get install -y wrk …');
    try {
      apt(['install', '-y', 'wrk']);
    } catch {
      apt(['update']);
      apt(['install', '-y', 'wrk']);
    }
    if (!found()) throw new Error('apt-get installed wrk but it is still not on PATH');
  }
  checked = true;
}

export interface WrkRun {
  url: string;
  script: string;
  threads: number;
  connections: number;
  durationS: number;
  /** Run wrk on this CPU only (taskset -c), or anywhere when undefined. */
  cpu?: number;
  /** The server whose process tree's CPU use is recorded. */
  serverPid?: number;
}

export interface WrkResult {
  summary: WrkSummary;
  /** CPU cores the server's process tree used over the run, when serverPid was given. */
  serverCores?: number;
}

/** Runs wrk once; rejects when wrk fails or prints no summary. */
export async function runWrk(run: WrkRun): Promise<WrkResult> {
  ensureWrk();
  assertRunning();
  const dir = mkdtempSync(join(tmpdir(), 'orch-bench-wrk-'));
  const scriptFile = join(dir, 'script.lua');
  writeFileSync(scriptFile, run.script);
  const args = ['-t', String(run.threads), '-c', String(Math.max(run.connections, run.threads)), '-d', `${run.durationS}s`, '--timeout', '30s', '-s', scriptFile, run.url];
  const [cmd, argv] = run.cpu === undefined ? ['wrk', args] : ['taskset', ['-c', String(run.cpu), 'wrk', ...args]];
  const cpu0 = treeCpuSeconds(run.serverPid);
  const t0 = performance.now();
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = () => stopChild(child, 2_000);
  onCleanup(stop);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (c) => resolve(c));
    });
    if (code !== 0) throw new Error(`wrk exited with ${code}:\n${stderr.slice(-2000)}${stdout.slice(-2000)}`);
    const elapsed = (performance.now() - t0) / 1000;
    const cpu1 = treeCpuSeconds(run.serverPid);
    return { summary: parseWrkOutput(stdout), serverCores: cpu0 !== undefined && cpu1 !== undefined ? (cpu1 - cpu0) / elapsed : undefined };
  } finally {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
