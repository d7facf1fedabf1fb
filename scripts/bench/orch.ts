/**
 * The orch server under test: start-up (with spawn → first 200 on /readyz),
 * a small keep-alive HTTPS client, and the NetworkPolicy fixtures.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from '../../test/helpers/server.ts';
import { freePort } from '../../test/helpers/etcd.ts';
import { rmSync } from 'node:fs';
import { bounded, onCleanup, stopChild } from './util.ts';
import { childProcesses } from './cpu-pin.ts';

export const NP_PATH = (ns: string) => `/apis/networking.orch.io/v1/namespaces/${ns}/networkpolicies`;

/** A realistic NetworkPolicy; the server's JSON for it is ~1.2 KB. */
export function networkPolicy(name: string, namespace: string) {
  return {
    apiVersion: 'networking.orch.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name, namespace, labels: { app: 'api', tier: 'backend', team: 'payments' } },
    spec: {
      podSelector: { matchLabels: { app: 'api', tier: 'backend' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          from: [
            { podSelector: { matchLabels: { app: 'frontend' } } },
            { namespaceSelector: { matchLabels: { 'orch.io/metadata.name': 'monitoring' } }, podSelector: { matchLabels: { app: 'prometheus' } } },
          ],
          ports: [
            { protocol: 'TCP', port: 8080 },
            { protocol: 'TCP', port: 9090 },
          ],
        },
        { from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.0.5.0/24', '10.0.6.0/24'] } }], ports: [{ protocol: 'TCP', port: 443 }] },
      ],
      egress: [
        { to: [{ podSelector: { matchLabels: { app: 'postgres' } } }], ports: [{ protocol: 'TCP', port: 5432 }] },
        {
          to: [{ namespaceSelector: { matchLabels: { 'orch.io/metadata.name': 'orch-system' } }, podSelector: { matchLabels: { 'orch-app': 'dns' } } }],
          ports: [
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 53 },
          ],
        },
        { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.169.254/32'] } }], ports: [{ protocol: 'TCP', port: 443, endPort: 8443 }] },
      ],
    },
  };
}

export interface Orch {
  server: TestServer;
  /** spawn → first 200 on /readyz, polled every 10 ms from the spawn. */
  readyMs: number;
  /** spawn → the "serving on" line. */
  servingLineMs: number;
  /** A request as the admin; a string body is sent as is; `headers` add to or replace the defaults (JSON). */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; text: string }>;
  /** Like api(), but throws unless the status is one of `want`. */
  expect(what: string, want: number[], method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; text: string }>;
  close(): void;
}

/**
 * Workers of the server's pool forked but not serving yet (their start reads
 * the whole store into their cache): its child processes that no pool line
 * (src/server/worker-pool.ts) has named as serving or stopping. A stopping
 * worker stays a child until it has closed its connections; counted as
 * starting, it had made warm-ups wait minutes for a start that never came.
 */
export function startingWorkers(server: TestServer): number {
  const announced = new Set<number>();
  for (const m of server.output().matchAll(/^worker \d+ \(pid (\d+)\) (serving|stopping)/gm)) announced.add(Number(m[1]));
  return childProcesses(server.process.pid!).filter((pid) => !announced.has(pid)).length;
}

