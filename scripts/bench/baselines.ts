/** Starts baselines-child.ts: raw node:http and node:https servers in their own process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../test/helpers/server.ts';
import { assertRunning, onCleanup, stopChild } from './util.ts';

export interface Baselines {
  process: ChildProcess;
  /** `floor`: the create floor's https port (BaselineOptions.createFloor). */
  ports: { http: number; https: number; floor?: number };
  stop(): Promise<void>;
}

/** What the baselines answer: `get` on every path, `list` on /list and `table` on /table when given. */
export interface BaselineBodies {
  get: string;
  list?: string;
  table?: string;
}

export interface BaselineOptions {
  /** Processes serving the https socket (baselines-child.ts --processes). */
  processes?: number;
  /** A command the child runs under, such as `taskset -c 0`. */
  wrapper?: string[];
  /** Also serve the create floor (create-floor.ts) over a new SQLite file in the baselines' temp dir. */
  createFloor?: boolean;
}

/** Serves `bodies` on both; https with the given PEM files. */
export async function startBaselines(bodies: BaselineBodies, certFile: string, keyFile: string, options: BaselineOptions = {}): Promise<Baselines> {
  assertRunning();
  const work = mkdtempSync(join(tmpdir(), 'orch-bench-'));
  const args: string[] = [];
  for (const [name, body] of Object.entries(bodies)) {
    if (body === undefined) continue;
    const file = join(work, `${name}.json`);
    writeFileSync(file, body);
    args.push(name === 'get' ? '--body' : `--${name}`, file);
  }
  if (options.processes) args.push('--processes', String(options.processes));
  if (options.createFloor) args.push('--create-floor', join(work, 'create-floor.db'));
  const command = [...(options.wrapper ?? []), process.execPath, '--import', 'tsx', join(ROOT, 'scripts/bench/baselines-child.ts'), ...args, '--cert', certFile, '--key', keyFile];
  const child = spawn(command[0], command.slice(1), {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await stopChild(child, 5_000);
      rmSync(work, { recursive: true, force: true });
    })());
  onCleanup(stop);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const ports = await new Promise<Baselines['ports']>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`baselines did not start:\n${stderr}`)), 20_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`baselines exited with ${code}:\n${stderr}`));
    });
  });
  return { process: child, ports, stop };
}
