/**
 * The one full collection after the watch cache's load (issue 10: memory per
 * object on etcd): it frees promoted ArrayBuffers nothing references any more,
 * runs only past its threshold, and leaves no gc function behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectLoadGarbage, LOAD_GARBAGE_BYTES } from '../src/util/full-collection.ts';

/**
 * Pages as a store's list leaves them: large, in the old generation, then
 * dropped. A collection while they are held promotes them (and shows it runs
 * past the threshold); made in a function of its own, so no register of the
 * caller keeps them.
 */
function droppedPages(): Array<WeakRef<Buffer>> {
  const pages = Array.from({ length: 6 }, () => Buffer.alloc(8 * 1024 * 1024, 1));
  assert.ok(process.memoryUsage().arrayBuffers > LOAD_GARBAGE_BYTES);
  assert.equal(typeof collectLoadGarbage(), 'number');
  assert.equal(typeof collectLoadGarbage(), 'number');
  return pages.map((page) => new WeakRef(page));
}

test('collectLoadGarbage frees dropped buffers past the threshold, and only then', async () => {
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
  if (process.memoryUsage().arrayBuffers <= LOAD_GARBAGE_BYTES) assert.equal(collectLoadGarbage(), undefined);
  const refs = droppedPages();
  // A WeakRef keeps its target until the current job ends.
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(process.memoryUsage().arrayBuffers > LOAD_GARBAGE_BYTES);
  assert.equal(refs.filter((ref) => ref.deref()).length, 6, 'nothing else collected the promoted pages');
  // deref() too keeps its target until the job ends.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(typeof collectLoadGarbage(), 'number');
  assert.equal(refs.filter((ref) => ref.deref()).length, 0, 'the full collection freed them');
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
});
