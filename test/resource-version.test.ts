/**
 * SPEC 4.6 resource-version semantics, cell by cell, for get, list and watch, on
 * both storage backends: Most Recent, Any, Not older than, Exact (the old state
 * and 410 once compacted), continue tokens, the invalid combinations (400,
 * FACTS 1.1) and too large versions (504 Timeout with Retry-After).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { assertFailure, expectWrite } from './helpers/api.ts';
import { BACKENDS, startServerOn } from './helpers/backends.ts';
import type { Response, TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const NS = 'rv-test';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const INVALID = 'ListOptions.meta.orch.io "" is invalid: ';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** `[name, resourceVersion, data.k]` of each item: enough to tell states apart. */
const state = (res: Response) => {
  assert.equal(res.status, 200, res.text);
  return res.body.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion, i.data?.k]);
};

function assertTooLarge(res: Response, rv: number): void {
  assertFailure(res, 504, 'Timeout', new RegExp(`^Timeout: Too large resource version: ${rv}, current: \\d+$`));
  assert.deepEqual(res.body.details.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
  assert.equal(res.body.details.retryAfterSeconds, 1);
  assert.equal(res.headers['retry-after'], '1');
}

for (const { backend, skip } of BACKENDS) {
  describe(`resource versions (${backend})`, { skip }, () => {
    let server: TestServer;
    const write = (method: string, path: string, body?: unknown) => expectWrite(server, method, path, body);
    const put = (name: string, k: string, base: any) => write('PUT', `${CM}/${name}`, { ...base, data: { k } });
    const list = (query: string) => server.request('GET', `${CM}?${query}`);
    const current = async () => Number((await server.request('GET', CM)).body.metadata.resourceVersion);

    before(async () => {
      // Revisions are counted: no lease renewals or controllers writing in between.
      server = await startServerOn(backend, ['--feature-gates=WatchList=true', '--etcd-compaction-interval=1s', '--watch-history-duration=1s', '--leader-elect=false', '--controllers=garbagecollector,namespace']);
      await write('POST', '/api/v1/namespaces', { metadata: { name: NS } });
    });
    after(async () => {
      await server?.close();
    });

    test('get: unset = most recent, "0" = any, other = not older than', async () => {
      const v1 = await write('POST', CM, { metadata: { name: 'g' }, data: { k: '1' } });
      const v2 = await put('g', '2', v1);
      const latest = await server.request('GET', `${CM}/g`);
      assert.equal(latest.body.metadata.resourceVersion, v2.metadata.resourceVersion);
      const any = await server.request('GET', `${CM}/g?resourceVersion=0`);
      assert.equal(any.status, 200);
      assert.ok([v1.metadata.resourceVersion, v2.metadata.resourceVersion].includes(any.body.metadata.resourceVersion));
      for (const rv of [v1.metadata.resourceVersion, v2.metadata.resourceVersion]) {
        const res = await server.request('GET', `${CM}/g?resourceVersion=${rv}`);
        assert.equal(res.body.metadata.resourceVersion, v2.metadata.resourceVersion, 'not older than: the newest state');
        assert.equal(res.body.data.k, '2');
      }
      assertFailure(await server.request('GET', `${CM}/missing?resourceVersion=0`), 404, 'NotFound', 'configmaps "missing" not found');
      assertFailure(await server.request('GET', `${CM}/g?resourceVersion=abc`), 400, 'BadRequest', 'invalid resource version: "abc"');
    });

    test('list without limit: unset = most recent, "0" = any, other / NotOlderThan = not older than', async () => {
      const created = await write('POST', CM, { metadata: { name: 'l1' }, data: { k: 'a' } });
      const rv = Number(created.metadata.resourceVersion);
      const recent = await list('');
      assert.ok(Number(recent.body.metadata.resourceVersion) >= rv);
      assert.ok(state(recent).some(([n]: string[]) => n === 'l1'), 'a consistent read sees the write it follows');
      const cases: Array<[string, number]> = [
        ['resourceVersion=0', 0],
        ['resourceVersion=0&resourceVersionMatch=NotOlderThan', 0],
        [`resourceVersion=${rv}`, rv],
        [`resourceVersion=${rv - 1}&resourceVersionMatch=NotOlderThan`, rv - 1],
      ];
      for (const [query, minimum] of cases) {
        const res = await list(query);
        const at = Number(res.body.metadata.resourceVersion);
        assert.ok(at >= minimum, query);
        // Whatever version was chosen, the items are the state at that version.
        assert.deepEqual(state(res), state(await list(`resourceVersion=${at}&resourceVersionMatch=Exact`)), query);
      }
    });

    test('Exact and limit with a version return exactly the old state, and continue at it', async () => {
      const a = await write('POST', CM, { metadata: { name: 'x-a' }, data: { k: 'a1' } });
      await write('POST', CM, { metadata: { name: 'x-b' }, data: { k: 'b1' } });
      const old = await list('');
      const rv = old.body.metadata.resourceVersion;
      // After rv: x-a changes, x-b goes, x-c appears.
      await put('x-a', 'a2', a);
      await write('DELETE', `${CM}/x-b`);
      await write('POST', CM, { metadata: { name: 'x-c' }, data: { k: 'c1' } });
      for (const query of [`resourceVersion=${rv}&resourceVersionMatch=Exact`, `resourceVersion=${rv}&resourceVersionMatch=Exact&limit=500`, `resourceVersion=${rv}&limit=500`]) {
        const res = await list(query);
        assert.equal(res.body.metadata.resourceVersion, rv, query);
        assert.deepEqual(state(res), state(old), query);
      }
      // Chunked, with Exact or with limit alone: every chunk at rv, together the old state.
      let chunks: Response[] = [];
      for (const first of [`resourceVersion=${rv}&resourceVersionMatch=Exact&limit=2`, `resourceVersion=${rv}&limit=2`]) {
        chunks = [await list(first)];
        while (chunks.at(-1)!.body.metadata.continue) chunks.push(await list(`limit=2&continue=${chunks.at(-1)!.body.metadata.continue}`));
        assert.ok(chunks.length > 1);
        for (const c of chunks) assert.equal(c.body.metadata.resourceVersion, rv, first);
        assert.deepEqual(chunks.flatMap(state), state(old), first);
      }
      // continue with resourceVersion "0" is treated as continue (SPEC 4.6).
      const second = await list(`limit=2&resourceVersion=0&continue=${chunks[0].body.metadata.continue}`);
      assert.deepEqual([second.body.metadata.resourceVersion, state(second)], [rv, state(chunks[1])]);
      // limit with unset / "0": the current state, first n items.
      const now = await list('');
      for (const query of ['limit=2', 'limit=2&resourceVersion=0', 'limit=2&resourceVersion=0&resourceVersionMatch=NotOlderThan']) {
        assert.deepEqual(state(await list(query)), state(now).slice(0, 2), query);
      }
      // NotOlderThan with limit: at least rv, and the state at the version served.
      const newer = await list(`resourceVersion=${rv}&resourceVersionMatch=NotOlderThan&limit=2`);
      assert.ok(Number(newer.body.metadata.resourceVersion) >= Number(rv));
      assert.deepEqual(state(newer), state(await list(`resourceVersion=${newer.body.metadata.resourceVersion}&resourceVersionMatch=Exact`)).slice(0, 2));
    });

    test('invalid combinations are 400 with upstream messages', async () => {
      const token = (await list('limit=1')).body.metadata.continue;
      assert.ok(token, 'needs two objects');
      const cases: Array<[string, string]> = [
        ['resourceVersionMatch=Exact', `${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`],
        ['resourceVersionMatch=Exact&limit=1', `${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`],
        ['resourceVersionMatch=NotOlderThan', `${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`],
        ['resourceVersionMatch=NotOlderThan&limit=1', `${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`],
        ['resourceVersionMatch=Exact&resourceVersion=0', `${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`],
        ['resourceVersionMatch=Exact&resourceVersion=0&limit=1', `${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`],
        ['resourceVersionMatch=Other&resourceVersion=1', `${INVALID}resourceVersionMatch: Unsupported value: "Other": supported values: "Exact", "NotOlderThan", ""`],
        [`resourceVersionMatch=Exact&resourceVersion=1&limit=1&continue=${token}`, `${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`],
        [
          `resourceVersionMatch=NotOlderThan&limit=1&continue=${token}`,
          `${INVALID}[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]`,
        ],
        [`resourceVersion=1&limit=1&continue=${token}`, 'specifying resource version is not allowed when using continue'],
        ['sendInitialEvents=true', `${INVALID}sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`],
        ['resourceVersion=abc', 'invalid resource version: "abc"'],
      ];
      for (const [query, message] of cases) assertFailure(await list(query), 400, 'BadRequest', message);
    });

    test('a version the store has not reached: 504 Timeout after ~3 s, with Retry-After', async () => {
      const future = (await current()) + 1000;
      const started = Date.now();
      const results = await Promise.all([
        server.request('GET', `${CM}/g?resourceVersion=${future}`),
        list(`resourceVersion=${future}`),
        list(`resourceVersion=${future}&limit=1`),
        list(`resourceVersion=${future}&resourceVersionMatch=NotOlderThan`),
        list(`resourceVersion=${future}&resourceVersionMatch=Exact`),
      ]);
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 2900 && elapsed < 8000, `waited ${elapsed} ms`);
      for (const res of results) assertTooLarge(res, future);
    });

    test('a future version reached by a write within the wait succeeds', async () => {
      const next = (await current()) + 1;
      const waiting = Promise.all([server.request('GET', `${CM}/late?resourceVersion=${next}`), list(`resourceVersion=${next}`), list(`resourceVersion=${next}&resourceVersionMatch=Exact`)]);
      await sleep(300);
      const created = await write('POST', CM, { metadata: { name: 'late' }, data: { k: 'z' } });
      assert.equal(Number(created.metadata.resourceVersion), next);
      const [got, listed, exact] = await waiting;
      assert.equal(got.status, 200, got.text);
      assert.equal(got.body.metadata.resourceVersion, String(next));
      assert.ok(Number(listed.body.metadata.resourceVersion) >= next);
      assert.ok(state(listed).some(([n]: string[]) => n === 'late'));
      assert.equal(exact.body.metadata.resourceVersion, String(next));
      assert.deepEqual(state(exact).find(([n]: string[]) => n === 'late'), ['late', String(next), 'z']);
    });

    test('watch: unset and "0" start with the state, other starts after it', async () => {
      const w1 = await write('POST', CM, { metadata: { name: 'w-1', labels: { w: 'y' } } });
      const existing = state(await list('labelSelector=w')).map(([n]: string[]) => n);
      for (const rv of ['', '&resourceVersion=0']) {
        const watch = openWatch(server, `${CM}?watch=1&labelSelector=w${rv}`);
        const events = await watch.waitFor(existing.length);
        watch.close();
        assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), existing.map((n: string) => ['ADDED', n]), rv);
      }
      const from = Number(w1.metadata.resourceVersion);
      const watch = openWatch(server, `${CM}?watch=1&labelSelector=w&resourceVersion=${from}`);
      // A version two writes ahead: only what comes after it (Start at Exact).
      const ahead = openWatch(server, `${CM}?watch=1&labelSelector=w&resourceVersion=${from + 2}`);
      assert.deepEqual([await watch.status, await ahead.status], [200, 200]);
      const writes = [await put('w-1', 'b', w1)];
      writes.push(await write('POST', CM, { metadata: { name: 'w-2', labels: { w: 'y' } } }));
      writes.push(await write('POST', CM, { metadata: { name: 'w-3', labels: { w: 'y' } } }));
      const seen = (await watch.waitFor(3)).map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]);
      const seenAhead = (await ahead.waitFor(1)).map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]);
      await sleep(200);
      watch.close();
      ahead.close();
      const rvs = writes.map((w) => w.metadata.resourceVersion);
      assert.deepEqual(seen, [['MODIFIED', 'w-1', rvs[0]], ['ADDED', 'w-2', rvs[1]], ['ADDED', 'w-3', rvs[2]]]);
      assert.equal(watch.events.length, 3);
      assert.deepEqual(seenAhead, writes.filter((w) => Number(w.metadata.resourceVersion) > from + 2).map((w) => ['ADDED', w.metadata.name, w.metadata.resourceVersion]));
      assert.equal(ahead.events.length, seenAhead.length);
    });

    test('watch option combinations are 400', async () => {
      const cases: Array<[string, string]> = [
        ['resourceVersionMatch=NotOlderThan&resourceVersion=1', `${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`],
        ['sendInitialEvents=true', `${INVALID}resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`],
        [
          'sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1',
          `${INVALID}[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]`,
        ],
      ];
      for (const [query, message] of cases) assertFailure(await list(`watch=1&${query}`), 400, 'BadRequest', message);
    });

    test('compacted: Exact and limit lists get 410 Expired, a watch too old for the history an ERROR 410', async () => {
      const old = (await write('POST', CM, { metadata: { name: 'c-1' } })).metadata.resourceVersion;
      await write('POST', CM, { metadata: { name: 'c-2' } });
      // Compaction (every 1 s, to the revision one interval back) and the 1 s watch history pass `old`.
      await sleep(2500);
      let exact = await list(`resourceVersion=${old}&resourceVersionMatch=Exact`);
      for (let i = 0; exact.status === 200 && i < 30; i++) exact = (await sleep(100), await list(`resourceVersion=${old}&resourceVersionMatch=Exact`));
      assertFailure(exact, 410, 'Expired', 'The resourceVersion for the provided list is too old.');
      assertFailure(await list(`resourceVersion=${old}&limit=1`), 410, 'Expired', 'The resourceVersion for the provided list is too old.');
      // Not older than is served from the current state.
      assert.equal((await list(`resourceVersion=${old}&resourceVersionMatch=NotOlderThan&limit=1`)).status, 200);
      // timeoutSeconds bounds the wait if the version were still reachable (the server's own limit is 30 to 60 minutes).
      const watch = openWatch(server, `${CM}?watch=1&timeoutSeconds=10&resourceVersion=${old}`);
      assert.equal(await watch.status, 200);
      await watch.ended;
      assert.equal(watch.events.length, 1);
      const [{ type, object }] = watch.events;
      assert.equal(type, 'ERROR');
      assert.deepEqual({ ...object, message: undefined }, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410, message: undefined });
      assert.match(object.message, new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`));
    });
  });
}
