// Error paths over HTTPS: decoding, routing, verbs, sizes, media types, field validation,
// dry run; every error body is a Status (SPEC 4.7, 4.9, 7; FACTS 1, 1.1).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure, itemNames } from './helpers/api.ts';

let server: TestServer;
const NS = 'errs';
const NPS = `/apis/networking.orch.io/v1/namespaces/${NS}/networkpolicies`;
const CANNOT = 'NetworkPolicy in version "v1" cannot be handled as a NetworkPolicy: ';
const policy = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'networking.orch.io/v1', kind: 'NetworkPolicy', metadata: { name }, spec: { podSelector: {}, ...spec },
});
const policyNames = async () => itemNames(await server.request('GET', NPS));

before(async () => {
  server = await startTestServer();
  assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
  assert.equal((await server.request('POST', NPS, { body: policy('existing') })).status, 201);
});
after(() => server?.close());

describe('undecodable bodies are 400 BadRequest and write nothing', () => {
  const raw = (text: string) => ({ raw: text, headers: { 'content-type': 'application/json' } });
  const cases: Array<[string, Parameters<TestServer['request']>[2], string | RegExp]> = [
    ['malformed JSON', raw('{"metadata": {"name": "bad"'), new RegExp(`^${CANNOT.replace(/[()]/g, '\\$&')}.+`)],
    ['endPort a string', { body: policy('bad', { ingress: [{ ports: [{ port: 80, endPort: '90' }] }] }) },
      `${CANNOT}json: cannot unmarshal string into Go struct field NetworkPolicyPort.spec.ingress.ports.endPort of type int32`],
    ['labels an array', { body: { ...policy('bad'), metadata: { name: 'bad', labels: ['a'] } } },
      `${CANNOT}json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string`],
    ['matchLabels value a number', { body: policy('bad', { podSelector: { matchLabels: { a: 1 } } }) },
      `${CANNOT}json: cannot unmarshal number into Go struct field LabelSelector.spec.podSelector.matchLabels of type string`],
    ['apiVersion of another group', { body: { ...policy('bad'), apiVersion: 'v1' } },
      'the API version in the data (v1) does not match the expected API version (networking.orch.io/v1)'],
    ['kind of another type', { body: { ...policy('bad'), kind: 'ConfigMap' } }, new RegExp(`^${CANNOT.replace(/[()]/g, '\\$&')}`)],
    ['strict unknown fields', { body: policy('bad', { foo: 1, bar: { x: 1 } }) },
      `${CANNOT}strict decoding error: unknown field "spec.foo", unknown field "spec.bar"`],
  ];
  for (const [label, options, message] of cases) {
    test(label, async () => {
      const query = label.startsWith('strict') ? '?fieldValidation=Strict' : '';
      const res = await server.request('POST', `${NPS}${query}`, options);
      assertFailure(res, 400, 'BadRequest', message);
      assert.equal(res.body.details, undefined);
      assert.deepEqual(await policyNames(), ['existing']);
    });
  }

  test('spec.ingress a string names the Go slice type', async () => {
    const res = await server.request('POST', NPS, { body: policy('bad', { ingress: 'all' }) });
    assertFailure(res, 400, 'BadRequest', `${CANNOT}json: cannot unmarshal string into Go struct field NetworkPolicySpec.spec.ingress of type []v1.NetworkPolicyIngressRule`);
  });

  test('spec.ingress a string is refused as a decode error', async () => {
    const res = await server.request('POST', NPS, { body: policy('bad', { ingress: 'all' }) });
    assertFailure(res, 400, 'BadRequest', new RegExp(`^${CANNOT.replace(/[()]/g, '\\$&')}json: cannot unmarshal string into Go struct field NetworkPolicySpec\\.spec\\.ingress of type \\[\\]`));
    assert.deepEqual(await policyNames(), ['existing']);
  });
});

