/**
 * The watch cache (SPEC 4.4 item 5, 4.6): its ordered keys (random inserts and
 * deletes across many blocks against a sorted array), its chunks (against a
 * plain walk) and the bounded encoded bodies of GET.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SortedKeys } from '../src/storage/cacher/sorted-keys.ts';
import { ResourceCache } from '../src/storage/cacher/resource-cache.ts';
import { CachedObject } from '../src/storage/cacher/cached-object.ts';
import { CacheWatcher, FLUSH_SLICE, MAX_FLUSH_REST_MS, MIN_FLUSH_INTERVAL_MS } from '../src/storage/cacher/cache-watcher.ts';
import { PassThrough, Writable } from 'node:stream';

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
}

const keyOf = (n: number) => `/core/configmaps/ns-${n % 37}/cm-${String(n).padStart(6, '0')}`;

test('SortedKeys keeps order, size and rank through 20,000 random inserts and deletes', () => {
  const next = random(7);
  const reference = new Set<string>();
  const initial = Array.from({ length: 3000 }, (_, i) => keyOf(i * 7));
  initial.forEach((k) => reference.add(k));
  const keys = SortedKeys.from(initial.reverse());
  for (let step = 0; step < 20_000; step++) {
    const key = keyOf(Math.floor(next() * 40_000));
    if (next() < 0.7) {
      if (!reference.has(key)) keys.insert(key), reference.add(key);
    } else {
      keys.delete(key);
      reference.delete(key);
    }
  }
  const sorted = [...reference].sort();
  assert.equal(keys.size, sorted.length);
  assert.deepEqual([...keys.from('', '')], sorted);
  for (const probe of [sorted[0], sorted[sorted.length >> 1], sorted.at(-1)! + '\0', '/core/configmaps/ns-5/', '']) {
    assert.equal(keys.rank(probe), sorted.filter((k) => k < probe).length, probe);
  }
  const ns = '/core/configmaps/ns-12/';
  assert.deepEqual([...keys.from(ns, ns)], sorted.filter((k) => k.startsWith(ns)));
  for (const k of sorted) keys.delete(k);
  assert.equal(keys.size, 0);
  assert.deepEqual([...keys.from('', '')], []);
  keys.insert('/a');
  assert.deepEqual([...keys.from('', '')], ['/a']);
});

test('ResourceCache chunks: every item once in key order, lastKey, remaining, filters, and the revisions whose state it holds', () => {
  const prefix = '/core/configmaps/';
  const initial = Array.from({ length: 2500 }, (_, i) => ({ key: keyOf(i), value: JSON.stringify({ metadata: { name: `cm-${i}` }, odd: i % 2 === 1 }), modRevision: i + 1 }));
  const cache = new ResourceCache(prefix, { historyMs: 60_000, maxEvents: 1000 }, initial, 2500);
  cache.apply({ type: 'DELETED', key: keyOf(10), value: initial[10].value, revision: 2501, createRevision: 11 }, Date.now());
  cache.apply({ type: 'ADDED', key: keyOf(99_999), value: '{"metadata":{"name":"late"},"odd":true}', revision: 2502, createRevision: 2502 }, Date.now());
  const expected = cache.list(prefix).map((o) => o.key);
  assert.equal(expected.length, 2500);
  const walk = (keyPrefix: string, limit: number, filter?: (o: any) => boolean) => {
    const seen: string[] = [];
    let start = keyPrefix;
    for (;;) {
      const page = cache.page(keyPrefix, start, limit, filter);
      assert.ok(page.items.length <= limit);
      seen.push(...page.items.map((o) => o.key));
      if (page.lastKey === undefined) {
        assert.equal(page.remaining, 0);
        return seen;
      }
      if (!filter) assert.equal(page.remaining, expected.filter((k) => k.startsWith(keyPrefix) && k > page.lastKey!).length);
      start = page.lastKey + '\0';
    }
  };
  assert.deepEqual(walk(prefix, 7), expected);
  assert.deepEqual(walk(prefix, 5000), expected);
  const ns = '/core/configmaps/ns-3/';
  assert.deepEqual(walk(ns, 4), expected.filter((k) => k.startsWith(ns)));
  const odd = (o: any) => o.parsed().odd === true;
  assert.deepEqual(walk(prefix, 9, odd), cache.list(prefix).filter(odd).map((o) => o.key));
  // The state at 2502 and later is held; before the last change it is not.
  assert.equal(cache.holdsStateAt(2502, 2600), true);
  assert.equal(cache.holdsStateAt(2501, 2600), false);
  assert.equal(cache.holdsStateAt(2700, 2600), false, 'a revision the cacher has not reached');
});

test('encoded GET bodies are kept for objects read again soon, oldest given up past a byte budget', () => {
  const big = 'x'.repeat(1024 * 1024);
  const objects = Array.from({ length: 40 }, (_, i) => new CachedObject(`/core/configmaps/ns/cm-${i}`, JSON.stringify({ metadata: { name: `cm-${i}` }, data: { big } }), i + 1));
  const once = objects[0].body();
  const twice = objects[0].body();
  assert.notEqual(twice, once, 'a body read once is not kept');
  assert.equal(objects[0].body(), twice, 'read again soon, the body is kept');
  assert.match(twice.toString(), /"resourceVersion":"1"/);
  for (const object of objects.slice(1)) object.body(), object.body();
  // 40 MiB of kept bodies against a 32 MiB budget: the oldest gave theirs up, the newest keep them.
  const again = objects[0].body();
  assert.notEqual(again, twice, 'the oldest body was released and is made again');
  assert.equal(objects[39].body(), objects[39].body());
  assert.deepEqual(again, twice, 'the same bytes');

  // Read again only after more encodings than the budget holds bodies (32 Ki), a body is not kept.
  const rare = new CachedObject('/core/configmaps/ns/rare', '{"metadata":{"name":"rare"}}', 99);
  rare.body();
  for (let i = 0; i < 40_000; i++) new CachedObject(`/core/configmaps/ns/once-${i}`, '{"metadata":{}}', 100).body();
  const late = rare.body();
  const soon = rare.body();
  assert.notEqual(soon, late, 'the late read kept nothing');
  assert.equal(rare.body(), soon, 'the read right after it did');
});

test('shared chunk bodies: encoded once per key, dropped on the next change, oldest dropped past the byte budget', () => {
  const prefix = '/core/configmaps/';
  const cache = new ResourceCache(prefix, { historyMs: 60_000, maxEvents: 1000 }, [{ key: keyOf(1), value: '{"metadata":{"name":"a"}}', modRevision: 1 }], 1);
  let encodings = 0;
  const encode = (bytes = 16) => () => (encodings++, Buffer.alloc(bytes, 'x'));
  const first = cache.sharedBody('page-1', encode());
  assert.equal(cache.sharedBody('page-1', encode()), first, 'the same Buffer, not a copy');
  assert.equal(encodings, 1);
  cache.sharedBody('page-2', encode());
  assert.equal(encodings, 2);
  // A change: every body is dropped, a reader asking again gets a new encoding.
  cache.apply({ type: 'ADDED', key: keyOf(2), value: '{"metadata":{"name":"b"}}', revision: 2, createRevision: 2 }, Date.now());
  assert.notEqual(cache.sharedBody('page-1', encode()), first);
  assert.equal(encodings, 3);
  // 40 bodies of 1 MiB against 32 MiB: the oldest are encoded again, the newest are kept.
  const MiB = 1024 * 1024;
  const bodies = Array.from({ length: 40 }, (_, i) => cache.sharedBody(`big-${i}`, encode(MiB)));
  assert.equal(cache.sharedBody('big-39', encode(MiB)), bodies[39]);
  const before = encodings;
  assert.notEqual(cache.sharedBody('big-0', encode(MiB)), bodies[0]);
  assert.equal(encodings, before + 1);
  // A body larger than the whole budget is returned, not kept.
  const huge = cache.sharedBody('huge', encode(33 * MiB));
  assert.notEqual(cache.sharedBody('huge', encode(16)), huge);
  // One budget for the process: another resource's bodies push these out; a change drops only its own.
  const other = new ResourceCache('/core/secrets/', { historyMs: 60_000, maxEvents: 1000 }, [], 1);
  const mine = cache.sharedBody('mine', encode());
  const theirs = other.sharedBody('mine', encode());
  assert.notEqual(theirs, mine, 'the same key in two resources names two bodies');
  other.apply({ type: 'ADDED', key: '/core/secrets/ns/s', value: '{"metadata":{"name":"s"}}', revision: 3, createRevision: 3 }, Date.now());
  assert.equal(cache.sharedBody('mine', encode()), mine, 'a change of another resource leaves these');
  for (let i = 0; i < 40; i++) other.sharedBody(`push-${i}`, encode(MiB));
  assert.notEqual(cache.sharedBody('mine', encode()), mine, 'pushed out by the other resource past the shared budget');
});

test('shared bodies with a version: a new version replaces the kept body at once, freeing its bytes', () => {
  const cache = new ResourceCache('/core/events/', { historyMs: 60_000, maxEvents: 1000 }, [], 1);
  const MiB = 1024 * 1024;
  let encodings = 0;
  const encode = (bytes: number) => () => (encodings++, Buffer.alloc(bytes, 'x'));
  const other = cache.sharedBody('other', encode(10 * MiB));
  const second1 = cache.sharedBody('table', encode(20 * MiB), '1000');
  assert.equal(cache.sharedBody('table', encode(20 * MiB), '1000'), second1, 'the same version is shared');
  const second2 = cache.sharedBody('table', encode(20 * MiB), '2000');
  assert.notEqual(second2, second1);
  assert.equal(encodings, 3);
  // 10 + 20 MiB fit the 32 MiB budget only because the first version went: the other body is still kept.
  assert.equal(cache.sharedBody('other', encode(10 * MiB)), other);
  assert.equal(cache.sharedBody('table', encode(20 * MiB), '2000'), second2);
  assert.equal(encodings, 3);
});

test('watchers grouped by key prefix: each sees the events under its prefix once, in order; removal and the whole set', async () => {
  const prefix = '/networking.orch.io/networkpolicies/';
  const cache = new ResourceCache(prefix, { historyMs: 60_000, maxEvents: 1000 }, [], 1);
  const open = (keyPrefix: string, matches?: (obj: any) => boolean) => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const watcher = new CacheWatcher(out, { keyPrefix, matches }, 1, { maxBufferedBytes: 1 << 20, onClose: (w) => cache.watchers.delete(w) });
    cache.watchers.add(watcher);
    return { watcher, seen: () => text.split('\n').filter(Boolean).map((line) => { const e = JSON.parse(line); return `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`; }) };
  };
  const inA = open(`${prefix}a/`);
  const inA2 = open(`${prefix}a/`, (obj) => obj.metadata.labels?.keep === 'yes');
  const inAb = open(`${prefix}ab/`);
  const everywhere = open(prefix);
  assert.equal(cache.watchers.size, 4);
  const put = (type: 'ADDED' | 'MODIFIED' | 'DELETED', ns: string, name: string, revision: number, labels = {}) =>
    cache.apply({ type, key: `${prefix}${ns}/${name}`, value: JSON.stringify({ metadata: { namespace: ns, name, labels } }), revision, createRevision: revision }, Date.now());
  put('ADDED', 'a', 'x', 2, { keep: 'yes' });
  put('ADDED', 'ab', 'y', 3);
  put('MODIFIED', 'a', 'x', 4);
  put('ADDED', 'b', 'z', 5);
  inAb.watcher.flush();
  inAb.watcher.close();
  assert.equal(cache.watchers.size, 3);
  put('ADDED', 'ab', 'w', 6);
  put('DELETED', 'a', 'x', 7);
  assert.deepEqual(new Set(cache.watchers), new Set([inA.watcher, inA2.watcher, everywhere.watcher]));
  for (const { watcher } of [inA, inA2, everywhere]) watcher.flush();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(inA.seen(), ['ADDED a/x', 'MODIFIED a/x', 'DELETED a/x']);
  // Leaving the label selection is a DELETED; the object's later deletion is then not this watcher's.
  assert.deepEqual(inA2.seen(), ['ADDED a/x', 'DELETED a/x']);
  assert.deepEqual(inAb.seen(), ['ADDED ab/y']);
  assert.deepEqual(everywhere.seen(), ['ADDED a/x', 'ADDED ab/y', 'MODIFIED a/x', 'ADDED b/z', 'ADDED ab/w', 'DELETED a/x']);
});

test('fan-out flush cycles: a slice per turn while on time, more per turn once behind, then a rest before the next cycle', async () => {
  const WATCHERS = 300;
  const WRITE_MS = 0.4; // each socket write's cost: the cycle outlasts MIN_FLUSH_INTERVAL_MS
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const writes: Array<{ watcher: number; turn: number; at: number }> = [];
  const watchers = Array.from({ length: WATCHERS }, (_, i) => {
    const out = new Writable({
      write(_chunk, _encoding, done) {
        const until = performance.now() + WRITE_MS;
        while (performance.now() < until);
        writes.push({ watcher: i, turn, at: performance.now() });
        done();
      },
    });
    return new CacheWatcher(out, { keyPrefix: '/core/configmaps/' }, 1, { maxBufferedBytes: 1 << 20, bookmarkHead: '"kind":"ConfigMap","apiVersion":"v1"', onClose: () => {} });
  });
  const until = async (done: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!done()) {
      assert.ok(Date.now() < deadline, 'flushes within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  try {
    for (const w of watchers) w.bookmark(2);
    await until(() => writes.length === WATCHERS);
    assert.deepEqual(new Set(writes.map((w) => w.watcher)).size, WATCHERS, 'each watcher written once per cycle');
    const perTurn = new Map<number, number>();
    for (const w of writes) perTurn.set(w.turn, (perTurn.get(w.turn) ?? 0) + 1);
    const slices = [...perTurn.values()];
    assert.equal(slices[0], FLUSH_SLICE, `the first slice is FLUSH_SLICE watchers (slices: ${slices})`);
    assert.ok(slices.slice(0, -1).every((n) => n % FLUSH_SLICE === 0), `whole slices (slices: ${slices})`);
    assert.ok(slices.some((n) => n > FLUSH_SLICE), `a cycle behind its interval takes more per turn (slices: ${slices})`);
    const cycleEnd = writes.at(-1)!.at;
    const cycleMs = cycleEnd - writes[0].at;
    assert.ok(cycleMs > MIN_FLUSH_INTERVAL_MS, `the cycle took ${cycleMs} ms`);
    watchers[0].bookmark(3);
    await until(() => writes.length === WATCHERS + 1);
    const rest = writes.at(-1)!.at - cycleEnd;
    assert.ok(rest >= Math.min(cycleMs, MAX_FLUSH_REST_MS) - 2, `the next cycle rests after the last (${rest} ms)`);
  } finally {
    ticking = false;
    for (const w of watchers) w.close();
  }
});

test('a watcher whose socket refused more keeps its events and writes them as one chunk on drain; past the budget it is closed', async () => {
  const writes: string[] = [];
  let release: (() => void) | undefined;
  const out = new Writable({
    highWaterMark: 16,
    write(chunk, _encoding, done) {
      writes.push(chunk.toString());
      release = done;
    },
  });
  let closed = false;
  const watcher = new CacheWatcher(out, { keyPrefix: '/core/configmaps/' }, 1, {
    maxBufferedBytes: 4096,
    bookmarkHead: '"kind":"ConfigMap","apiVersion":"v1"',
    onClose: () => (closed = true),
  });
  const settle = () => new Promise((resolve) => setTimeout(resolve, MIN_FLUSH_INTERVAL_MS + MAX_FLUSH_REST_MS + 20));
  watcher.bookmark(2);
  await settle();
  assert.equal(writes.length, 1, 'the first batch is written');
  assert.ok(out.writableNeedDrain, 'the socket refuses more');
  for (let rv = 3; rv <= 6; rv++) {
    watcher.bookmark(rv);
    await settle();
  }
  assert.equal(writes.length, 1, 'nothing more is written before the drain');
  release!();
  await settle();
  assert.equal(writes.length, 2, 'the held events go as one write after the drain');
  assert.deepEqual(writes[1].trim().split('\n').map((line) => JSON.parse(line).object.metadata.resourceVersion), ['3', '4', '5', '6']);
  assert.equal(closed, false);
  // Still refused: events pile up here until they pass the budget, and the watcher is dropped.
  for (let rv = 7; !closed && rv < 200; rv++) {
    watcher.bookmark(rv);
    if (rv % 20 === 0) await settle();
  }
  await settle();
  assert.equal(closed, true, 'past maxBufferedBytes the watcher is closed');
  assert.equal(writes.length, 2);
});
