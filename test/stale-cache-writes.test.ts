/**
 * Writes that start from the watch cache's copy (src/registry/store.ts). In a
 * pool, the process a request lands on may not yet hold a write another
 * process answered a moment ago (test/crd-generic's JSON patch with a `test`
 * failed that way under load). A write computed from such a copy that is
 * refused is retried on the store's state, as upstream's GuaranteedUpdate does
 * when its cached object was not current.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kinds } from '../src/generated/index.ts';
import { GenericStore } from '../src/registry/store.ts';
import { strategyOf } from '../src/registry/kind.ts';
import * as errors from '../src/api/status-error.ts';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.ts';
import type { KeyValue } from '../src/storage/interface.ts';

test('a write computed from a stale cached copy is retried on the store\'s state', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-stale-cache-'));
  const storage = new SqliteStorage({ file: join(dir, 'store.db') });
  const kind = kinds.find((k) => k.group === '' && k.kind === 'ConfigMap')!;
  // What the cache would answer: a copy that lags the store.
  const cached = new Map<string, KeyValue>();
  const store = new GenericStore(kind, strategyOf(kind), storage, { mutate: async () => {}, validate: async () => {} }, (key) => cached.get(key));
  const write = { dryRun: false };
  try {
    await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { step: '1' } }, write);
    const key = [...(await storage.list({ prefix: '/' })).items].find((kv) => kv.key.endsWith('/default/cm'))!.key;
    const stale = (await storage.get(key))!;
    await store.update('default', 'cm', (old) => ({ ...old!, data: { step: '2' } }), write);
    cached.set(key, stale);
    // A JSON patch's test, say: refused on the stale copy, granted on the store's state.
    const seen: string[] = [];
    const { object } = await store.update(
      'default',
      'cm',
      (old) => {
        seen.push(old!.data.step);
        if (old!.data.step !== '2') throw errors.badRequest(`step is ${old!.data.step}`);
        return { ...old!, data: { step: '3' } };
      },
      write,
    );
    assert.deepEqual(seen, ['1', '2'], 'tried on the cached copy, then on the store\'s');
    assert.equal(object.data.step, '3');
    // Refused on the store's state too: the refusal stands, after one retry.
    cached.set(key, stale);
    const refusals: string[] = [];
    await assert.rejects(
      store.update('default', 'cm', (old) => {
        refusals.push(old!.data.step);
        throw errors.badRequest('never');
      }, write),
      (err: unknown) => err instanceof errors.StatusError && err.message === 'never',
    );
    assert.deepEqual(refusals, ['1', '3']);
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
