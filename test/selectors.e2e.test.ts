/**
 * Label and field selectors end to end (SPEC 4.3; FACTS 1.1, 6.3) on list,
 * watch and deletecollection, on both storage backends: every label operator,
 * the generic and the per-kind field selectors (Secret, Event, Namespace), and
 * the 400s for unknown fields and unparsable selectors.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { assertFailure, expectWrite } from './helpers/api.ts';
import { BACKENDS, startServerOn } from './helpers/backends.ts';
import type { Response, TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const [A, B, C] = ['sel-a', 'sel-b', 'sel-c'];
const ns = (n: string) => `/api/v1/namespaces/${n}`;
const q = (s: string) => encodeURIComponent(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const names = (res: Response) => {
  assert.equal(res.status, 200, res.text);
  return res.body.items.map((i: any) => (i.metadata.namespace ? `${i.metadata.namespace}/${i.metadata.name}` : i.metadata.name));
};
/** Configmaps of namespace A by label set; B and C hold a few more. */
const LABELS: Record<string, Record<string, string>> = {
  a: { app: 'web', tier: 'front' },
  b: { app: 'web', tier: 'back' },
  c: { app: 'db', tier: 'back' },
  d: { app: 'db' },
  e: {},
  f: { app: 'cache', env: 'prod' },
};

