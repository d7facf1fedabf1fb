/**
 * CustomResourceDefinitions served at run time (issue 11; SPEC 2.1, 4.1, 3):
 * names accepted and Established by the server's controllers, the served
 * versions routed, listed in discovery and cached within a second, their
 * objects pruned and defaulted by the schema and kept by the generic store,
 * and the definition's deletion deleting its objects and its routes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertFailure, expectWrite } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

let server: TestServer;
const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

const widgetSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer', default: 3 },
        color: { type: 'string' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

function widgetsCrd(extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: widgetSchema }, subresources: { status: {} } }],
      ...extra,
    },
  };
}

before(async () => {
  server = await startTestServer(['--authorization-mode=AlwaysAllow']);
});
after(() => server?.close());

test('a definition gets its names accepted and becomes Established; its resource is then served and discovered', async () => {
  const created = await expectWrite(server, 'POST', CRDS, widgetsCrd());
  assert.equal(created.metadata.name, 'widgets.example.com');
  const started = Date.now();
  const crd = await eventually('Established', async () => {
    const res = await server.request('GET', `${CRDS}/widgets.example.com`);
    return res.body.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True') ? res.body : undefined;
  });
  const byType = Object.fromEntries(crd.status.conditions.map((c: any) => [c.type, c]));
  assert.deepEqual([byType.NamesAccepted.status, byType.NamesAccepted.reason, byType.NamesAccepted.message], ['True', 'NoConflicts', 'no conflicts found']);
  assert.deepEqual([byType.Established.reason, byType.Established.message], ['InitialNamesAccepted', 'the initial names have been accepted']);
  assert.deepEqual(crd.status.acceptedNames, { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList', categories: ['all'] });

  // Every process of the pool serves it within a second (the helper keeps two; connections are new each time).
  await eventually('served', async () => ((await server.request('GET', WIDGETS)).status === 200 ? true : undefined), 1_000 + (Date.now() - started));
  for (let i = 0; i < 6; i++) assert.equal((await server.request('GET', WIDGETS)).status, 200);
  const group = await server.request('GET', '/apis/example.com/v1');
  assert.equal(group.status, 200);
  const resources = group.body.resources.map((r: any) => [r.name, r.kind, r.namespaced, r.shortNames?.join(','), r.categories?.join(',')]);
  assert.deepEqual(resources, [
    ['widgets', 'Widget', true, 'wd', 'all'],
    ['widgets/status', 'Widget', true, undefined, undefined],
  ]);
  const apis = await server.request('GET', '/apis');
  assert.ok(apis.body.groups.some((g: any) => g.name === 'example.com' && g.preferredVersion.version === 'v1'));
});

test('objects are pruned and defaulted by the schema, stored, listed, watched and updated through the generic store', async () => {
  const body = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w1', labels: { app: 'x' } },
    spec: { color: 'red', bogus: 1, labels: { a: 'b' }, free: { anything: { goes: [1, 2] } }, items: [{ name: 'i', extra: true }] },
    status: { ready: true },
    unknownTop: 'x',
  };
  const watch = openWatch(server, `${WIDGETS}?watch=1`);
  assert.equal(await watch.status, 200);
  const res = await server.request('POST', `${WIDGETS}?fieldValidation=Warn`, { body });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(res.body.spec, { color: 'red', labels: { a: 'b' }, free: { anything: { goes: [1, 2] } }, items: [{ name: 'i' }], size: 3 });
  assert.equal(res.body.status, undefined, 'create cannot set status when the status subresource is on');
  assert.equal(res.body.unknownTop, undefined);
  assert.equal(res.body.metadata.generation, 1);
  const warnings = String(res.headers.warning ?? '');
  for (const field of ['spec.bogus', 'spec.items[0].extra', 'unknownTop']) assert.match(warnings, new RegExp(`unknown field \\\\"${field.replace(/[[\]]/g, '\\$&')}\\\\"`));
  const strict = await server.request('POST', `${WIDGETS}?fieldValidation=Strict`, { body: { ...body, metadata: { name: 'w2' } } });
  assertFailure(strict, 400, 'BadRequest', 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus", unknown field "spec.items[0].extra", unknown field "unknownTop"');

  // Types and value rules are validation's: 422 with the schema's words, as upstream.
  const wrongType = await server.request('POST', WIDGETS, { body: { ...body, metadata: { name: 'w3' }, spec: { size: 'big', items: 'x' } } });
  assertFailure(wrongType, 422, 'Invalid');
  assert.deepEqual(wrongType.body.details.causes.map((c: any) => [c.reason, c.field, c.message]), [
    ['FieldValueTypeInvalid', 'spec.items', 'Invalid value: "string": spec.items in body must be of type array: "string"'],
    ['FieldValueTypeInvalid', 'spec.size', 'Invalid value: "string": spec.size in body must be of type integer: "string"'],
  ]);

  const got = await server.request('GET', `${WIDGETS}/w1`);
  assert.equal(got.body.spec.size, 3);
  const list = await server.request('GET', `${WIDGETS}?labelSelector=app%3Dx`);
  assert.equal(list.body.kind, 'WidgetList');
  assert.deepEqual(list.body.items.map((i: any) => i.metadata.name), ['w1']);

  const updated = await expectWrite(server, 'PUT', `${WIDGETS}/w1`, { ...got.body, spec: { ...got.body.spec, color: 'blue' } });
  assert.equal(updated.metadata.generation, 2);
  const status = await expectWrite(server, 'PUT', `${WIDGETS}/w1/status`, { ...updated, status: { ready: true } });
  assert.deepEqual(status.status, { ready: true });
  assert.equal(status.metadata.generation, 2, 'a status change moves no generation');
  const patched = await server.request('PATCH', `${WIDGETS}/w1`, { body: { spec: { size: 5 } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.body.spec.size, 5);
  const noVersion = await server.request('PUT', `${WIDGETS}/w1`, { body: { ...patched.body, metadata: { ...patched.body.metadata, resourceVersion: undefined } } });
  assertFailure(noVersion, 422, 'Invalid');
  // The create, the update, the status update and the patch, as they were stored.
  const events = await watch.waitFor(4);
  watch.close();
  assert.deepEqual(events.map((e) => [e.type, e.object.kind, e.object.metadata.generation, e.object.spec.color, e.object.spec.size, e.object.status?.ready]), [
    ['ADDED', 'Widget', 1, 'red', 3, undefined],
    ['MODIFIED', 'Widget', 2, 'blue', 3, undefined],
    ['MODIFIED', 'Widget', 2, 'blue', 3, true],
    ['MODIFIED', 'Widget', 3, 'blue', 5, true],
  ]);
  const table = await server.request('GET', WIDGETS, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' } });
  assert.deepEqual(table.body.columnDefinitions.map((c: any) => c.name), ['Name', 'Age']);
  assert.equal(table.body.rows[0].cells[0], 'w1');
});

test('deleting the definition deletes its objects, then itself, and the resource is gone from every process', async () => {
  const first = await server.request('DELETE', `${CRDS}/widgets.example.com`);
  assert.equal(first.status, 200, first.text);
  assert.ok(first.body.metadata.finalizers.includes('customresourcecleanup.apiextensions.orch.io'));
  assert.ok(first.body.status.conditions.some((c: any) => c.type === 'Terminating' && c.status === 'True'));
  await eventually('definition gone', async () => ((await server.request('GET', `${CRDS}/widgets.example.com`)).status === 404 ? true : undefined));
  await eventually('resource gone', async () => ((await server.request('GET', WIDGETS)).status === 404 ? true : undefined), 2_000);
  for (let i = 0; i < 6; i++) assert.equal((await server.request('GET', WIDGETS)).status, 404);
  assert.equal((await server.request('GET', '/apis/example.com/v1')).status, 404);
  // Recreated, it starts empty: the objects went with the old definition.
  await expectWrite(server, 'POST', CRDS, widgetsCrd());
  await eventually('served again', async () => ((await server.request('GET', WIDGETS)).status === 200 ? true : undefined));
  assert.deepEqual((await server.request('GET', WIDGETS)).body.items, []);
});
