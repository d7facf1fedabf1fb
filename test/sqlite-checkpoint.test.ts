/**
 * WAL checkpoints off the event loop under load (issue 10, wal-checkpointer.ts):
 * while commits are frequent the writer's connection does not checkpoint inside
 * a COMMIT, a worker thread does, and what it copied is in the database file
 * itself, without the WAL; once writes are rare again the thread stops.
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

test('under load commits are checkpointed into the database file by the thread; idle again, the thread stops', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-checkpoint-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'orch.db');
  const storage = new SqliteStorage({ file, backgroundCheckpointIdleMs: 5 * CHECKPOINT_INTERVAL_MS });
  try {
    assert.equal(storage.checkpoints().background, false, 'an idle store has no checkpoint thread');
    // Commits of 5 writes of 1 KB, at least 3,000 writes (far past SQLite's own 1,000-page trigger)
    // and on until a second of them has moved checkpoints to the thread (bounded for a slow disk).
    let written = 0;
    const loadDeadline = Date.now() + 60_000;
    while ((written < 3000 || !storage.checkpoints().background) && Date.now() < loadDeadline) {
      await Promise.all(Array.from({ length: 5 }, (_, i) => storage.create(`/registry/things/o-${written + i}`, value(written + i))));
      written += 5;
    }
    assert.equal(storage.checkpoints().background, true, 'frequent commits moved checkpoints to the thread');
    const writer = new Database(file, { readonly: true });
    assert.equal(writer.pragma('wal_autocheckpoint', { simple: true }), 1000, 'a new connection has the default');
    writer.close();
    // The database file alone (no WAL beside it) comes to hold every write, copied there by the thread.
    const rowsInFileAlone = () => {
      const alone = join(dir, 'alone.db');
      copyFileSync(file, alone);
      const copy = new Database(alone, { readonly: true });
      try {
        return (copy.prepare('SELECT COUNT(*) AS n FROM kine').get() as { n: number }).n;
      } finally {
        copy.close();
        rmSync(alone);
      }
    };
    const deadline = Date.now() + 10 * CHECKPOINT_INTERVAL_MS + 5_000;
    let rows = rowsInFileAlone();
    while (rows < written && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, CHECKPOINT_INTERVAL_MS));
      rows = rowsInFileAlone();
    }
    assert.equal(rows, written);
    const { last, completed } = storage.checkpoints();
    assert.ok(completed >= 1);
    assert.ok(last && !last.error && last.busy === 0, `the last checkpoint ran whole: ${JSON.stringify(last)}`);
    assert.ok(statSync(`${file}-wal`).size > 0, 'the WAL is still there: the writer keeps it open');
    const idleBy = Date.now() + 20 * CHECKPOINT_INTERVAL_MS;
    while (storage.checkpoints().background && Date.now() < idleBy) await new Promise((r) => setTimeout(r, CHECKPOINT_INTERVAL_MS));
    assert.equal(storage.checkpoints().background, false, 'without writes the thread stopped');
    // Inline checkpoints again: writes still commit and read back.
    await storage.create('/registry/things/after', value(-1));
    assert.equal((await storage.get('/registry/things/after'))?.value, value(-1));
  } finally {
    await storage.close();
  }
});

test('rare commits start no thread, and the store closes cleanly', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-checkpoint-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const storage = new SqliteStorage({ file: join(dir, 'orch.db') });
  // A commit now and then, as lease renewals make: no thread.
  for (let i = 0; i < 3; i++) {
    await storage.create(`/registry/leases/l-${i}`, value(i));
    await new Promise((r) => setTimeout(r, CHECKPOINT_INTERVAL_MS));
  }
  assert.equal(storage.checkpoints().background, false);
  assert.equal(storage.checkpoints().completed, 0);
  await storage.close();
  // Closed twice (a shutdown racing a failure) is harmless.
  await storage.close().catch(() => undefined);
});
