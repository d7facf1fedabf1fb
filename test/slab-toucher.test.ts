/** Slab memory made resident on another thread, and never written by both threads (src/storage/slab-toucher.ts). */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { SlabToucher } from '../src/storage/slab-toucher.ts';

const BYTES = 256 * 1024;

test('slab toucher: buffers come back resident once the thread had time, and what the main thread wrote is never overwritten', async () => {
  const toucher = new SlabToucher(BYTES);
  try {
    const taken: Uint8Array[] = [];
    // Taken at once, before the thread could start: each one is the main thread's alone.
    for (let i = 0; i < 40; i++) {
      const bytes = new Uint8Array(toucher.take());
      assert.equal(bytes.length, BYTES);
      for (let at = 0; at < BYTES; at += 4096) bytes[at] = (i % 250) + 1;
      taken.push(bytes);
    }
    await sleep(300);
    for (const [i, bytes] of taken.entries()) {
      for (let at = 0; at < BYTES; at += 4096) assert.equal(bytes[at], (i % 250) + 1, `buffer ${i} page ${at / 4096} kept what the main thread wrote`);
    }
    assert.equal(new Set(taken.map((b) => b.buffer)).size, taken.length, 'every buffer is handed out once');
    const before = toucher.taken.resident;
    for (let i = 0; i < 8; i++) toucher.take();
    assert.ok(toucher.taken.resident >= before + 8, `buffers the thread had time for come back resident: ${JSON.stringify(toucher.taken)}`);
  } finally {
    toucher.stop();
  }
});