/** One request over `agent`; resolves to the status and the body, rejects on a connection error or after `timeoutMs`. */
export function send(agent: Agent, base: string, method: string, path: string, headers: Record<string, string>, payload: Buffer | undefined, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, base), { method, headers, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Status of GET /readyz, 0 when the connection fails. Certificate unchecked: the CA does not exist yet. */
function probeReadyz(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/readyz', method: 'GET', agent: false, rejectUnauthorized: false, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

async function pollReadyz(port: number, t0: number, giveUpMs: number, stop: { stopped: boolean }): Promise<number> {
  for (;;) {
    const started = performance.now();
    if ((await probeReadyz(port)) === 200) return performance.now() - t0;
    if (stop.stopped || performance.now() - t0 > giveUpMs) throw new Error(`/readyz not 200 within ${Math.round(performance.now() - t0)} ms`);
    const wait = 10 - (performance.now() - started);
    if (wait > 0) await sleep(wait);
  }
}

/**
 * Spawns the orch server on a pre-picked port (so /readyz can be polled from
 * the spawn itself). `register` receives the server as soon as it exists, so
 * the caller's cleanup can stop it even when a later step fails. `dataDir`
 * reuses an existing data dir (a restart); `wrapper` execs the server (taskset).
 */
export interface StartOptions {
  dataDir?: string;
  wrapper?: string[];
  /** How long the server may take to print "serving on" and to answer /readyz with 200 (60 s). */
  startTimeoutMs?: number;
}

/** Node flags for the server processes (BENCH_SERVER_NODE_ARGS, see USAGE), e.g. a CPU profiler. */
export const SERVER_NODE_ARGS = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
/** Extra orch flags for every server the bench starts (BENCH_SERVER_ARGS, see USAGE), e.g. "--workers=1". */
export const SERVER_ARGS = process.env.BENCH_SERVER_ARGS?.split(' ').filter(Boolean) ?? [];

export async function startOrch(flags: string[], register: (s: TestServer) => void, options: StartOptions = {}): Promise<Orch> {
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const t0 = performance.now();
    const stop = { stopped: false };
    const ready = pollReadyz(port, t0, startTimeoutMs, stop);
    ready.catch(() => {});
    let server: TestServer;
    try {
      // The server as `npm start` runs it: the test helper's floor of two processes is lifted (the pool grows under load).
      server = await startTestServer(['--secure-port', String(port), '--min-workers=1', ...flags, ...SERVER_ARGS], { ...options, startTimeoutMs, nodeArgs: SERVER_NODE_ARGS });
    } catch (err) {
      stop.stopped = true;
      // Another process may have taken the port between the probe and the spawn.
      if (attempt < 3 && /EADDRINUSE/.test(String(err))) continue;
      throw err;
    }
    register(server);
    const servingLineMs = performance.now() - t0;
    const readyMs = await ready;
    const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: server.ca });
    const api: Orch['api'] = (method, path, body, extra) => {
      const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      const headers: Record<string, string> = { authorization: `Bearer ${server.token}`, accept: 'application/json', ...extra };
      if (payload) headers['content-type'] = 'application/json';
      return send(agent, server.url, method, path, headers, payload, 60_000);
    };
    const expect: Orch['expect'] = async (what, want, method, path, body, extra) => {
      const r = await api(method, path, body, extra);
      if (!want.includes(r.status)) throw new Error(`${what}: HTTP ${r.status}: ${r.text.slice(0, 500)}`);
      return r;
    };
    return { server, readyMs, servingLineMs, api, expect, close: () => agent.destroy() };
  }
}

export interface Launched {
  orch: Orch;
  /** Stops the server (SIGTERM, then SIGKILL) and removes its data dir unless it was kept; idempotent. */
  stop(): Promise<void>;
}

/**
 * startOrch with its stop registered for cleanup, so that an error, Ctrl-C or
 * the time limit never leaves a server running. `keepDataDir` keeps the data
 * dir for a restart (the caller removes it).
 */
export async function launchOrch(flags: string[], options: StartOptions & { keepDataDir?: boolean; stopGraceMs?: number } = {}): Promise<Launched> {
  let server: TestServer | undefined;
  let orch: Orch | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      orch?.close();
      if (!server) return;
      await stopChild(server.process, options.stopGraceMs ?? 15_000);
      if (!options.keepDataDir) rmSync(server.dataDir, { recursive: true, force: true });
    })());
  onCleanup(stop);
  try {
    orch = await startOrch(flags, (s) => (server = s), options);
  } catch (err) {
    await stop();
    throw err;
  }
  return { orch, stop };
}

export async function createNamespace(orch: Orch, name: string): Promise<void> {
  await orch.expect(`create namespace ${name}`, [201], 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** Creates `count` NetworkPolicies `np-00000`… in `ns` with bounded concurrency; resolves to the elapsed ms. */
export async function createPolicies(orch: Orch, ns: string, count: number, concurrency: number): Promise<number> {
  const t0 = performance.now();
  await bounded(count, concurrency, async (i) => {
    const name = `np-${String(i).padStart(5, '0')}`;
    await orch.expect(`create ${ns}/${name}`, [201], 'POST', NP_PATH(ns), networkPolicy(name, ns));
  });
  return performance.now() - t0;
}

/** The resourceVersion of a collection (a one-item list). */
export async function collectionRevision(orch: Orch, ns: string): Promise<string> {
  const r = await orch.expect(`list ${ns}`, [200], 'GET', `${NP_PATH(ns)}?limit=1`);
  return (JSON.parse(r.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
}
