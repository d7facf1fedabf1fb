/**
 * The watch cache keeps stored values as bytes packed into slabs outside V8's
 * heap (src/storage/value-slabs.ts), and serves them without decoding
 * (src/storage/cacher/stored-bytes.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withApiVersion, withResourceVersion } from '../src/storage/stored-json.ts';
import { ResourceCache } from '../src/storage/cacher/resource-cache.ts';
import { CachedObject, joinJson } from '../src/storage/cacher/cached-object.ts';
import { leadingApiVersion, packServed, resourceVersionSpan, servedBytesAt, storedTextOf, textAfter } from '../src/storage/cacher/stored-bytes.ts';
import { packValue, slabStats } from '../src/storage/value-slabs.ts';

/** About 1.1 KB: 3,000 of them fill several 1 MiB slabs. */
const stored = (name: string, extra = '') =>
  `{"apiVersion":"networking.orch.io/v1","kind":"NetworkPolicy","metadata":{"name":"${name}","namespace":"ns","uid":"uid-${name}"},"spec":{"note":"${extra}","pad":"${'p'.repeat(1000)}"}}`;

test('stored bytes: packed as served, at their own or another revision, and back to the stored text; the leading apiVersion and the text after a marker match the text forms', () => {
  for (const text of [stored('a', 'é ünï ✓'), '{"apiVersion":"v1","kind":"X","metadata":{}}', '{"kind":"X","metadata":{"name":"b"}}']) {
    // From the store's text (a write's event) and from its bytes (a list), the same served bytes.
    for (const value of [text, Buffer.from(text)]) {
      const served = packServed(value, 42);
      assert.ok(served.buffer instanceof SharedArrayBuffer, 'packed into a slab');
      assert.equal(served.toString(), withResourceVersion(text, 42));
      assert.equal(storedTextOf(served, 42), text);
      const [at, end] = resourceVersionSpan(served, 42);
      assert.equal(served.toString('latin1', at, end), text.includes('"metadata":{}') ? '"resourceVersion":"42"' : '"resourceVersion":"42",');
      assert.equal(servedBytesAt(served, 42, 42).toString(), withResourceVersion(text, 42));
      // A DELETED event's own revision replaces the version's, longer or shorter.
      for (const revision of [7, 1234567])
        assert.equal(servedBytesAt(served, 42, revision, '{"type":"DELETED","object":', '}\n').toString(), `{"type":"DELETED","object":${withResourceVersion(text, revision)}}\n`);
    }
  }
  assert.throws(() => packServed(Buffer.from('{"kind":"X"}'), 1), /no metadata/);
  assert.equal(leadingApiVersion(Buffer.from(stored('a'))), 'networking.orch.io/v1');
  assert.equal(leadingApiVersion(Buffer.from('{"kind":"X","apiVersion":"v1"}')), undefined);
  assert.equal(leadingApiVersion(Buffer.from('{"apiVersion":"v\\u0031","kind":"X"}')), undefined);
  assert.equal(leadingApiVersion(Buffer.from('{"apiVersion":"')), undefined);
  for (const form of [stored('c'), Buffer.from(stored('c'))]) {
    assert.equal(textAfter(form, '"uid":"'), 'uid-c');
    assert.equal(textAfter(form, '"nothing":"'), undefined);
  }
  assert.equal(textAfter('{"uid":""}', '"uid":"'), undefined);
});

test('value slabs: a packed value reads back as its UTF-8 bytes; a large one gets a buffer of its own', () => {
  const text = stored('x', 'ünïcødé');
  const view = packValue(text);
  assert.equal(view.toString(), text);
  assert.ok(view.buffer instanceof SharedArrayBuffer, 'packed into a slab');
  assert.equal(packValue(Buffer.from(text)).toString(), text);
  const large = 'x'.repeat(200 * 1024);
  const own = packValue(large);
  assert.equal(own.toString(), large);
  assert.ok(!(own.buffer instanceof SharedArrayBuffer), 'a large value is not packed');
});

