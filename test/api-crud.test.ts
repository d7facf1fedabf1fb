// End-to-end CRUD over HTTPS on every path shape of SPEC 4.1 (SPEC 2.3, 4.2, 4.3, 4.5, 4.8; FACTS 1, 3).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure, itemNames } from './helpers/api.ts';

let server: TestServer;
const NS_A = 'crud-a';
const NS_B = 'crud-b';
const CONFLICT = 'the object has been modified; please apply your changes to the latest version and try again';

interface KindCase {
  kind: string;
  plural: string;
  group: string;
  namespaced: boolean;
  body(name: string, ns: string, labels?: Record<string, string>): any;
  /** A change an update makes, and how to see it. */
  mutate(obj: any): void;
  changed(obj: any): boolean;
}

const meta = (name: string, labels?: Record<string, string>) => ({ name, ...(labels ? { labels } : {}) });
const KINDS: KindCase[] = [
  {
    kind: 'NetworkPolicy', plural: 'networkpolicies', group: 'networking.orch.io', namespaced: true,
    body: (name, _ns, labels) => ({ apiVersion: 'networking.orch.io/v1', kind: 'NetworkPolicy', metadata: meta(name, labels), spec: { podSelector: {} } }),
    mutate: (o) => (o.spec.podSelector = { matchLabels: { app: 'web' } }),
    changed: (o) => o.spec.podSelector.matchLabels?.app === 'web',
  },
  {
    kind: 'ConfigMap', plural: 'configmaps', group: '', namespaced: true,
    body: (name, _ns, labels) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(name, labels), data: { a: '1' } }),
    mutate: (o) => (o.data = { a: '2' }),
    changed: (o) => o.data.a === '2',
  },
  {
    kind: 'Secret', plural: 'secrets', group: '', namespaced: true,
    body: (name, _ns, labels) => ({ apiVersion: 'v1', kind: 'Secret', metadata: meta(name, labels), data: { a: 'MQ==' } }),
    mutate: (o) => (o.data = { a: 'Mg==' }),
    changed: (o) => o.data.a === 'Mg==',
  },
  {
    kind: 'ServiceAccount', plural: 'serviceaccounts', group: '', namespaced: true,
    body: (name, _ns, labels) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(name, labels) }),
    mutate: (o) => (o.automountServiceAccountToken = false),
    changed: (o) => o.automountServiceAccountToken === false,
  },
  {
    kind: 'Event', plural: 'events', group: '', namespaced: true,
    body: (name, ns, labels) => ({ apiVersion: 'v1', kind: 'Event', metadata: meta(name, labels), involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Started', message: 'one' }),
    mutate: (o) => (o.message = 'two'),
    changed: (o) => o.message === 'two',
  },
  {
    kind: 'Namespace', plural: 'namespaces', group: '', namespaced: false,
    body: (name, _ns, labels) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: meta(name, labels) }),
    mutate: (o) => (o.metadata.annotations = { note: 'x' }),
    changed: (o) => o.metadata.annotations?.note === 'x',
  },
];

const base = (k: KindCase) => (k.group ? `/apis/${k.group}/v1` : '/api/v1');
const collection = (k: KindCase, ns?: string) => (k.namespaced && ns ? `${base(k)}/namespaces/${ns}/${k.plural}` : `${base(k)}/${k.plural}`);
const item = (k: KindCase, ns: string, name: string) => `${collection(k, ns)}/${name}`;
const gr = (k: KindCase) => (k.group ? `${k.plural}.${k.group}` : k.plural);
const rv = (obj: any) => Number(obj.metadata.resourceVersion);

before(async () => {
  // These tests count objects: no controller adds config maps or service accounts to the namespaces.
  server = await startTestServer(['--controllers=garbagecollector,namespace']);
  for (const ns of [NS_A, NS_B]) assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
});
after(() => server?.close());

