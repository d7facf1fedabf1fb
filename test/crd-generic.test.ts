/**
 * Custom objects get everything the generic store gives built-in kinds
 * (issue 11; SPEC 4.3, 4.4, 4.6, 4.9): chunked lists from one snapshot, label
 * selectors and the version's selectableFields, resource-version semantics,
 * watches resumed from a list, dry run, JSON and merge patches,
 * deletecollection; and the schema's x-kubernetes-int-or-string and
 * x-kubernetes-embedded-resource as upstream validates them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertFailure, causesOf, expectWrite, itemNames } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

let server: TestServer;
const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
const GADGETS = '/apis/tools.example.org/v1/namespaces/default/gadgets';

const gadgetsCrd = {
  apiVersion: 'apiextensions.orch.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.tools.example.org' },
  spec: {
    group: 'tools.example.org',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        selectableFields: [{ jsonPath: '.spec.color' }],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  color: { type: 'string' },
                  port: { 'x-kubernetes-int-or-string': true },
                  template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const gadget = (name: string, spec: Record<string, unknown> = {}, labels: Record<string, string> = {}) => ({
  apiVersion: 'tools.example.org/v1',
  kind: 'Gadget',
  metadata: { name, labels },
  spec,
});

before(async () => {
  server = await startTestServer(['--authorization-mode=AlwaysAllow']);
  await expectWrite(server, 'POST', CRDS, gadgetsCrd);
  await eventually('served', async () => ((await server.request('GET', GADGETS)).status === 200 ? true : undefined));
});
after(() => server?.close());

test('chunked lists walk one snapshot; label and field selectors filter; an unknown field selector is 400', async () => {
  for (let i = 0; i < 7; i++) await expectWrite(server, 'POST', GADGETS, gadget(`g${i}`, { color: i % 2 ? 'red' : 'blue' }, { tier: i < 3 ? 'front' : 'back' }));
  const first = await server.request('GET', `${GADGETS}?limit=3`);
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(itemNames(first), ['g0', 'g1', 'g2']);
  assert.equal(first.body.metadata.remainingItemCount, 4);
  const snapshot = first.body.metadata.resourceVersion;
  // A write between chunks is not in the walk: every chunk is the first one's snapshot.
  await expectWrite(server, 'POST', GADGETS, gadget('g-late'));
  const names = [...itemNames(first)];
  let token = first.body.metadata.continue;
  while (token) {
    const next = await server.request('GET', `${GADGETS}?limit=3&continue=${encodeURIComponent(token)}`);
    assert.equal(next.status, 200, next.text);
    assert.equal(next.body.metadata.resourceVersion, snapshot);
    names.push(...itemNames(next));
    token = next.body.metadata.continue;
  }
  assert.deepEqual(names, ['g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'g6']);

  assert.deepEqual(itemNames(await server.request('GET', `${GADGETS}?labelSelector=tier%3Dfront`)), ['g0', 'g1', 'g2']);
  assert.deepEqual(itemNames(await server.request('GET', `${GADGETS}?fieldSelector=spec.color%3Dred`)), ['g1', 'g3', 'g5']);
  assert.deepEqual(itemNames(await server.request('GET', `${GADGETS}?fieldSelector=metadata.name%3Dg4`)), ['g4']);
  const unknown = await server.request('GET', `${GADGETS}?fieldSelector=spec.size%3D1`);
  assertFailure(unknown, 400, 'BadRequest', /field label not supported: spec.size/);
  // resourceVersionMatch without a resourceVersion is invalid (SPEC 4.6, 7: 400).
  assertFailure(await server.request('GET', `${GADGETS}?resourceVersionMatch=NotOlderThan`), 400, 'BadRequest', /resourceVersionMatch is forbidden unless resourceVersion is provided/);
});

test('a watch resumed from a list gets exactly the later changes; an Exact list at an old revision is that state', async () => {
  const list = await server.request('GET', GADGETS);
  const rv = list.body.metadata.resourceVersion;
  const watch = openWatch(server, `${GADGETS}?watch=1&resourceVersion=${rv}`);
  assert.equal(await watch.status, 200);
  await expectWrite(server, 'POST', GADGETS, gadget('w-new', { color: 'green' }));
  const merged = await server.request('PATCH', `${GADGETS}/w-new`, { body: { spec: { color: 'teal' } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(merged.status, 200, merged.text);
  const patched = await server.request('PATCH', `${GADGETS}/w-new`, {
    body: [{ op: 'test', path: '/spec/color', value: 'teal' }, { op: 'replace', path: '/spec/color', value: 'navy' }],
    headers: { 'content-type': 'application/json-patch+json' },
  });
  assert.equal(patched.status, 200, patched.text);
  const failedTest = await server.request('PATCH', `${GADGETS}/w-new`, { body: [{ op: 'test', path: '/spec/color', value: 'teal' }], headers: { 'content-type': 'application/json-patch+json' } });
  assertFailure(failedTest, 422, 'Invalid');
  assert.equal(await server.request('DELETE', `${GADGETS}/w-new`).then((r) => r.status), 200);
  const events = await watch.waitFor(4);
  watch.close();
  assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name, e.object.spec.color]), [
    ['ADDED', 'w-new', 'green'],
    ['MODIFIED', 'w-new', 'teal'],
    ['MODIFIED', 'w-new', 'navy'],
    ['DELETED', 'w-new', 'navy'],
  ]);
  const exact = await server.request('GET', `${GADGETS}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
  assert.equal(exact.status, 200, exact.text);
  assert.equal(exact.body.metadata.resourceVersion, rv);
  assert.deepEqual(itemNames(exact), itemNames(list));
});

test('dry run answers as the real write and stores nothing', async () => {
  const dry = await server.request('POST', `${GADGETS}?dryRun=All`, { body: gadget('dry', { color: 'red' }) });
  assert.equal(dry.status, 201, dry.text);
  assert.equal(dry.body.metadata.name, 'dry');
  assert.ok(dry.body.metadata.uid);
  assert.equal((await server.request('GET', `${GADGETS}/dry`)).status, 404);
  const dryDelete = await server.request('DELETE', `${GADGETS}/g0?dryRun=All`);
  assert.equal(dryDelete.status, 200, dryDelete.text);
  assert.equal((await server.request('GET', `${GADGETS}/g0`)).status, 200);
  const before = (await server.request('GET', `${GADGETS}/g0`)).body;
  const dryPatch = await server.request('PATCH', `${GADGETS}/g0?dryRun=All`, { body: { spec: { color: 'pink' } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(dryPatch.body.spec.color, 'pink');
  assert.deepEqual((await server.request('GET', `${GADGETS}/g0`)).body, before);
});

test('x-kubernetes-int-or-string takes integers and strings only', async () => {
  await expectWrite(server, 'POST', GADGETS, gadget('port-number', { port: 8080 }));
  await expectWrite(server, 'POST', GADGETS, gadget('port-name', { port: 'http' }));
  const wrong = await server.request('POST', GADGETS, { body: gadget('port-bool', { port: true }) });
  assertFailure(wrong, 422, 'Invalid');
  assert.deepEqual(wrong.body.details.causes.map((c: any) => [c.reason, c.field, c.message]), [
    ['FieldValueTypeInvalid', 'spec.port', 'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'],
  ]);
  const fraction = await server.request('POST', GADGETS, { body: gadget('port-fraction', { port: 1.5 }) });
  assertFailure(fraction, 422, 'Invalid');
  assert.deepEqual(causesOf(fraction), [['FieldValueTypeInvalid', 'spec.port']]);
  assert.equal((await server.request('GET', `${GADGETS}/port-bool`)).status, 404);
});

test('an x-kubernetes-embedded-resource needs apiVersion and kind, and its metadata is validated as an object\'s', async () => {
  // Upstream validates an embedded name as a path segment (ValidatePathSegmentName), so only '/', '%', '.' and '..' are refused.
  const good = await expectWrite(server, 'POST', GADGETS, gadget('embed-ok', { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inner', labels: { a: 'b' } }, data: { k: 'v' } } }));
  assert.deepEqual(good.spec.template, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inner', labels: { a: 'b' } }, data: { k: 'v' } });
  const missing = await server.request('POST', GADGETS, { body: gadget('embed-bare', { template: { metadata: { name: 'inner' } } }) });
  assertFailure(missing, 422, 'Invalid');
  assert.deepEqual(causesOf(missing), [
    ['FieldValueRequired', 'spec.template.apiVersion'],
    ['FieldValueRequired', 'spec.template.kind'],
  ]);
  const badName = await server.request('POST', GADGETS, { body: gadget('embed-badname', { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a%b', labels: { 'bad key': 'x' } } } }) });
  assertFailure(badName, 422, 'Invalid');
  assert.deepEqual(causesOf(badName), [
    ['FieldValueInvalid', 'spec.template.metadata.name'],
    ['FieldValueInvalid', 'spec.template.metadata.labels'],
  ]);
  await expectWrite(server, 'POST', GADGETS, gadget('embed-segment', { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_A_DNS_Name' } } }));
});

test('deletecollection with a label selector deletes exactly the selection', async () => {
  const res = await server.request('DELETE', `${GADGETS}?labelSelector=tier%3Dback`);
  assert.equal(res.status, 200, res.text);
  const left = itemNames(await server.request('GET', GADGETS));
  assert.ok(!left.some((n) => ['g3', 'g4', 'g5', 'g6'].includes(n)), left.join(','));
  assert.ok(['g0', 'g1', 'g2'].every((n) => left.includes(n)), left.join(','));
});

/** A schema whose `spec` nests `levels` objects, each with one property `a`, ending in a string with a default. */
function nestedSchema(levels: number): any {
  let schema: any = { type: 'string', default: 'bottom' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

function deepCrd(plural: string, levels: number) {
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.deep.example.org` },
    spec: {
      group: 'deep.example.org',
      scope: 'Namespaced',
      names: { plural, kind: plural[0].toUpperCase() + plural.slice(1, -1) },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: nestedSchema(levels) } } } }],
    },
  };
}

test('a schema nested past the bound is refused with 422 before any walk; one within it is served, objects as deep as it defaulted', async () => {
  // 600 schema levels are 1,200 JSON levels: decoded, then refused by validation before any recursive walk.
  const deep = await server.request('POST', CRDS, { body: deepCrd('deeps', 600) });
  assertFailure(deep, 422, 'Invalid');
  assert.deepEqual(deep.body.details.causes.map((c: any) => [c.reason, c.field, c.message]), [
    ['FieldValueForbidden', 'spec.versions[0].schema.openAPIV3Schema', 'Forbidden: must not nest objects and arrays more than 1000 levels deep'],
  ]);
  // 4,990 schema levels are within the body's 10,000 JSON levels, past what the self-referencing decoder can follow: 400, never 500.
  // Written as text: JSON.stringify itself recurses.
  const deeperText = JSON.stringify(deepCrd('deepers', 0)).replace(
    JSON.stringify(nestedSchema(0)),
    '{"type":"object","properties":{"a":'.repeat(4_990) + JSON.stringify(nestedSchema(0)) + '}}'.repeat(4_990),
  );
  const deeper = await server.request('POST', CRDS, { raw: deeperText, headers: { 'content-type': 'application/json' } });
  assertFailure(deeper, 400, 'BadRequest', 'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: the object is nested too deeply to decode');
  assert.equal((await server.request('GET', `${CRDS}/deepers.deep.example.org`)).status, 404);
  await expectWrite(server, 'POST', CRDS, deepCrd('nesteds', 490));
  const path = '/apis/deep.example.org/v1/namespaces/default/nesteds';
  await eventually('served', async () => ((await server.request('GET', path)).status === 200 ? true : undefined));
  let spec: any = {};
  const top = spec;
  // 489 objects below spec; the 490th level, the string, is left to its default.
  for (let i = 0; i < 489; i++) spec = spec.a = {};
  const created = await expectWrite(server, 'POST', path, { apiVersion: 'deep.example.org/v1', kind: 'Nested', metadata: { name: 'n' }, spec: top });
  let node = created.spec;
  for (let i = 0; i < 490; i++) node = node.a;
  assert.equal(node, 'bottom', 'the default at the bottom was applied');
  const openapi = await server.request('GET', '/openapi/v3');
  assert.ok(openapi.body.paths['apis/deep.example.org/v1'], 'the deep definition is published');
});
