/**
 * Times the SQLite store's group commits of creates (issue 10, create path):
 * batches of creates with random names through SqliteStorage, the way the
 * server's writes reach it, and reports per create the CPU time of this
 * process (event loop, fsync and checkpoint threads) and the bytes it wrote
 * (WAL frames and checkpoint copies, from /proc/self/io).
 *
 *   tsx scripts/sqlite-commit-bench.ts [--batches 2000] [--batch 20] [--rounds 3]
 *                                      [--synchronous FULL|NORMAL] [--root DIR]
 *
 * `--root` also runs another checkout's SqliteStorage (e.g. /work/main) and
 * alternates the two, round by round, in one process, so both see the same
 * machine.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { networkPolicy } from './bench/orch.ts';

const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '2000' },
    batch: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
    synchronous: { type: 'string', default: 'FULL' },
    root: { type: 'string' },
  },
});

interface StoreLike {
  create(key: string, value: string): Promise<number>;
  close(): Promise<void>;
}
type StoreClass = new (options: { file: string; synchronous?: 'FULL' | 'NORMAL' }) => StoreLike;

async function storeOf(root: string): Promise<StoreClass> {
  const module = await import(pathToFileURL(join(root, 'src/storage/sqlite/sqlite-storage.ts')).href);
  return module.SqliteStorage;
}

function writtenBytes(): number {
  return Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

async function run(Store: StoreClass): Promise<{ cpuUs: number; bytes: number; wallMs: number; creates: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-commit-bench-'));
  const store = new Store({ file: join(dir, 'db.sqlite'), synchronous: args.synchronous as 'FULL' | 'NORMAL' });
  const batches = Number(args.batches);
  const size = Number(args.batch);
  const value = JSON.stringify(networkPolicy('x', 'default'));
  const cpu0 = process.cpuUsage();
  const bytes0 = writtenBytes();
  const t0 = performance.now();
  for (let b = 0; b < batches; b++) {
    const writes: Promise<number>[] = [];
    for (let i = 0; i < size; i++) {
      writes.push(store.create(`/registry/networkpolicies/default/${randomBytes(8).toString('hex')}`, value));
    }
    await Promise.all(writes);
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const bytes = writtenBytes() - bytes0;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { cpuUs: cpu.user + cpu.system, bytes, wallMs, creates: batches * size };
}

const variants: Array<[string, StoreClass]> = [['this checkout', await storeOf(resolve(import.meta.dirname, '..'))]];
if (args.root) variants.push([resolve(args.root), await storeOf(resolve(args.root))]);
for (let round = 1; round <= Number(args.rounds); round++) {
  for (const [name, Store] of round % 2 ? variants : [...variants].reverse()) {
    const r = await run(Store);
    console.log(
      `round ${round} ${name}: ${(r.cpuUs / r.creates).toFixed(1)} µs CPU/create, ` +
        `${(r.bytes / r.creates / 1024).toFixed(2)} KiB written/create, ${Math.round(r.creates / (r.wallMs / 1000))} creates/s`,
    );
  }
}
