/**
 * bench.ts — load benchmark of orch-apiserver, per storage backend (SQLite and
 * etcd3), against raw node:http/node:https baselines measured in the same run.
 * `npm run bench [-- flags]`; see scripts/README.md and scripts/bench/.
 *
 * Per backend: (etcd3: start a throw-away etcd) → spawn the orch server (fresh
 * data dir, loopback) and time spawn → first 200 on /readyz → fixtures →
 * baselines → autocannon targets (GET, UPDATE with conflicts, LIST full and
 * paged) → watch fan-out → CREATE → peak RSS → stop everything. Then one
 * Markdown report on stdout; progress on stderr.
 *
 * Exit 0 on a completed run (failed responses are reported, not turned into a
 * failing exit code), 1 if a server died or the run failed, 2 on bad flags.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdAvailable, startEtcd } from '../test/helpers/etcd.ts';
import type { TestServer } from '../test/helpers/server.ts';
import { backendBudgetMs, parseArgs, USAGE, UsageError, type Backend, type Options } from './bench/args.ts';
import { measure, type Target } from './bench/autocannon.ts';
import { startBaselines } from './bench/baselines.ts';
import { collectionRevision, createNamespace, createPolicies, networkPolicy, NP_PATH, startOrch } from './bench/orch.ts';
import { report, type BackendResult } from './bench/report.ts';
import { baselineTargets, createTarget, fullListTarget, getTarget, pagedListTarget, rbacGetTarget, updateTarget } from './bench/targets.ts';
import { assertRunning, bytes, cleanup, fmt, isStopping, log, onCleanup, peakRss, stopChild } from './bench/util.ts';
import { watchFanout } from './bench/watch-fanout.ts';

let opts: Options;
try {
  const parsed = parseArgs(process.argv.slice(2));
  if (parsed === 'help') {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  opts = parsed;
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  process.stderr.write(`bench: ${err.message}\n\n${USAGE}`);
  process.exit(2);
}

/** A user RBAC allows the GET fixture through a RoleBinding (the other targets run as the admin, in system:masters). */
const RBAC_USER = { name: 'bench-reader', token: `bench-reader-${Date.now().toString(36)}` };
const NS = { get: 'bench-get', list: 'bench-list', create: 'bench-create', update: 'bench-update', watch: 'bench-watch' };
const RUN_ID = Date.now().toString(36);

