/**
 * Watch over HTTPS (SPEC 2.4, 4.4, 4.6, 6): every change after the requested
 * resourceVersion exactly once and in order, initial state, selectors,
 * bookmarks, streaming lists, 410 for a too-old version, timeoutSeconds.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { eventually } from './helpers/eventually.ts';
import { openWatch } from './helpers/watch.ts';

const CM = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) => ({ metadata: { name, labels }, data });

describe('watch', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(['--feature-gates=WatchList=true', '--watch-bookmark-interval=200ms']);
  });
  after(async () => server.close());

  const create = async (body: any, path = CM) => {
    const res = await server.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  test('from a resourceVersion: every write after it, in order, exactly once', async () => {
    const start = (await server.request('GET', CM)).body.metadata.resourceVersion;
    const watch = openWatch(server, `${CM}?watch=1&resourceVersion=${start}`);
    assert.equal(await watch.status, 200);
    const a = await create(configMap('w-a'));
    const updated = await server.request('PUT', `${CM}/w-a`, { body: { ...a, data: { k: 'v' } } });
    const b = await create(configMap('w-b'));
    const deleted = await server.request('DELETE', `${CM}/w-a`);
    assert.equal(deleted.status, 200);
    const events = await watch.waitFor(4);
    await new Promise((r) => setTimeout(r, 100));
    watch.close();
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]),
      [
        ['ADDED', 'w-a', a.metadata.resourceVersion],
        ['MODIFIED', 'w-a', updated.body.metadata.resourceVersion],
        ['ADDED', 'w-b', b.metadata.resourceVersion],
        ['DELETED', 'w-a', String(Number(b.metadata.resourceVersion) + 1)],
      ],
    );
    assert.deepEqual(events[3].object.data, { k: 'v' }, 'DELETED carries the last state');
    assert.equal(events.length, 4, 'nothing twice');
  });

  test('unset and "0" start with synthetic ADDED events for the current state', async () => {
    await create(configMap('init-1', { group: 'init' }));
    await create(configMap('init-2', { group: 'init' }));
    const existing = ['init-1', 'init-2'];
    for (const rv of ['', '&resourceVersion=0']) {
      const watch = openWatch(server, `${CM}?watch=true&labelSelector=group%3Dinit${rv}`);
      const events = await watch.waitFor(existing.length);
      assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]).sort(), existing.map((n) => ['ADDED', n]));
      const next = `init-3${rv ? 'b' : 'a'}`;
      await create(configMap(next, { group: 'init' }));
      const all = await watch.waitFor(existing.length + 1);
      assert.deepEqual([all.at(-1).type, all.at(-1).object.metadata.name], ['ADDED', next]);
      existing.push(next);
      watch.close();
    }
  });

  test('selectors: objects entering the selection are ADDED, leaving it DELETED', async () => {
    const start = (await server.request('GET', CM)).body.metadata.resourceVersion;
    const watch = openWatch(server, `${CM}?watch=1&resourceVersion=${start}&labelSelector=tier%3Dweb`);
    const obj = await create(configMap('sel', { tier: 'db' }));
    const moved = await server.request('PUT', `${CM}/sel`, { body: { ...obj, metadata: { ...obj.metadata, labels: { tier: 'web' } } } });
    const back = await server.request('PUT', `${CM}/sel`, { body: { ...moved.body, metadata: { ...moved.body.metadata, labels: { tier: 'db' } } } });
    await create(configMap('other', { tier: 'db' }));
    const events = await watch.waitFor(2);
    await new Promise((r) => setTimeout(r, 100));
    watch.close();
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.resourceVersion]), [
      ['ADDED', moved.body.metadata.resourceVersion],
      ['DELETED', back.body.metadata.resourceVersion],
    ]);
    assert.deepEqual(events[1].object.metadata.labels, { tier: 'web' }, 'the DELETED object is the last selected state');
  });

  test('a watch on one object, and on one namespace only', async () => {
    await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'watch-other' } } });
    // The root CA publisher adds its config map to the new namespace on its own time, as upstream's.
    await eventually('the namespace\'s root CA config map', async () => ((await server.request('GET', '/api/v1/namespaces/watch-other/configmaps/orch-root-ca.crt')).status === 200 ? true : undefined));
    const start = (await server.request('GET', CM)).body.metadata.resourceVersion;
    const single = openWatch(server, `${CM}/solo?watch=1&resourceVersion=${start}`);
    const all = openWatch(server, `/api/v1/configmaps?watch=1&resourceVersion=${start}`);
    await create(configMap('not-solo'));
    await create(configMap('solo'));
    await create(configMap('solo'), '/api/v1/namespaces/watch-other/configmaps');
    const events = await single.waitFor(1);
    const everywhere = await all.waitFor(3);
    await new Promise((r) => setTimeout(r, 100));
    single.close();
    all.close();
    assert.deepEqual(events.map((e) => [e.object.metadata.namespace, e.object.metadata.name]), [['default', 'solo']]);
    assert.deepEqual(everywhere.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`), ['default/not-solo', 'default/solo', 'watch-other/solo']);
  });

  test('bookmarks carry only apiVersion, kind and metadata.resourceVersion', async () => {
    const watch = openWatch(server, `${CM}?watch=1&resourceVersion=0&allowWatchBookmarks=true&labelSelector=none%3Dnone`);
    const created = await create(configMap('bm'));
    const deadline = Date.now() + 5000;
    while (!watch.events.some((e) => e.type === 'BOOKMARK' && Number(e.object.metadata.resourceVersion) >= Number(created.metadata.resourceVersion))) {
      assert.ok(Date.now() < deadline, 'no bookmark at or past the last write');
      await new Promise((r) => setTimeout(r, 20));
    }
    watch.close();
    const bookmark = watch.events.find((e) => e.type === 'BOOKMARK');
    assert.deepEqual(Object.keys(bookmark.object).sort(), ['apiVersion', 'kind', 'metadata']);
    assert.deepEqual(Object.keys(bookmark.object.metadata), ['resourceVersion']);
    assert.equal(bookmark.object.kind, 'ConfigMap');
  });

  test('streaming list: initial ADDED events, then the initial-events-end bookmark, then changes', async () => {
    await create(configMap('stream-1', { s: 'x' }));
    const watch = openWatch(server, `${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=s%3Dx`);
    const first = await watch.waitFor(2);
    assert.equal(first[0].type, 'ADDED');
    assert.equal(first[1].type, 'BOOKMARK');
    assert.deepEqual(first[1].object.metadata.annotations, { 'orch.io/initial-events-end': 'true' });
    await create(configMap('stream-2', { s: 'x' }));
    // The periodic bookmark (once a minute) may come in between: the change is the next non-bookmark event.
    const deadline = Date.now() + 5000;
    let changes: any[] = [];
    while (changes.length < 1 && Date.now() < deadline) {
      changes = watch.events.slice(2).filter((e: any) => e.type !== 'BOOKMARK');
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(changes[0]?.type, 'ADDED');
    assert.equal(changes[0].object.metadata.name, 'stream-2');
    watch.close();
  });

  test('streaming list options are validated (400)', async () => {
    for (const [query, message] of [
      ['watch=1&sendInitialEvents=true', /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/],
      ['watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=1', /resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/],
      ['watch=1&resourceVersion=abc', /invalid resource version/],
    ] as const) {
      const res = await server.request('GET', `${CM}?${query}`);
      assert.equal(res.status, 400, query);
      assert.match(res.body.message, message);
    }
  });

  test('timeoutSeconds ends the stream cleanly', async () => {
    const watch = openWatch(server, `${CM}?watch=1&timeoutSeconds=1`);
    const started = Date.now();
    await watch.ended;
    assert.ok(Date.now() - started < 3000);
  });
});

describe('watch history window', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(['--watch-history-duration=300ms']);
  });
  after(async () => server.close());

  test('a resourceVersion older than the retained history gives a 410 Expired ERROR event', async () => {
    const first = await server.request('POST', CM, { body: configMap('old-1') });
    const second = await server.request('POST', CM, { body: configMap('old-2') });
    // The window counts from when the cache saw an event: wait for the cache to reach each write
    // (a list at NotOlderThan waits for it) so a loaded machine cannot shift the clock.
    const reached = (rv: string) => server.request('GET', `${CM}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    assert.equal((await reached(second.body.metadata.resourceVersion)).status, 200);
    await new Promise((r) => setTimeout(r, 600));
    const third = await server.request('POST', CM, { body: configMap('old-3') });
    assert.equal((await reached(third.body.metadata.resourceVersion)).status, 200);
    // timeoutSeconds bounds the wait should the window still reach back: the server ends the watch
    // (without it, the server's own limit is 30 to 60 minutes).
    const watch = openWatch(server, `${CM}?watch=1&timeoutSeconds=10&resourceVersion=${first.body.metadata.resourceVersion}`);
    assert.equal(await watch.status, 200);
    await watch.ended;
    assert.equal(watch.events.length, 1);
    const [error] = watch.events;
    assert.equal(error.type, 'ERROR');
    assert.equal(error.object.kind, 'Status');
    assert.equal(error.object.code, 410);
    assert.equal(error.object.reason, 'Expired');
    assert.match(error.object.message, /^too old resource version: \d+ \(\d+\)$/);
  });
});
