/**
 * Custom resources' Table columns (SPEC 2.5, 4.7; upstream tableconvertor):
 * Name, then the version's additionalPrinterColumns with their JSONPath cells
 * by type, or Age without any; priority columns carry their priority (what
 * `-o wide` shows), as the real kubectl prints them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expectWrite } from './helpers/api.ts';
import { createServedCrd, exampleCrd } from './helpers/crd.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { goPrint } from '../src/util/go-print.ts';
import { findResults, parseJsonPath } from '../src/util/jsonpath.ts';

const TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';
const GADGETS = '/apis/example.com/v1/namespaces/default/gadgets';
const PLAIN = '/apis/example.com/v1/plains';

const columns = [
  { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
  { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio', description: 'how much' },
  { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled' },
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Mode', type: 'string', jsonPath: '.spec.mode', priority: 1 },
  { name: 'Tags', type: 'string', jsonPath: '.spec.tags' },
  { name: 'Second', type: 'string', jsonPath: '.spec.tags[1]', priority: 2 },
  { name: 'Started', type: 'date', jsonPath: '.spec.started', format: 'date-time' },
  { name: 'Created', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

/** A definition of one version, v1, whose objects keep any field. */
function crd(plural: string, kind: string, scope: 'Namespaced' | 'Cluster', additionalPrinterColumns?: unknown[]) {
  const keepAll = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: keepAll, status: keepAll } } };
  return exampleCrd(plural, kind, scope, [{ name: 'v1', served: true, storage: true, schema, additionalPrinterColumns }]);
}

const full = {
  apiVersion: 'example.com/v1',
  kind: 'Gadget',
  metadata: { name: 'full' },
  spec: { replicas: 3, ratio: 0.25, enabled: true, mode: 'fast', tags: ['a', 'b'], started: '2020-01-01T00:00:00Z' },
  status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }] },
};
/** Every column's value of the wrong type, or absent. */
const odd = {
  apiVersion: 'example.com/v1',
  kind: 'Gadget',
  metadata: { name: 'odd' },
  spec: { replicas: 2.7, ratio: 'x', enabled: 'yes', mode: null, tags: { b: 1, a: [true, 1.5] }, started: 'yesterday' },
  status: { conditions: [{ type: 'Synced', status: 'True' }] },
};

let server: TestServer;

before(async () => {
  server = await startTestServer(['--authorization-mode=AlwaysAllow']);
  await createServedCrd(server, crd('gadgets', 'Gadget', 'Namespaced', columns), [GADGETS]);
  await createServedCrd(server, crd('plains', 'Plain', 'Cluster'), [PLAIN]);
  await expectWrite(server, 'POST', GADGETS, full);
  await expectWrite(server, 'POST', GADGETS, odd);
});
after(() => server?.close());

