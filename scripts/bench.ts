/**
 * bench.ts — load benchmark of orch-apiserver against raw node:http/node:https
 * baselines, with autocannon. `npm run bench [-- flags]`; see scripts/README.md.
 *
 * One run:
 *  1. spawns the orch server (fresh data dir, loopback) and times spawn → first
 *     200 on /readyz, polling every 10 ms from the spawn;
 *  2. creates the fixtures (one NetworkPolicy, and 1,000 in one namespace);
 *  3. spawns the baselines (scripts/bench-baselines.ts) in their own process,
 *     serving the orch server's own GET response bytes with its serving cert;
 *  4. runs autocannon (50 connections, fixed duration, after a short warm-up)
 *     against each target and prints a Markdown table, the server's peak RSS
 *     and its start-up time;
 *  5. stops every process and removes every temp dir.
 *
 * Progress goes to stderr, the report to stdout. Exit 0 on a completed run,
 * 1 if the orch server died or the run failed, 2 on bad flags.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { Agent, request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, startTestServer, type TestServer } from '../test/helpers/server.ts';

// ---------------------------------------------------------------------------
// autocannon (CommonJS, no bundled types): the slice of its programmatic API used here.

interface AcRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (req: AcRequest, context: Record<string, unknown>) => AcRequest | null | undefined;
  onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, unknown>) => void;
}
interface AcOptions {
  url: string;
  connections: number;
  duration: number;
  timeout?: number;
  warmup?: { connections: number; duration: number };
  requests: AcRequest[];
}
interface AcHistogram {
  average: number;
  total: number;
  p50: number;
  p99: number;
}
interface AcResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  latency: AcHistogram & { totalCount: number };
  requests: AcHistogram & { sent: number };
  throughput: AcHistogram;
}
interface AcInstance extends PromiseLike<AcResult> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, responseTimeMs: number) => void): this;
  on(event: 'reqError', listener: (error: Error) => void): this;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: AcOptions) => AcInstance;

// ---------------------------------------------------------------------------
// Flags.

const USAGE = `Usage: npm run bench -- [--duration N | --quick] [--warmup N] [--connections N] [--list-size N]

  --duration N     seconds each target is measured (default 10)
  --quick          same as --duration 3 (and --warmup 1)
  --warmup N       seconds of unmeasured load before each measurement (default 2; 0 disables)
  --connections N  concurrent connections (default 50)
  --list-size N    NetworkPolicies in the listed namespace (default 1000)
`;

function parseArgs(argv: string[]): { duration: number; warmup: number; connections: number; listSize: number } {
  const out = { duration: 10, warmup: 2, connections: 50, listSize: 1000 };
  let warmupGiven = false;
  const num = (name: string, v: string | undefined, min: number) => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < min) {
      process.stderr.write(`bench: --${name} needs an integer >= ${min}\n\n${USAGE}`);
      process.exit(2);
    }
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2) as [string, string | undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case '--quick':
        out.duration = 3;
        if (!warmupGiven) out.warmup = 1;
        break;
      case '--duration':
        out.duration = num('duration', value(), 1);
        break;
      case '--warmup':
        out.warmup = num('warmup', value(), 0);
        warmupGiven = true;
        break;
      case '--connections':
        out.connections = num('connections', value(), 1);
        break;
      case '--list-size':
        out.listSize = num('list-size', value(), 1);
        break;
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        process.exit(0);
      default:
        process.stderr.write(`bench: unknown flag ${argv[i]}\n\n${USAGE}`);
        process.exit(2);
    }
  }
  return out;
}

const opts = parseArgs(process.argv.slice(2));
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

// ---------------------------------------------------------------------------
// Fixtures.

const NP_PATH = (ns: string) => `/apis/networking.orch.io/v1/namespaces/${ns}/networkpolicies`;
const NS = { get: 'bench-get', list: 'bench-list', create: 'bench-create' };
const RUN_ID = Date.now().toString(36);

/** A realistic NetworkPolicy; the server's JSON for it is ~1.2 KB. */
function networkPolicy(name: string, namespace: string) {
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

// ---------------------------------------------------------------------------
// Processes and cleanup.

let server: TestServer | undefined;
let serverExit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
let baselines: ChildProcess | undefined;
let agent: Agent | undefined;
const tempDirs: string[] = [];

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function stopChild(child: ChildProcess | undefined, graceMs: number): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (!(await waitExit(child, graceMs))) {
    log(`pid ${child.pid} ignored SIGTERM for ${graceMs} ms; sending SIGKILL`);
    child.kill('SIGKILL');
    await waitExit(child, 5_000);
  }
}