describe('lifecycle on every kind and path shape', () => {
  for (const k of KINDS) {
    test(`${k.kind}: create 201, get, list, PUT 200, stale PUT 409, delete 200 Status, 404, name reuse`, async () => {
      const name = `life-${k.plural}`;
      const created = await server.request('POST', collection(k, NS_A), { body: k.body(name, NS_A) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.kind, k.kind);
      assert.equal(created.body.apiVersion, k.group ? `${k.group}/v1` : 'v1');
      assert.equal(created.body.metadata.name, name);
      assert.equal(created.body.metadata.namespace, k.namespaced ? NS_A : undefined);
      const path = item(k, NS_A, name);

      const got = await server.request('GET', path);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, created.body);

      const listed = await server.request('GET', collection(k, NS_A));
      assert.equal(listed.status, 200);
      assert.equal(listed.body.kind, `${k.kind}List`);
      assert.equal(listed.body.apiVersion, k.group ? `${k.group}/v1` : 'v1');
      assert.match(listed.body.metadata.resourceVersion, /^\d+$/);
      assert.ok(Number(listed.body.metadata.resourceVersion) >= rv(created.body));
      assert.ok(itemNames(listed).includes(name));
      for (const i of listed.body.items) assert.equal(i.kind, k.kind);

      if (k.namespaced) {
        assert.equal((await server.request('POST', collection(k, NS_B), { body: k.body(name, NS_B) })).status, 201);
        const all = await server.request('GET', `${collection(k)}?fieldSelector=metadata.name=${name}`);
        assert.equal(all.body.kind, `${k.kind}List`);
        assert.deepEqual(all.body.items.map((i: any) => i.metadata.namespace).sort(), [NS_A, NS_B]);
        const onlyA = await server.request('GET', `${collection(k, NS_A)}?fieldSelector=metadata.name=${name}`);
        assert.deepEqual(onlyA.body.items.map((i: any) => i.metadata.namespace), [NS_A]);
      }

      const next = structuredClone(created.body);
      k.mutate(next);
      const updated = await server.request('PUT', path, { body: next });
      assert.equal(updated.status, 200, updated.text);
      assert.ok(k.changed(updated.body));
      assert.ok(rv(updated.body) > rv(created.body), 'resourceVersion increases');
      assert.equal(updated.body.metadata.uid, created.body.metadata.uid);

      const stale = structuredClone(created.body);
      k.mutate(stale);
      stale.metadata.labels = { stale: 'yes' };
      const conflict = await server.request('PUT', path, { body: stale });
      assertFailure(conflict, 409, 'Conflict', `Operation cannot be fulfilled on ${gr(k)} "${name}": ${CONFLICT}`);
      assert.deepEqual(conflict.body.details, { name, ...(k.group ? { group: k.group } : {}), kind: k.plural });
      assert.deepEqual((await server.request('GET', path)).body, updated.body, 'a refused update writes nothing');

      const deleted = await server.request('DELETE', path);
      assert.equal(deleted.status, 200, deleted.text);
      if (k.kind === 'Namespace') {
        // SPEC 3: a namespace is finalized first: it turns Terminating and the namespace controller removes it.
        assert.equal(deleted.body.kind, 'Namespace');
        assert.equal(deleted.body.status.phase, 'Terminating');
        const deadline = Date.now() + 10_000;
        while ((await server.request('GET', path)).status !== 404) {
          assert.ok(Date.now() < deadline, 'the empty namespace was not finalized');
          await new Promise((r) => setTimeout(r, 50));
        }
      } else {
        assert.deepEqual(deleted.body, {
          kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success',
          details: { name, ...(k.group ? { group: k.group } : {}), kind: k.plural, uid: created.body.metadata.uid },
        });
      }
      for (const method of ['GET', 'DELETE']) {
        const gone = await server.request(method, path);
        assertFailure(gone, 404, 'NotFound', `${gr(k)} "${name}" not found`);
        assert.deepEqual(gone.body.details, { name, ...(k.group ? { group: k.group } : {}), kind: k.plural });
      }

      const again = await server.request('POST', collection(k, NS_A), { body: k.body(name, NS_A) });
      assert.equal(again.status, 201, 'a name is reusable after deletion');
      assert.notEqual(again.body.metadata.uid, created.body.metadata.uid);
      assert.ok(rv(again.body) > rv(updated.body));
      assert.equal((await server.request('DELETE', path)).status, 200);
      if (k.namespaced) assert.equal((await server.request('DELETE', item(k, NS_B, name))).status, 200);
      else if (k.kind === 'Namespace') {
        // The re-created namespace is terminating again; let it go before the next test.
        while ((await server.request('GET', path)).status !== 404) await new Promise((r) => setTimeout(r, 50));
      }
    });
  }
});

