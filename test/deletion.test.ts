/**
 * The deletion lifecycle (SPEC 2.1, 3; FACTS 3): finalizers, preconditions,
 * propagation policies with the garbage collector, namespace termination.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually as waitFor } from './helpers/eventually.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const CM = (ns = 'default') => `/api/v1/namespaces/${ns}/configmaps`;

/** This file's order of arguments: the probe first. */
const eventually = <T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000) => waitFor(what, probe, timeoutMs, 50);

describe('deletion lifecycle', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server.close());

  const create = async (body: any, ns = 'default') => {
    const res = await server.request('POST', CM(ns), { body });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  /** Clears an object's finalizers, re-reading on 409: the garbage collector may write it too. */
  const clearFinalizers = async (path: string) => {
    for (;;) {
      const current = (await server.request('GET', path)).body;
      const res = await server.request('PUT', path, { body: { ...current, metadata: { ...current.metadata, finalizers: [] } } });
      if (res.status !== 409) return res;
    }
  };
  const gone = (path: string) => eventually(async () => ((await server.request('GET', path)).status === 404 ? true : undefined), `${path} to go`);

  test('finalizers hold a deleted object until the last one is removed; watchers see MODIFIED then DELETED', async () => {
    const obj = await create({ metadata: { name: 'held', finalizers: ['example.com/a', 'example.com/b'] } });
    const watch = openWatch(server, `${CM()}/held?watch=1&resourceVersion=${obj.metadata.resourceVersion}`);
    const first = await server.request('DELETE', `${CM()}/held`);
    assert.equal(first.status, 200);
    assert.equal(first.body.kind, 'ConfigMap');
    assert.ok(first.body.metadata.deletionTimestamp);
    assert.equal(first.body.metadata.deletionGracePeriodSeconds, 0);
    const again = await server.request('DELETE', `${CM()}/held`);
    assert.equal(again.status, 200);
    assert.equal(again.body.metadata.deletionTimestamp, first.body.metadata.deletionTimestamp);

    const adding = await server.request('PUT', `${CM()}/held`, { body: { ...first.body, metadata: { ...first.body.metadata, finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } } });
    assert.equal(adding.status, 422);
    assert.match(adding.body.message, /no new finalizers can be added if the object is being deleted/);

    const reordered = await server.request('PUT', `${CM()}/held`, { body: { ...first.body, metadata: { ...first.body.metadata, finalizers: ['example.com/b'] } } });
    assert.equal(reordered.status, 200);
    const last = await server.request('PUT', `${CM()}/held`, { body: { ...reordered.body, metadata: { ...reordered.body.metadata, finalizers: [] } } });
    assert.equal(last.status, 200);
    assert.equal((await server.request('GET', `${CM()}/held`)).status, 404);
    const events = await watch.waitFor(3);
    watch.close();
    assert.deepEqual(events.map((e) => e.type), ['MODIFIED', 'MODIFIED', 'DELETED']);
  });

  test('preconditions and dry run', async () => {
    const obj = await create({ metadata: { name: 'pre' } });
    const wrongUid = await server.request('DELETE', `${CM()}/pre`, { body: { preconditions: { uid: 'nope' } } });
    assert.equal(wrongUid.status, 409);
    assert.match(wrongUid.body.message, /Precondition failed: UID in precondition: nope, UID in object meta: /);
    const wrongRv = await server.request('DELETE', `${CM()}/pre`, { body: { preconditions: { resourceVersion: '1' } } });
    assert.equal(wrongRv.status, 409);
    const dry = await server.request('DELETE', `${CM()}/pre?dryRun=All`);
    assert.equal(dry.status, 200);
    assert.equal((await server.request('GET', `${CM()}/pre`)).status, 200, 'dry run deleted nothing');
    const real = await server.request('DELETE', `${CM()}/pre`, { body: { preconditions: { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion } } });
    assert.equal(real.status, 200);
    assert.equal(real.body.status, 'Success');
  });

  const owned = (name: string, owner: any) => ({
    metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name, uid: owner.metadata.uid }] },
  });

  test('Background: the garbage collector deletes dependents of a deleted owner', async () => {
    const owner = await create({ metadata: { name: 'bg-owner' } });
    await create(owned('bg-child-1', owner));
    await create(owned('bg-child-2', owner));
    const res = await server.request('DELETE', `${CM()}/bg-owner`, { body: { propagationPolicy: 'Background' } });
    assert.equal(res.status, 200);
    await gone(`${CM()}/bg-child-1`);
    await gone(`${CM()}/bg-child-2`);
  });

  test('an object keeping another owner only loses the reference to the deleted one', async () => {
    const a = await create({ metadata: { name: 'two-a' } });
    const b = await create({ metadata: { name: 'two-b' } });
    const child = await create({ metadata: { name: 'two-child', ownerReferences: [...owned('x', a).metadata.ownerReferences, ...owned('x', b).metadata.ownerReferences] } });
    assert.equal(child.metadata.ownerReferences.length, 2);
    await server.request('DELETE', `${CM()}/two-a`);
    const updated = await eventually(async () => {
      const got = await server.request('GET', `${CM()}/two-child`);
      return got.body.metadata.ownerReferences?.length === 1 ? got.body : undefined;
    }, 'the dangling reference to go');
    assert.equal(updated.metadata.ownerReferences[0].uid, b.metadata.uid);
  });

  test('Orphan: dependents stay and lose their owner reference; the owner then goes', async () => {
    const owner = await create({ metadata: { name: 'or-owner' } });
    await create(owned('or-child', owner));
    const res = await server.request('DELETE', `${CM()}/or-owner`, { body: { propagationPolicy: 'Orphan' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.metadata.finalizers, ['orphan']);
    await gone(`${CM()}/or-owner`);
    const child = await server.request('GET', `${CM()}/or-child`);
    assert.equal(child.status, 200);
    assert.equal(child.body.metadata.ownerReferences, undefined);
  });

  test('Foreground: dependents go first, then the owner', async () => {
    const owner = await create({ metadata: { name: 'fg-owner' } });
    await create({ ...owned('fg-child', owner), metadata: { ...owned('fg-child', owner).metadata, finalizers: ['example.com/hold'] } });
    const res = await server.request('DELETE', `${CM()}/fg-owner`, { body: { propagationPolicy: 'Foreground' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.metadata.finalizers, ['foregroundDeletion']);
    const child = await eventually(async () => {
      const got = await server.request('GET', `${CM()}/fg-child`);
      return got.body.metadata?.deletionTimestamp ? got.body : undefined;
    }, 'the dependent to be deleting');
    assert.equal((await server.request('GET', `${CM()}/fg-owner`)).status, 200, 'the owner waits for its dependent');
    assert.ok(child.metadata.finalizers.includes('example.com/hold'));
    assert.equal((await clearFinalizers(`${CM()}/fg-child`)).status, 200);
    await gone(`${CM()}/fg-child`);
    await gone(`${CM()}/fg-owner`);
  });

  test('a namespace terminates: creates refused, content deleted respecting finalizers, then the namespace goes', async () => {
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'doomed' } } })).status, 201);
    await create({ metadata: { name: 'plain' } }, 'doomed');
    const held = await create({ metadata: { name: 'held', finalizers: ['example.com/x'] } }, 'doomed');
    const np = await server.request('POST', '/apis/networking.orch.io/v1/namespaces/doomed/networkpolicies', { body: { metadata: { name: 'np' }, spec: { podSelector: {} } } });
    assert.equal(np.status, 201);
    const res = await server.request('DELETE', '/api/v1/namespaces/doomed');
    assert.equal(res.status, 200);
    assert.equal(res.body.kind, 'Namespace');
    assert.equal(res.body.status.phase, 'Terminating');
    assert.ok(res.body.metadata.deletionTimestamp);
    const refused = await server.request('POST', CM('doomed'), { body: { metadata: { name: 'late' } } });
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /unable to create new content in namespace doomed because it is being terminated/);
    await gone(`${CM('doomed')}/plain`);
    await gone('/apis/networking.orch.io/v1/namespaces/doomed/networkpolicies/np');
    const stillThere = await server.request('GET', '/api/v1/namespaces/doomed');
    assert.equal(stillThere.status, 200, 'held by the remaining finalizer');
    const deleting = (await server.request('GET', `${CM('doomed')}/held`)).body;
    assert.ok(deleting.metadata.deletionTimestamp);
    assert.equal((await clearFinalizers(`${CM('doomed')}/held`)).status, 200);
    await gone('/api/v1/namespaces/doomed');
    assert.equal(held.metadata.namespace, 'doomed');
  });

  test('deletecollection with a label selector and dry run', async () => {
    await create({ metadata: { name: 'dc-1', labels: { batch: 'x' } } });
    await create({ metadata: { name: 'dc-2', labels: { batch: 'x' } } });
    await create({ metadata: { name: 'dc-3', labels: { batch: 'y' } } });
    const dry = await server.request('DELETE', `${CM()}?labelSelector=batch%3Dx&dryRun=All`);
    assert.equal(dry.status, 200);
    assert.deepEqual(dry.body.items.map((i: any) => i.metadata.name), ['dc-1', 'dc-2']);
    assert.equal((await server.request('GET', `${CM()}/dc-1`)).status, 200);
    const real = await server.request('DELETE', `${CM()}?labelSelector=batch%3Dx`);
    assert.deepEqual(real.body.items.map((i: any) => i.metadata.name), ['dc-1', 'dc-2']);
    assert.equal((await server.request('GET', `${CM()}/dc-1`)).status, 404);
    assert.equal((await server.request('GET', `${CM()}/dc-3`)).status, 200);
  });
});

