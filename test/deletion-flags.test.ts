/**
 * kube-apiserver's deletion flags: --delete-collection-workers (deletes of a
 * deletecollection run at once) and --enable-garbage-collector=false (no
 * propagation finalizers, no garbage collector).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { parseFlags } from '../src/cli/flags.ts';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

describe('--delete-collection-workers=4', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer(['--delete-collection-workers=4'])));
  after(() => server?.close());

  test('every listed object is deleted, held ones marked, and the answer lists them in order', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `bulk-${String(i).padStart(2, '0')}`);
    for (const name of names) {
      const finalizers = name === 'bulk-07' ? ['example.com/hold'] : undefined;
      assert.equal((await server.request('POST', CONFIGMAPS, { body: { metadata: { name, labels: { set: 'bulk' }, finalizers } } })).status, 201);
    }
    const answer = await server.request('DELETE', `${CONFIGMAPS}?labelSelector=set%3Dbulk`);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.items.map((i: any) => i.metadata.name), names);
    const left = await server.request('GET', `${CONFIGMAPS}?labelSelector=set%3Dbulk`);
    assert.deepEqual(left.body.items.map((i: any) => i.metadata.name), ['bulk-07']);
    assert.ok(left.body.items[0].metadata.deletionTimestamp, 'the held one is marked');
    const released = await server.request('PATCH', `${CONFIGMAPS}/bulk-07`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(released.status, 200);
    assert.equal((await server.request('GET', `${CONFIGMAPS}/bulk-07`)).status, 404);
  });
});

describe('--enable-garbage-collector=false', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer(['--enable-garbage-collector=false'])));
  after(() => server?.close());

  test('a propagationPolicy adds no finalizer: the object goes at once', async () => {
    assert.equal((await server.request('POST', CONFIGMAPS, { body: { metadata: { name: 'foreground' } } })).status, 201);
    const deleted = await server.request('DELETE', `${CONFIGMAPS}/foreground`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
    assert.equal(deleted.status, 200);
    // With the collector on, the answer is the object, marked and holding foregroundDeletion.
    assert.equal(deleted.body.kind, 'Status', JSON.stringify(deleted.body));
    assert.equal(deleted.body.status, 'Success');
    assert.equal((await server.request('GET', `${CONFIGMAPS}/foreground`)).status, 404);
  });

  test('dependents of a deleted owner stay: no garbage collector runs', async () => {
    const owner = await server.request('POST', CONFIGMAPS, { body: { metadata: { name: 'owner' } } });
    assert.equal(owner.status, 201);
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.body.metadata.uid }];
    assert.equal((await server.request('POST', CONFIGMAPS, { body: { metadata: { name: 'dependent', ownerReferences } } })).status, 201);
    assert.equal((await server.request('DELETE', `${CONFIGMAPS}/owner`)).status, 200);
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal((await server.request('GET', `${CONFIGMAPS}/dependent`)).status, 200);
    const leading = server.output().split('\n').find((line) => line.includes('controller manager: leading'));
    assert.ok(leading, server.output());
    assert.doesNotMatch(leading, /garbage-collector-controller/);
    assert.match(leading, /namespace-controller/);
  });
});

test('the flags: 0 workers count as one, a negative count and a bad boolean are refused', () => {
  const zero = parseFlags(['--delete-collection-workers=0', '--enable-garbage-collector=false']);
  assert.ok(zero !== 'help');
  assert.equal(zero.deleteCollectionWorkers, 1);
  assert.equal(zero.enableGarbageCollector, false);
  assert.throws(() => parseFlags(['--delete-collection-workers=-2']), /invalid argument "-2" for "--delete-collection-workers" flag/);
  assert.throws(() => parseFlags(['--enable-garbage-collector=maybe']), /invalid argument "maybe" for "--enable-garbage-collector" flag/);
});