describe('deletecollection', () => {
  for (const k of KINDS.filter((x) => x.namespaced)) {
    test(`${k.kind}: returns the ${k.kind}List of deleted items and deletes only those`, async () => {
      const make = (ns: string, name: string, set: string) => server.request('POST', collection(k, ns), { body: k.body(name, ns, { set }) });
      const versions: Record<string, string> = {};
      for (const [ns, name, set] of [[NS_A, 'dc-1', 'a'], [NS_A, 'dc-2', 'a'], [NS_A, 'dc-3', 'b'], [NS_B, 'dc-4', 'a']]) {
        const made = await make(ns, name, set);
        assert.equal(made.status, 201);
        versions[name] = made.body.metadata.resourceVersion;
      }
      const res = await server.request('DELETE', `${collection(k, NS_A)}?labelSelector=set%3Da`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.kind, `${k.kind}List`);
      assert.equal(res.body.apiVersion, k.group ? `${k.group}/v1` : 'v1');
      assert.deepEqual(itemNames(res), ['dc-1', 'dc-2']);
      for (const i of res.body.items) {
        assert.equal(i.kind, k.kind);
        assert.equal(i.metadata.namespace, NS_A);
        assert.equal(i.metadata.resourceVersion, versions[i.metadata.name], 'items as listed before deletion');
      }
      assert.deepEqual(itemNames(await server.request('GET', collection(k, NS_A))).filter((n) => n.startsWith('dc-')), ['dc-3']);
      assert.deepEqual(itemNames(await server.request('GET', collection(k, NS_B))).filter((n) => n.startsWith('dc-')), ['dc-4']);
      const rest = await server.request('DELETE', collection(k, NS_A));
      assert.deepEqual(itemNames(rest).filter((n) => n.startsWith('dc-')), ['dc-3']);
      assert.deepEqual(itemNames(await server.request('GET', collection(k, NS_A))).filter((n) => n.startsWith('dc-')), []);
      assert.equal((await server.request('DELETE', item(k, NS_B, 'dc-4'))).status, 200);
    });
  }

  test('Namespace has no deletecollection: 405 and nothing deleted', async () => {
    assertFailure(await server.request('DELETE', '/api/v1/namespaces'), 405, 'MethodNotAllowed');
    assert.ok(itemNames(await server.request('GET', '/api/v1/namespaces')).includes(NS_A));
  });
});

describe('updates', () => {
  const np = KINDS[0];
  test('PUT without resourceVersion is accepted for NetworkPolicy', async () => {
    const created = await server.request('POST', collection(np, NS_A), { body: np.body('unconditional', NS_A) });
    const body = structuredClone(created.body);
    delete body.metadata.resourceVersion;
    np.mutate(body);
    const res = await server.request('PUT', item(np, NS_A, 'unconditional'), { body });
    assert.equal(res.status, 200, res.text);
    assert.ok(rv(res.body) > rv(created.body));
    assert.equal(res.body.metadata.generation, 2);
  });

  test('PUT to a missing NetworkPolicy is 404 and creates nothing', async () => {
    const res = await server.request('PUT', item(np, NS_A, 'missing'), { body: np.body('missing', NS_A) });
    assertFailure(res, 404, 'NotFound', 'networkpolicies.networking.orch.io "missing" not found');
    assertFailure(await server.request('GET', item(np, NS_A, 'missing')), 404, 'NotFound');
  });

  test('PUT to a missing Event creates it (201): events allow create on update', async () => {
    const ev = KINDS.find((x) => x.kind === 'Event')!;
    const res = await server.request('PUT', item(ev, NS_A, 'put-created'), { body: ev.body('put-created', NS_A) });
    assert.equal(res.status, 201, res.text);
    assert.equal((await server.request('GET', item(ev, NS_A, 'put-created'))).body.metadata.uid, res.body.metadata.uid);
  });
});

