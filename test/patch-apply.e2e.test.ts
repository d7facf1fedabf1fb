/**
 * PATCH over HTTPS (SPEC 4.5, 4.9): the four patch types, server-side apply
 * ownership and conflicts, managedFields, dry run, and retries on concurrent writers.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';

const NP = '/apis/networking.orch.io/v1/namespaces/default/networkpolicies';
const policy = (name: string, app = name) => ({ apiVersion: 'networking.orch.io/v1', kind: 'NetworkPolicy', metadata: { name, labels: { app } }, spec: { podSelector: { matchLabels: { app } } } });

describe('patch and apply', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server.close());

  const patch = (name: string, type: string, body: unknown, query = '') =>
    server.request('PATCH', `${NP}/${name}${query}`, { raw: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': type } });
  const create = async (name: string) => {
    const res = await server.request('POST', NP, { body: policy(name), headers: { 'user-agent': 'curl/8.5' } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  test('JSON patch, merge patch and strategic merge patch', async () => {
    await create('p1');
    const json = await patch('p1', 'application/json-patch+json', [
      { op: 'test', path: '/metadata/labels/app', value: 'p1' },
      { op: 'add', path: '/metadata/labels/tier', value: 'web' },
      { op: 'add', path: '/spec/ingress', value: [{ ports: [{ port: 80 }] }] },
    ]);
    assert.equal(json.status, 200, json.text);
    assert.deepEqual(json.body.metadata.labels, { app: 'p1', tier: 'web' });
    assert.equal(json.body.spec.ingress[0].ports[0].protocol, 'TCP', 'defaults apply to patched objects');
    assert.equal(json.body.metadata.generation, 2);

    const merge = await patch('p1', 'application/merge-patch+json', { metadata: { labels: { tier: null, env: 'prod' } } });
    assert.deepEqual(merge.body.metadata.labels, { app: 'p1', env: 'prod' });

    const strategic = await patch('p1', 'application/strategic-merge-patch+json', { metadata: { finalizers: ['example.com/a'] }, spec: { ingress: [{ ports: [{ port: 443 }] }] } });
    assert.equal(strategic.status, 200, strategic.text);
    assert.deepEqual(strategic.body.spec.ingress, [{ ports: [{ port: 443, protocol: 'TCP' }] }], 'atomic lists are replaced');
    const more = await patch('p1', 'application/strategic-merge-patch+json', { metadata: { finalizers: ['example.com/b'] } });
    assert.deepEqual(more.body.metadata.finalizers, ['example.com/a', 'example.com/b'], 'finalizers merge as a set');
    await patch('p1', 'application/merge-patch+json', { metadata: { finalizers: null } });
  });

  test('bad patches: 415, 400, 422, 404 — and nothing is written', async () => {
    const before = (await create('p2')).metadata.resourceVersion;
    const cases: Array<[string, unknown, number, string | RegExp]> = [
      ['text/plain', 'x', 415, /^the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/strategic-merge-patch\+json, application\/apply-patch\+yaml$/],
      ['application/json-patch+json', '{"op":"add"}', 400, /cannot unmarshal object into Go value of type jsonpatch.Patch/],
      ['application/json-patch+json', [{ op: 'test', path: '/metadata/name', value: 'other' }], 422, 'the server rejected our request due to an error in our request'],
      ['application/merge-patch+json', '{not json', 400, /^error decoding patch/],
      ['application/merge-patch+json', { spec: { ingress: [{ ports: [{ port: 99999 }] }] } }, 422, /spec\.ingress\[0\]\.ports\[0\]\.port: Invalid value: 99999: must be between 1 and 65535, inclusive/],
      ['application/merge-patch+json', { spec: { podSelector: 'x' } }, 400, /cannot unmarshal string/],
    ];
    for (const [type, body, status, message] of cases) {
      const res = await patch('p2', type, body);
      assert.equal(res.status, status, `${type} ${JSON.stringify(body)}: ${res.text}`);
      if (typeof message === 'string') assert.equal(res.body.message, message);
      else assert.match(res.body.message, message);
    }
    assert.equal((await server.request('GET', `${NP}/p2`)).body.metadata.resourceVersion, before);
    assert.equal((await patch('missing', 'application/merge-patch+json', {})).status, 404);
  });

  test('apply: fieldManager required, force only for apply, creates (201) then updates (200)', async () => {
    const apply = (name: string, body: object, query: string) => patch(name, 'application/apply-patch+yaml', JSON.stringify(body), query);
    const noManager = await apply('a1', policy('a1'), '');
    assert.equal(noManager.status, 400);
    assert.match(noManager.body.message, /fieldManager: Required value: is required for apply patch/);
    const force = await patch('a1', 'application/merge-patch+json', {}, '?force=true');
    assert.equal(force.status, 400);
    assert.match(force.body.message, /force: Forbidden: may not be specified for non-apply patch/);

    const yaml = 'apiVersion: networking.orch.io/v1\nkind: NetworkPolicy\nmetadata: {name: a1, labels: {app: web}}\nspec:\n  podSelector: {matchLabels: {app: web}}\n  ingress:\n  - from: [{podSelector: {matchLabels: {role: fe}}}]\n    ports: [{port: 80}]\n';
    const created = await patch('a1', 'application/apply-patch+yaml', yaml, '?fieldManager=alice');
    assert.equal(created.status, 201, created.text);
    // FACTS 8.2: defaulted fields are owned by nobody.
    assert.deepEqual(created.body.metadata.managedFields.map((m: any) => [m.manager, m.operation, m.fieldsV1]), [
      ['alice', 'Apply', { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:ingress': {}, 'f:podSelector': {} } }],
    ]);
    assert.deepEqual(created.body.spec.policyTypes, ['Ingress']);
    // In a later second than the create: the time alone must not make the apply a write (the stored and
    // the applied managedFields entries differ in key order, which once made it one).
    await new Promise((r) => setTimeout(r, 1050 - (Date.now() % 1000)));
    const again = await patch('a1', 'application/apply-patch+yaml', yaml, '?fieldManager=alice');
    assert.equal(again.status, 200);
    assert.equal(again.body.metadata.resourceVersion, created.body.metadata.resourceVersion, 'an unchanged apply writes nothing');
  });

  test('apply conflicts, shared ownership, force and removal of omitted fields', async () => {
    const base = { apiVersion: 'networking.orch.io/v1', kind: 'NetworkPolicy', metadata: { name: 'a2', labels: { app: 'x' } }, spec: { podSelector: { matchLabels: { app: 'x' } } } };
    const apply = (manager: string, body: object, force = false) =>
      patch('a2', 'application/apply-patch+yaml', JSON.stringify(body), `?fieldManager=${manager}${force ? '&force=true' : ''}`);
    assert.equal((await apply('alice', base)).status, 201);
    const same = await apply('bob', base);
    assert.equal(same.status, 200, 'the same value shares ownership');
    const conflict = await apply('bob', { ...base, spec: { podSelector: { matchLabels: { app: 'y' } } } });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.reason, 'Conflict');
    assert.equal(conflict.body.message, 'Apply failed with 1 conflict: conflict with "alice": .spec.podSelector');
    assert.deepEqual(conflict.body.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.podSelector' }]);
    const forced = await apply('bob', { ...base, spec: { podSelector: { matchLabels: { app: 'y' } } } }, true);
    assert.equal(forced.status, 200);
    const alice = forced.body.metadata.managedFields.find((m: any) => m.manager === 'alice');
    assert.deepEqual(alice.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:app': {} } } }, 'force moved ownership to bob');
    // alice stops applying her label (and shares bob's selector): bob still owns the label, so it stays.
    const dropped = await apply('alice', { ...base, metadata: { name: 'a2' }, spec: { podSelector: { matchLabels: { app: 'y' } } } });
    assert.equal(dropped.status, 200, dropped.text);
    assert.deepEqual(dropped.body.metadata.labels, { app: 'x' });
    // bob stops too: nobody owns it, so it goes.
    const bobDrops = await apply('bob', { ...base, metadata: { name: 'a2' }, spec: { podSelector: { matchLabels: { app: 'y' } } } });
    assert.equal(bobDrops.body.metadata.labels, undefined);
  });

  test('updates take ownership (operation Update, manager from User-Agent); [{}] resets managedFields', async () => {
    const created = await create('m1');
    assert.deepEqual(created.metadata.managedFields.map((m: any) => [m.manager, m.operation]), [['curl', 'Update']]);
    assert.deepEqual(created.metadata.managedFields[0].fieldsV1, {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { 'f:podSelector': {}, 'f:policyTypes': {} },
    });
    const relabel = await patch('m1', 'application/merge-patch+json', { metadata: { labels: { app: 'z' } } }, '?fieldManager=editor');
    assert.deepEqual(relabel.body.metadata.managedFields.map((m: any) => m.manager).sort(), ['curl', 'editor']);
    const emptyList = await patch('m1', 'application/json-patch+json', [{ op: 'replace', path: '/metadata/managedFields', value: [] }]);
    assert.equal(emptyList.body.metadata.managedFields.length, 2, 'an empty list does not reset');
    const reset = await patch('m1', 'application/json-patch+json', [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }]);
    assert.equal(reset.status, 200, reset.text);
    assert.equal(reset.body.metadata.managedFields, undefined);
  });

  test('dry run on patch and apply writes nothing', async () => {
    const created = await create('d1');
    const dry = await patch('d1', 'application/merge-patch+json', { metadata: { labels: { dry: 'run' } } }, '?dryRun=All');
    assert.equal(dry.status, 200);
    assert.equal(dry.body.metadata.labels.dry, 'run');
    const stored = await server.request('GET', `${NP}/d1`);
    assert.equal(stored.body.metadata.resourceVersion, created.metadata.resourceVersion);
    const dryApply = await patch('d2', 'application/apply-patch+yaml', JSON.stringify(policy('d2')), '?fieldManager=x&dryRun=All');
    assert.equal(dryApply.status, 201);
    assert.equal((await server.request('GET', `${NP}/d2`)).status, 404);
  });

  test('concurrent patches all land: the compare-and-swap retries internally', async () => {
    await create('c1');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => patch('c1', 'application/merge-patch+json', { metadata: { labels: { [`k${i}`]: 'v' } } })));
    assert.deepEqual(results.map((r) => r.status), Array(20).fill(200));
    const labels = (await server.request('GET', `${NP}/c1`)).body.metadata.labels;
    for (let i = 0; i < 20; i++) assert.equal(labels[`k${i}`], 'v');
  });
});
