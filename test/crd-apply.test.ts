/**
 * Server-side apply and patches on custom objects (issue 11; SPEC 4.5; upstream
 * apiextensions-apiserver crdHandler with structured-merge-diff over the
 * version's schema): the schema's x-kubernetes-list-type (map, set, atomic),
 * list-map keys and map-type shape merges, conflicts and ownership end to end;
 * strategic merge patch is refused with upstream's 415; JSON and merge patches
 * work.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertFailure, expectWrite } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
const GADGETS = '/apis/apply.example.com/v1/namespaces/default/gadgets';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'protocol'],
          items: {
            type: 'object',
            required: ['name', 'protocol'],
            properties: { name: { type: 'string' }, protocol: { type: 'string' }, port: { type: 'integer' } },
          },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  },
};

function gadget(spec: Record<string, unknown>) {
  return { apiVersion: 'apply.example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec };
}

function apply(manager: string, spec: Record<string, unknown>, extra = '') {
  return server.request('PATCH', `${GADGETS}/g1?fieldManager=${manager}${extra}`, { headers: APPLY, raw: JSON.stringify(gadget(spec)) });
}

function entry(obj: any, manager: string) {
  return obj.metadata.managedFields.find((e: any) => e.manager === manager);
}

before(async () => {
  server = await startTestServer(['--authorization-mode=AlwaysAllow']);
  await expectWrite(server, 'POST', CRDS, {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.apply.example.com' },
    spec: {
      group: 'apply.example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', kind: 'Gadget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  });
  await eventually('gadgets served', async () => ((await server.request('GET', GADGETS)).status === 200 ? true : undefined));
});
after(() => server?.close());

test('apply creates the object with the applier owning exactly what it applied, by the schema\'s structure', async () => {
  const res = await apply('alice', {
    replicas: 1,
    ports: [{ name: 'http', protocol: 'TCP', port: 80 }],
    tags: ['a', 'b'],
    args: ['--x'],
    selector: { app: 'one' },
    labels: { team: 'red' },
  });
  assert.equal(res.status, 201, res.text);
  const alice = entry(res.body, 'alice');
  assert.equal(alice.operation, 'Apply');
  assert.equal(alice.apiVersion, 'apply.example.com/v1');
  assert.equal(alice.fieldsType, 'FieldsV1');
  assert.deepEqual(alice.fieldsV1, {
    'f:spec': {
      'f:args': {},
      'f:labels': { 'f:team': {} },
      'f:ports': { 'k:{"name":"http","protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } },
      'f:replicas': {},
      'f:selector': {},
      'f:tags': { 'v:"a"': {}, 'v:"b"': {} },
    },
  });
});

test('a second manager\'s conflicting apply is 409 with causes; merged lists keep both managers\' items', async () => {
  const conflict = await apply('bob', { replicas: 2, args: ['--y'], selector: { app: 'two' } });
  assertFailure(conflict, 409, 'Conflict');
  assert.equal(conflict.body.message, 'Apply failed with 3 conflicts: conflicts with "alice":\n- .spec.args\n- .spec.replicas\n- .spec.selector');
  assert.deepEqual(conflict.body.details.causes, [
    { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.args' },
    { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' },
    { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.selector' },
  ]);
  // A map-list item with another key, a set element and a granular map key merge with alice's.
  const merged = await apply('bob', { ports: [{ name: 'http', protocol: 'UDP', port: 53 }], tags: ['c'], labels: { tier: 'web' } });
  assert.equal(merged.status, 200, merged.text);
  assert.deepEqual(merged.body.spec.ports, [{ name: 'http', protocol: 'TCP', port: 80 }, { name: 'http', protocol: 'UDP', port: 53 }]);
  assert.deepEqual(merged.body.spec.tags, ['a', 'b', 'c']);
  assert.deepEqual(merged.body.spec.labels, { team: 'red', tier: 'web' });
  assert.deepEqual(entry(merged.body, 'bob').fieldsV1, {
    'f:spec': {
      'f:labels': { 'f:tier': {} },
      'f:ports': { 'k:{"name":"http","protocol":"UDP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } },
      'f:tags': { 'v:"c"': {} },
    },
  });
  // The same value as live shares ownership without conflict.
  const shared = await apply('bob', { replicas: 1, ports: [{ name: 'http', protocol: 'UDP', port: 53 }], tags: ['c'], labels: { tier: 'web' } });
  assert.equal(shared.status, 200, shared.text);
  assert.ok(entry(shared.body, 'bob').fieldsV1['f:spec']['f:replicas']);
  assert.ok(entry(shared.body, 'alice').fieldsV1['f:spec']['f:replicas']);
});

test('force takes ownership; the previous owner loses the field; dropping an applied item removes only what no one else owns', async () => {
  const forced = await apply('bob', { replicas: 3, ports: [{ name: 'http', protocol: 'UDP', port: 53 }], tags: ['c'], labels: { tier: 'web' }, args: ['--y'] }, '&force=true');
  assert.equal(forced.status, 200, forced.text);
  assert.equal(forced.body.spec.replicas, 3);
  assert.deepEqual(forced.body.spec.args, ['--y']);
  const alice = entry(forced.body, 'alice').fieldsV1['f:spec'];
  assert.equal(alice['f:replicas'], undefined);
  assert.equal(alice['f:args'], undefined);
  assert.ok(alice['f:selector']);
  // Alice re-applies without her port and tag "b": they go; bob's items stay.
  const dropped = await apply('alice', { selector: { app: 'one' }, ports: [], tags: ['a'], labels: { team: 'red' } });
  assert.equal(dropped.status, 200, dropped.text);
  assert.deepEqual(dropped.body.spec.ports, [{ name: 'http', protocol: 'UDP', port: 53 }]);
  assert.deepEqual(dropped.body.spec.tags, ['a', 'c']);
  assert.equal(dropped.body.spec.replicas, 3);
});

test('strategic merge patch on a custom resource is 415 with upstream\'s accepted types; JSON and merge patches work', async () => {
  const smp = await server.request('PATCH', `${GADGETS}/g1`, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, raw: '{"spec":{"replicas":4}}' });
  assertFailure(
    smp,
    415,
    'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  );
  const merge = await server.request('PATCH', `${GADGETS}/g1?fieldManager=carol`, { headers: { 'content-type': 'application/merge-patch+json' }, raw: '{"spec":{"replicas":5}}' });
  assert.equal(merge.status, 200, merge.text);
  assert.equal(merge.body.spec.replicas, 5);
  const carol = entry(merge.body, 'carol');
  assert.equal(carol.operation, 'Update');
  assert.deepEqual(carol.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
  // An update takes ownership from the applier, so the applier's next apply of another value conflicts with it.
  assert.equal(entry(merge.body, 'bob').fieldsV1['f:spec']['f:replicas'], undefined);
  const conflict = await apply('bob', { replicas: 6, ports: [{ name: 'http', protocol: 'UDP', port: 53 }], tags: ['c'], labels: { tier: 'web' }, args: ['--y'] });
  assertFailure(conflict, 409, 'Conflict', 'Apply failed with 1 conflict: conflict with "carol" using apply.example.com/v1: .spec.replicas');

  const jsonPatch = await server.request('PATCH', `${GADGETS}/g1`, {
    headers: { 'content-type': 'application/json-patch+json' },
    raw: JSON.stringify([{ op: 'test', path: '/spec/replicas', value: 5 }, { op: 'add', path: '/spec/tags/-', value: 'd' }]),
  });
  assert.equal(jsonPatch.status, 200, jsonPatch.text);
  assert.deepEqual(jsonPatch.body.spec.tags, ['a', 'c', 'd']);
  const failed = await server.request('PATCH', `${GADGETS}/g1`, {
    headers: { 'content-type': 'application/json-patch+json' },
    raw: JSON.stringify([{ op: 'test', path: '/spec/replicas', value: 1 }]),
  });
  assertFailure(failed, 422, 'Invalid');
  // A status subresource is not defined: PATCH there is 404.
  assert.equal((await server.request('PATCH', `${GADGETS}/g1/status`, { headers: { 'content-type': 'application/merge-patch+json' }, raw: '{}' })).status, 404);
});

test('an apply the schema rejects fails whole and writes nothing', async () => {
  const before = (await server.request('GET', `${GADGETS}/g1`)).body;
  const bad = await apply('dave', { labels: { extra: 5 } });
  assertFailure(bad, 422, 'Invalid');
  assert.deepEqual(bad.body.details.causes, [
    { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "integer": spec.labels.extra in body must be of type string: "integer"', field: 'spec.labels.extra' },
  ]);
  // A map-list item without one of its keys (the merged object is validated: bob's port is item 0).
  const missingKey = await apply('dave', { ports: [{ name: 'dns', port: 53 }] });
  assertFailure(missingKey, 422, 'Invalid');
  assert.deepEqual(missingKey.body.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.ports[1].protocol' }]);
  const now = (await server.request('GET', `${GADGETS}/g1`)).body;
  assert.equal(now.metadata.resourceVersion, before.metadata.resourceVersion);
  assert.equal(entry(now, 'dave'), undefined);
});
