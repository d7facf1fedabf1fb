/**
 * bench.ts — benchmarks of orch-apiserver, the way issue 10 measures it.
 * `npm run bench [-- flags]`; see scripts/README.md and scripts/bench/.
 *
 * Load benchmark (default), per storage backend (SQLite, then etcd3 against a
 * throw-away etcd): wrk for GET and CREATE against raw node:http/node:https
 * baselines and the create floor measured in the same run, and for the LISTs
 * of 10,000 (full, paged, Table; at --list-connections and at one client, the
 * full and Table lists beside a raw node:https server sending the same
 * bytes), autocannon for UPDATE with conflicts, the 1,000-watcher fan-out, start
 * time and RSS, and one core vs all cores (bench/load-backend.ts). Then one
 * Markdown report on stdout (issue 10's table with goals first); progress on
 * stderr.
 *
 * Scale benchmark (`--scale`, bench/scale.ts): NetworkPolicies spread over
 * 1,000 namespaces, measured at growing sizes.
 *
 * Exit 0 on a completed run (failed responses are reported, not turned into a
 * failing exit code), 1 if a server died or the run failed, 2 on bad flags.
 */
import { cpus } from 'node:os';
import { etcdAvailable } from '../test/helpers/etcd.ts';
import { backendBudgetMs, parseArgs, scaleBudgetMs, USAGE, UsageError, type Options } from './bench/args.ts';
import { runBackend, type BackendResult } from './bench/load-backend.ts';
import { report } from './bench/report.ts';
import { runScale } from './bench/scale.ts';
import { cleanup, isStopping, log } from './bench/util.ts';
import { ensureWrk } from './bench/wrk.ts';

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

const RUN_ID = Date.now().toString(36);

const deadlineMs = opts.scale ? scaleBudgetMs(opts) : opts.backends.length * backendBudgetMs(opts) + 60_000;
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

async function main(): Promise<number> {
  log(
    `node ${process.version}, ${cpus().length} CPUs; backends ${opts.backends.join(', ')}; ` +
      (opts.scale ? 'scale benchmark' : `parts ${[...opts.only].join(', ')}`) +
      `; time limit ${Math.round(deadlineMs / 1000)} s`,
  );
  ensureWrk();
  if (opts.scale) return runScale(opts);
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
      results.push(await runBackend(backend, opts, RUN_ID));
    } catch (err) {
      log(`${backend}: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      results.push({ backend, readyMs: NaN, servingLineMs: NaN, measurements: new Map(), serverLog: '', aborted: `start-up failed: ${String(err).slice(0, 2000)}` });
    }
  }
  process.stdout.write(report(results, opts));
  return results.some((r) => r.aborted || r.cores?.error) ? 1 : 0;
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