let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  return (cleaning ??= (async () => {
    agent?.destroy();
    await Promise.all([stopChild(baselines, 5_000), stopChild(server?.process, 15_000)]);
    if (server) rmSync(server.dataDir, { recursive: true, force: true });
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  })());
}

const deadlineMs = 5 * (opts.duration + opts.warmup) * 1000 + 180_000;
const watchdog = setTimeout(() => {
  log(`run exceeded its ${Math.round(deadlineMs / 1000)} s time limit; aborting`);
  void cleanup().finally(() => process.exit(1));
}, deadlineMs);
watchdog.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`received ${signal}; cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------
// Helpers.

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
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

/** Polls /readyz every 10 ms from `t0`; resolves to ms from t0 to the first 200. */
async function pollReadyz(port: number, t0: number, giveUpMs: number): Promise<{ ms: number; polls: number }> {
  for (let polls = 1; ; polls++) {
    const started = performance.now();
    if ((await probeReadyz(port)) === 200) return { ms: performance.now() - t0, polls };
    if (performance.now() - t0 > giveUpMs) throw new Error(`/readyz not 200 within ${giveUpMs} ms`);
    const wait = 10 - (performance.now() - started);
    if (wait > 0) await sleep(wait);
  }
}

/** Start the orch server on a pre-picked port so /readyz can be polled from the spawn itself. */
async function startOrch(): Promise<{ server: TestServer; readyMs: number; servingLineMs: number; polls: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const t0 = performance.now();
    const ready = pollReadyz(port, t0, 30_000);
    ready.catch(() => {});
    let started: TestServer;
    try {
      started = await startTestServer(['--secure-port', String(port)]);
    } catch (err) {
      // Another process may have taken the port between the probe and the spawn.
      if (attempt < 3 && /EADDRINUSE/.test(String(err))) continue;
      throw err;
    }
    const servingLineMs = performance.now() - t0;
    server = started; // from here on, cleanup() stops it
    const { ms, polls } = await ready;
    return { server: started, readyMs: ms, servingLineMs, polls };
  }
}

function api(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const s = server!;
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { authorization: `Bearer ${s.token}`, accept: 'application/json' };
  if (payload) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, s.url), { method, headers, agent, timeout: 30_000 }, (res) => {
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

async function expectStatus(what: string, want: number[], res: Promise<{ status: number; text: string }>) {
  const r = await res;
  if (!want.includes(r.status)) throw new Error(`${what}: HTTP ${r.status}: ${r.text.slice(0, 500)}`);
  return r;
}

/** Runs `task(i)` for i in [0, n) with at most `limit` in flight. */
async function bounded(n: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, n) }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

function peakRssKb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

// ---------------------------------------------------------------------------
// Measurement.

interface Target {
  key: string;
  label: string;
  url: string;
  request: AcRequest;
  /** The status a good response has. */
  expect: number;
  orch: boolean;
}

interface Measurement {
  target: Target;
  rps: number;
  p50: number;
  p99: number;
  responses: number;
  errors: number;
  bad: number;
  statuses: Record<string, number>;
  samples: string[];
  errorSamples: string[];
  bytesPerResponse: number;
}

async function measure(target: Target): Promise<Measurement> {
  const samples: string[] = [];
  const userOnResponse = target.request.onResponse;
  const request: AcRequest = {
    ...target.request,
    onResponse(status, body, context, headers) {
      userOnResponse?.(status, body, context, headers);
      // Examples only (warm-up included); the counts come from the measured run's statusCodeStats.
      if (status !== target.expect && samples.length < 3) samples.push(`HTTP ${status}: ${body.slice(0, 300)}`);
    },
  };
  let times = new Float64Array(1 << 16);
  let n = 0;
  const errorSamples: string[] = [];
  const instance = autocannon({
    url: target.url,
    connections: opts.connections,
    duration: opts.duration,
    timeout: 30,
    ...(opts.warmup > 0 ? { warmup: { connections: opts.connections, duration: opts.warmup } } : {}),
    requests: [request],
  });
  // The returned instance tracks the measured run only (the warm-up has its own tracker).
  instance.on('response', (_client, _status, _bytes, ms) => {
    if (n === times.length) {
      const grown = new Float64Array(times.length * 2);
      grown.set(times);
      times = grown;
    }
    times[n++] = ms;
  });
  instance.on('reqError', (err) => {
    if (errorSamples.length < 3 && !errorSamples.includes(String(err))) errorSamples.push(String(err));
  });
  const result = await instance;
  const sorted = times.subarray(0, n).sort();
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
  const good = statuses[String(target.expect)] ?? 0;
  return {
    target,
    rps: result.requests.total / result.duration,
    // Percentiles from each response's own time (sub-ms); autocannon's histogram keeps whole ms only.
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    responses: result.requests.total,
    errors: result.errors + result.timeouts,
    bad: result.requests.total - good,
    statuses,
    samples,
    errorSamples,
    bytesPerResponse: result.latency.totalCount ? result.throughput.total / result.latency.totalCount : 0,
  };
}

// ---------------------------------------------------------------------------
// Report.

function fmt(n: number, digits = 1): string {
  if (!Number.isFinite(n)) return 'n/a';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function bytes(n: number): string {
  return n >= 1024 * 1024 ? `${fmt(n / 1024 / 1024, 2)} MiB` : n >= 1024 ? `${fmt(n / 1024, 2)} KiB` : `${Math.round(n)} B`;
}

function table(rows: Measurement[], httpsBase?: Measurement, httpBase?: Measurement): string {
  const ratio = (m: Measurement, base?: Measurement) => (base && base.rps > 0 ? `${fmt(m.rps / base.rps, 3)}×` : 'n/a');
  const lines = [
    '| target | req/s | p50 (ms) | p99 (ms) | responses | errors | bad status | bytes/resp | vs raw https | vs raw http |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const m of rows) {
    lines.push(
      `| ${m.target.label} | ${fmt(m.rps)} | ${fmt(m.p50, 2)} | ${fmt(m.p99, 2)} | ${m.responses.toLocaleString('en-US')} | ${m.errors} | ${m.bad} | ${bytes(m.bytesPerResponse)} | ${ratio(m, httpsBase)} | ${ratio(m, httpBase)} |`,
    );
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------
// Main.

async function main(): Promise<number> {
  log(`node ${process.version}, ${cpus().length} CPUs; ${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s per target`);

  // 1. The orch server, and its start-up time.
  const started = await startOrch();
  const orch = started.server;
  const orchPid = orch.process.pid;
  orch.process.once('exit', (code, signal) => (serverExit = { code, signal }));
  const startupOutputLength = orch.output().length;
  log(`orch server pid ${orchPid} on ${orch.url}: /readyz 200 after ${fmt(started.readyMs)} ms (${started.polls} polls)`);
  const idleRssKb = peakRssKb(orchPid);
  agent = new Agent({ keepAlive: true, maxSockets: 16, ca: orch.ca });

  // 2. Fixtures.
  for (const ns of Object.values(NS)) {
    await expectStatus(`create namespace ${ns}`, [201], api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
  }
  await expectStatus('create the GET fixture', [201], api('POST', NP_PATH(NS.get), networkPolicy('api-allow', NS.get)));
  const one = await expectStatus('GET the fixture', [200], api('GET', `${NP_PATH(NS.get)}/api-allow`));
  log(`fixture NetworkPolicy: ${one.text.length} bytes of JSON`);
  const listStart = performance.now();
  await bounded(opts.listSize, 16, async (i) => {
    const name = `np-${String(i).padStart(5, '0')}`;
    await expectStatus(`create ${NS.list}/${name}`, [201], api('POST', NP_PATH(NS.list), networkPolicy(name, NS.list)));
  });
  const listed = await expectStatus('list the fixtures', [200], api('GET', NP_PATH(NS.list)));
  const items = (JSON.parse(listed.text) as { items?: unknown[] }).items?.length;
  if (items !== opts.listSize) throw new Error(`list returned ${items} items, expected ${opts.listSize}`);
  log(`created ${opts.listSize} NetworkPolicies in ${NS.list} in ${fmt(performance.now() - listStart, 0)} ms; list response ${bytes(listed.text.length)}`);

  // 3. Baselines, serving the very bytes of the orch GET response with the orch serving cert.
  const work = mkdtempSync(join(tmpdir(), 'orch-bench-'));
  tempDirs.push(work);
  const bodyFile = join(work, 'body.json');
  writeFileSync(bodyFile, one.text);
  const pki = join(orch.dataDir, 'pki');
  baselines = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts/bench-baselines.ts'), '--body', bodyFile, '--cert', join(pki, 'serving.crt'), '--key', join(pki, 'serving.key')],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let baselineErr = '';
  baselines.stderr!.on('data', (d) => (baselineErr += d));
  const ports = await new Promise<{ http: number; https: number }>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`baselines did not start:\n${baselineErr}`)), 20_000);
    baselines!.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
    baselines!.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`baselines exited with ${code}:\n${baselineErr}`));
    });
  });
  log(`baselines pid ${baselines.pid}: http :${ports.http}, https :${ports.https}`);

  // 4. Measurements.
  const auth = { authorization: `Bearer ${orch.token}`, accept: 'application/json' };
  let created = 0;
  const targets: Target[] = [
    { key: 'http', label: 'raw node:http GET', url: `http://127.0.0.1:${ports.http}`, request: { method: 'GET', path: '/' }, expect: 200, orch: false },
    { key: 'https', label: 'raw node:https GET', url: `https://127.0.0.1:${ports.https}`, request: { method: 'GET', path: '/' }, expect: 200, orch: false },
    { key: 'get', label: 'orch GET NetworkPolicy', url: orch.url, request: { method: 'GET', path: `${NP_PATH(NS.get)}/api-allow`, headers: auth }, expect: 200, orch: true },
    {
      key: 'list',
      label: `orch LIST ${opts.listSize.toLocaleString('en-US')} NetworkPolicies`,
      url: orch.url,
      request: { method: 'GET', path: NP_PATH(NS.list), headers: auth },
      expect: 200,
      orch: true,
    },
    {
      key: 'create',
      label: 'orch CREATE NetworkPolicy',
      url: orch.url,
      request: {
        method: 'POST',
        path: NP_PATH(NS.create),
        headers: { ...auth, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(networkPolicy(`np-${RUN_ID}-${++created}`, NS.create)) }),
      },
      expect: 201,
      orch: true,
    },
  ];
  const results = new Map<string, Measurement>();
  let aborted: string | undefined;
  for (const target of targets) {
    if (target.orch && serverExit) break;
    log(`measuring ${target.label} …`);
    const m = await measure(target);
    results.set(target.key, m);
    log(`  ${fmt(m.rps)} req/s, p50 ${fmt(m.p50, 2)} ms, p99 ${fmt(m.p99, 2)} ms, errors ${m.errors}, bad status ${m.bad}`);
    if (serverExit) {
      aborted = `the orch server exited (code ${serverExit.code}, signal ${serverExit.signal}) during "${target.label}"`;
      log(aborted);
      break;
    }
  }
  const peakKb = peakRssKb(orchPid);
  const baselinePeakKb = peakRssKb(baselines.pid);

  // 5. Report (stdout).
  const order = ['http', 'https', 'get', 'create', 'list'];
  const rows = order.map((k) => results.get(k)).filter((m): m is Measurement => !!m);
  const out: string[] = [];
  out.push(`## orch-apiserver benchmark`, '');
  out.push(
    `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}; autocannon, ${opts.connections} connections, ${opts.duration} s per target after ${opts.warmup} s warm-up; loopback.`,
    '',
  );
  out.push(table(rows, results.get('https'), results.get('http')), '');
  out.push(
    `- errors = connection errors + timeouts; bad status = responses other than ${'`200`'} (create: other than ${'`201`'}); ratios are req/s over the baseline's req/s.`,
    `- baselines serve the same ${bytes(one.text.length)} JSON the orch GET returns, with the orch server's serving certificate, from their own process.`,
    `- orch server start-up (fresh data dir): spawn → first 200 on /readyz: **${fmt(started.readyMs)} ms** (polled every 10 ms from the spawn); spawn → "serving on" line: ${fmt(started.servingLineMs)} ms.`,
    `- orch server RSS: peak (VmHWM) **${peakKb !== undefined ? bytes(peakKb * 1024) : 'n/a (process gone)'}**; after start-up ${idleRssKb !== undefined ? bytes(idleRssKb * 1024) : 'n/a'}. Baseline process peak: ${baselinePeakKb !== undefined ? bytes(baselinePeakKb * 1024) : 'n/a'}.`,
    `- objects created by the create run: ${created.toLocaleString('en-US')} (warm-up included).`,
  );
  for (const m of rows) {
    if (m.bad || m.errors) {
      out.push(`- ${m.target.label}: status counts ${JSON.stringify(m.statuses)}`);
      for (const s of m.samples) out.push(`  - ${s.replace(/\s+/g, ' ')}`);
      for (const e of m.errorSamples) out.push(`  - error: ${e}`);
    }
  }
  if (aborted) out.push(`- **run aborted: ${aborted}**`);
  const serverLog = orch.output().slice(startupOutputLength).trim();
  if (serverLog) {
    const lines = serverLog.split('\n');
    out.push('', `orch server output during the run (${lines.length} lines${lines.length > 40 ? ', last 40 shown' : ''}):`, '```', ...lines.slice(-40), '```');
  }
  process.stdout.write(out.join('\n') + '\n');
  return aborted ? 1 : 0;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (err) {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  if (server) log(`orch server output:\n${server.output().slice(-4000)}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