test('value slabs: a slab whose residents mostly left is compacted, and every object still serves its bytes', () => {
  const prefix = '/networking.orch.io/networkpolicies/';
  const count = 3_000;
  const initial = Array.from({ length: count }, (_, i) => ({ key: `${prefix}ns/np-${i}`, value: packServed(stored(`np-${i}`, 'v1 ✓'), i + 1), modRevision: i + 1 }));
  const cache = new ResourceCache(prefix, { historyMs: 60_000, maxEvents: 100_000 }, initial, count);
  const before = slabStats();
  const initialBytes = initial.reduce((n, kv) => n + kv.value.length, 0);
  assert.ok(before.live >= initialBytes, 'the kept values are counted live');
  const firstView = (cache.list(`${prefix}ns/np-4`)[0] as unknown as { packedBytes(): Buffer }).packedBytes();
  const heldEarly = cache.list(`${prefix}ns/np-1`)[0];
  let revision = count;
  // Each update leaves its old version: the first slabs end mostly dead and are compacted.
  for (let i = 0; i < count; i += 1) {
    if (i % 4 === 0) continue;
    const key = `${prefix}ns/np-${i}`;
    cache.apply({ type: 'MODIFIED', key, value: stored(`np-${i}`, `v2 ${i}`), prevValue: stored(`np-${i}`, 'v1 ✓'), revision: ++revision, createRevision: i + 1 }, Date.now());
  }
  for (let i = 0; i < count; i += 8) {
    cache.apply({ type: 'DELETED', key: `${prefix}ns/np-${i}`, value: stored(`np-${i}`, 'v1 ✓'), revision: ++revision, createRevision: i + 1 }, Date.now());
  }
  const after = slabStats();
  assert.ok(after.compactions > before.compactions, 'slabs were compacted');
  const movedView = (cache.list(`${prefix}ns/np-4`)[0] as unknown as { packedBytes(): Buffer }).packedBytes();
  assert.notEqual(movedView.buffer, firstView.buffer, 'np-4, never updated, was moved out of its mostly dead slab');
  // Every current object serves exactly its own version, as text and as bytes.
  const objects = cache.list(prefix);
  assert.equal(objects.length, count - count / 8);
  for (const object of objects) {
    const i = Number(object.key.slice(`${prefix}ns/np-`.length));
    const expected = stored(`np-${i}`, i % 4 === 0 ? 'v1 ✓' : `v2 ${i}`);
    assert.equal(object.value, expected);
    assert.equal(object.body().toString(), withResourceVersion(expected, object.revision));
    assert.equal(object.body(), (object as unknown as { packedBytes(): Buffer }).packedBytes(), 'a GET writes the kept bytes themselves');
    assert.equal(object.json(), withResourceVersion(expected, object.revision));
    assert.equal(object.storedTextAfter('"uid":"'), `uid-np-${i}`);
  }
  assert.equal(cache.listBody(prefix).toString(), objects.map((o) => o.json()).join(','));
  assert.equal(joinJson(objects.slice(0, 3), 'networking.orch.io/v2', '[', ']').toString(), `[${objects.slice(0, 3).map((o) => withResourceVersion(withApiVersion(o.value, 'networking.orch.io/v2'), o.revision)).join(',')}]`);
  // A version replaced while a reader held it still reads as it was.
  assert.equal(heldEarly.value, stored('np-1', 'v1 ✓'));
  // And the events carry the versions they replaced.
  const events = cache.eventsAfter(count)!;
  const update = events[0];
  assert.equal(update.line('DELETED').toString(), `{"type":"DELETED","object":${withResourceVersion(stored('np-1', 'v1 ✓'), update.revision)}}\n`);
  assert.equal(update.line('MODIFIED').toString(), `{"type":"MODIFIED","object":${withResourceVersion(stored('np-1', 'v2 1'), update.revision)}}\n`);
  const currentBytes = objects.reduce((n, o) => n + Buffer.byteLength(o.value), 0);
  cache.discard();
  assert.ok(slabStats().live <= after.live - currentBytes, 'a discarded cache leaves its slabs');
});

test('value slabs: a read of its own keeps the store text and serves the same bytes', () => {
  const text = stored('own', 'ü');
  const own = new CachedObject('/k', text, 9);
  const kept = new CachedObject('/k', text, 9).keep();
  assert.equal(own.body().toString(), kept.body().toString());
  assert.equal(own.body('networking.orch.io/v2').toString(), kept.body('networking.orch.io/v2').toString());
  assert.equal(kept.body('networking.orch.io/v2').toString(), withResourceVersion(withApiVersion(text, 'networking.orch.io/v2'), 9));
  assert.equal(kept.parsed().spec.note, 'ü');
  kept.leave();
  assert.equal(kept.value, text, 'a version that left still reads');
});