test('the columns are Name then the declared ones, with their types, formats, priorities and descriptions', async () => {
  const res = await server.request('GET', GADGETS, { headers: { accept: TABLE } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.kind, 'Table');
  assert.deepEqual(
    res.body.columnDefinitions.map((c: any) => [c.name, c.type, c.format, c.priority]),
    [['Name', 'string', 'name', 0], ...columns.map((c) => [c.name, c.type, c.format ?? '', c.priority ?? 0])],
  );
  assert.match(res.body.columnDefinitions[0].description, /^Name must be unique within a namespace/);
  assert.equal(res.body.columnDefinitions[1].description, 'Custom resource definition column (in JSONPath format): .spec.replicas');
  assert.equal(res.body.columnDefinitions[2].description, 'how much');
});

test('cells follow the JSONPath and the column type; values of another type or none are null', async () => {
  const res = await server.request('GET', GADGETS, { headers: { accept: TABLE } });
  const rows = Object.fromEntries(res.body.rows.map((r: any) => [r.cells[0], r.cells]));
  const [, replicas, ratio, enabled, ready, mode, tags, second, started, created] = rows.full;
  assert.deepEqual([replicas, ratio, enabled, ready, mode, tags, second], [3, 0.25, true, 'True', 'fast', '[a b]', 'b']);
  assert.match(started, /^\d+y\d*d?$/, 'a date column is the age of the timestamp');
  assert.match(created, /^\d+s$/);
  // Upstream cellForJSONValue: an integer column cuts a fraction; other mismatches are null.
  // A string column prints what it finds as Go's fmt does (a JSON null is "<no value>"); no match is null.
  assert.deepEqual(rows.odd.slice(1, 9), [2, null, null, null, '<no value>', 'map[a:[true 1.5] b:1]', null, '<invalid>']);
  assert.match(rows.odd[9], /^\d+s$/);
  assert.equal(res.body.rows[0].object.kind, 'PartialObjectMetadata');
});

test('a single object, includeObject=Object and a pretty Table give the same cells', async () => {
  const one = await server.request('GET', `${GADGETS}/full`, { headers: { accept: TABLE } });
  const pretty = await server.request('GET', `${GADGETS}/full?includeObject=Object&pretty=true`, { headers: { accept: TABLE } });
  assert.equal(one.status, 200);
  assert.deepEqual(pretty.body.rows[0].cells.slice(0, 8), one.body.rows[0].cells.slice(0, 8));
  assert.equal(pretty.body.rows[0].object.spec.mode, 'fast');
});

test('an updated object shows its new cells (rows are encoded per object version)', async () => {
  const got = await server.request('GET', `${GADGETS}/full`);
  await expectWrite(server, 'PUT', `${GADGETS}/full`, { ...got.body, spec: { ...got.body.spec, replicas: 5 }, status: { conditions: [] } });
  const res = await server.request('GET', `${GADGETS}/full`, { headers: { accept: TABLE } });
  assert.deepEqual([res.body.rows[0].cells[1], res.body.rows[0].cells[4]], [5, null]);
});

test('a version without additionalPrinterColumns shows Name and Age', async () => {
  await expectWrite(server, 'POST', PLAIN, { apiVersion: 'example.com/v1', kind: 'Plain', metadata: { name: 'p' } });
  const res = await server.request('GET', PLAIN, { headers: { accept: TABLE } });
  assert.deepEqual(res.body.columnDefinitions.map((c: any) => [c.name, c.type, c.format]), [['Name', 'string', 'name'], ['Age', 'date', '']]);
  assert.match(res.body.columnDefinitions[1].description, /^CreationTimestamp is a timestamp/);
  assert.equal(res.body.rows[0].cells[0], 'p');
  assert.match(res.body.rows[0].cells[1], /^\d+s$/);
});

test('JSONPath: indexes, slices, unions, wildcards, recursion and filters as client-go evaluates them', () => {
  const data = { a: { items: [{ n: 1, k: 'x' }, { n: 2, k: 'y' }, { n: 3 }], m: { p: 'q' } } };
  const first = (template: string) => findResults(parseJsonPath(template), data)[0];
  assert.deepEqual(first('{.a.items[-1].n}'), [3]);
  assert.deepEqual(first('{.a.items[0:2].k}'), ['x', 'y']);
  assert.deepEqual(first('{.a.items[*].n}'), [1, 2, 3]);
  assert.deepEqual(first('{.a.items[0,2].n}'), [1, 3]);
  assert.deepEqual(first("{.a['m'].p}"), ['q']);
  assert.deepEqual(first('{..p}'), ['q']);
  // Upstream compares a number literal as a float64 and a decoded integer as an int64: never equal, never ordered.
  assert.deepEqual(first('{.a.items[?(@.n>1)].n}'), []);
  assert.deepEqual(first('{.a.items[?(@.k>"x")].n}'), [2]);
  assert.deepEqual(first('{.a.items[0:3:2].n}'), [1, 3]);
  assert.deepEqual(first('{.a.*.p}'), ['q']);
  assert.deepEqual(first('{.a.items[?(@.k)].k}'), ['x', 'y']);
  assert.deepEqual(first('{.a.missing}'), []);
  assert.throws(() => first('{.a.items[5]}'), /array index out of bounds: index 5, length 3/);
  assert.throws(() => first('{.a.m[0]}'), /is not array or slice/);
  assert.deepEqual(first('{.a.items[?(@.n=="1")]}'), []);
  assert.throws(() => first('{.a.items[2:1]}'), /starting index 2 is greater than ending index 1/);
  assert.throws(() => first('{.a.items[0:2:0]}'), /step must be > 0/);
  assert.throws(() => parseJsonPath('{.a'), /unclosed action/);
  assert.throws(() => parseJsonPath('{.a[1}'), /unterminated array|invalid array index/);
  assert.equal(goPrint({ z: null, a: [1, 0.5, 1e-7, 1234567.5, 2.5e6, 'x'] }), 'map[a:[1 0.5 1e-07 1.2345675e+06 2500000 x] z:<nil>]');
});

test('a deeply nested value is printed and searched without exhausting the stack', () => {
  let deep: any = 'end';
  for (let i = 0; i < 20_000; i++) deep = { d: deep };
  assert.equal(findResults(parseJsonPath('{..d}'), { d: deep })[0].length, 20_001);
  assert.ok(goPrint(deep).startsWith('map[d:map[d:'));
});

test('protobuf alone is not acceptable for custom resources (406); with JSON offered too, JSON is served', async () => {
  const PROTOBUF = 'application/vnd.orch.protobuf';
  for (const path of [GADGETS, `${GADGETS}/full`]) {
    const alone = await server.request('GET', path, { headers: { accept: PROTOBUF } });
    assert.equal(alone.status, 406, alone.text);
    assert.equal(alone.body.reason, 'NotAcceptable');
    const withJson = await server.request('GET', path, { headers: { accept: `${PROTOBUF}, application/json` } });
    assert.equal(withJson.status, 200);
    assert.match(String(withJson.headers['content-type']), /^application\/json/);
    assert.equal(withJson.body.apiVersion, 'example.com/v1');
  }
  const posted = await server.request('POST', GADGETS, { raw: Buffer.from([0x6b, 0x38, 0x73, 0x00]), headers: { 'content-type': PROTOBUF } });
  assert.equal(posted.status, 415, posted.text);
  assert.equal(posted.body.reason, 'UnsupportedMediaType');
});

test('a column whose JSONPath does not parse ends the columns there, as upstream falls back', async () => {
  const PARTIALS = '/apis/example.com/v1/partials';
  const partialColumns = [
    { name: 'A', type: 'string', jsonPath: '.spec.a' },
    { name: 'Bad', type: 'string', jsonPath: '.spec[' },
    { name: 'C', type: 'string', jsonPath: '.spec.c' },
  ];
  await createServedCrd(server, crd('partials', 'Partial', 'Cluster', partialColumns), [PARTIALS]);
  await expectWrite(server, 'POST', PARTIALS, { apiVersion: 'example.com/v1', kind: 'Partial', metadata: { name: 'p' }, spec: { a: 'x', c: 'z' } });
  const res = await server.request('GET', PARTIALS, { headers: { accept: TABLE } });
  assert.deepEqual(res.body.columnDefinitions.map((c: any) => c.name), ['Name', 'A']);
  assert.deepEqual(res.body.rows[0].cells, ['p', 'x']);
});

// Earlier tests change `full`'s replicas and conditions, so those cells are matched loosely.
test('kubectl get prints the declared columns, and -o wide the priority ones too', { skip: !hasKubectl() && 'kubectl is not on PATH' }, async () => {
  const home = mkdtempSync(join(tmpdir(), 'orch-kubectl-columns-'));
  try {
    const plain = await runKubectl(server.orchconfig, home, ['get', 'gadgets', 'full']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^NAME\s+REPLICAS\s+RATIO\s+ENABLED\s+READY\s+TAGS\s+STARTED\s+CREATED\nfull\s+\d+\s+0\.25\s+true\s+(True\s+)?\[a b\]\s+\d+y\d*d?\s+\d+s\n$/);
    const wide = await runKubectl(server.orchconfig, home, ['get', 'gadgets', 'full', '-o', 'wide']);
    assert.equal(wide.code, 0, wide.stderr);
    assert.match(wide.stdout, /^NAME\s+REPLICAS\s+RATIO\s+ENABLED\s+READY\s+MODE\s+TAGS\s+SECOND\s+STARTED\s+CREATED\nfull\s+\d+\s+0\.25\s+true\s+(True\s+)?fast\s+\[a b\]\s+b\s+\d+y/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
