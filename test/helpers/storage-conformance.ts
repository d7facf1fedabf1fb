/**
 * The storage conformance suite (DESIGN "Storage"): every backend passes the
 * same tests against a real instance.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CasFailedError, CompactedError, KeyExistsError, type Storage, type StorageEvent } from '../../src/storage/interface.ts';

export function storageConformance(name: string, open: () => Promise<{ storage: Storage; cleanup(): Promise<void> }>): void {
  describe(`storage conformance: ${name}`, () => {
    let storage: Storage;
    let cleanup: () => Promise<void>;
    let n = 0;
    const prefix = () => `/test/${name}/${++n}/`;
    before(async () => {
      ({ storage, cleanup } = await open());
    });
    after(async () => cleanup());

    test('create, get, and create of an existing key fails', async () => {
      const p = prefix();
      const rev = await storage.create(`${p}a`, '{"v":1}');
      const kv = await storage.get(`${p}a`);
      assert.deepEqual(kv, { key: `${p}a`, value: '{"v":1}', modRevision: rev, createRevision: rev });
      await assert.rejects(storage.create(`${p}a`, '{"v":2}'), KeyExistsError);
      assert.equal(await storage.get(`${p}missing`), null);
    });

    test('update is a compare-and-swap on the revision', async () => {
      const p = prefix();
      const r1 = await storage.create(`${p}a`, '1');
      const r2 = await storage.update(`${p}a`, '2', r1);
      assert.ok(r2 > r1);
      await assert.rejects(storage.update(`${p}a`, '3', r1), CasFailedError);
      const kv = await storage.get(`${p}a`);
      assert.equal(kv?.value, '2');
      assert.equal(kv?.createRevision, r1);
      await assert.rejects(storage.update(`${p}missing`, 'x', 1), CasFailedError);
    });

    test('concurrent updates from one revision: exactly one wins', async () => {
      const p = prefix();
      const r1 = await storage.create(`${p}a`, '0');
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => storage.update(`${p}a`, String(i + 1), r1)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      assert.ok(results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason instanceof CasFailedError));
    });

    test('delete is conditional; the name is reusable afterwards', async () => {
      const p = prefix();
      const r1 = await storage.create(`${p}a`, '1');
      await assert.rejects(storage.delete(`${p}a`, r1 + 1000), CasFailedError);
      const rd = await storage.delete(`${p}a`, r1);
      assert.ok(rd > r1);
      assert.equal(await storage.get(`${p}a`), null);
      const r2 = await storage.create(`${p}a`, '2');
      assert.equal((await storage.get(`${p}a`))?.createRevision, r2);
    });

    test('list by prefix in key order, with limit, start key and past revisions', async () => {
      const p = prefix();
      const r0 = await storage.create(`${p}b`, 'b');
      await storage.create(`${p}a`, 'a');
      await storage.create(`${p}c`, 'c');
      await storage.create(`${p}cc/nested`, 'n');
      const before = await storage.currentRevision();
      await storage.update(`${p}b`, 'b2', r0);
      await storage.create(`${p}d`, 'd');
      const all = await storage.list({ prefix: p });
      assert.deepEqual(all.items.map((i) => i.value), ['a', 'b2', 'c', 'n', 'd']);
      assert.equal(all.more, false);
      const page = await storage.list({ prefix: p, limit: 2 });
      assert.deepEqual(page.items.map((i) => i.value), ['a', 'b2']);
      assert.equal(page.more, true);
      assert.equal(page.remaining, 3);
      const next = await storage.list({ prefix: p, startKey: `${p}b\u0000`, limit: 2, revision: page.revision });
      assert.deepEqual(next.items.map((i) => i.value), ['c', 'n']);
      const past = await storage.list({ prefix: p, revision: before });
      assert.deepEqual(past.items.map((i) => i.value), ['a', 'b', 'c', 'n']);
      assert.equal(past.revision, before);
      assert.equal((await storage.get(`${p}b`, before))?.value, 'b');
      const filtered = await storage.list({ prefix: p, filter: (kv) => kv.value.startsWith('c') });
      assert.deepEqual(filtered.items.map((i) => i.value), ['c']);
      assert.equal(await storage.count(p), 5);
    });

    test('watch replays history after a revision, then streams, in order', async () => {
      const p = prefix();
      const r1 = await storage.create(`${p}a`, '1');
      const r2 = await storage.update(`${p}a`, '2', r1);
      const events: StorageEvent[] = [];
      const watch = storage.watch(p, r1, (e) => events.push(e), (err) => assert.fail(err));
      const r3 = await storage.create(`${p}b`, 'b');
      const r4 = await storage.delete(`${p}a`, r2);
      await storage.create(`/other${p}x`, 'ignored');
      await new Promise((r) => setTimeout(r, 100));
      watch.stop();
      assert.deepEqual(
        events.map((e) => [e.type, e.key.slice(p.length), e.value, e.revision]),
        [
          ['MODIFIED', 'a', '2', r2],
          ['ADDED', 'b', 'b', r3],
          ['DELETED', 'a', '2', r4],
        ],
      );
      assert.equal(events[0].prevValue, '1');
    });

    test('compaction drops superseded revisions; reads of them are refused', async () => {
      const p = prefix();
      const r1 = await storage.create(`${p}a`, '1');
      const r2 = await storage.update(`${p}a`, '2', r1);
      await storage.create(`${p}b`, 'b');
      await storage.compact(r2);
      assert.ok((await storage.compactedRevision()) >= r2);
      await assert.rejects(storage.get(`${p}a`, r1), CompactedError);
      await assert.rejects(storage.list({ prefix: p, revision: r1 }), CompactedError);
      assert.equal((await storage.get(`${p}a`))?.value, '2');
      assert.equal((await storage.list({ prefix: p })).items.length, 2);
      let error: Error | undefined;
      const watch = storage.watch(p, r1, () => {}, (err) => (error = err));
      await new Promise((r) => setTimeout(r, 50));
      watch.stop();
      assert.ok(error instanceof CompactedError);
    });
  });
}