describe('pretty and selectors', () => {
  test('pretty=true indents get and list output', async () => {
    for (const path of [`/api/v1/namespaces/${NS_A}`, '/api/v1/namespaces']) {
      const plain = await server.request('GET', path);
      const pretty = await server.request('GET', `${path}?pretty=true`);
      assert.equal(pretty.status, 200);
      assert.ok(!plain.text.includes('\n'));
      assert.match(pretty.text, /^\{\n {2}"/);
      assert.deepEqual(pretty.body, plain.body);
    }
  });

  test('labelSelector and fieldSelector filter lists', async () => {
    const np = KINDS[0];
    for (const [name, labels] of [['sel-web', { app: 'web' }], ['sel-db', { app: 'db' }], ['sel-none', undefined]] as const) {
      assert.equal((await server.request('POST', collection(np, NS_B), { body: np.body(name, NS_B, labels) })).status, 201);
    }
    const cases: Array<[string, string[]]> = [
      ['labelSelector=app%3Dweb', ['sel-web']],
      ['labelSelector=app%20in%20(web%2Cdb)', ['sel-db', 'sel-web']],
      ['labelSelector=!app', ['sel-none']],
      ['labelSelector=app!%3Dweb', ['sel-db', 'sel-none']],
      ['fieldSelector=metadata.name%3Dsel-db', ['sel-db']],
      ['fieldSelector=metadata.name!%3Dsel-db', ['sel-none', 'sel-web']],
      ['fieldSelector=metadata.name%3Dsel-db&labelSelector=app%3Dweb', []],
    ];
    for (const [query, names] of cases) {
      assert.deepEqual(itemNames(await server.request('GET', `${collection(np, NS_B)}?${query}`)), names, query);
    }
    const across = await server.request('GET', `/apis/networking.orch.io/v1/networkpolicies?fieldSelector=metadata.namespace%3D${NS_B}`);
    assert.deepEqual(itemNames(across), ['sel-db', 'sel-none', 'sel-web']);
  });

  test('kind-specific field selectors: Secret type, Event involvedObject.name', async () => {
    const secrets = `/api/v1/namespaces/${NS_B}/secrets`;
    await server.request('POST', secrets, { body: { metadata: { name: 'opaque' }, data: { a: 'YQ==' } } });
    await server.request('POST', secrets, { body: { metadata: { name: 'basic' }, type: 'orch.io/basic-auth', stringData: { username: 'u' } } });
    assert.deepEqual(itemNames(await server.request('GET', `${secrets}?fieldSelector=type%3DOpaque`)), ['opaque']);
    assert.deepEqual(itemNames(await server.request('GET', `${secrets}?fieldSelector=type%3Dorch.io%2Fbasic-auth`)), ['basic']);
    const events = `/api/v1/namespaces/${NS_B}/events`;
    for (const [name, target] of [['ev-1', 'pod-1'], ['ev-2', 'pod-2']]) {
      await server.request('POST', events, { body: { metadata: { name }, involvedObject: { kind: 'Pod', name: target, namespace: NS_B } } });
    }
    assert.deepEqual(itemNames(await server.request('GET', `${events}?fieldSelector=involvedObject.name%3Dpod-2`)), ['ev-2']);
  });

  test('unknown field selector and unparsable label selector are 400', async () => {
    assertFailure(
      await server.request('GET', `/apis/networking.orch.io/v1/namespaces/${NS_B}/networkpolicies?fieldSelector=spec.foo%3D1`),
      400, 'BadRequest', '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    // Namespace has a field-label conversion of its own upstream (FACTS 6.3).
    assertFailure(await server.request('GET', `/api/v1/namespaces?fieldSelector=type%3Dx`), 400, 'BadRequest', 'field label not supported: type');
    assertFailure(await server.request('GET', `/api/v1/namespaces/${NS_B}/configmaps?labelSelector=a%20in`), 400, 'BadRequest', /^unable to parse requirement: /);
  });
});

describe('chunked lists', () => {
  test('limit/continue returns every item once from one snapshot', async () => {
    const cms = `/api/v1/namespaces/${NS_B}/configmaps`;
    const names = Array.from({ length: 7 }, (_, i) => `page-${i}`);
    for (const name of names) await server.request('POST', cms, { body: { metadata: { name, labels: { page: 'yes' } } } });
    await server.request('POST', cms, { body: { metadata: { name: 'page-unlabelled' } } });
    const total = 8;
    const seen: string[] = [];
    let token = '';
    let snapshot: string | undefined;
    for (let chunk = 0; ; chunk++) {
      const res = await server.request('GET', `${cms}?limit=3${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.kind, 'ConfigMapList');
      assert.ok(res.body.items.length <= 3);
      snapshot ??= res.body.metadata.resourceVersion;
      assert.equal(res.body.metadata.resourceVersion, snapshot, 'every chunk has the first chunk\'s resourceVersion');
      seen.push(...res.body.items.map((i: any) => i.metadata.name));
      if (chunk === 0) await server.request('POST', cms, { body: { metadata: { name: 'page-zz-later' } } });
      if (!res.body.metadata.continue) {
        assert.equal(res.body.metadata.remainingItemCount, undefined, 'no remainingItemCount on the last chunk');
        break;
      }
      assert.equal(res.body.metadata.remainingItemCount, total - seen.length);
      token = res.body.metadata.continue;
    }
    assert.deepEqual(seen, [...names, 'page-unlabelled'], 'each item exactly once, in key order, none created after the snapshot');

    const selected = await server.request('GET', `${cms}?limit=3&labelSelector=page%3Dyes`);
    assert.equal(selected.body.items.length, 3);
    assert.ok(selected.body.metadata.continue);
    assert.equal(selected.body.metadata.remainingItemCount, undefined, 'omitted with a selector');
  });
});
