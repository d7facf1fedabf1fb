/** The SQLite backend against the storage conformance suite, on a real database file. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.ts';
import { storageConformance } from './helpers/storage-conformance.ts';

storageConformance('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-sqlite-'));
  const storage = new SqliteStorage({ file: join(dir, 'test.db') });
  return {
    storage,
    async cleanup() {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

/**
 * A whole range is read in two passes (kine-log.ts listWhole): latest ids from
 * the index, then the rows by id, scanned when dense and looked up one by one
 * when sparse. Both must answer exactly what the paged join answers.
 */
test('sqlite: a whole-range list equals the paged list, dense and sparse, now and at a past revision', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-sqlite-whole-'));
  const storage = new SqliteStorage({ file: join(dir, 'test.db') });
  try {
    const revisions = new Map<string, number>();
    const put = async (key: string, value: string) => {
      const previous = revisions.get(key);
      revisions.set(key, previous === undefined ? await storage.create(key, value) : await storage.update(key, value, previous));
    };
    // '/sparse/' keys are one in ten of the ids the range spans; '/dense/' keys are most of them.
    for (let i = 0; i < 300; i++) {
      await put(`/dense/k${String(i).padStart(3, '0')}`, `d${i}`);
      if (i % 10 === 0) await put(`/sparse/k${i}`, `s${i}`);
    }
    for (let i = 0; i < 300; i += 7) await put(`/dense/k${String(i).padStart(3, '0')}`, `d${i}-v2`);
    const past = await storage.currentRevision();
    for (const key of ['/dense/k001', '/dense/k150', '/sparse/k20', '/sparse/k290']) {
      await storage.delete(key, revisions.get(key)!);
      revisions.delete(key);
    }
    await put('/sparse/k20', 'recreated');
    for (let i = 0; i < 300; i += 11) await put(`/dense/k${String(i).padStart(3, '0')}`, `d${i}-v3`);

    const paged = async (prefix: string, revision: number) => {
      const items = [];
      let startKey: string | undefined;
      for (;;) {
        const page = await storage.list({ prefix, startKey, limit: 7, revision });
        items.push(...page.items);
        if (!page.more) return items;
        startKey = `${page.items[page.items.length - 1].key}\u0000`;
      }
    };
    const now = await storage.currentRevision();
    for (const prefix of ['/dense/', '/sparse/']) {
      for (const revision of [now, past]) {
        const whole = await storage.list({ prefix, revision });
        assert.equal(whole.more, false);
        assert.deepEqual(whole.items, await paged(prefix, revision), `${prefix} at ${revision}`);
      }
    }
    const sparseNow = (await storage.list({ prefix: '/sparse/' })).items;
    assert.equal(sparseNow.length, 29);
    const recreated = sparseNow.find((kv) => kv.key === '/sparse/k20')!;
    assert.equal(recreated.value, 'recreated');
    assert.equal(recreated.createRevision, recreated.modRevision);
    assert.deepEqual(
      (await storage.list({ prefix: '/sparse/', revision: past })).items.map((kv) => kv.key).filter((k) => k === '/sparse/k20' || k === '/sparse/k290'),
      ['/sparse/k20', '/sparse/k290'],
    );
    assert.equal((await storage.list({ prefix: '/dense/' })).items.length, 298);
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