describe('routing', () => {
  test('unknown resource or version under the API prefixes is a 404 Status', async () => {
    for (const path of ['/apis/networking.orch.io/v1/foos', '/apis/networking.orch.io/v2/networkpolicies', '/apis/nope.orch.io/v1/things',
      '/api/v1/namespaces/default/networkpolicies', '/api/v1/namespaces/default/namespaces', `${NPS}/existing/status`]) {
      const res = await server.request('GET', path);
      assertFailure(res, 404, 'NotFound', 'the server could not find the requested resource');
      assert.deepEqual(res.body.details, {}, path);
    }
  });

  test('paths outside /api and /apis are plain-text 404 page not found', async () => {
    for (const path of ['/foo', '/apix/v1', '/healthz/nope']) {
      const res = await server.request('GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.text, '404 page not found\n');
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    }
  });

  test('an unknown object is 404 with its name, group and resource', async () => {
    const res = await server.request('GET', `${NPS}/x`);
    assertFailure(res, 404, 'NotFound', 'networkpolicies.networking.orch.io "x" not found');
    assert.deepEqual(res.body.details, { name: 'x', group: 'networking.orch.io', kind: 'networkpolicies' });
  });

  test('a method the path does not serve is 405 MethodNotAllowed and writes nothing', async () => {
    const cases: Array<[string, string]> = [
      ['POST', `${NPS}/existing`],
      ['POST', `${NPS}/fresh`],
      ['PUT', NPS],
      ['POST', '/apis/networking.orch.io/v1/networkpolicies'],
      ['DELETE', '/apis/networking.orch.io/v1/networkpolicies'],
    ];
    const before = (await server.request('GET', `${NPS}/existing`)).body;
    for (const [method, path] of cases) {
      const res = await server.request(method, path, { body: policy(path.endsWith('fresh') ? 'fresh' : 'existing', { policyTypes: ['Egress'] }) });
      assertFailure(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    }
    assert.deepEqual(await policyNames(), ['existing']);
    assert.deepEqual((await server.request('GET', `${NPS}/existing`)).body, before);
  });

  test('creating an existing name is 409 AlreadyExists and leaves it unchanged', async () => {
    const before = (await server.request('GET', `${NPS}/existing`)).body;
    const res = await server.request('POST', NPS, { body: policy('existing', { policyTypes: ['Egress'] }) });
    assertFailure(res, 409, 'AlreadyExists', 'networkpolicies.networking.orch.io "existing" already exists');
    assert.deepEqual(res.body.details, { name: 'existing', group: 'networking.orch.io', kind: 'networkpolicies' });
    assert.deepEqual((await server.request('GET', `${NPS}/existing`)).body, before);
  });
});

describe('sizes and media types', () => {
  test('a body over 3 MiB is 413', async () => {
    const big = policy('big');
    (big.metadata as any).annotations = { a: 'x'.repeat(3 * 1024 * 1024) };
    const res = await server.request('POST', NPS, { body: big });
    assertFailure(res, 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    assert.deepEqual(await policyNames(), ['existing']);
  });

  test('an unsupported Content-Type is 415', async () => {
    const res = await server.request('POST', NPS, { raw: JSON.stringify(policy('text')), headers: { 'content-type': 'text/plain' } });
    assertFailure(res, 415, 'UnsupportedMediaType', /^the body of the request was in an unknown format - accepted media types include: application\/json, application\/yaml/);
    assert.deepEqual(await policyNames(), ['existing']);
  });

  test('an unknown Accept type alone is 406 naming JSON, YAML and protobuf; protobuf first is protobuf; JSON after an unknown type is JSON', async () => {
    const res = await server.request('GET', NPS, { headers: { accept: 'application/x-unknown' } });
    assertFailure(res, 406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml, application/vnd.orch.protobuf');
    assert.equal(res.headers['content-type'], 'application/json');
    const protobuf = await server.request('GET', NPS, { headers: { accept: 'application/vnd.orch.protobuf, application/json' } });
    assert.equal(protobuf.status, 200);
    assert.equal(protobuf.headers['content-type'], 'application/vnd.orch.protobuf');
    const fallback = await server.request('GET', NPS, { headers: { accept: 'application/x-unknown, application/json' } });
    assert.equal(fallback.status, 200);
    assert.equal(fallback.body.kind, 'NetworkPolicyList');
  });
});

describe('field validation', () => {
  test('default Warn: a Warning header per unknown field, in document order, and the field is dropped', async () => {
    const res = await server.request('POST', NPS, { body: policy('warned', { foo: 1 }) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.warning, '299 - "unknown field \\"spec.foo\\""');
    assert.equal(res.body.spec.foo, undefined);
    const stored = await server.request('GET', `${NPS}/warned`);
    assert.equal(stored.body.spec.foo, undefined);
    assert.equal(stored.headers.warning, undefined);
    const two = await server.request('POST', NPS, { body: { ...policy('warned-2', { bar: 1 }), extra: true } });
    assert.equal(two.headers.warning, '299 - "unknown field \\"spec.bar\\"", 299 - "unknown field \\"extra\\""');
  });

  test('Ignore drops unknown fields silently', async () => {
    const res = await server.request('POST', `${NPS}?fieldValidation=Ignore`, { body: policy('ignored', { foo: 1 }) });
    assert.equal(res.status, 201);
    assert.equal(res.headers.warning, undefined);
    assert.equal(res.body.spec.foo, undefined);
  });

  test('an unknown fieldValidation value is 400', async () => {
    const res = await server.request('POST', `${NPS}?fieldValidation=Loose`, { body: policy('loose') });
    assertFailure(res, 400, 'BadRequest', 'CreateOptions.meta.orch.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"');
    assertFailure(await server.request('GET', `${NPS}/loose`), 404, 'NotFound');
  });
});

describe('dry run', () => {
  test('dryRun=All on create returns the object and writes nothing', async () => {
    const rv = (await server.request('GET', NPS)).body.metadata.resourceVersion;
    const res = await server.request('POST', `${NPS}?dryRun=All`, { body: policy('dry') });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.metadata.name, 'dry');
    assert.deepEqual(res.body.spec, { podSelector: {}, policyTypes: ['Ingress'] });
    assert.equal(res.body.metadata.generation, 1);
    assertFailure(await server.request('GET', `${NPS}/dry`), 404, 'NotFound');
    assert.equal((await server.request('GET', NPS)).body.metadata.resourceVersion, rv, 'no revision was written');
  });

  test('dryRun=All on update and delete changes nothing', async () => {
    const before = (await server.request('GET', `${NPS}/existing`)).body;
    const changed = { ...before, spec: { podSelector: { matchLabels: { a: 'b' } } } };
    const put = await server.request('PUT', `${NPS}/existing?dryRun=All`, { body: changed });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.spec.podSelector, { matchLabels: { a: 'b' } });
    assert.equal(put.body.metadata.generation, 2);
    const del = await server.request('DELETE', `${NPS}/existing?dryRun=All`);
    assert.equal(del.status, 200);
    assert.equal(del.body.status, 'Success');
    assert.deepEqual((await server.request('GET', `${NPS}/existing`)).body, before);
  });

  test('dryRun=Bogus is 400 on create and delete', async () => {
    const res = await server.request('POST', `${NPS}?dryRun=Bogus`, { body: policy('bogus') });
    assertFailure(res, 400, 'BadRequest', 'CreateOptions.meta.orch.io "" is invalid: dryRun[0]: Unsupported value: "Bogus": supported values: "All"');
    assertFailure(await server.request('GET', `${NPS}/bogus`), 404, 'NotFound');
    const del = await server.request('DELETE', `${NPS}/existing?dryRun=Bogus`);
    assertFailure(del, 400, 'BadRequest', 'DeleteOptions.meta.orch.io "" is invalid: dryRun[0]: Unsupported value: "Bogus": supported values: "All"');
    assert.equal((await server.request('GET', `${NPS}/existing`)).status, 200);
  });
});
