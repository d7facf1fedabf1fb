/**
 * Custom resources served at several versions with conversion strategy None
 * (SPEC 2.1, 2.4, 4.2; upstream apiextensions-apiserver nopConverter): objects
 * are stored at the storage version, and every read (get, list whole or in
 * chunks, Table, watch) answers the version it went through.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { expectWrite } from './helpers/api.ts';
import { createServedCrd, CRDS, exampleCrd } from './helpers/crd.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';
import { eventually } from './helpers/eventually.ts';

const BETA = '/apis/example.com/v1beta1/namespaces/default/gizmos';
const V1 = '/apis/example.com/v1/namespaces/default/gizmos';
const TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';

const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
const gizmosCrd = exampleCrd('gizmos', 'Gizmo', 'Namespaced', [
  { name: 'v1beta1', served: true, storage: false, schema, additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }] },
  { name: 'v1', served: true, storage: true, schema },
]);

let server: TestServer;

before(async () => {
  server = await startTestServer(['--authorization-mode=AlwaysAllow']);
  await createServedCrd(server, gizmosCrd, [BETA, V1]);
});
after(() => server?.close());

/** The JSON the store holds for a key, read from the server's SQLite file. */
function storedValue(name: string): any {
  const file = readdirSync(server.dataDir).find((f) => f.endsWith('.db'));
  assert.ok(file, 'the server keeps a SQLite file');
  const db = new Database(join(server.dataDir, file), { readonly: true });
  try {
    const row = db.prepare('SELECT value FROM kine WHERE name LIKE ? ORDER BY id DESC LIMIT 1').get(`%/gizmos/default/${name}`) as { value: string } | undefined;
    assert.ok(row, `${name} is stored`);
    return JSON.parse(row.value);
  } finally {
    db.close();
  }
}

test('the definition records its storage version in status.storedVersions', async () => {
  const res = await server.request('GET', `${CRDS}/gizmos.example.com`);
  assert.deepEqual(res.body.status.storedVersions, ['v1']);
});

