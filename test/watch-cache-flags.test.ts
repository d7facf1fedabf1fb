/**
 * --watch-cache, --watch-cache-sizes and --default-watch-cache-size (kube-apiserver
 * 1.31): a resource without a watch cache has its reads and watches served by the
 * store, so a watch may start from any revision the store still holds; events are
 * such a resource by default, as upstream's DefaultWatchCacheSizes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BACKENDS, startServerOn } from './helpers/backends.ts';
import { BIN, ROOT, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';
import { assertFailure, itemNames } from './helpers/api.ts';

const CM = '/api/v1/namespaces/default/configmaps';
const EVENTS = '/api/v1/namespaces/default/events';
/** The cache keeps 300 ms of events: older resourceVersions are 410 from the cache, not from the store. */
const SHORT_HISTORY = '--watch-history-duration=300ms';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function event(name: string, reason = 'Started') {
  return { metadata: { name }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' }, reason, message: 'm', type: 'Normal' };
}

/** Two writes, then a wait past the cache's history: the first write's version is what a watch resumes from. */
async function writesOlderThanTheCache(server: TestServer, path: string, body: (name: string) => unknown): Promise<string> {
  const first = await server.request('POST', path, { body: body('first') });
  assert.equal(first.status, 201, first.text);
  assert.equal((await server.request('POST', path, { body: body('second') })).status, 201);
  await sleep(400);
  // A later write lets the cache drop what is past its window.
  assert.equal((await server.request('POST', path, { body: body('third') })).status, 201);
  await sleep(50);
  return first.body.metadata.resourceVersion;
}

/** A watch from `rv`: the store replays what followed it; the cache says 410. */
async function watchFrom(server: TestServer, path: string, rv: string): Promise<any[]> {
  const watch = openWatch(server, `${path}?watch=1&resourceVersion=${rv}&timeoutSeconds=2`);
  assert.equal(await watch.status, 200);
  await watch.ended;
  return watch.events;
}

for (const { backend, skip } of BACKENDS) {
  describe(`watch cache flags on ${backend}`, { skip }, () => {
    describe('defaults: events come from the store, other resources from the cache', () => {
      let server: TestServer;
      before(async () => (server = await startServerOn(backend, [SHORT_HISTORY])));
      after(() => server?.close());

      test('an events watch from a version older than the cache window replays from the store', async () => {
        const rv = await writesOlderThanTheCache(server, EVENTS, (name) => event(name));
        const events = await watchFrom(server, EVENTS, rv);
        assert.deepEqual(
          events.map((e) => [e.type, e.object.metadata.name]),
          [
            ['ADDED', 'second'],
            ['ADDED', 'third'],
          ],
        );
      });

      test('a configmaps watch from the same kind of version is 410 from the cache', async () => {
        const rv = await writesOlderThanTheCache(server, CM, (name) => ({ metadata: { name } }));
        const [error, ...rest] = await watchFrom(server, CM, rv);
        assert.equal(error.type, 'ERROR');
        assert.equal(error.object.code, 410);
        assert.match(error.object.message, /^too old resource version/);
        assert.equal(rest.length, 0);
      });

      test('events: get, list, chunked list and a watch with a selector, from the store', async () => {
        const got = await server.request('GET', `${EVENTS}/second`);
        assert.equal(got.status, 200);
        assert.equal(got.body.reason, 'Started');
        const list = await server.request('GET', EVENTS);
        assert.deepEqual(itemNames(list), ['first', 'second', 'third']);
        const page = await server.request('GET', `${EVENTS}?limit=2`);
        assert.deepEqual(itemNames(page), ['first', 'second']);
        assert.equal(page.body.metadata.remainingItemCount, 1);
        const rest = await server.request('GET', `${EVENTS}?limit=2&continue=${encodeURIComponent(page.body.metadata.continue)}`);
        assert.deepEqual(itemNames(rest), ['third']);
        // A Table of the store's objects.
        const table = await server.request('GET', EVENTS, { headers: { accept: 'application/json;as=Table;g=meta.orch.io;v=v1' } });
        assert.equal(table.body.kind, 'Table');
        assert.equal(table.body.rows.length, 3);
        // Changing the selected field moves an event out of the watcher's selection: a DELETED for it.
        const watch = openWatch(server, `${EVENTS}?watch=1&fieldSelector=reason%3DStarted`);
        assert.equal(await watch.status, 200);
        await watch.waitFor(3);
        const patched = await server.request('PATCH', `${EVENTS}/first`, { body: { reason: 'Killing' }, headers: { 'content-type': 'application/merge-patch+json' } });
        assert.equal(patched.status, 200);
        const events = await watch.waitFor(4);
        watch.close();
        assert.deepEqual(
          events.map((e) => [e.type, e.object.metadata.name]),
          [
            ['ADDED', 'first'],
            ['ADDED', 'second'],
            ['ADDED', 'third'],
            ['DELETED', 'first'],
          ],
        );
        assert.equal(events[3].object.metadata.resourceVersion, patched.body.metadata.resourceVersion);
      });

      test('a version the store has not reached is 504 at once, without Retry-After', async () => {
        const started = Date.now();
        const future = await server.request('GET', `${EVENTS}/second?resourceVersion=999999999`);
        assertFailure(future, 504, 'Timeout', 'Timeout: Too large resource version: 999999999, current: ' + (Number(future.body.message.split('current: ')[1]) || 'x'));
        assert.equal(future.headers['retry-after'], undefined);
        assert.deepEqual(future.body.details.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
        const list = await server.request('GET', `${EVENTS}?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`);
        assert.equal(list.status, 504);
        // The cache waits 3 s for such a version; the store answers at once.
        assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
        assert.equal((await server.request('GET', `${EVENTS}/missing`)).status, 404);
      });
    });

    describe('--watch-cache=false: every resource from the store', () => {
      let server: TestServer;
      before(async () => (server = await startServerOn(backend, [SHORT_HISTORY, '--watch-cache=false'])));
      after(() => server?.close());

      test('a configmaps watch from a version older than the window replays; rv=0 starts with the state', async () => {
        const rv = await writesOlderThanTheCache(server, CM, (name) => ({ metadata: { name } }));
        const replayed = await watchFrom(server, CM, rv);
        assert.deepEqual(
          replayed.map((e) => [e.type, e.object.metadata.name]),
          [
            ['ADDED', 'second'],
            ['ADDED', 'third'],
          ],
        );
        const watch = openWatch(server, `${CM}?watch=1&resourceVersion=0`);
        assert.equal(await watch.status, 200);
        // The state: ours and the namespace's root CA bundle.
        const initial = await watch.waitFor(4);
        assert.deepEqual(
          initial.map((e) => e.object.metadata.name),
          ['first', 'orch-root-ca.crt', 'second', 'third'],
        );
        const deleted = await server.request('DELETE', `${CM}/second`);
        assert.equal(deleted.status, 200);
        const [, , , , gone] = await watch.waitFor(5);
        watch.close();
        assert.equal(gone.type, 'DELETED');
        assert.equal(gone.object.metadata.name, 'second');
      });

      test('namespaces and custom lists still work: get and list answer from the store', async () => {
        const ns = await server.request('GET', '/api/v1/namespaces/default');
        assert.equal(ns.status, 200);
        const list = await server.request('GET', '/api/v1/namespaces');
        assert.ok(itemNames(list).includes('orch-system'));
      });
    });

    describe('--watch-cache=false with compaction every second', () => {
      let server: TestServer;
      before(async () => (server = await startServerOn(backend, ['--watch-cache=false', '--etcd-compaction-interval=1s'])));
      after(() => server?.close());

      test('a watch from a version the store compacted ends with one 410 ERROR event', async () => {
        const first = await server.request('POST', CM, { body: { metadata: { name: 'early' } } });
        assert.equal(first.status, 201);
        // Each compaction goes to the revision of the one before: two or three intervals put `early` behind it.
        let events: any[] = [];
        const deadline = Date.now() + 10_000;
        do {
          await sleep(500);
          assert.equal((await server.request('PUT', `${CM}/early`, { body: { metadata: { name: 'early' }, data: { at: String(Date.now()) } } })).status, 200);
          events = await watchFrom(server, CM, first.body.metadata.resourceVersion);
        } while (events[0]?.type !== 'ERROR' && Date.now() < deadline);
        assert.equal(events.length, 1, JSON.stringify(events));
        assert.equal(events[0].type, 'ERROR');
        assert.equal(events[0].object.code, 410);
        assert.equal(events[0].object.reason, 'Expired');
      });
    });

    describe('--watch-cache-sizes', () => {
      let server: TestServer;
      before(async () => (server = await startServerOn(backend, [SHORT_HISTORY, '--watch-cache-sizes=configmaps#0,events#100', '--default-watch-cache-size=50'])));
      after(() => server?.close());

      test('configmaps#0 serves configmaps from the store; events#100 puts events back in the cache', async () => {
        const cmRv = await writesOlderThanTheCache(server, CM, (name) => ({ metadata: { name } }));
        assert.deepEqual(
          (await watchFrom(server, CM, cmRv)).map((e) => e.object.metadata.name),
          ['second', 'third'],
        );
        const eventRv = await writesOlderThanTheCache(server, EVENTS, (name) => event(name));
        const [error] = await watchFrom(server, EVENTS, eventRv);
        assert.equal(error.object.code, 410);
      });

      test('the deprecated --default-watch-cache-size and the dropped size are warned about, as upstream', () => {
        assert.match(server.output(), /Flag --default-watch-cache-size has been deprecated, watch caches are sized automatically and this flag will be removed in a future version/);
        assert.match(server.output(), /Dropping watch-cache-size for events - watchCache size is now dynamic/);
      });
    });
  });
}

describe('watch cache flags: bad values stop the server with upstream messages', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'orch-watch-cache-flags-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: Array<[string, RegExp]> = [
    ['--watch-cache-sizes=events', /invalid value of watch cache size: events/],
    ['--watch-cache-sizes=events#1#2', /invalid value of watch cache size: events#1#2/],
    ['--watch-cache-sizes=events#many', /invalid size of watch cache size: events#many/],
    ['--watch-cache-sizes=events#-1', /watch cache size cannot be negative: events#-1/],
    ['--watch-cache=maybe', /invalid argument "maybe" for "--watch-cache" flag/],
    ['--default-watch-cache-size=x', /invalid argument "x" for "--default-watch-cache-size" flag/],
  ];
  for (const [flag, message] of cases) {
    test(flag, () => {
      const run = spawnSync(process.execPath, [BIN, '--secure-port=0', `--data-dir=${join(dir, 'data')}`, flag], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, message);
    });
  }

  test('the help lists --watch-cache and --watch-cache-sizes, and hides the deprecated flag', () => {
    const run = spawnSync(process.execPath, [BIN, '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    assert.match(run.stdout, /--watch-cache bool/);
    assert.match(run.stdout, /--watch-cache-sizes strings/);
    assert.doesNotMatch(run.stdout, /--default-watch-cache-size/);
  });
});
