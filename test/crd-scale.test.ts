/**
 * The scale subresource of custom resources (SPEC 2.1, 4.2, 4.5; upstream
 * apiextensions-apiserver ScaleREST): an autoscaling/v1 Scale read from the
 * object's replicas paths, written back through the store's compare-and-swap,
 * validated as upstream validates the object's scale paths.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertFailure, expectWrite } from './helpers/api.ts';
import { createServedCrd, exampleCrd } from './helpers/crd.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const RACKS = '/apis/example.com/v1/namespaces/default/racks';
const TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';
const MERGE = { 'content-type': 'application/merge-patch+json' };

const keepAll = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const rackVersion = {
  name: 'v1',
  served: true,
  storage: true,
  schema: { openAPIV3Schema: { type: 'object', properties: { spec: { ...keepAll, properties: { replicas: { type: 'integer' } } }, status: keepAll } } },
  subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
};

let server: TestServer;

before(async () => {
  server = await startTestServer(['--authorization-mode=AlwaysAllow']);
  await createServedCrd(server, exampleCrd('racks', 'Rack', 'Namespaced', [rackVersion]), [RACKS]);
});
after(() => server?.close());

async function createRack(name: string, spec: Record<string, unknown>): Promise<any> {
  return expectWrite(server, 'POST', RACKS, { apiVersion: 'example.com/v1', kind: 'Rack', metadata: { name }, spec });
}

test('discovery lists <plural>/scale as autoscaling/v1 Scale with get, patch and update; autoscaling/v1 serves HorizontalPodAutoscalers, never Scale', async () => {
  const list = await server.request('GET', '/apis/example.com/v1');
  const scale = list.body.resources.find((r: any) => r.name === 'racks/scale');
  assert.deepEqual(scale, { name: 'racks/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  assert.deepEqual(list.body.resources.map((r: any) => r.name), ['racks', 'racks/status', 'racks/scale']);
  const autoscaling = await server.request('GET', '/apis/autoscaling/v1');
  assert.deepEqual(autoscaling.body.resources.map((r: any) => r.name), ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], 'Scale is only a body');
  const aggregated = await server.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList' } });
  const group = aggregated.body.items.find((g: any) => g.metadata.name === 'example.com');
  const racks = group.versions.find((v: any) => v.version === 'v1').resources.find((r: any) => r.resource === 'racks');
  assert.deepEqual(racks.subresources, [
    { subresource: 'status', responseKind: { group: 'example.com', version: 'v1', kind: 'Rack' }, verbs: ['get', 'patch', 'update'] },
    { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
  ]);
  const autoscalingGroup = aggregated.body.items.find((g: any) => g.metadata.name === 'autoscaling');
  assert.deepEqual(autoscalingGroup.versions.map((v: any) => v.version), ['v2', 'v1']);
  const openapi = await server.request('GET', '/openapi/v3');
  assert.equal(openapi.status, 200);
  const v1Document = await server.request('GET', openapi.body.paths['apis/autoscaling/v1'].serverRelativeURL);
  assert.ok(Object.keys(v1Document.body.paths).every((p) => p.includes('/horizontalpodautoscalers')), 'no Scale paths of its own');
});

test('GET scale reads the replicas paths and the selector; status replicas are 0 when absent', async () => {
  const rack = await createRack('r1', { replicas: 3 });
  const res = await server.request('GET', `${RACKS}/r1/scale`);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body, {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: 'r1', namespace: 'default', uid: rack.metadata.uid, resourceVersion: rack.metadata.resourceVersion, creationTimestamp: rack.metadata.creationTimestamp },
    spec: { replicas: 3 },
    status: { replicas: 0 },
  });
  const got = await server.request('GET', `${RACKS}/r1`);
  await expectWrite(server, 'PUT', `${RACKS}/r1/status`, { ...got.body, status: { replicas: 2, selector: 'app=r1' } });
  const withStatus = await server.request('GET', `${RACKS}/r1/scale`);
  assert.deepEqual(withStatus.body.status, { replicas: 2, selector: 'app=r1' });
  const table = await server.request('GET', `${RACKS}/r1/scale`, { headers: { accept: TABLE } });
  assert.deepEqual([table.body.kind, table.body.columnDefinitions.map((c: any) => c.name), table.body.rows[0].cells[0]], ['Table', ['Name', 'Created At'], 'r1']);
});

test('PUT scale writes spec replicas into the object, answers the new Scale and records the manager on the scale subresource', async () => {
  const before = await server.request('GET', `${RACKS}/r1/scale`);
  const res = await server.request('PUT', `${RACKS}/r1/scale?fieldManager=scaler`, { body: { ...before.body, spec: { replicas: 5 } } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.spec.replicas, 5);
  assert.notEqual(res.body.metadata.resourceVersion, before.body.metadata.resourceVersion);
  const rack = (await server.request('GET', `${RACKS}/r1`)).body;
  assert.deepEqual([rack.spec.replicas, rack.status.replicas, rack.metadata.generation, rack.metadata.resourceVersion], [5, 2, 2, res.body.metadata.resourceVersion]);
  const entry = rack.metadata.managedFields.find((f: any) => f.manager === 'scaler');
  assert.deepEqual([entry.operation, entry.apiVersion, entry.subresource, entry.fieldsV1], ['Update', 'example.com/v1', 'scale', { 'f:spec': { 'f:replicas': {} } }]);

  // The Scale's resourceVersion is the precondition: a stale one is a conflict, none is unconditional.
  const stale = await server.request('PUT', `${RACKS}/r1/scale`, { body: { ...before.body, spec: { replicas: 6 } } });
  assertFailure(stale, 409, 'Conflict');
  const unconditional = await server.request('PUT', `${RACKS}/r1/scale`, { body: { metadata: { name: 'r1' }, spec: { replicas: 6 } } });
  assert.equal(unconditional.status, 200, unconditional.text);
  assert.equal((await server.request('GET', `${RACKS}/r1`)).body.spec.replicas, 6);
  const dryRun = await server.request('PUT', `${RACKS}/r1/scale?dryRun=All`, { body: { metadata: { name: 'r1' }, spec: { replicas: 9 } } });
  assert.equal(dryRun.body.spec.replicas, 9);
  assert.equal((await server.request('GET', `${RACKS}/r1`)).body.spec.replicas, 6);
});

test('PATCH scale: merge and JSON patches of the Scale; strategic merge (as on the resource) and apply are refused', async () => {
  const merged = await server.request('PATCH', `${RACKS}/r1/scale`, { body: { spec: { replicas: 7 } }, headers: MERGE });
  assert.equal(merged.status, 200, merged.text);
  assert.equal(merged.body.spec.replicas, 7);
  const jsonPatch = await server.request('PATCH', `${RACKS}/r1/scale`, { body: [{ op: 'replace', path: '/spec/replicas', value: 8 }], headers: { 'content-type': 'application/json-patch+json' } });
  assert.equal(jsonPatch.body.spec.replicas, 8);
  const strategic = await server.request('PATCH', `${RACKS}/r1/scale`, { body: { spec: { replicas: 1 } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
  assertFailure(strategic, 415, 'UnsupportedMediaType');
  assert.equal((await server.request('GET', `${RACKS}/r1`)).body.spec.replicas, 8);
  const apply = await server.request('PATCH', `${RACKS}/r1/scale?fieldManager=a`, { raw: 'apiVersion: autoscaling/v1\nkind: Scale\nspec: {replicas: 2}\n', headers: { 'content-type': 'application/apply-patch+yaml' } });
  assertFailure(apply, 415, 'UnsupportedMediaType');
  const renamed = await server.request('PATCH', `${RACKS}/r1/scale`, { body: { metadata: { name: 'other' } }, headers: MERGE });
  assertFailure(renamed, 400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (r1)');
  const wrongType = await server.request('PATCH', `${RACKS}/r1/scale`, { body: { spec: { replicas: 'many' } }, headers: MERGE });
  assertFailure(wrongType, 400, 'BadRequest', /^Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32/);
});

test('negative replicas are invalid on the object, as upstream validates its scale paths', async () => {
  const res = await server.request('PATCH', `${RACKS}/r1/scale`, { body: { spec: { replicas: -1 } }, headers: MERGE });
  assertFailure(res, 422, 'Invalid');
  assert.deepEqual(res.body.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: should be a non-negative integer', field: '.spec.replicas' }]);
  assert.equal(res.body.message, 'Rack.example.com "r1" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer');

  const typed = await server.request('POST', RACKS, { body: { apiVersion: 'example.com/v1', kind: 'Rack', metadata: { name: 'bad' }, spec: { replicas: 'x' } } });
  assertFailure(typed, 422, 'Invalid');
  // The schema's type error, then upstream's scale check of the same field.
  assert.deepEqual(typed.body.details.causes.map((c: any) => [c.field, c.message]), [
    ['spec.replicas', 'Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
    ['.spec.replicas', 'Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64'],
  ]);
  const big = await server.request('POST', RACKS, { body: { apiVersion: 'example.com/v1', kind: 'Rack', metadata: { name: 'big' }, spec: { replicas: 2147483648 } } });
  assert.deepEqual(big.body.details.causes.map((c: any) => c.message), ['Invalid value: 2147483648: should be less than or equal to 2147483647']);

  const got = (await server.request('GET', `${RACKS}/r1`)).body;
  const status = await server.request('PUT', `${RACKS}/r1/status`, { body: { ...got, status: { replicas: -2, selector: 5 } } });
  assertFailure(status, 422, 'Invalid');
  assert.deepEqual(status.body.details.causes.map((c: any) => [c.field, c.message]), [
    ['.status.replicas', 'Invalid value: -2: should be a non-negative integer'],
    ['.status.selector', 'Invalid value: "": .status.selector accessor error: 5 is of the type int64, expected string'],
  ]);
});

test('an object without spec replicas: GET scale is an internal error, a write must set them', async () => {
  await createRack('empty', {});
  const got = await server.request('GET', `${RACKS}/empty/scale`);
  assertFailure(got, 500, 'InternalError', 'Internal error occurred: the spec replicas field ".spec.replicas" does not exist');
  const unset = await server.request('PATCH', `${RACKS}/empty/scale`, { body: { metadata: { labels: { a: 'b' } } }, headers: MERGE });
  assertFailure(unset, 400, 'BadRequest', 'the spec replicas field ".spec.replicas" cannot be empty');
  const set = await server.request('PATCH', `${RACKS}/empty/scale`, { body: { spec: { replicas: 2 } }, headers: MERGE });
  assert.equal(set.status, 200, set.text);
  assert.equal((await server.request('GET', `${RACKS}/empty`)).body.spec.replicas, 2);
});

test('bad requests: other methods, missing objects, another body kind, unknown fields, a kind without scale', async () => {
  assertFailure(await server.request('POST', `${RACKS}/r1/scale`, { body: {} }), 405, 'MethodNotAllowed');
  assertFailure(await server.request('DELETE', `${RACKS}/r1/scale`), 405, 'MethodNotAllowed');
  assertFailure(await server.request('GET', `${RACKS}/missing/scale`), 404, 'NotFound');
  assertFailure(await server.request('PUT', `${RACKS}/missing/scale`, { body: { metadata: { name: 'missing' }, spec: { replicas: 1 } } }), 404, 'NotFound');
  const otherKind = await server.request('PUT', `${RACKS}/r1/scale`, { body: { apiVersion: 'example.com/v1', kind: 'Rack', metadata: { name: 'r1' } } });
  assertFailure(otherKind, 400, 'BadRequest', 'the API version in the data (example.com/v1) does not match the expected API version (autoscaling/v1)');
  const strict = await server.request('PUT', `${RACKS}/r1/scale?fieldValidation=Strict`, { body: { metadata: { name: 'r1' }, spec: { replicas: 1, extra: true } } });
  assertFailure(strict, 400, 'BadRequest', 'Scale in version "v1" cannot be handled as a Scale: strict decoding error: unknown field "spec.extra"');
  const otherNamespace = await server.request('PUT', `${RACKS}/r1/scale`, { body: { metadata: { name: 'r1', namespace: 'orch-system' }, spec: { replicas: 1 } } });
  assertFailure(otherNamespace, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
  const shelves = exampleCrd('shelves', 'Shelf', 'Namespaced', [{ ...rackVersion, subresources: undefined }]);
  await createServedCrd(server, shelves, ['/apis/example.com/v1/namespaces/default/shelves']);
  await expectWrite(server, 'POST', '/apis/example.com/v1/namespaces/default/shelves', { apiVersion: 'example.com/v1', kind: 'Shelf', metadata: { name: 's' }, spec: { replicas: 1 } });
  assertFailure(await server.request('GET', '/apis/example.com/v1/namespaces/default/shelves/s/scale'), 404, 'NotFound');
});

test('a cluster-scoped kind: the Scale has no namespace; malformed bodies and patches are 400s', async () => {
  const POSTS = '/apis/example.com/v1/posts';
  await createServedCrd(server, exampleCrd('posts', 'Post', 'Cluster', [rackVersion]), [POSTS]);
  await expectWrite(server, 'POST', POSTS, { apiVersion: 'example.com/v1', kind: 'Post', metadata: { name: 'p1' }, spec: { replicas: 2 } });
  const scale = await server.request('GET', `${POSTS}/p1/scale`);
  assert.equal(scale.status, 200, scale.text);
  assert.deepEqual([scale.body.metadata.name, scale.body.metadata.namespace, scale.body.spec.replicas], ['p1', undefined, 2]);
  const list = await server.request('GET', '/apis/example.com/v1');
  assert.equal(list.body.resources.find((r: any) => r.name === 'posts/scale').namespaced, false);

  const notJson = await server.request('PUT', `${POSTS}/p1/scale`, { raw: '{"spec":', headers: { 'content-type': 'application/json' } });
  assertFailure(notJson, 400, 'BadRequest', /^Scale in version "v1" cannot be handled as a Scale: /);
  const badPatch = await server.request('PATCH', `${POSTS}/p1/scale`, { raw: '[{"op":"bogus","path":"/spec/replicas","value":1}]', headers: { 'content-type': 'application/json-patch+json' } });
  assert.ok(badPatch.status === 400 || badPatch.status === 422, badPatch.text);
  const missingPath = await server.request('PATCH', `${POSTS}/p1/scale`, { body: [{ op: 'remove', path: '/spec/nothing' }], headers: { 'content-type': 'application/json-patch+json' } });
  assertFailure(missingPath, 422, 'Invalid');
  const arrayMerge = await server.request('PATCH', `${POSTS}/p1/scale`, { body: [1], headers: MERGE });
  assertFailure(arrayMerge, 400, 'BadRequest');
  assert.equal((await server.request('GET', `${POSTS}/p1`)).body.spec.replicas, 2, 'nothing was written');
});

describe('kubectl', { skip: !hasKubectl() && 'kubectl is not on PATH' }, () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'orch-crd-scale-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  test('kubectl scale finds the subresource through discovery and sets the replicas', async () => {
    await createRack('k1', { replicas: 1 });
    const scaled = await runKubectl(server.orchconfig, home, ['scale', 'racks', 'k1', '-n', 'default', '--replicas=4']);
    assert.equal(scaled.code, 0, scaled.stderr);
    assert.match(scaled.stdout, /rack.example.com\/k1 scaled/);
    assert.equal((await server.request('GET', `${RACKS}/k1`)).body.spec.replicas, 4);
    const stale = await runKubectl(server.orchconfig, home, ['scale', 'racks', 'k1', '-n', 'default', '--replicas=2', '--current-replicas=3']);
    assert.notEqual(stale.code, 0);
    assert.match(stale.stderr, /Expected replicas to be 3, was 4/);
    assert.equal((await server.request('GET', `${RACKS}/k1`)).body.spec.replicas, 4);
  });
});

test('the OpenAPI documents describe the scale routes with a Scale schema they hold themselves', async () => {
  const index = await server.request('GET', '/openapi/v3');
  const doc = (await server.request('GET', index.body.paths['apis/example.com/v1'].serverRelativeURL)).body;
  const scalePath = doc.paths['/apis/example.com/v1/namespaces/{namespace}/racks/{name}/scale'];
  assert.ok(scalePath?.get, 'the scale route is published');
  const v2 = (await server.request('GET', '/openapi/v2')).body;
  for (const [what, document, prefix, pool] of [
    ['v3', doc, '#/components/schemas/', doc.components.schemas],
    ['v2', v2, '#/definitions/', v2.definitions],
  ] as const) {
    const refs = new Set<string>();
    JSON.stringify(document, (key, value) => {
      if (key === '$ref' && typeof value === 'string') refs.add(value);
      return value;
    });
    const dangling = [...refs].filter((ref) => !ref.startsWith(prefix) || !pool[ref.slice(prefix.length)]);
    assert.deepEqual(dangling, [], `${what}: every reference resolves`);
    assert.ok(pool['io.orch.api.autoscaling.v1.Scale'], what);
    assert.equal(pool['io.orch.api.autoscaling.v1.ScaleSpec']?.properties?.replicas?.type, 'integer', what);
  }
});
