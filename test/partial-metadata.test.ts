import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';
import { createServedCrd, exampleCrd } from './helpers/crd.ts';
import { partialWatchEncoding } from '../src/handlers/partial-metadata.ts';

const CM = '/api/v1/namespaces/default/configmaps';
const accept = (as: string, g = 'meta.orch.io', v = 'v1', type = 'application/json') => ({ accept: `${type};as=${as};g=${g};v=${v}` });

describe('PartialObjectMetadata and PartialObjectMetadataList (SPEC 2.5, 4.7)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    for (const name of ['pm-a', 'pm-b', 'pm-c']) {
      const made = await server.request('POST', CM, { body: { metadata: { name, labels: { app: 'pm' }, annotations: { note: name } }, data: { secret: 'x' } } });
      assert.equal(made.status, 201, made.text);
    }
  });
  after(() => server?.close());

  test('get answers the metadata alone, under the group-version asked', async () => {
    const full = await server.request('GET', `${CM}/pm-a`);
    for (const [g, v] of [['meta.orch.io', 'v1'], ['meta.k8s.io', 'v1'], ['meta.k8s.io', 'v1beta1']]) {
      const res = await server.request('GET', `${CM}/pm-a`, { headers: accept('PartialObjectMetadata', g, v) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body), ['kind', 'apiVersion', 'metadata']);
      assert.equal(res.body.kind, 'PartialObjectMetadata');
      assert.equal(res.body.apiVersion, `${g}/${v}`);
      assert.deepEqual(res.body.metadata, full.body.metadata);
    }
    const yaml = await server.request('GET', `${CM}/pm-a`, { headers: accept('PartialObjectMetadata', 'meta.k8s.io', 'v1', 'application/yaml') });
    assert.equal(yaml.status, 200);
    assert.match(yaml.headers['content-type'] as string, /application\/yaml/);
    assert.match(yaml.text, /^kind: PartialObjectMetadata\napiVersion: meta\.k8s\.io\/v1\nmetadata:\n/);
    assert.doesNotMatch(yaml.text, /^data:/m);
  });

  test('list answers a PartialObjectMetadataList with the list metadata, chunked too', async () => {
    const whole = await server.request('GET', `${CM}?labelSelector=app%3Dpm`, { headers: accept('PartialObjectMetadataList') });
    assert.equal(whole.status, 200, whole.text);
    assert.equal(whole.body.kind, 'PartialObjectMetadataList');
    assert.equal(whole.body.apiVersion, 'meta.orch.io/v1');
    assert.match(whole.body.metadata.resourceVersion, /^\d+$/);
    assert.deepEqual(whole.body.items.map((i: any) => [i.kind, i.apiVersion, i.metadata.name, i.data]), [
      ['PartialObjectMetadata', 'meta.orch.io/v1', 'pm-a', undefined],
      ['PartialObjectMetadata', 'meta.orch.io/v1', 'pm-b', undefined],
      ['PartialObjectMetadata', 'meta.orch.io/v1', 'pm-c', undefined],
    ]);
    const full = await server.request('GET', `${CM}?labelSelector=app%3Dpm`);
    assert.deepEqual(whole.body.items.map((i: any) => i.metadata), full.body.items.map((i: any) => i.metadata));

    const first = await server.request('GET', `${CM}?limit=2`, { headers: accept('PartialObjectMetadataList', 'meta.k8s.io') });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.items.length, 2);
    assert.ok(first.body.metadata.continue, 'a continue token');
    assert.equal(typeof first.body.metadata.remainingItemCount, 'number');
    const rest = await server.request('GET', `${CM}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`, { headers: accept('PartialObjectMetadataList', 'meta.k8s.io') });
    assert.equal(rest.status, 200, rest.text);
    assert.equal(rest.body.apiVersion, 'meta.k8s.io/v1');
    assert.equal(first.body.metadata.remainingItemCount, rest.body.items.length);
    assert.equal(rest.body.metadata.continue, undefined);

    // An unfiltered whole list is the same shared body for every reader; Tables of the same versions are unchanged beside it.
    const a = await server.request('GET', CM, { headers: accept('PartialObjectMetadataList') });
    const table = await server.request('GET', CM, { headers: accept('Table') });
    const b = await server.request('GET', CM, { headers: accept('PartialObjectMetadataList') });
    assert.equal(a.text, b.text);
    assert.equal(table.body.kind, 'Table');
    assert.deepEqual(table.body.rows.map((r: any) => r.object.metadata.name), a.body.items.map((i: any) => i.metadata.name));
  });

  test('the wrong form for the verb, another version, or a write is 406', async () => {
    const getList = await server.request('GET', `${CM}/pm-a`, { headers: accept('PartialObjectMetadataList') });
    assert.equal(getList.status, 406);
    assert.equal(getList.body.reason, 'NotAcceptable');
    assert.equal(getList.body.message, 'you requested PartialObjectMetadataList, but the requested object is not a list (ConfigMap)');
    const listOne = await server.request('GET', CM, { headers: accept('PartialObjectMetadata') });
    assert.equal(listOne.status, 406);
    assert.equal(listOne.body.message, 'you requested PartialObjectMetadata, but the requested object is a list (ConfigMapList)');
    const v2 = await server.request('GET', `${CM}/pm-a`, { headers: accept('PartialObjectMetadata', 'meta.k8s.io', 'v2') });
    assert.equal(v2.status, 406);
    assert.match(v2.body.message, /^only the following media types are accepted/);
    const otherGroup = await server.request('GET', `${CM}/pm-a`, { headers: accept('PartialObjectMetadata', 'apps', 'v1') });
    assert.equal(otherGroup.status, 406);
    const write = await server.request('POST', CM, { body: { metadata: { name: 'pm-w' } }, headers: accept('PartialObjectMetadataList') });
    assert.equal(write.status, 406);
    assert.equal((await server.request('GET', `${CM}/pm-w`)).status, 404, 'nothing written');
    const review = await server.request('POST', '/apis/authorization.orch.io/v1/selfsubjectaccessreviews', {
      body: { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } },
      headers: accept('PartialObjectMetadata'),
    });
    assert.equal(review.status, 406);
    // A later acceptable range still wins, as for every negotiation.
    const fallback = await server.request('GET', `${CM}/pm-a`, { headers: { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v2, application/json' } });
    assert.equal(fallback.status, 200);
    assert.equal(fallback.body.kind, 'ConfigMap');
  });

  test('writes answer the written object metadata alone (upstream transformResponseObject)', async () => {
    const h = { headers: accept('PartialObjectMetadata', 'meta.k8s.io') };
    const made = await server.request('POST', CM, { body: { metadata: { name: 'pm-write' }, data: { k: 'v' } }, ...h });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(Object.keys(made.body), ['kind', 'apiVersion', 'metadata']);
    assert.equal(made.body.kind, 'PartialObjectMetadata');
    const full = await server.request('GET', `${CM}/pm-write`);
    assert.deepEqual(made.body.metadata, full.body.metadata);
    const put = await server.request('PUT', `${CM}/pm-write`, { body: { ...full.body, data: { k: 'w' } }, ...h });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.kind, 'PartialObjectMetadata');
    assert.ok(Number(put.body.metadata.resourceVersion) > Number(made.body.metadata.resourceVersion));
    const patched = await server.request('PATCH', `${CM}/pm-write`, { raw: JSON.stringify({ metadata: { labels: { p: 'q' } } }), headers: { ...h.headers, 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual([patched.body.kind, patched.body.metadata.labels], ['PartialObjectMetadata', { p: 'q' }]);
    const deleted = await server.request('DELETE', `${CM}/pm-write`, h);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.kind, 'Status', 'a Status passes through');
    await server.request('POST', CM, { body: { metadata: { name: 'pm-dc', labels: { dc: 'yes' } } } });
    const collection = await server.request('DELETE', `${CM}?labelSelector=dc%3Dyes`, { headers: accept('PartialObjectMetadataList', 'meta.k8s.io') });
    assert.equal(collection.status, 200, collection.text);
    assert.equal(collection.body.kind, 'PartialObjectMetadataList');
    assert.deepEqual(collection.body.items.map((i: any) => [i.kind, i.metadata.name]), [['PartialObjectMetadata', 'pm-dc']]);
  });

  test('watch events carry PartialObjectMetadata for adds, updates and deletes', async () => {
    const list = await server.request('GET', CM);
    const watch = openWatch(server, `${CM}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`, server.token, accept('PartialObjectMetadata', 'meta.k8s.io'));
    assert.equal(await watch.status, 200);
    try {
      const made = await server.request('POST', CM, { body: { metadata: { name: 'pm-watch' }, data: { k: 'v' } } });
      assert.equal(made.status, 201);
      const updated = await server.request('PUT', `${CM}/pm-watch`, { body: { ...made.body, metadata: { ...made.body.metadata, labels: { changed: 'yes' } } } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal((await server.request('DELETE', `${CM}/pm-watch`)).status, 200);
      const events = await watch.waitFor(3);
      assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
      for (const e of events) {
        assert.deepEqual(Object.keys(e.object), ['kind', 'apiVersion', 'metadata']);
        assert.equal(e.object.kind, 'PartialObjectMetadata');
        assert.equal(e.object.apiVersion, 'meta.k8s.io/v1');
        assert.equal(e.object.metadata.name, 'pm-watch');
      }
      assert.equal(events[0].object.metadata.resourceVersion, made.body.metadata.resourceVersion);
      assert.deepEqual(events[1].object.metadata.labels, { changed: 'yes' });
      assert.equal(events[1].object.metadata.resourceVersion, updated.body.metadata.resourceVersion);
      assert.ok(Number(events[2].object.metadata.resourceVersion) > Number(updated.body.metadata.resourceVersion), 'the delete at its own revision');
    } finally {
      watch.close();
    }
    const asList = await server.request('GET', `${CM}?watch=true`, { headers: accept('PartialObjectMetadataList') });
    assert.equal(asList.status, 406);
  });

  test('custom resources answer their metadata alone too', async () => {
    const keepAll = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    const schema = { openAPIV3Schema: { type: 'object', properties: { spec: keepAll } } };
    const widgets = '/apis/example.com/v1/namespaces/default/pmwidgets';
    await createServedCrd(server, exampleCrd('pmwidgets', 'PmWidget', 'Namespaced', [{ name: 'v1', served: true, storage: true, schema }]), [widgets]);
    const made = await server.request('POST', widgets, { body: { apiVersion: 'example.com/v1', kind: 'PmWidget', metadata: { name: 'w1' }, spec: { size: 3 } } });
    assert.equal(made.status, 201, made.text);
    const one = await server.request('GET', `${widgets}/w1`, { headers: accept('PartialObjectMetadata', 'meta.k8s.io') });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: made.body.metadata });
    const list = await server.request('GET', widgets, { headers: accept('PartialObjectMetadataList', 'meta.k8s.io') });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.items, [one.body]);
    const wrong = await server.request('GET', widgets, { headers: accept('PartialObjectMetadata') });
    assert.equal(wrong.status, 406);
    assert.equal(wrong.body.message, 'you requested PartialObjectMetadata, but the requested object is a list (PmWidgetList)');
  });

  test('watch bookmarks and errors in the metadata encoding', () => {
    const encoding = partialWatchEncoding('meta.orch.io/v1', 'example.com/v1');
    assert.deepEqual(JSON.parse(encoding.bookmark(42, true).toString()), {
      type: 'BOOKMARK',
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.orch.io/v1', metadata: { resourceVersion: '42', annotations: { 'orch.io/initial-events-end': 'true' } } },
    });
    assert.deepEqual(JSON.parse(encoding.bookmark(7, false).toString()).object.metadata, { resourceVersion: '7' });
    assert.deepEqual(JSON.parse(encoding.error({ kind: 'Status', code: 410 }).toString()), { type: 'ERROR', object: { kind: 'Status', code: 410 } });
    assert.notEqual(partialWatchEncoding('meta.k8s.io/v1', 'example.com/v1').key, encoding.key, 'watchers of other group-versions do not share frames');
  });
});