const deadlineMs = opts.backends.length * backendBudgetMs(opts) + 60_000;
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
// Whatever else goes wrong, stop the servers and remove the temp dirs before exiting.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (err) => {
    log(`${event}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    void cleanup().finally(() => process.exit(1));
  });
}

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

async function runBackend(backend: Backend): Promise<BackendResult> {
  const r: BackendResult = { backend, readyMs: NaN, servingLineMs: NaN, measurements: new Map(), serverLog: '' };
  const tokenDir = mkdtempSync(join(tmpdir(), 'orch-bench-tokens-'));
  onCleanup(async () => rmSync(tokenDir, { recursive: true, force: true }));
  writeFileSync(join(tokenDir, 'tokens.csv'), `${RBAC_USER.token},${RBAC_USER.name},bench-reader-uid\n`);
  // The default chain, Node,RBAC: the RBAC user's GET passes the Node authorizer's no-opinion first.
  const flags: string[] = [`--token-auth-file=${join(tokenDir, 'tokens.csv')}`];
  let stopEtcd: (() => Promise<void>) | undefined;
  let etcdPid: number | undefined;
  if (backend === 'etcd3') {
    assertRunning();
    log('etcd3: starting etcd …');
    const etcd = await startEtcd();
    etcdPid = etcd.process.pid;
    stopEtcd = once(async () => {
      await stopChild(etcd.process, 10_000);
      await etcd.stop();
    });
    onCleanup(stopEtcd);
    flags.push('--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`);
    log(`etcd3: etcd pid ${etcdPid} on ${etcd.endpoint}`);
  }
  let server: TestServer | undefined;
  const stopServer = once(async () => {
    if (!server) return;
    await stopChild(server.process, 15_000);
    rmSync(server.dataDir, { recursive: true, force: true });
  });
  onCleanup(stopServer);
  let orch: Awaited<ReturnType<typeof startOrch>>;
  try {
    assertRunning();
    orch = await startOrch(flags, (s) => (server = s));
  } catch (err) {
    await stopServer();
    await stopEtcd?.();
    throw err;
  }
  const pid = orch.server.process.pid;
  let exited: string | undefined;
  orch.server.process.once('exit', (code, signal) => (exited = `the orch server exited (code ${code}, signal ${signal})`));
  const logStart = orch.server.output().length;
  r.readyMs = orch.readyMs;
  r.servingLineMs = orch.servingLineMs;
  r.idleRss = peakRss(pid);
  log(`${backend}: orch server pid ${pid} on ${orch.server.url}: /readyz 200 after ${fmt(orch.readyMs)} ms`);
  const o = { url: orch.server.url, token: orch.server.token };
  const c = opts.connections;
  try {
    // Fixtures.
    for (const ns of [NS.get, NS.create, ...(opts.only.has('update') ? [NS.update] : []), ...(opts.only.has('list') ? [NS.list] : [])]) await createNamespace(orch, ns);
    await orch.expect('create the GET fixture', [201], 'POST', NP_PATH(NS.get), networkPolicy('api-allow', NS.get));
    await orch.expect('bind the RBAC user', [201], 'POST', `/apis/rbac.authorization.orch.io/v1/namespaces/${NS.get}/rolebindings`, {
      metadata: { name: 'bench-reader' },
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: RBAC_USER.name }],
    });
    const one = await orch.expect('GET the fixture', [200], 'GET', `${NP_PATH(NS.get)}/api-allow`);
    r.getBytes = one.text.length;
    if (opts.only.has('list')) {
      log(`${backend}: creating ${opts.listSize} NetworkPolicies in ${NS.list} (${opts.createConcurrency} in flight) …`);
      const elapsed = await createPolicies(orch, NS.list, opts.listSize, opts.createConcurrency);
      const listed = await orch.expect('list the fixtures', [200], 'GET', NP_PATH(NS.list));
      const items = (JSON.parse(listed.text) as { items?: unknown[] }).items?.length;
      if (items !== opts.listSize) throw new Error(`list returned ${items} items, expected ${opts.listSize}`);
      r.listCreate = { count: opts.listSize, ms: elapsed, listBytes: listed.text.length };
      log(`${backend}: created them in ${fmt(elapsed, 0)} ms; full list ${bytes(listed.text.length)} at rv ${await collectionRevision(orch, NS.list)}`);
    }
    const updateNames = Array.from({ length: opts.updateObjects }, (_, i) => `np-${String(i).padStart(5, '0')}`);
    if (opts.only.has('update')) await createPolicies(orch, NS.update, opts.updateObjects, opts.updateObjects);

    // autocannon targets, after the baselines they are compared with.
    const targets: Target[] = [];
    if (opts.only.has('get')) targets.push(getTarget(o, NS.get, 'api-allow', c), rbacGetTarget(o, RBAC_USER.token, NS.get, 'api-allow', c));
    if (opts.only.has('update')) {
      const update = updateTarget(o, NS.update, updateNames, c);
      r.update = update.stats;
      targets.push(update.target);
    }
    if (opts.only.has('list')) {
      const lc = opts.listConnections;
      targets.push(fullListTarget(o, NS.list, opts.listSize, lc));
      const paged = pagedListTarget(o, NS.list, opts.pageSize, opts.listSize, lc, opts.warmup > 0 ? lc : 0);
      r.paged = paged.stats;
      targets.push(paged.target);
    }
    const creating = opts.only.has('create') ? createTarget(o, NS.create, RUN_ID, c) : undefined;
    const run = async (t: Target) => {
      log(`${backend}: measuring ${t.label} …`);
      const m = await measure(t, opts.duration, opts.warmup);
      r.measurements.set(t.key, m);
      log(`  ${fmt(m.rps)} req/s, p50 ${fmt(m.p50, 2)} ms, p99 ${fmt(m.p99, 2)} ms, errors ${m.errors}, bad status ${m.bad}`);
      if (exited) throw new Error(`${exited} during "${t.label}"`);
    };
    if (targets.length || creating) {
      const pki = join(orch.server.dataDir, 'pki');
      const baselines = await startBaselines(one.text, join(pki, 'serving.crt'), join(pki, 'serving.key'));
      log(`${backend}: baselines pid ${baselines.process.pid}: http :${baselines.ports.http}, https :${baselines.ports.https}`);
      for (const t of baselineTargets(baselines.ports, c)) await run(t);
      r.baselinePeakRss = peakRss(baselines.process.pid);
      await baselines.stop();
    }
    for (const t of targets) await run(t);

    if (opts.only.has('watch')) {
      try {
        r.watch = await watchFanout(orch, opts, NS.watch, etcdPid);
      } catch (err) {
        r.watchError = err instanceof Error ? err.message : String(err);
        log(`${backend}: watch failed: ${r.watchError}`);
      }
      if (exited) throw new Error(`${exited} during the watch fan-out`);
    }
    // CREATE last, so the objects it writes do not affect the other measurements.
    if (creating) {
      await run(creating.target);
      r.created = creating.created();
    }
  } catch (err) {
    r.aborted = err instanceof Error ? err.message : String(err);
    log(`${backend}: ${r.aborted}`);
  } finally {
    r.peakRss = peakRss(pid);
    r.etcdPeakRss = peakRss(etcdPid);
    r.serverLog = orch.server.output().slice(logStart);
    orch.close();
    await stopServer();
    await stopEtcd?.();
  }
  return r;
}

async function main(): Promise<number> {
  log(`node ${process.version}, ${cpus().length} CPUs; backends ${opts.backends.join(', ')}; parts ${[...opts.only].join(', ')}; time limit ${Math.round(deadlineMs / 1000)} s`);
  const results: BackendResult[] = [];
  for (const backend of opts.backends) {
    if (isStopping()) break;
    if (backend === 'etcd3' && !etcdAvailable()) {
      if (opts.etcdRequired) throw new Error('--backend etcd3: the etcd binary is not installed');
      log('etcd3: skipped, no etcd binary');
      results.push({ backend, readyMs: NaN, servingLineMs: NaN, measurements: new Map(), serverLog: '', skipped: 'the etcd binary is not installed' });
      continue;
    }
    try {
      results.push(await runBackend(backend));
    } catch (err) {
      log(`${backend}: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      results.push({ backend, readyMs: NaN, servingLineMs: NaN, measurements: new Map(), serverLog: '', aborted: `start-up failed: ${String(err).slice(0, 2000)}` });
    }
  }
  process.stdout.write(report(results, opts));
  return results.some((r) => r.aborted) ? 1 : 0;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (err) {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
