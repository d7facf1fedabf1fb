/**
 * Custom resources on two replicas sharing one etcd (issue 11; SPEC 2.1, 4.1,
 * 4.4): a definition created through one replica is routed, discovered and
 * published in /openapi/v3 by the other within a second; a custom object
 * written through one is read and watched through the other; deleting the
 * definition removes the resource and its objects on both. Skipped when etcd
 * is not installed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectWrite } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';
import { etcdAvailable, startEtcd, type TestEtcd } from './helpers/etcd.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
const THINGS = '/apis/replicas.example.com/v1/namespaces/default/things';

const definition = {
  apiVersion: 'apiextensions.orch.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'things.replicas.example.com' },
  spec: {
    group: 'replicas.example.com',
    scope: 'Namespaced',
    names: { plural: 'things', kind: 'Thing' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 1 } } } } } },
      },
    ],
  },
};

/** True once `probe` holds on six requests in a row: each server keeps two processes, and connections are new each time. */
async function onEveryProcess(probe: () => Promise<boolean>): Promise<true | undefined> {
  for (let i = 0; i < 6; i++) if (!(await probe())) return undefined;
  return true;
}

describe('custom resources on two replicas over one etcd', { skip: !etcdAvailable() && 'etcd is not installed' }, () => {
  let etcd: TestEtcd;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    etcd = await startEtcd();
    const flags = ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--authorization-mode=AlwaysAllow'];
    [a, b] = await Promise.all([startTestServer(flags), startTestServer(flags)]);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await etcd?.stop();
  });

  test('a definition created through one replica is served, discovered and published by the other within a second', async () => {
    await expectWrite(a, 'POST', CRDS, definition);
    // Established is written by whichever replica's controller gets there; the clock starts then.
    await eventually('Established', async () => {
      const crd = (await a.request('GET', `${CRDS}/things.replicas.example.com`)).body;
      return crd.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    }, 10_000, 20);
    const established = Date.now();
    // Within a second on the other replica; the half second more pays for the dozen requests of the checks on a loaded machine.
    const budget = 1_500;
    await eventually('served by b', () => onEveryProcess(async () => (await b.request('GET', THINGS)).status === 200), budget, 20);
    await eventually('discovered by b', () => onEveryProcess(async () => {
      const group = await b.request('GET', '/apis/replicas.example.com/v1');
      return group.status === 200 && group.body.resources.some((r: any) => r.name === 'things');
    }), budget, 20);
    const url = await eventually('published by b', async () => (await b.request('GET', '/openapi/v3')).body.paths['apis/replicas.example.com/v1']?.serverRelativeURL, budget, 20);
    assert.ok(Date.now() - established < budget, `took ${Date.now() - established} ms`);
    const doc = await eventually('document served', async () => {
      const res = await b.request('GET', url);
      return res.status === 200 ? res.body : undefined;
    }, 2_000, 20);
    assert.ok(doc.components.schemas['com.example.replicas.v1.Thing']);
    assert.equal(doc.paths['/apis/replicas.example.com/v1/namespaces/{namespace}/things/{name}'].get.operationId, 'readReplicasExampleComV1NamespacedThing');
    // Both replicas publish the same bytes for the same definitions: the hash is the same on either.
    const onA = await eventually('published by a', async () => (await a.request('GET', '/openapi/v3')).body.paths['apis/replicas.example.com/v1']?.serverRelativeURL, budget, 20);
    assert.equal(onA, url);
    await eventually('served by a', () => onEveryProcess(async () => (await a.request('GET', THINGS)).status === 200), budget, 20);
  });

  test('a custom object written through one replica is read and watched through the other', async () => {
    const start = (await b.request('GET', THINGS)).body.metadata.resourceVersion;
    const watch = openWatch(b, `${THINGS}?watch=1&resourceVersion=${start}`);
    assert.equal(await watch.status, 200);
    const created = await expectWrite(a, 'POST', THINGS, { apiVersion: 'replicas.example.com/v1', kind: 'Thing', metadata: { name: 'one' }, spec: {} });
    assert.equal(created.spec.size, 1, 'defaulted by the schema');
    const read = await b.request('GET', `${THINGS}/one`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.metadata.uid, created.metadata.uid);
    assert.equal(read.body.metadata.resourceVersion, created.metadata.resourceVersion);
    const patched = await b.request('PATCH', `${THINGS}/one`, { headers: { 'content-type': 'application/merge-patch+json' }, raw: '{"spec":{"size":2}}' });
    assert.equal(patched.status, 200, patched.text);
    const events = await watch.waitFor(2);
    watch.close();
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name, e.object.spec.size]), [['ADDED', 'one', 1], ['MODIFIED', 'one', 2]]);
    assert.equal(events[1].object.metadata.resourceVersion, patched.body.metadata.resourceVersion);
    assert.equal((await a.request('GET', `${THINGS}/one`)).body.spec.size, 2);
  });

  test('deleting the definition through one replica removes the resource and its objects on both', async () => {
    const deleted = await b.request('DELETE', `${CRDS}/things.replicas.example.com`);
    assert.equal(deleted.status, 200, deleted.text);
    for (const server of [a, b]) {
      await eventually('resource gone', async () => ((await server.request('GET', THINGS)).status === 404 ? true : undefined), 10_000, 50);
      await eventually('document gone', async () => ((await server.request('GET', '/openapi/v3')).body.paths['apis/replicas.example.com/v1'] ? undefined : true), 2_000, 20);
      assert.equal((await server.request('GET', '/apis/replicas.example.com/v1')).status, 404);
      assert.equal((await server.request('GET', `${CRDS}/things.replicas.example.com`)).status, 404);
    }
    // The objects went with the definition: a new definition of the same resource starts empty.
    await expectWrite(a, 'POST', CRDS, definition);
    const listed = await eventually('served again', async () => {
      const res = await b.request('GET', THINGS);
      return res.status === 200 ? res.body : undefined;
    }, 10_000, 50);
    assert.deepEqual(listed.items, []);
  });
});
