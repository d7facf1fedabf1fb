/**
 * SPEC 4.6 "Most Recent" reads through the watch cache (src/storage/cacher/cacher.ts):
 * the store's revision is read once per loop turn for every caller of that turn,
 * and a caller never joins a read already in flight, so it still observes every
 * write acknowledged before it called. A real SQLite store, its revision reads
 * counted and the first one's answer held back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cacher } from '../src/storage/cacher/cacher.ts';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.ts';
import { objectKey, resourcePrefix } from '../src/storage/keys.ts';

test('callers of one loop turn share one revision read; a caller during a read in flight waits for a later read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-fresh-reads-'));
  const storage = new SqliteStorage({ file: join(dir, 'store.db') });
  const cacher = new Cacher(storage, { historyMs: 60_000, maxEvents: 1000, bookmarkIntervalMs: 60_000, maxWatcherBufferedBytes: 1 << 20 });
  const key = (name: string) => objectKey('', 'configmaps', 'default', name);
  try {
    await cacher.start([resourcePrefix('', 'configmaps')]);
    const read = storage.currentRevision.bind(storage);
    let reads = 0;
    let hold: Promise<void> | undefined;
    storage.currentRevision = async () => {
      reads++;
      const revision = await read();
      await hold;
      return revision;
    };

    const first = await storage.create(key('a'), JSON.stringify({ metadata: { name: 'a', namespace: 'default' } }));
    const sameTurn = await Promise.all(Array.from({ length: 20 }, () => cacher.waitUntilFresh(5_000)));
    assert.equal(reads, 1, 'twenty callers of one turn share one read');
    for (const revision of sameTurn) assert.ok(revision >= first);

    // The next read is made but its answer held: a write acknowledged meanwhile is after that read.
    let release!: () => void;
    hold = new Promise((r) => (release = r));
    reads = 0;
    const early = cacher.waitUntilFresh(5_000);
    await new Promise((r) => setImmediate(r));
    assert.equal(reads, 1, 'the read started after the turn');
    const acknowledged = await storage.create(key('b'), JSON.stringify({ metadata: { name: 'b', namespace: 'default' } }));
    const late = cacher.waitUntilFresh(5_000);
    const alsoLate = cacher.waitUntilFresh(5_000);
    hold = undefined;
    release();
    assert.ok((await early) >= first);
    const [lateRevision, alsoLateRevision] = await Promise.all([late, alsoLate]);
    assert.equal(reads, 2, 'the two late callers share the one read made after the first answered');
    assert.ok(lateRevision >= acknowledged, `a caller after an acknowledged write sees it (${lateRevision} >= ${acknowledged})`);
    assert.ok(alsoLateRevision >= acknowledged);
  } finally {
    cacher.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
