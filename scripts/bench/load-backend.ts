/**
 * The load benchmark on one storage backend: (etcd3: a throw-away etcd) → the
 * orch server (fresh data dir, loopback), spawn → first 200 on /readyz →
 * fixtures → the raw baselines and the create floor on wrk → GET on wrk → UPDATE on autocannon →
 * the LISTs' raw baselines, then LIST full, paged and as Table, at
 * --list-connections and at one client, on wrk → watch fan-out →
 * CREATE on wrk → peak RSS → stop the server → one core vs all cores (two
 * more servers) → stop etcd.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd } from '../../test/helpers/etcd.ts';
import type { Backend, Options } from './args.ts';
import { measure, type Measurement, type Target } from './autocannon.ts';
import { startBaselines, type BaselineBodies, type BaselineOptions } from './baselines.ts';
import { coresComparison, type CoresResult } from './cores.ts';
import { allowedCpus, processTree } from './cpu-pin.ts';
import { collectionRevision, createNamespace, createPolicies, launchOrch, networkPolicy, NP_PATH, startingWorkers } from './orch.ts';
import { fullListTarget, listRuns, listSettings, pagedListTarget, rawListTargets, TABLE_ACCEPT, tableListTarget, type PagedStats } from './list-targets.ts';
import { updateTarget, type UpdateStats } from './targets.ts';
import { assertRunning, bytes, fmt, log, onCleanup, peakRss, rss, stopChild } from './util.ts';
import { watchFanout, type WatchResult } from './watch-fanout.ts';
import { baselineTargets, createFloorTarget, createTarget, getTarget, measureWrk, rbacGetTarget, wrkSettings, type WrkTarget } from './wrk-targets.ts';

/** What one backend's run measured, as the report reads it (report.ts). */
export interface BackendResult {
  backend: string;
  readyMs: number;
  servingLineMs: number;
  idleRss?: number;
  peakRss?: number;
  etcdPeakRss?: number;
  baselinePeakRss?: number;
  getBytes?: number;
  listCreate?: { count: number; ms: number; listBytes: number; tableBytes: number };
  measurements: Map<string, Measurement>;
  /** The paged LIST's walks, by measurement key ("paged", "paged-1"). */
  paged?: Map<string, PagedStats>;
  update?: UpdateStats;
  created?: number;
  watch?: WatchResult;
  watchError?: string;
  cores?: CoresResult;
  coresSkipped?: string;
  aborted?: string;
  serverLog: string;
  skipped?: string;
}

/** A user RBAC allows the GET fixture through a RoleBinding (the other targets run as the admin, in system:masters). */
const RBAC_USER = { name: 'bench-reader', token: `bench-reader-${Date.now().toString(36)}` };
const NS = { get: 'bench-get', list: 'bench-list', create: 'bench-create', update: 'bench-update', watch: 'bench-watch' };

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

/** Starts a throw-away etcd whose stop is registered for cleanup. */
export async function throwAwayEtcd(): Promise<{ endpoint: string; pid: number | undefined; stop: () => Promise<void> }> {
  assertRunning();
  log('etcd3: starting etcd …');
  const etcd = await startEtcd();
  const stop = once(async () => {
    await stopChild(etcd.process, 10_000);
    await etcd.stop();
  });
  onCleanup(stop);
  log(`etcd3: etcd pid ${etcd.process.pid} on ${etcd.endpoint}`);
  return { endpoint: etcd.endpoint, pid: etcd.process.pid, stop };
}