test('an object created through v1beta1 is stored at v1 and read through either version as that version', async () => {
  const betaWatch = openWatch(server, `${BETA}?watch=1&resourceVersion=0`);
  const v1Watch = openWatch(server, `${V1}?watch=1&resourceVersion=0`);
  assert.equal(await betaWatch.status, 200);
  assert.equal(await v1Watch.status, 200);

  const created = await expectWrite(server, 'POST', BETA, { apiVersion: 'example.com/v1beta1', kind: 'Gizmo', metadata: { name: 'g1' }, spec: { size: 1 } });
  assert.equal(created.apiVersion, 'example.com/v1beta1', 'the write answers in the version it went through');
  assert.equal(storedValue('g1').apiVersion, 'example.com/v1');

  const viaBeta = await server.request('GET', `${BETA}/g1`);
  const viaV1 = await server.request('GET', `${V1}/g1`);
  assert.equal(viaBeta.body.apiVersion, 'example.com/v1beta1');
  assert.equal(viaV1.body.apiVersion, 'example.com/v1');
  assert.deepEqual({ ...viaBeta.body, apiVersion: '' }, { ...viaV1.body, apiVersion: '' });
  // The same object again, now from the kept GET body: still per version.
  assert.equal((await server.request('GET', `${BETA}/g1`)).body.apiVersion, 'example.com/v1beta1');

  const [betaEvent] = await betaWatch.waitFor(1);
  const [v1Event] = await v1Watch.waitFor(1);
  assert.deepEqual([betaEvent.type, betaEvent.object.apiVersion], ['ADDED', 'example.com/v1beta1']);
  assert.deepEqual([v1Event.type, v1Event.object.apiVersion], ['ADDED', 'example.com/v1']);

  // A merge patch through v1beta1: answered as v1beta1, stored as v1, seen by both watches in their versions.
  const patched = await server.request('PATCH', `${BETA}/g1`, { body: { spec: { size: 2 } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual([patched.body.apiVersion, patched.body.spec.size, patched.body.metadata.generation], ['example.com/v1beta1', 2, 2]);
  const stored = storedValue('g1');
  assert.deepEqual([stored.apiVersion, stored.spec.size], ['example.com/v1', 2]);
  const [, betaModified] = await betaWatch.waitFor(2);
  const [, v1Modified] = await v1Watch.waitFor(2);
  assert.deepEqual([betaModified.type, betaModified.object.apiVersion, betaModified.object.spec.size], ['MODIFIED', 'example.com/v1beta1', 2]);
  assert.deepEqual([v1Modified.type, v1Modified.object.apiVersion], ['MODIFIED', 'example.com/v1']);

  // The managed fields name the version each manager wrote through.
  assert.deepEqual(patched.body.metadata.managedFields.map((f: any) => f.apiVersion), ['example.com/v1beta1']);
  betaWatch.close();
  v1Watch.close();

  // A watch started afterwards gets the current state in its own version too, and one resumed from the history its events.
  const late = openWatch(server, `${BETA}?watch=1`);
  const [initial] = await late.waitFor(1);
  assert.deepEqual([initial.type, initial.object.apiVersion], ['ADDED', 'example.com/v1beta1']);
  late.close();
  const resumed = openWatch(server, `${BETA}?watch=1&resourceVersion=${created.metadata.resourceVersion}&allowWatchBookmarks=true`);
  const [replayed] = await resumed.waitFor(1);
  assert.deepEqual([replayed.type, replayed.object.apiVersion, replayed.object.spec.size], ['MODIFIED', 'example.com/v1beta1', 2]);
  resumed.close();
});

test('an update through v1 of an object written through v1beta1 keeps it at v1; a no-op update writes nothing', async () => {
  const got = await server.request('GET', `${V1}/g1`);
  const unchanged = await expectWrite(server, 'PUT', `${BETA}/g1`, { ...got.body, apiVersion: 'example.com/v1beta1' });
  assert.equal(unchanged.metadata.resourceVersion, got.body.metadata.resourceVersion, 'the same object in another version is no change');
  assert.equal(unchanged.apiVersion, 'example.com/v1beta1');
  const updated = await expectWrite(server, 'PUT', `${V1}/g1`, { ...got.body, spec: { size: 3 } });
  assert.equal(updated.apiVersion, 'example.com/v1');
  assert.equal(storedValue('g1').spec.size, 3);
  const stale = await server.request('PUT', `${BETA}/g1`, { body: { ...got.body, apiVersion: 'example.com/v1beta1', spec: { size: 4 } } });
  assert.equal(stale.status, 409);
});

test('lists, whole, in chunks and as Tables, answer the version they went through', async () => {
  await expectWrite(server, 'POST', V1, { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g2' }, spec: { size: 5 } });
  for (const [path, apiVersion] of [
    [BETA, 'example.com/v1beta1'],
    [V1, 'example.com/v1'],
  ]) {
    for (let round = 0; round < 2; round++) {
      // Twice: the second list is served from the body the first one encoded.
      const whole = await server.request('GET', path);
      assert.equal(whole.body.apiVersion, apiVersion);
      assert.deepEqual(whole.body.items.map((i: any) => [i.metadata.name, i.apiVersion]), [
        ['g1', apiVersion],
        ['g2', apiVersion],
      ]);
    }
    const first = await server.request('GET', `${path}?limit=1`);
    const second = await server.request('GET', `${path}?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    assert.deepEqual([...first.body.items, ...second.body.items].map((i: any) => i.apiVersion), [apiVersion, apiVersion]);
    const pretty = await server.request('GET', `${path}?pretty=true`);
    assert.deepEqual(pretty.body.items.map((i: any) => i.apiVersion), [apiVersion, apiVersion]);
    const table = await server.request('GET', `${path}?includeObject=Object`, { headers: { accept: TABLE } });
    assert.deepEqual(table.body.rows.map((r: any) => r.object.apiVersion), [apiVersion, apiVersion]);
  }
  // Each version shows its own columns.
  const betaTable = await server.request('GET', BETA, { headers: { accept: TABLE } });
  const v1Table = await server.request('GET', V1, { headers: { accept: TABLE } });
  assert.deepEqual(betaTable.body.columnDefinitions.map((c: any) => c.name), ['Name', 'Size']);
  assert.deepEqual(betaTable.body.rows.map((r: any) => r.cells), [
    ['g1', 3],
    ['g2', 5],
  ]);
  assert.deepEqual(v1Table.body.columnDefinitions.map((c: any) => c.name), ['Name', 'Age']);
  const single = await server.request('GET', `${BETA}/g2?includeObject=Object`, { headers: { accept: TABLE } });
  assert.equal(single.body.rows[0].object.apiVersion, 'example.com/v1beta1');
});

test('when the storage version changes, storedVersions keeps both and objects of either storage version read through both versions', async () => {
  await expectWrite(server, 'POST', V1, { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'old' }, spec: { size: 1 } });
  const crd = (await server.request('GET', `${CRDS}/gizmos.example.com`)).body;
  const versions = crd.spec.versions.map((v: any) => ({ ...v, storage: v.name === 'v1beta1' }));
  const updated = await expectWrite(server, 'PUT', `${CRDS}/gizmos.example.com`, { ...crd, spec: { ...crd.spec, versions } });
  assert.deepEqual(updated.status.storedVersions, ['v1', 'v1beta1']);
  // Every process serves the new storage version once it writes new objects at it.
  await eventually('new storage version', async () => {
    const name = `new-${Date.now()}`;
    await expectWrite(server, 'POST', V1, { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name }, spec: { size: 2 } });
    return storedValue(name).apiVersion === 'example.com/v1beta1' ? name : undefined;
  });
  assert.equal(storedValue('old').apiVersion, 'example.com/v1', 'objects keep the version they were written at');
  for (const [path, apiVersion] of [
    [BETA, 'example.com/v1beta1'],
    [V1, 'example.com/v1'],
  ]) {
    const list = await server.request('GET', path);
    assert.ok(list.body.items.length >= 3);
    assert.ok(list.body.items.every((i: any) => i.apiVersion === apiVersion), JSON.stringify(list.body.items.map((i: any) => i.apiVersion)));
    assert.equal((await server.request('GET', `${path}/old`)).body.apiVersion, apiVersion);
  }
});

test('a body naming the other version is refused; deletion through v1beta1 answers v1beta1', async () => {
  const wrong = await server.request('POST', BETA, { body: { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g3' } } });
  assert.equal(wrong.status, 400);
  assert.match(wrong.body.message, /does not match the expected API version \(example.com\/v1beta1\)/);
  await expectWrite(server, 'POST', V1, { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
  const marked = await server.request('DELETE', `${BETA}/held`);
  assert.equal(marked.status, 200, marked.text);
  assert.deepEqual([marked.body.apiVersion, typeof marked.body.metadata.deletionTimestamp], ['example.com/v1beta1', 'string']);
  // Written through v1, kept at the storage version (v1beta1 since the previous test).
  assert.equal(storedValue('held').apiVersion, 'example.com/v1beta1');
  const released = await server.request('PATCH', `${BETA}/held`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(released.status, 200, released.text);
  assert.equal((await server.request('GET', `${V1}/held`)).status, 404);
  const collection = await server.request('DELETE', BETA);
  assert.equal(collection.status, 200, collection.text);
  const deletedNames = collection.body.items.map((i: any) => i.metadata.name);
  assert.ok(deletedNames.includes('g1') && deletedNames.includes('old'), JSON.stringify(deletedNames));
  assert.ok(collection.body.items.every((i: any) => i.apiVersion === 'example.com/v1beta1'));
  assert.deepEqual((await server.request('GET', V1)).body.items, []);
});
