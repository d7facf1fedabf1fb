/**
 * Chunked lists (SPEC 2.3, 4.4 item 5, 4.6; FACTS 3) on both storage backends:
 * one snapshot for every chunk, key order, remainingItemCount, opaque continue
 * tokens, bad tokens (400), compacted snapshots (410 with an inconsistent
 * continue token) and deletecollection by page.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { assertFailure, expectWrite } from './helpers/api.ts';
import { BACKENDS, startServerOn } from './helpers/backends.ts';
import type { Response, TestServer } from './helpers/server.ts';

const NAMESPACES = ['ck-b', 'ck-a', 'ck-c'];
const ALL = '/api/v1/configmaps';
const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const key = (i: any) => `${i.metadata.namespace}/${i.metadata.name}`;
/** `[namespace/name, resourceVersion, data.k]` of each item. */
const state = (res: Response) => {
  assert.equal(res.status, 200, res.text);
  return res.body.items.map((i: any) => [key(i), i.metadata.resourceVersion, i.data?.k]);
};
const token = (json: unknown) => Buffer.from(JSON.stringify(json)).toString('base64url');
const BAD_TOKEN = 'invalid continue token: continue key is not valid';

for (const { backend, skip } of BACKENDS) {
  describe(`chunked lists (${backend})`, { skip }, () => {
    let server: TestServer;
    const objects = new Map<string, any>();
    const write = (method: string, path: string, body?: unknown) => expectWrite(server, method, path, body);
    const create = async (ns: string, name: string, labels: Record<string, string> = {}) => {
      const obj = await write('POST', cmPath(ns), { metadata: { name, labels }, data: { k: 'v1' } });
      objects.set(`${ns}/${name}`, obj);
      return obj;
    };
    const update = async (id: string, k: string) => {
      const [ns, name] = id.split('/');
      objects.set(id, await write('PUT', `${cmPath(ns)}/${name}`, { ...objects.get(id), data: { k } }));
    };
    const get = (path: string) => server.request('GET', path);
    /** Follows continue tokens from `first`; checks what every chunk must carry. */
    const readAll = async (path: string, limit: number, first: Response, between: () => Promise<void> = async () => {}) => {
      const chunks = [first];
      for (;;) {
        const { metadata } = chunks.at(-1)!.body;
        assert.equal(metadata.resourceVersion, first.body.metadata.resourceVersion, 'one snapshot for every chunk');
        if (!metadata.continue) break;
        assert.match(metadata.continue, /^[A-Za-z0-9_-]+$/, 'an opaque base64url token');
        assert.equal(chunks.at(-1)!.body.items.length <= limit, true);
        await between();
        chunks.push(await get(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}&continue=${metadata.continue}`));
      }
      assert.ok(!('remainingItemCount' in chunks.at(-1)!.body.metadata), 'no remainingItemCount on the last chunk');
      return chunks;
    };

    before(async () => {
      server = await startServerOn(backend, ['--etcd-compaction-interval=1s', '--controllers=garbagecollector,namespace']);
      for (const ns of NAMESPACES) await write('POST', '/api/v1/namespaces', { metadata: { name: ns } });
      // 25 objects across three namespaces, created out of key order.
      for (let i = 24; i >= 0; i--) await create(NAMESPACES[i % 3], `cm-${String(i).padStart(2, '0')}`, { parity: i % 2 ? 'odd' : 'even' });
    });
    after(async () => {
      await server?.close();
    });

    test('every chunk of one snapshot, items once in key order, remainingItemCount, writes in between invisible', async () => {
      const whole = await get(ALL);
      const expected = state(whole);
      assert.ok(expected.length >= 25);
      assert.deepEqual(expected.map(([k]: string[]) => k), expected.map(([k]: string[]) => k).sort(), 'key order: namespace, then name');
      const first = await get(`${ALL}?limit=4`);
      assert.equal(first.body.metadata.resourceVersion, whole.body.metadata.resourceVersion);
      let n = 0;
      // Between chunks: updates of a returned and a pending item, a delete of a pending one, creates behind and ahead.
      const at = (i: number) => expected[i][0] as string;
      const writes = [
        () => update(at(0), 'late'),
        () => update(at(expected.length - 1), 'late'),
        () => write('DELETE', `${cmPath(at(12).split('/')[0])}/${at(12).split('/')[1]}`),
        () => create(at(0).split('/')[0], `${at(0).split('/')[1]}a`),
        () => create('ck-c', 'zz-new'),
        () => create('ck-b', 'cm-99'),
      ];
      const chunks = await readAll(ALL, 4, first, async () => void (await writes[n++ % writes.length]?.()));
      assert.ok(n >= writes.length, 'every write happened while the list was read');
      assert.deepEqual(chunks.flatMap(state), expected, 'exactly the snapshot, each item once');
      let returned = 0;
      for (const chunk of chunks.slice(0, -1)) {
        returned += chunk.body.items.length;
        assert.equal(chunk.body.items.length, 4);
        assert.equal(chunk.body.metadata.remainingItemCount, expected.length - returned);
      }
      const last = chunks.at(-1)!.body.metadata;
      assert.ok(last.continue === undefined || last.continue === '', 'no continue at the end');
      // A fresh list sees the writes.
      const now = state(await get(ALL)).map(([k]: string[]) => k);
      assert.ok(now.includes(`${at(0)}a`) && now.includes('ck-c/zz-new') && !now.includes(at(12)));
    });

    test('walks of one snapshot get the same chunks, byte for byte; a write makes the next first chunk new', async () => {
      const walk = async () => {
        const first = await get(`${ALL}?limit=5`);
        return readAll(ALL, 5, first);
      };
      const [a, b] = [await walk(), await walk()];
      assert.equal(a[0].body.metadata.resourceVersion, b[0].body.metadata.resourceVersion, 'nothing changed between the walks');
      assert.equal(a.length, b.length);
      a.forEach((chunk, i) => assert.equal(chunk.text, b[i].text, `chunk ${i} is the same`));
      assert.deepEqual(a.flatMap((c) => state(c)), state(await get(ALL)), 'the chunks make the whole list');
      // Pretty output and Table chunks are their own encodings of the same items.
      const pretty = await get(`${ALL}?limit=5&pretty=true`);
      assert.deepEqual(state(pretty), state(a[0]));
      assert.notEqual(pretty.text, a[0].text);
      const created = await create('ck-a', 'cm-000-shared', {});
      const after = await get(`${ALL}?limit=5`);
      assert.ok(Number(after.body.metadata.resourceVersion) >= Number(created.metadata.resourceVersion));
      assert.ok(state(after).some(([k]: string[]) => k === 'ck-a/cm-000-shared'), 'the new object is in the first chunk after the write');
      // The old snapshot's chunks are still served, from the store now, unchanged.
      const again = await get(`${ALL}?limit=5&continue=${a[0].body.metadata.continue}`);
      assert.deepEqual(state(again), state(a[1]));
      await write('DELETE', `${cmPath('ck-a')}/cm-000-shared`);
      objects.delete('ck-a/cm-000-shared');
    });

    test('namespaced and selected chunks: no remainingItemCount with selectors', async () => {
      const whole = state(await get(`${cmPath('ck-a')}?labelSelector=parity%3Deven`));
      assert.ok(whole.length >= 3);
      for (const query of ['labelSelector=parity%3Deven', 'fieldSelector=metadata.namespace%3Dck-a,metadata.name!%3Dnone']) {
        const path = `${query.startsWith('label') ? cmPath('ck-a') : ALL}?${query}`;
        const chunks = await readAll(path, 2, await get(`${path}&limit=2`));
        for (const chunk of chunks) assert.ok(!('remainingItemCount' in chunk.body.metadata), query);
        const all = state(await get(path));
        assert.deepEqual(chunks.flatMap(state), all, query);
        if (query.startsWith('label')) assert.deepEqual(all, whole);
      }
      const plain = await readAll(cmPath('ck-b'), 3, await get(`${cmPath('ck-b')}?limit=3`));
      assert.deepEqual(plain.flatMap(state), state(await get(cmPath('ck-b'))));
      assert.equal(plain[0].body.metadata.remainingItemCount, state(await get(cmPath('ck-b'))).length - 3);
    });

    test('a garbage or tampered continue token is 400', async () => {
      const rv = Number((await get(ALL)).body.metadata.resourceVersion);
      const valid = (await get(`${ALL}?limit=1`)).body.metadata.continue;
      const cases: Array<[string, string | RegExp]> = [
        ['garbage!', `${BAD_TOKEN}: illegal base64 data at input byte 7`],
        ['abcde', `${BAD_TOKEN}: illegal base64 data at input byte 4`],
        [Buffer.from('not json').toString('base64url'), new RegExp(`^${BAD_TOKEN}: `)],
        [token(42), `${BAD_TOKEN}: cannot unmarshal into a continue token`],
        [`${valid.slice(0, 5)}${valid[5] === 'A' ? 'B' : 'A'}${valid.slice(6)}`, new RegExp(`^${BAD_TOKEN}`)],
        [token({ v: 'meta.k8s.io/v1', rv, start: 'ck-a/' }), `${BAD_TOKEN}: server does not recognize this encoded version meta.k8s.io/v1`],
        [token({ v: 'meta.orch.io/v1', rv: 0, start: 'ck-a/' }), `${BAD_TOKEN}: incorrect encoded start resourceVersion (version meta.orch.io/v1)`],
        [token({ v: 'meta.orch.io/v1', rv }), `${BAD_TOKEN}: encoded start key empty (version meta.orch.io/v1)`],
        [token({ v: 'meta.orch.io/v1', rv, start: '../secrets/x' }), `${BAD_TOKEN}: ../secrets/x`],
        [token({ v: 'meta.orch.io/v1', rv, start: 'ck-a/./cm-01' }), `${BAD_TOKEN}: ck-a/./cm-01`],
        [token({ v: 'meta.orch.io/v1', rv, start: 'ck-a/' }), `${BAD_TOKEN}: ck-a/`],
      ];
      for (const [value, message] of cases) {
        assertFailure(await get(`${ALL}?limit=2&continue=${encodeURIComponent(value)}`), 400, 'BadRequest', message);
      }
      // A well-formed token of one's own making is honoured: it starts at its key, at its revision.
      const forged = await get(`${ALL}?limit=100&continue=${token({ v: 'meta.orch.io/v1', rv, start: 'ck-c' })}`);
      assert.equal(forged.body.metadata.resourceVersion, String(rv));
      assert.ok(forged.body.items.length > 0 && forged.body.items.every((i: any) => i.metadata.namespace === 'ck-c'));
    });

    test('a continue token whose snapshot was compacted: 410 Expired with a token for the rest', async () => {
      const first = await get(`${ALL}?limit=5`);
      const rv = first.body.metadata.resourceVersion;
      const lastKey = key(first.body.items.at(-1));
      await update('ck-c/cm-20', 'after-compaction');
      await sleep(2500);
      let res = await get(`${ALL}?limit=5&continue=${first.body.metadata.continue}`);
      for (let i = 0; res.status === 200 && i < 30; i++) res = (await sleep(100), await get(`${ALL}?limit=5&continue=${first.body.metadata.continue}`));
      assert.equal(res.status, 410, res.text);
      assert.deepEqual({ ...res.body, metadata: undefined }, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: undefined,
        status: 'Failure',
        message:
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        reason: 'Expired',
        code: 410,
      });
      // Upstream's rv -1 token resumes after the first chunk at the latest revision.
      const next = res.body.metadata?.continue;
      assert.ok(next, `a continue token in the Status: ${res.text}`);
      assert.equal(JSON.parse(Buffer.from(next, 'base64url').toString()).rv, -1);
      const rest = await get(`${ALL}?limit=1000&continue=${next}`);
      assert.ok(Number(rest.body.metadata.resourceVersion) > Number(rv));
      const now = state(await get(ALL));
      assert.deepEqual(state(rest), now.filter(([k]: string[]) => k > lastKey));
      assert.ok(state(rest).some(([k, , d]: string[]) => k === 'ck-c/cm-20' && d === 'after-compaction'));
    });

    test('deletecollection with limit deletes one page and returns its continue', async () => {
      const ns = 'ck-c';
      const before = state(await get(cmPath(ns)));
      assert.ok(before.length > 4);
      const page = await server.request('DELETE', `${cmPath(ns)}?limit=3`);
      assert.equal(page.status, 200, page.text);
      assert.equal(page.body.kind, 'ConfigMapList');
      assert.deepEqual(state(page), before.slice(0, 3));
      assert.ok(page.body.metadata.continue);
      assert.equal(page.body.metadata.remainingItemCount, before.length - 3);
      assert.deepEqual(state(await get(cmPath(ns))), before.slice(3));
      const rest = await server.request('DELETE', `${cmPath(ns)}?limit=100&continue=${page.body.metadata.continue}`);
      assert.equal(rest.status, 200, rest.text);
      assert.deepEqual(state(rest), before.slice(3));
      assert.ok(!rest.body.metadata.continue);
      assert.deepEqual(state(await get(cmPath(ns))), []);
      assertFailure(await server.request('DELETE', `${cmPath(ns)}?limit=1&continue=nope!`), 400, 'BadRequest', `${BAD_TOKEN}: illegal base64 data at input byte 4`);
    });
  });
}