describe('the garbage collector at start', () => {
  test('scans a store larger than one slice of its start-up walk, then collects the dependents of owners deleted while it was not running', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'orch-gc-start-'));
    const owned = (name: string, owner: any) => ({
      metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name, uid: owner.metadata.uid }] },
    });
    let server = await startTestServer(['--controllers=namespace'], { dataDir });
    try {
      const create = async (body: any) => {
        const res = await server.request('POST', CM(), { body });
        assert.equal(res.status, 201, res.text);
        return res.body;
      };
      // More objects than the collector summarizes per event-loop turn at start (2,000).
      for (let i = 0; i < 2_500; i += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => create({ metadata: { name: `filler-${i + j}` } })));
      const owner = await create({ metadata: { name: 'gone-owner' } });
      await create(owned('orphan-1', owner));
      await create(owned('orphan-2', owner));
      const kept = await create(owned('kept-child', { metadata: { name: 'filler-2499', uid: (await server.request('GET', `${CM()}/filler-2499`)).body.metadata.uid } }));
      // No collector runs: the owner goes, its dependents stay.
      assert.equal((await server.request('DELETE', `${CM()}/gone-owner`, { body: { propagationPolicy: 'Background' } })).status, 200);
      assert.equal((await server.request('GET', `${CM()}/orphan-1`)).status, 200);
      await server.close();

      server = await startTestServer([], { dataDir });
      for (const name of ['orphan-1', 'orphan-2']) {
        await waitFor(`${name} to be collected`, async () => ((await server.request('GET', `${CM()}/${name}`)).status === 404 ? true : undefined), 20_000, 100);
      }
      const child = await server.request('GET', `${CM()}/kept-child`);
      assert.equal(child.status, 200, 'a dependent whose owner exists stays');
      assert.equal(child.body.metadata.uid, kept.metadata.uid);
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
