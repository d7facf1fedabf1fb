/**
 * CPU time of the create path's own steps (issue 10, create path), in one
 * process, for a NetworkPolicy body: decoding the request (JSON.parse, the
 * duplicate-key check, the typed decode), the managedFields entry a create
 * records and the typed decode that puts the object to store in field order. With `--root` it loads the same modules from another checkout too
 * and alternates the two, round by round; the minimum of the rounds is
 * reported, since a shared machine only ever adds time.
 *
 *   tsx scripts/create-path-bench.ts [--root /work/main] [--rounds 15] [--iterations 3000]
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { networkPolicy } from './bench/orch.ts';

const { values: args } = parseArgs({
  options: {
    root: { type: 'string' },
    rounds: { type: 'string', default: '15' },
    iterations: { type: 'string', default: '3000' },
  },
});

const SCHEMA = 'io.orch.api.networking.v1.NetworkPolicy';
const API_VERSION = 'networking.orch.io/v1';

async function stepsOf(root: string): Promise<Record<string, () => unknown>> {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href);
  const { kinds, structure } = await load('src/generated/index.ts');
  const { decodeObject } = await load('src/handlers/request-body.ts');
  const { recordUpdate } = await load('src/registry/apply/managed-fields.ts');
  const kind = kinds.find((k: { kind: string; group: string }) => k.kind === 'NetworkPolicy' && k.group === 'networking.orch.io');
  const body = Buffer.from(JSON.stringify(networkPolicy('web', 'default')));
  const created = { ...networkPolicy('web', 'default'), apiVersion: API_VERSION };
  const stored: Record<string, any> = { ...created, metadata: { ...created.metadata, uid: '3f0c7d7e-1c1f-4a0e-9d51-2f3c0b6a4e11', creationTimestamp: '2026-01-01T00:00:00Z' } };
  stored.metadata = { ...stored.metadata, managedFields: recordUpdate([], null, stored, 'curl', API_VERSION, '2026-01-01T00:00:00Z', structure, SCHEMA) };
  return {
    'decode request body (Strict)': () => decodeObject(kind, body, 'application/json', 'Strict'),
    // As the store canonicalizes a created object (store.ts canonicalize): the same decoder, a context that never fails.
    'typed decode of the object to store': () => kind.decode(stored, '', { unknown: () => {}, fail: () => {}, invalidValue: () => {} }),
    'record the create in managedFields': () => recordUpdate([], null, created, 'curl', API_VERSION, '2026-01-01T00:00:00Z', structure, SCHEMA),
  };
}

const variants: Array<[string, Record<string, () => unknown>]> = [['this checkout', await stepsOf(resolve(import.meta.dirname, '..'))]];
if (args.root) variants.push([resolve(args.root), await stepsOf(resolve(args.root))]);
const iterations = Number(args.iterations);
const best = new Map<string, number>();
for (let round = 0; round < Number(args.rounds); round++) {
  for (const [name, steps] of round % 2 ? [...variants].reverse() : variants) {
    for (const [step, run] of Object.entries(steps)) {
      for (let i = 0; i < 200; i++) await run();
      const start = process.cpuUsage();
      for (let i = 0; i < iterations; i++) await run();
      const used = process.cpuUsage(start);
      const key = `${step} | ${name}`;
      best.set(key, Math.min(best.get(key) ?? Infinity, (used.user + used.system) / iterations));
    }
  }
}
for (const [key, us] of [...best].sort()) console.log(`${key}: ${us.toFixed(2)} µs CPU (min of ${args.rounds} rounds)`);
