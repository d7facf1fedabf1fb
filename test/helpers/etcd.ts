/**
 * A real etcd for tests: Debian's etcd-server binary on free loopback ports with
 * a temporary data dir. `etcdAvailable()` tells whether the binary is installed.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function etcdAvailable(): boolean {
  try {
    execFileSync('etcd', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export interface TestEtcd {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startEtcd(): Promise<TestEtcd> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const child = spawn(
    'etcd',
    [
      '--name', 'test',
      '--data-dir', dir,
      '--listen-client-urls', endpoint,
      '--advertise-client-urls', endpoint,
      '--listen-peer-urls', `http://127.0.0.1:${peerPort}`,
      '--initial-advertise-peer-urls', `http://127.0.0.1:${peerPort}`,
      '--initial-cluster', `test=http://127.0.0.1:${peerPort}`,
      '--log-level', 'error',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ETCD_UNSUPPORTED_ARCH: process.arch === 'x64' ? '' : process.arch } },
  );
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`etcd exited early:\n${output}`);
    try {
      const res = await fetch(`${endpoint}/health`);
      if (res.ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`etcd did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    endpoint,
    process: child,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