for (const { backend, skip } of BACKENDS) {
  describe(`selectors end to end (${backend})`, { skip }, () => {
    let server: TestServer;
    const write = (method: string, path: string, body?: unknown) => expectWrite(server, method, path, body);
    const get = (path: string) => server.request('GET', path);
    const event = (name: string, kind: string, objectName: string, reason: string) =>
      write('POST', `${ns(A)}/events`, { metadata: { name }, involvedObject: { kind, name: objectName, namespace: A }, reason, message: 'm', type: 'Normal' });

    before(async () => {
      server = await startServerOn(backend, ['--controllers=garbagecollector,namespace']);
      for (const n of [A, B, C]) await write('POST', '/api/v1/namespaces', { metadata: { name: n } });
      for (const [name, labels] of Object.entries(LABELS)) await write('POST', `${ns(A)}/configmaps`, { metadata: { name, labels } });
      await write('POST', `${ns(B)}/configmaps`, { metadata: { name: 'g', labels: { app: 'web' } } });
      await write('POST', `${ns(B)}/configmaps`, { metadata: { name: 'h', labels: { tier: 'front' } } });
      await write('POST', `${ns(A)}/secrets`, { metadata: { name: 's-opaque' }, stringData: { k: 'v' } });
      await write('POST', `${ns(A)}/secrets`, { metadata: { name: 's-custom' }, type: 'example.com/custom', stringData: { k: 'v' } });
      await event('ev-1', 'Pod', 'p1', 'Started');
      await event('ev-2', 'Pod', 'p2', 'Failed');
      await event('ev-3', 'Node', 'p1', 'Started');
    });
    after(async () => {
      await server?.close();
    });

    test('label selectors on list: every operator and combinations', async () => {
      const cases: Array<[string, string[]]> = [
        ['', ['a', 'b', 'c', 'd', 'e', 'f']],
        ['app=web', ['a', 'b']],
        ['app==web', ['a', 'b']],
        ['app!=web', ['c', 'd', 'e', 'f']],
        ['app in (web,db)', ['a', 'b', 'c', 'd']],
        ['app notin (web,db)', ['e', 'f']],
        ['tier', ['a', 'b', 'c']],
        ['!tier', ['d', 'e', 'f']],
        ['app=web,tier=back', ['b']],
        ['app in (db),!tier', ['d']],
        ['app,tier notin (front)', ['b', 'c', 'd', 'f']],
        ['env=prod,app=cache', ['f']],
        ['app=nope', []],
      ];
      for (const [selector, want] of cases) {
        assert.deepEqual(names(await get(`${ns(A)}/configmaps?labelSelector=${q(selector)}`)), want.map((n) => `${A}/${n}`), selector);
      }
      assert.deepEqual(names(await get(`/api/v1/configmaps?labelSelector=${q('app=web')}`)), [`${A}/a`, `${A}/b`, `${B}/g`]);
    });

    test('field selectors on list: metadata, Secret type, Event involvedObject and reason, Namespace status.phase', async () => {
      const cases: Array<[string, string, string[]]> = [
        [`${ns(A)}/configmaps`, 'metadata.name=a', [`${A}/a`]],
        [`${ns(A)}/configmaps`, 'metadata.name==a', [`${A}/a`]],
        [`${ns(A)}/configmaps`, 'metadata.name!=a,metadata.name!=e', ['b', 'c', 'd', 'f'].map((n) => `${A}/${n}`)],
        ['/api/v1/configmaps', `metadata.namespace=${B}`, [`${B}/g`, `${B}/h`]],
        ['/api/v1/configmaps', `metadata.namespace=${B},metadata.name!=g`, [`${B}/h`]],
        [`${ns(A)}/secrets`, 'type=Opaque', [`${A}/s-opaque`]],
        [`${ns(A)}/secrets`, 'type!=Opaque', [`${A}/s-custom`]],
        [`${ns(A)}/secrets`, 'type=example.com/custom,metadata.name=s-custom', [`${A}/s-custom`]],
        [`${ns(A)}/events`, 'involvedObject.kind=Pod', [`${A}/ev-1`, `${A}/ev-2`]],
        [`${ns(A)}/events`, 'involvedObject.name=p1', [`${A}/ev-1`, `${A}/ev-3`]],
        [`${ns(A)}/events`, 'reason=Started,involvedObject.kind!=Pod', [`${A}/ev-3`]],
        ['/api/v1/events', 'involvedObject.kind=Pod,reason=Failed', [`${A}/ev-2`]],
        ['/api/v1/namespaces', 'status.phase!=Active', []],
        ['/api/v1/namespaces', `status.phase=Active,metadata.name=${B}`, [B]],
      ];
      for (const [path, selector, want] of cases) assert.deepEqual(names(await get(`${path}?fieldSelector=${q(selector)}`)), want, `${path} ${selector}`);
      const active = names(await get(`/api/v1/namespaces?fieldSelector=${q('status.phase=Active')}`));
      assert.deepEqual(active, names(await get('/api/v1/namespaces')));
      assert.ok([A, B, C].every((n) => active.includes(n)));
      // Label and field selectors together.
      assert.deepEqual(names(await get(`${ns(A)}/configmaps?labelSelector=${q('app=web')}&fieldSelector=${q('metadata.name!=a')}`)), [`${A}/b`]);
    });

    test('unknown field selectors and unparsable selectors are 400 on list, watch and deletecollection', async () => {
      const cases: Array<[string, string, string]> = [
        [`${ns(A)}/configmaps`, `fieldSelector=${q('spec.foo=1')}`, '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"'],
        [`${ns(A)}/configmaps`, `fieldSelector=${q('type=Opaque')}`, '"type" is not a known field selector: only "metadata.name", "metadata.namespace"'],
        [`${ns(A)}/secrets`, `fieldSelector=${q('foo=x')}`, 'field label not supported: foo'],
        [`${ns(A)}/events`, `fieldSelector=${q('involvedObject.bogus=x')}`, 'field label not supported: involvedObject.bogus'],
        ['/api/v1/namespaces', `fieldSelector=${q('metadata.namespace=x')}`, 'field label not supported: metadata.namespace'],
        [`${ns(A)}/configmaps`, `fieldSelector=${q('metadata.name')}`, "invalid selector: 'metadata.name'; can't understand 'metadata.name'"],
        [`${ns(A)}/configmaps`, `labelSelector=${q('a b')}`, "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
        [`${ns(A)}/configmaps`, `labelSelector=${q('a=b=c')}`, "found '=', expected: ',' or 'end of string'"],
        [`${ns(A)}/configmaps`, `labelSelector=${q('app in (web')}`, "unable to parse requirement: found '', expected: ',' or ')'"],
        [`${ns(A)}/configmaps`, `labelSelector=${q('a,')}`, "found '', expected: identifier after ','"],
      ];
      for (const [path, query, message] of cases) {
        // Namespaces have no deletecollection (405), as upstream.
        for (const [method, extra] of [['GET', ''], ['GET', '&watch=1'], ...(path.endsWith('namespaces') ? [] : [['DELETE', '']])]) {
          assertFailure(await server.request(method, `${path}?${query}${extra}`), 400, 'BadRequest', message);
        }
      }
      assert.equal(names(await get(`${ns(A)}/configmaps`)).length, 6, 'a rejected deletecollection deletes nothing');
    });

    test('watch with selectors: entering is ADDED, leaving DELETED, the rest unseen', async () => {
      const start = (await get(`${ns(C)}/configmaps`)).body.metadata.resourceVersion;
      const byLabel = openWatch(server, `${ns(C)}/configmaps?watch=1&resourceVersion=${start}&labelSelector=${q('app in (web),!legacy')}`);
      const byField = openWatch(server, `/api/v1/configmaps?watch=1&resourceVersion=${start}&fieldSelector=${q(`metadata.name=z,metadata.namespace=${C}`)}`);
      const byType = openWatch(server, `/api/v1/secrets?watch=1&resourceVersion=${start}&fieldSelector=${q('type=example.com/custom')}`);
      const cm = `${ns(C)}/configmaps`;
      const x1 = await write('POST', cm, { metadata: { name: 'x', labels: { app: 'web' } } });
      const x2 = await write('PUT', `${cm}/x`, { ...x1, metadata: { ...x1.metadata, labels: { app: 'db' } } });
      const x3 = await write('PUT', `${cm}/x`, { ...x2, metadata: { ...x2.metadata, labels: { app: 'web' } } });
      const x4 = await write('PUT', `${cm}/x`, { ...x3, data: { k: 'v' } });
      const x5 = await write('PUT', `${cm}/x`, { ...x4, metadata: { ...x4.metadata, labels: { app: 'web', legacy: 'yes' } } });
      await write('POST', cm, { metadata: { name: 'y', labels: { app: 'db' } } });
      const z1 = await write('POST', cm, { metadata: { name: 'z' } });
      const z2 = await write('PUT', `${cm}/z`, { ...z1, data: { k: 'v' } });
      await write('DELETE', `${cm}/z`);
      await write('POST', `${ns(B)}/configmaps`, { metadata: { name: 'z' } });
      const s1 = await write('POST', `${ns(C)}/secrets`, { metadata: { name: 's' }, type: 'example.com/custom' });
      await write('POST', `${ns(C)}/secrets`, { metadata: { name: 'o' } });
      await write('DELETE', `${ns(C)}/secrets/s`);
      const rv = (o: any) => o.metadata.resourceVersion;
      const seen = async (watch: ReturnType<typeof openWatch>, n: number) => {
        await watch.waitFor(n);
        await sleep(200);
        watch.close();
        return watch.events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion, e.object.metadata.labels?.app]);
      };
      assert.deepEqual(await seen(byLabel, 5), [
        ['ADDED', 'x', rv(x1), 'web'],
        ['DELETED', 'x', rv(x2), 'web'],
        ['ADDED', 'x', rv(x3), 'web'],
        ['MODIFIED', 'x', rv(x4), 'web'],
        ['DELETED', 'x', rv(x5), 'web'],
      ]);
      const field = await seen(byField, 3);
      assert.deepEqual(field.slice(0, 2), [['ADDED', 'z', rv(z1), undefined], ['MODIFIED', 'z', rv(z2), undefined]]);
      assert.equal(field[2][0], 'DELETED');
      assert.ok(Number(field[2][2]) > Number(rv(z2)));
      const secrets = await seen(byType, 2);
      assert.deepEqual(secrets[0], ['ADDED', 's', rv(s1), undefined]);
      assert.equal(secrets[1][0], 'DELETED');
      assert.equal(secrets.length, 2);
    });

    test('deletecollection with selectors deletes exactly the selected objects', async () => {
      const cm = `${ns(B)}/configmaps`;
      for (const [name, labels] of Object.entries(LABELS)) await write('POST', cm, { metadata: { name: `d-${name}`, labels } });
      const byLabel = await server.request('DELETE', `${cm}?labelSelector=${q('app in (web,db),tier')}`);
      assert.equal(byLabel.body.kind, 'ConfigMapList');
      assert.deepEqual(names(byLabel), [`${B}/d-a`, `${B}/d-b`, `${B}/d-c`]);
      const byField = await server.request('DELETE', `${cm}?fieldSelector=${q('metadata.name!=d-e,metadata.name!=g')}&labelSelector=${q('!tier')}`);
      assert.deepEqual(names(byField), [`${B}/d-d`, `${B}/d-f`, `${B}/z`]);
      assert.deepEqual(names(await get(cm)), [`${B}/d-e`, `${B}/g`, `${B}/h`]);
      const events = await server.request('DELETE', `${ns(A)}/events?fieldSelector=${q('involvedObject.kind=Pod')}`);
      assert.deepEqual(names(events), [`${A}/ev-1`, `${A}/ev-2`]);
      assert.deepEqual(names(await get(`${ns(A)}/events`)), [`${A}/ev-3`]);
    });
  });
}
