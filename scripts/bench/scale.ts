/**
 * The scale benchmark (`npm run bench -- --scale`), per backend: one server on
 * one data dir (etcd3: a throw-away etcd); the namespaces and the fixed-size
 * namespace; a restart with no other objects, whose RSS is the empty server's;
 * then for each size, ascending: load the objects that take it there, measure
 * GET, the lists and a watch on that server, restart it on the same data
 * (stop, spawn, time to the first 200 on /readyz) and measure the cold first
 * requests and the settled RSS (scale-measure.ts). The next size loads into
 * the restarted server. Before loading, it refuses a size whose data would
 * not fit on the disk or whose server would not fit in memory.
 */
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { freemem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { etcdAvailable } from '../../test/helpers/etcd.ts';
import type { Backend, Options } from './args.ts';
import { throwAwayEtcd } from './load-backend.ts';
import { launchOrch, type Launched } from './orch.ts';
import { createScaleNamespaces, FIXED_NS, loadObjects } from './scale-load.ts';
import { diskUsage, measureRestart, measureSize, type ScaleResult, type ScaleStep } from './scale-measure.ts';
import { scaleReport } from './scale-report.ts';
import { bytes, dataDirOf, fmt, int, isStopping, log, onCleanup, rss } from './util.ts';

/** Guesses before anything was measured: bytes on disk and in the server per object, with room to spare. */
const DISK_GUESS = { sqlite: 6_000, etcd3: 12_000 };
const MEMORY_GUESS = 6_000;

export async function runScale(opts: Options): Promise<number> {
  const results: ScaleResult[] = [];
  for (const backend of opts.backends) {
    if (isStopping()) break;
    const sizes = backend === 'sqlite' ? opts.scaleSizes : opts.scaleEtcdSizes;
    if (backend === 'etcd3' && !etcdAvailable()) {
      if (opts.etcdRequired) throw new Error('--backend etcd3: the etcd binary is not installed');
      results.push({ backend, sizes, steps: [], skipped: 'the etcd binary is not installed' });
      continue;
    }
    results.push(await scaleBackend(backend, sizes, opts));
  }
  process.stdout.write(scaleReport(results, opts));
  return results.some((r) => r.aborted) ? 1 : 0;
}

async function scaleBackend(backend: Backend, sizes: number[], opts: Options): Promise<ScaleResult> {
  const r: ScaleResult = { backend, sizes, steps: [] };
  const etcd = backend === 'etcd3' ? await throwAwayEtcd() : undefined;
  const flags = etcd ? ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`] : [];
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-scale-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const dirs = () => [dataDir, dataDirOf(etcd?.pid)];
  const used = () => dirs().reduce((n, d) => n + (diskUsage(d) ?? 0), 0);
  let server: Launched | undefined;
  // A restart of a large store may take minutes: wait up to 15 for /readyz, and 2 for a clean stop.
  const start = async () => (server = await launchOrch(flags, { dataDir, keepDataDir: true, startTimeoutMs: 15 * 60_000, stopGraceMs: 120_000 })).orch;
  const restart = async () => {
    const t0 = performance.now();
    await server?.stop();
    server = undefined;
    const stopMs = performance.now() - t0;
    const orch = await start();
    log(`scale: ${backend}: stopped in ${fmt(stopMs, 0)} ms; restarted, /readyz 200 after ${fmt(orch.readyMs, 0)} ms`);
    return { orch, stopMs };
  };
  try {
    let orch = await start();
    log(`scale: ${backend}: creating ${opts.scaleNamespaces} namespaces and ${opts.scaleFixed} objects in ${FIXED_NS} …`);
    await createScaleNamespaces(orch, opts.scaleNamespaces);
    await loadObjects(orch, 0, opts.scaleFixed, opts.scaleNamespaces, opts.loadConcurrency, () => FIXED_NS, (j) => `np-fixed-${j}`);
    ({ orch } = await restart());
    const empty = await measureRestart(orch, 0, opts);
    r.empty = { readyMs: orch.readyMs, rss: empty.rss };
    const base = { disk: used(), rss: r.empty.rss ?? 0 };
    let loaded = 0;
    for (const size of sizes) {
      if (isStopping()) break;
      const last = r.steps.filter((s) => s.rss !== undefined).at(-1);
      const diskPer = last?.disk ? (last.disk - base.disk) / last.size : DISK_GUESS[backend];
      const memPer = last?.rss ? Math.max(0, last.rss - base.rss) / last.size : MEMORY_GUESS;
      r.refused = refusal(size, loaded, diskPer, memPer, base.rss, dataDir);
      if (r.refused) {
        log(`scale: ${backend}: ${r.refused}`);
        break;
      }
      log(`scale: ${backend}: loading ${int(size - loaded)} NetworkPolicies to reach ${int(size)} (${opts.loadConcurrency} in flight) …`);
      const loadMs = await loadObjects(orch, loaded, size, opts.scaleNamespaces, opts.loadConcurrency);
      log(`scale: ${backend}: loaded ${int(size - loaded)} in ${fmt(loadMs / 1000, 1)} s (${fmt(((size - loaded) * 1000) / loadMs, 0)} creates/s)`);
      const step: ScaleStep = { size, loaded: size - loaded, loadMs };
      loaded = size;
      r.steps.push(step);
      // On the server that loaded them first, so that a restart that fails leaves these figures.
      try {
        Object.assign(step, await measureSize(orch, size, opts));
        step.etcdRss = rss(etcd?.pid);
      } catch (err) {
        step.error = err instanceof Error ? err.message : String(err);
        const p = orch.server.process;
        if (p.exitCode !== null || p.signalCode !== null) step.error += `; the server exited (${p.exitCode ?? p.signalCode}): ${orch.server.output().slice(-1500)}`;
        log(`scale: ${backend}: ${int(size)}: ${step.error}`);
      }
      step.disk = used();
      try {
        const restarted = await restart();
        orch = restarted.orch;
        step.stopMs = restarted.stopMs;
        step.readyMs = orch.readyMs;
      } catch (err) {
        step.restartError = err instanceof Error ? err.message : String(err);
        throw new Error(`the server did not restart on ${int(size)} objects; the larger sizes were not measured`);
      }
      Object.assign(step, await measureRestart(orch, size, opts));
      log(`scale: ${backend}: ${int(size)}: RSS ${bytes(step.rss)} after the restart, ${bytes(step.disk)} on disk`);
    }
  } catch (err) {
    r.aborted = err instanceof Error ? err.message : String(err);
    log(`scale: ${backend}: ${r.aborted}`);
    // The output of a server that died under us (a failed start's output is in its error already).
    if (server && server.orch.server.process.exitCode !== null) r.serverLog = server.orch.server.output().slice(-3000);
  } finally {
    await server?.stop();
    await etcd?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return r;
}

/**
 * Why loading to `size` must not start, if it must not: the disk (under the
 * temp dir) would not hold the data with 1 GiB to spare, or the server's
 * projected RSS would take more than 70 % of the memory free now.
 */
function refusal(size: number, loaded: number, diskPerObject: number, memPerObject: number, emptyRss: number, dir: string): string | undefined {
  const GiB = 1024 ** 3;
  const fs = statfsSync(dir);
  const free = fs.bavail * fs.bsize;
  const needDisk = (size - loaded) * diskPerObject * 1.5 + GiB;
  if (needDisk > free) return `refused ${int(size)}: needs about ${fmt(needDisk / GiB, 1)} GiB of disk under ${tmpdir()} (${fmt(diskPerObject / 1024, 1)} KiB per object, 1.5x, + 1 GiB), ${fmt(free / GiB, 1)} GiB free`;
  const needMem = emptyRss + size * memPerObject * 1.5;
  if (needMem > 0.7 * freemem()) return `refused ${int(size)}: the server would need about ${fmt(needMem / GiB, 1)} GiB of memory (${fmt(memPerObject / 1024, 1)} KiB per object, 1.5x), 70 % of the free ${fmt(freemem() / GiB, 1)} GiB is less`;
  return undefined;
}
