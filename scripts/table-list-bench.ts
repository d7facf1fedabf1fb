/**
 * Times Table lists (SPEC 2.5, 4.7) of many NetworkPolicies: starts a server
 * (bin/orch-apiserver.mjs of this checkout, or of `--root`), creates the
 * objects in one namespace with many requests in flight, then times
 * sequential lists as Table and as plain JSON for comparison.
 *
 *   tsx scripts/table-list-bench.ts [--count 10000] [--lists 30] [--include Metadata,None,Object]
 *                                   [--root DIR] [--cpu-prof DIR]
 *
 * `--root` runs another checkout's server (an older build, for before/after in
 * one run); `--cpu-prof` writes the server's V8 CPU profile there on exit.
 * Last it measures, in this process, the heap the encoded rows of the listed
 * objects take beside the objects as the watch cache holds them.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { kinds } from '../src/generated/index.ts';
import { rowRenderer, tablePlan } from '../src/handlers/table-rows.ts';
import { serializeForStorage } from '../src/registry/object-meta.ts';
import { CachedObject } from '../src/storage/cacher/cached-object.ts';
import { startTestServer } from '../test/helpers/server.ts';
import { bounded, percentile } from './bench/util.ts';
import { networkPolicy, NP_PATH } from './bench/orch.ts';

const TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '10000' },
    lists: { type: 'string', default: '30' },
    include: { type: 'string', default: 'Metadata' },
    concurrency: { type: 'string', default: '64' },
    root: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});

/** Heap of the encoded rows per object, against the stored JSON the cache holds for each. */
async function measureRowMemory(items: any[]): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const objects = items.map((item) => new CachedObject(item.metadata.name, serializeForStorage(item), Number(item.metadata.resourceVersion)));
  const stored = objects.reduce((sum, o) => sum + o.value.length, 0);
  const plan = tablePlan(kinds.find((k) => k.kind === 'NetworkPolicy')!);
  const before = heap();
  const row = rowRenderer(plan, objects, 'Metadata', 'v1', Date.now());
  for (let i = 0; i < objects.length; i++) row(i);
  const rows = heap() - before;
  const n = objects.length;
  console.log(`encoded rows: ${(rows / n).toFixed(0)} B per object; stored JSON ${(stored / n).toFixed(0)} B per object (${((100 * rows) / stored).toFixed(1)} %)`);
}

async function main(): Promise<void> {
  const server = await startTestServer(['--authorization-mode=AlwaysAllow'], {
    bin: args.root ? `${args.root}/bin/orch-apiserver.mjs` : undefined,
    nodeArgs: args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${args['cpu-prof']}`] : [],
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: server.ca });
  const api = (method: string, path: string, accept = 'application/json', body?: unknown, keepText = false) =>
    new Promise<{ status: number; bytes: number; text: string }>((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const headers: Record<string, string> = { authorization: `Bearer ${server.token}`, accept };
      if (payload) headers['content-type'] = 'application/json';
      const req = httpsRequest(new URL(path, server.url), { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const all = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, bytes: all.length, text: all.length < 4096 || keepText ? all.toString() : '' });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  try {
    const ns = 'table-bench';
    const count = Number(args.count);
    await api('POST', '/api/v1/namespaces', undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const t0 = performance.now();
    await bounded(count, Number(args.concurrency), async (i) => {
      const r = await api('POST', NP_PATH(ns), undefined, networkPolicy(`np-${String(i).padStart(5, '0')}`, ns));
      if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
    });
    console.log(`created ${count} in ${Math.round(performance.now() - t0)} ms`);
    const time = async (label: string, path: string, accept: string) => {
      const ms: number[] = [];
      let bytes = 0;
      for (let i = 0; i < Number(args.lists) + 2; i++) {
        const start = performance.now();
        const r = await api('GET', path, accept);
        if (r.status !== 200) throw new Error(`${label}: ${r.status} ${r.text}`);
        // The first two warm the caches and the JIT.
        if (i >= 2) ms.push(performance.now() - start);
        bytes = r.bytes;
      }
      ms.sort((a, b) => a - b);
      console.log(`${label.padEnd(26)} p50 ${percentile(ms, 50).toFixed(1).padStart(7)} ms  p99 ${percentile(ms, 99).toFixed(1).padStart(7)} ms  ${(bytes / 1e6).toFixed(2)} MB`);
    };
    await time('list as JSON', NP_PATH(ns), 'application/json');
    for (const include of args.include.split(',')) await time(`list as Table (${include})`, `${NP_PATH(ns)}?includeObject=${include}`, TABLE);
    // The rows measured are this checkout's, whichever server ran.
    if (!args.root) await measureRowMemory(JSON.parse((await api('GET', NP_PATH(ns), 'application/json', undefined, true)).text).items);
  } finally {
    agent.destroy();
    await server.close();
  }
}

await main();
