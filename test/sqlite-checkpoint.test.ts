/**
 * WAL checkpoints off the event loop (issue 10, wal-checkpointer.ts): the
 * writer's connection never checkpoints inside a COMMIT, a worker thread does,
 * and what it copied is in the database file itself, without the WAL.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.ts';
import { CHECKPOINT_INTERVAL_MS } from '../src/storage/sqlite/wal-checkpointer.ts';

const value = (i: number) => JSON.stringify({ metadata: { name: `o-${i}` }, spec: { pad: 'x'.repeat(1000) } });

test('commits are checkpointed into the database file by the worker, not by the writer', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-checkpoint-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'orch.db');
  const storage = new SqliteStorage({ file });
  try {
    // 3,000 writes of 1 KB: far past SQLite's own 1,000-page trigger, which is off on the writer.
    for (let batch = 0; batch < 30; batch++) {
      await Promise.all(Array.from({ length: 100 }, (_, i) => storage.create(`/registry/things/o-${batch * 100 + i}`, value(batch * 100 + i))));
    }
    const writer = new Database(file, { readonly: true });
    assert.equal(writer.pragma('wal_autocheckpoint', { simple: true }), 1000, 'a new connection has the default');
    writer.close();
    const deadline = Date.now() + 10 * CHECKPOINT_INTERVAL_MS + 5_000;
    let last = storage.checkpoints().last;
    while (!(last && !last.error && last.busy === 0 && last.log! > 0 && last.checkpointed === last.log) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, CHECKPOINT_INTERVAL_MS));
      last = storage.checkpoints().last;
    }
    assert.ok(last && !last.error, `a checkpoint ran without error: ${JSON.stringify(last)}`);
    assert.equal(last.busy, 0);
    assert.equal(last.checkpointed, last.log, 'every frame of the WAL was copied');
    assert.ok(storage.checkpoints().completed >= 1);
    // The database file alone (no WAL beside it) holds every write.
    const alone = join(dir, 'alone.db');
    copyFileSync(file, alone);
    const copy = new Database(alone, { readonly: true });
    try {
      assert.equal((copy.prepare('SELECT COUNT(*) AS n FROM kine').get() as { n: number }).n, 3000);
    } finally {
      copy.close();
    }
    assert.ok(statSync(`${file}-wal`).size > 0, 'the WAL is still there: the writer keeps it open');
  } finally {
    await storage.close();
  }
});

test('the checkpointer is idle without commits and closes with the storage', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-checkpoint-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const storage = new SqliteStorage({ file: join(dir, 'orch.db') });
  await new Promise((r) => setTimeout(r, 3 * CHECKPOINT_INTERVAL_MS));
  assert.equal(storage.checkpoints().completed, 0);
  await storage.close();
  // Closed twice (a shutdown racing a failure) is harmless.
  await storage.close().catch(() => undefined);
});
