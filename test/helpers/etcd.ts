/**
 * A real etcd for tests: Debian's etcd-server binary on free loopback ports with
 * a temporary data dir. `etcdAvailable()` tells whether the binary is installed.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
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
  /** The running etcd process (a new one after restart()). */
  readonly process: ChildProcess;
  /**
   * Starts etcd again on the same data dir, after it was killed; resolves once it
   * answers. On `clientUrl` when given (the servers using it cannot reach it
   * there), else on its own endpoint.
   */
  restart(clientUrl?: string): Promise<void>;
  stop(): Promise<void>;
}

/** Files of an etcd serving clients over TLS that requires client certificates. */
export interface EtcdTls {
  caFile: string;
  certFile: string;
  keyFile: string;
  /** A client certificate and key signed by the CA, for the readiness probe. */
  clientCertFile: string;
  clientKeyFile: string;
}

/** GET /health over HTTPS with the client certificate (fetch cannot present one). */
function healthOverTls(endpoint: string, tls: EtcdTls): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpsGet(`${endpoint}/health`, { ca: readFileSync(tls.caFile), cert: readFileSync(tls.clientCertFile), key: readFileSync(tls.clientKeyFile) }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
  });
}

/** Spawns etcd and resolves once its /health answers. */
async function spawnEtcd(dir: string, endpoint: string, peerUrl: string, tls?: EtcdTls): Promise<ChildProcess> {
  const tlsArgs = tls ? ['--cert-file', tls.certFile, '--key-file', tls.keyFile, '--trusted-ca-file', tls.caFile, '--client-cert-auth'] : [];
  const child = spawn(
    'etcd',
    [
      '--name', 'test',
      '--data-dir', dir,
      '--listen-client-urls', endpoint,
      '--advertise-client-urls', endpoint,
      '--listen-peer-urls', peerUrl,
      '--initial-advertise-peer-urls', peerUrl,
      '--initial-cluster', `test=${peerUrl}`,
      '--log-level', 'error',
      ...tlsArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ETCD_UNSUPPORTED_ARCH: process.arch === 'x64' ? '' : process.arch } },
  );
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`etcd exited early:\n${output}`);
    if (tls) {
      if (await healthOverTls(endpoint, tls)) break;
    } else {
      try {
        const res = await fetch(`${endpoint}/health`);
        if (res.ok) break;
      } catch {
        // not up yet
      }
    }
    if (Date.now() > deadline) throw new Error(`etcd did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/** Starts etcd on free loopback ports; with `tls`, clients connect over https:// and must present a certificate. */
export async function startEtcd(options: { tls?: EtcdTls } = {}): Promise<TestEtcd> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const endpoint = `${options.tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  let child = await spawnEtcd(dir, endpoint, peerUrl, options.tls);
  return {
    endpoint,
    get process() {
      return child;
    },
    async restart(clientUrl = endpoint) {
      await exitOf(child);
      child = await spawnEtcd(dir, clientUrl, peerUrl, options.tls);
    },
    async stop() {
      // A frozen etcd would never see the SIGTERM.
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await exitOf(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * SIGSTOPs etcd and waits until the kernel reports it stopped: the signal is
 * asynchronous, and a call sent in between would still be answered.
 */
export async function freeze(etcd: TestEtcd): Promise<void> {
  etcd.process.kill('SIGSTOP');
  const stat = `/proc/${etcd.process.pid}/stat`;
  for (let i = 0; i < 200; i++) {
    // The state follows the parenthesised command name: "pid (etcd) T ...".
    if (/\) T /.test(readFileSync(stat, 'utf8'))) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('etcd did not stop within a second of SIGSTOP');
}