export async function runBackend(backend: Backend, opts: Options, runId: string): Promise<BackendResult> {
  const r: BackendResult = { backend, readyMs: NaN, servingLineMs: NaN, measurements: new Map(), serverLog: '' };
  const tokenDir = mkdtempSync(join(tmpdir(), 'orch-bench-tokens-'));
  onCleanup(async () => rmSync(tokenDir, { recursive: true, force: true }));
  writeFileSync(join(tokenDir, 'tokens.csv'), `${RBAC_USER.token},${RBAC_USER.name},bench-reader-uid\n`);
  // The default chain, Node,RBAC: the RBAC user's GET passes the Node authorizer's no-opinion first.
  const flags: string[] = [`--token-auth-file=${join(tokenDir, 'tokens.csv')}`];
  const etcd = backend === 'etcd3' ? await throwAwayEtcd() : undefined;
  if (etcd) flags.push('--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`);
  try {
    assertRunning();
    await measureMain(r, flags, opts, runId, etcd?.pid);
    const cpus = allowedCpus();
    const serverCpu = cpus.find((c) => c !== opts.clientCpu);
    if (opts.only.has('cores') && !r.aborted) {
      if (cpus.length < 2 || serverCpu === undefined) r.coresSkipped = `needs 2 CPUs (this process may use ${cpus.join(',')})`;
      else r.cores = await coresComparison(flags, wrkSettings(opts, true), serverCpu, runId, !!etcd);
    }
  } finally {
    await etcd?.stop();
  }
  return r;
}

async function measureMain(r: BackendResult, flags: string[], opts: Options, runId: string, etcdPid: number | undefined): Promise<void> {
  const { orch, stop } = await launchOrch(flags);
  const pid = orch.server.process.pid;
  const starting = () => startingWorkers(orch.server);
  let exited: string | undefined;
  orch.server.process.once('exit', (code, signal) => (exited = `the orch server exited (code ${code}, signal ${signal})`));
  const logStart = orch.server.output().length;
  r.readyMs = orch.readyMs;
  r.servingLineMs = orch.servingLineMs;
  r.idleRss = peakRss(pid);
  log(`${r.backend}: orch server pid ${pid} on ${orch.server.url}: /readyz 200 after ${fmt(orch.readyMs)} ms`);
  const o = { url: orch.server.url, token: orch.server.token };
  const w = wrkSettings(opts);
  const check = (what: string) => {
    if (exited) throw new Error(`${exited} during ${what}`);
    log(`  server memory after ${what}: RSS ${bytes(rss(pid) ?? NaN)}, peak ${bytes(peakRss(pid) ?? NaN)} (${processTree(pid!).length} processes)`);
  };
  const runAc = async (t: Target) => {
    log(`${r.backend}: measuring ${t.label} …`);
    const m = await measure(t, opts.duration, opts.warmup);
    r.measurements.set(t.key, m);
    log(`  ${fmt(m.rps)} req/s, p50 ${fmt(m.p50, 2)} ms, p99 ${fmt(m.p99, 2)} ms, errors ${m.errors}, bad status ${m.bad}`);
    check(`"${t.label}"`);
  };
  const runWrkTarget = async (t: WrkTarget, serverPid?: number, startingWorkers?: () => number, settings = w) => {
    log(`${r.backend}: measuring ${t.label} (wrk) …`);
    r.measurements.set(t.key, await measureWrk(t, settings, serverPid, startingWorkers));
    check(`"${t.label}"`);
  };
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
    const pki = join(orch.server.dataDir, 'pki');
    const baselines = (bodies: BaselineBodies, options?: BaselineOptions) => startBaselines(bodies, join(pki, 'serving.crt'), join(pki, 'serving.key'), options);
    /** The bodies of orch's full list and Table list, for their raw baselines. */
    let listBodies: { list: string; table: string } | undefined;
    if (opts.only.has('list')) {
      log(`${r.backend}: creating ${opts.listSize} NetworkPolicies in ${NS.list} (${opts.createConcurrency} in flight) …`);
      const elapsed = await createPolicies(orch, NS.list, opts.listSize, opts.createConcurrency);
      const listed = await orch.expect('list the fixtures', [200], 'GET', NP_PATH(NS.list));
      const items = (JSON.parse(listed.text) as { items?: unknown[] }).items?.length;
      if (items !== opts.listSize) throw new Error(`list returned ${items} items, expected ${opts.listSize}`);
      const table = await orch.expect('list the fixtures as Table', [200], 'GET', NP_PATH(NS.list), undefined, { accept: TABLE_ACCEPT });
      const rows = (JSON.parse(table.text) as { kind?: string; rows?: unknown[] }).rows?.length;
      if (rows !== opts.listSize) throw new Error(`the Table list returned ${rows} rows, expected ${opts.listSize}`);
      r.listCreate = { count: opts.listSize, ms: elapsed, listBytes: listed.text.length, tableBytes: table.text.length };
      listBodies = { list: listed.text, table: table.text };
      check('the list fixtures');
      log(`${r.backend}: created them in ${fmt(elapsed, 0)} ms; full list ${bytes(listed.text.length)}, as Table ${bytes(table.text.length)}, at rv ${await collectionRevision(orch, NS.list)}`);
    }
    const updateNames = Array.from({ length: opts.updateObjects }, (_, i) => `np-${String(i).padStart(5, '0')}`);
    if (opts.only.has('update')) await createPolicies(orch, NS.update, opts.updateObjects, opts.updateObjects);

    // The baselines first, so that every ratio compares with a baseline measured minutes earlier by the same wrk command.
    if (opts.only.has('get') || opts.only.has('create')) {
      const b = await baselines({ get: one.text }, { createFloor: opts.only.has('create') });
      log(`${r.backend}: baselines pid ${b.process.pid}: http :${b.ports.http}, https :${b.ports.https}${b.ports.floor ? `, create floor :${b.ports.floor}` : ''}`);
      for (const t of baselineTargets(b.ports)) await runWrkTarget(t, b.process.pid);
      if (b.ports.floor) await runWrkTarget(createFloorTarget(b.ports.floor, NS.create, runId), b.process.pid);
      r.baselinePeakRss = peakRss(b.process.pid);
      await b.stop();
    }
    if (opts.only.has('get')) {
      await runWrkTarget(getTarget(o, NS.get, 'api-allow'), pid, starting);
      await runWrkTarget(rbacGetTarget(o, RBAC_USER.token, NS.get, 'api-allow'), pid, starting);
    }
    if (opts.only.has('update')) {
      const update = updateTarget(o, NS.update, updateNames, opts.connections);
      r.update = update.stats;
      await runAc(update.target);
    }
    if (listBodies) {
      // The raw baselines of the full and the Table list right before orch's, by the same wrk command.
      const b = await baselines({ get: one.text, ...listBodies });
      listBodies = undefined;
      log(`${r.backend}: LIST baselines pid ${b.process.pid}: https :${b.ports.https}`);
      for (const run of listRuns(opts)) for (const t of rawListTargets(b.ports.https, run)) await runWrkTarget(t, b.process.pid, undefined, listSettings(w, run));
      await b.stop();
      for (const run of listRuns(opts)) {
        await runWrkTarget(fullListTarget(o, NS.list, opts.listSize, run), pid, starting, listSettings(w, run));
        const paged = pagedListTarget(o, NS.list, opts.pageSize, opts.listSize, run);
        (r.paged ??= new Map()).set(paged.target.key, paged.stats);
        await runWrkTarget(paged.target, pid, starting, listSettings(w, run, true));
        await runWrkTarget(tableListTarget(o, NS.list, opts.listSize, run), pid, starting, listSettings(w, run));
      }
    }
    if (opts.only.has('watch')) {
      try {
        r.watch = await watchFanout(orch, opts, NS.watch, etcdPid);
      } catch (err) {
        r.watchError = err instanceof Error ? err.message : String(err);
        log(`${r.backend}: watch failed: ${r.watchError}`);
      }
      check('the watch fan-out');
    }
    // CREATE last, so the objects it writes do not affect the other measurements.
    if (opts.only.has('create')) {
      await runWrkTarget(createTarget(o, NS.create, runId), pid, starting);
      r.created = r.measurements.get('create')!.good;
    }
  } catch (err) {
    r.aborted = err instanceof Error ? err.message : String(err);
    log(`${r.backend}: ${r.aborted}`);
  } finally {
    r.peakRss = peakRss(pid);
    r.etcdPeakRss = peakRss(etcdPid);
    r.serverLog = orch.server.output().slice(logStart);
    if (process.env.BENCH_SERVER_LOG) writeFileSync(`${process.env.BENCH_SERVER_LOG}.${r.backend}`, orch.server.output());
    await stop();
  }
}
