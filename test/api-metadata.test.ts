// ObjectMeta over HTTPS: system fields, generateName, name rules, namespaces, immutables,
// labels/annotations, Secret and ConfigMap data (SPEC 2.1, 2.2; FACTS 1.1, 7, 15).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure, causesOf, itemNames } from './helpers/api.ts';

let server: TestServer;
const NS = 'meta';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const NPS = `/apis/networking.orch.io/v1/namespaces/${NS}/networkpolicies`;

const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const CONFIG_KEY =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** The configmap names in NS, to prove that refused requests wrote nothing. */
const configMapNames = async () => itemNames(await server.request('GET', CMS));

before(async () => {
  server = await startTestServer();
  assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
});
after(() => server?.close());

describe('system fields', () => {
  test('uid, creationTimestamp and resourceVersion are generated; client values are overwritten', async () => {
    const before = Date.now();
    const res = await server.request('POST', CMS, {
      body: { metadata: { name: 'sys', uid: 'client-uid', creationTimestamp: '2001-01-01T00:00:00Z', resourceVersion: '987654', generation: 7 } },
    });
    assert.equal(res.status, 201, res.text);
    const meta = res.body.metadata;
    assert.match(meta.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(meta.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(Math.abs(Date.parse(meta.creationTimestamp) - before) < 60_000);
    assert.match(meta.resourceVersion, /^\d+$/);
    assert.notEqual(meta.resourceVersion, '987654');
    assert.equal(meta.generation, undefined);
    assert.deepEqual((await server.request('GET', `${CMS}/sys`)).body, res.body);
  });

  test('generateName gives unique names with the prefix; name wins over generateName', async () => {
    const names = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await server.request('POST', CMS, { body: { metadata: { generateName: 'gen-' } } });
      assert.equal(res.status, 201, res.text);
      assert.match(res.body.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.equal(res.body.metadata.generateName, 'gen-');
      names.add(res.body.metadata.name);
    }
    assert.equal(names.size, 5);
    const long = await server.request('POST', CMS, { body: { metadata: { generateName: 'p'.repeat(70) } } });
    assert.match(long.body.metadata.name, /^p{58}[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const named = await server.request('POST', CMS, { body: { metadata: { name: 'explicit', generateName: 'gen-' } } });
    assert.equal(named.body.metadata.name, 'explicit');
  });
});

describe('names', () => {
  const cases: Array<[string, string, string]> = [
    ['uppercase', 'Upper', `Invalid value: "Upper": ${SUBDOMAIN}`],
    ['too long', 'a'.repeat(254), `Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters`],
    ['..', '..', `Invalid value: "..": ${SUBDOMAIN}`],
    ['underscore', 'a_b', `Invalid value: "a_b": ${SUBDOMAIN}`],
    ['leading dash', '-a', `Invalid value: "-a": ${SUBDOMAIN}`],
  ];
  for (const [label, name, message] of cases) {
    test(`invalid ConfigMap name (${label}) is 422 at metadata.name and writes nothing`, async () => {
      const before = await configMapNames();
      const res = await server.request('POST', CMS, { body: { metadata: { name } } });
      assertFailure(res, 422, 'Invalid', `ConfigMap "${name}" is invalid: metadata.name: ${message}`);
      assert.deepEqual(res.body.details, { name, kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', message, field: 'metadata.name' }] });
      assert.deepEqual(await configMapNames(), before);
    });
  }

  test('named-group kinds say Kind.group; namespaces are DNS labels; a name is required', async () => {
    const np = await server.request('POST', NPS, { body: { metadata: { name: 'Upper' }, spec: { podSelector: {} } } });
    assertFailure(np, 422, 'Invalid', `NetworkPolicy.networking.orch.io "Upper" is invalid: metadata.name: Invalid value: "Upper": ${SUBDOMAIN}`);
    assert.equal(np.body.details.group, 'networking.orch.io');
    assert.equal(np.body.details.kind, 'NetworkPolicy');
    const ns = await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'a.b' } } });
    assertFailure(ns, 422, 'Invalid', 'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots');
    assertFailure(await server.request('GET', '/api/v1/namespaces/a.b'), 404, 'NotFound');
    const none = await server.request('POST', CMS, { body: { metadata: {} } });
    assertFailure(none, 422, 'Invalid', 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
    assert.deepEqual(causesOf(none), [['FieldValueRequired', 'metadata.name']]);
  });
});

describe('namespaces', () => {
  test('namespace in the body must match the path: 400, nothing written', async () => {
    const res = await server.request('POST', CMS, { body: { metadata: { name: 'wrong-ns', namespace: 'default' } } });
    assertFailure(res, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    assert.equal(res.body.details, undefined);
    assertFailure(await server.request('GET', `${CMS}/wrong-ns`), 404, 'NotFound');
    assertFailure(await server.request('GET', '/api/v1/namespaces/default/configmaps/wrong-ns'), 404, 'NotFound');
  });

  test('create in a missing namespace is 404 namespaces "nope" not found', async () => {
    for (const path of ['/api/v1/namespaces/nope/configmaps', '/apis/networking.orch.io/v1/namespaces/nope/networkpolicies']) {
      const res = await server.request('POST', path, { body: { metadata: { name: 'x' }, spec: { podSelector: {} } } });
      assertFailure(res, 404, 'NotFound', 'namespaces "nope" not found');
      assert.deepEqual(res.body.details, { name: 'nope', kind: 'namespaces' });
    }
    assert.deepEqual(itemNames(await server.request('GET', '/api/v1/configmaps?fieldSelector=metadata.name%3Dx')), []);
    assertFailure(await server.request('GET', '/api/v1/namespaces/nope'), 404, 'NotFound', 'namespaces "nope" not found');
  });

  test('system namespaces exist and are Active', async () => {
    const names = itemNames(await server.request('GET', '/api/v1/namespaces'));
    for (const name of ['default', 'orch-system', 'orch-public', 'orch-node-lease']) {
      assert.ok(names.includes(name), name);
      const ns = await server.request('GET', `/api/v1/namespaces/${name}`);
      assert.equal(ns.status, 200);
      assert.equal(ns.body.status.phase, 'Active');
    }
  });

  test('deleting default, orch-system or orch-public is refused with 403', async () => {
    for (const name of ['default', 'orch-system', 'orch-public']) {
      const res = await server.request('DELETE', `/api/v1/namespaces/${name}`);
      assertFailure(res, 403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`);
      assert.deepEqual(res.body.details, { name, kind: 'namespaces' });
      assert.equal((await server.request('GET', `/api/v1/namespaces/${name}`)).status, 200);
    }
  });
});

describe('updates', () => {
  test('uid is immutable (422), the name must match the URL (400); neither writes', async () => {
    const created = (await server.request('POST', CMS, { body: { metadata: { name: 'imm' }, data: { a: '1' } } })).body;
    const uid = await server.request('PUT', `${CMS}/imm`, { body: { ...created, metadata: { ...created.metadata, uid: 'different' }, data: { a: '2' } } });
    assertFailure(uid, 422, 'Invalid', 'ConfigMap "imm" is invalid: metadata.uid: Invalid value: "different": field is immutable');
    assert.deepEqual(causesOf(uid), [['FieldValueInvalid', 'metadata.uid']]);
    const renamed = await server.request('PUT', `${CMS}/imm`, { body: { ...created, metadata: { ...created.metadata, name: 'other' } } });
    assertFailure(renamed, 400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (imm)');
    assert.deepEqual((await server.request('GET', `${CMS}/imm`)).body, created);
    assertFailure(await server.request('GET', `${CMS}/other`), 404, 'NotFound');
  });

  test('a client creationTimestamp or generation is ignored on update', async () => {
    const created = (await server.request('POST', NPS, { body: { metadata: { name: 'times' }, spec: { podSelector: {} } } })).body;
    const body = structuredClone(created);
    body.metadata.creationTimestamp = '2001-01-01T00:00:00Z';
    body.metadata.generation = 42;
    body.metadata.labels = { touched: 'yes' };
    const res = await server.request('PUT', `${NPS}/times`, { body });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.metadata.creationTimestamp, created.metadata.creationTimestamp);
    assert.equal(res.body.metadata.generation, 1);
    assert.deepEqual(res.body.metadata.labels, { touched: 'yes' });
  });
});

describe('labels and annotations', () => {
  const cases: Array<[string, any, Array<[string, string]>, Array<string | RegExp>]> = [
    ['bad label key', { labels: { 'bad key!': 'v' } }, [['FieldValueInvalid', 'metadata.labels']], [`metadata.labels: Invalid value: "bad key!": ${NAME_PART}`]],
    ['bad label value', { labels: { k: 'bad value!' } }, [['FieldValueInvalid', 'metadata.labels']], [`metadata.labels: Invalid value: "bad value!": ${LABEL_VALUE}`]],
    ['long label value', { labels: { k: 'v'.repeat(64) } }, [['FieldValueInvalid', 'metadata.labels']], [`metadata.labels: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`]],
    ['long label name part', { labels: { [`x/${'n'.repeat(64)}`]: 'v' } }, [['FieldValueInvalid', 'metadata.labels']], [`metadata.labels: Invalid value: "x/${'n'.repeat(64)}": name part must be no more than 63 characters`]],
    ['bad annotation key', { annotations: { 'a/b/c': 'v' } }, [['FieldValueInvalid', 'metadata.annotations']], [/^metadata\.annotations: Invalid value: "a\/b\/c": a qualified name must consist of/]],
    ['annotations over 256 KiB', { annotations: { big: 'x'.repeat(262142) } }, [['FieldValueTooLong', 'metadata.annotations']], ['metadata.annotations: Too long: must have at most 262144 bytes']],
    ['two problems', { labels: { 'bad key!': 'bad value!' } }, [['FieldValueInvalid', 'metadata.labels'], ['FieldValueInvalid', 'metadata.labels']], []],
  ];
  for (const [label, metadata, causes, messages] of cases) {
    test(`${label} is 422 and writes nothing`, async () => {
      const name = `lab-${label.toLowerCase().replace(/\W+/g, '-')}`;
      const res = await server.request('POST', CMS, { body: { metadata: { name, ...metadata } } });
      assertFailure(res, 422, 'Invalid');
      assert.deepEqual(causesOf(res), causes);
      const summary = res.body.message.slice(`ConfigMap "${name}" is invalid: `.length);
      for (const m of messages) (m instanceof RegExp ? assert.match(summary, m) : assert.equal(summary, m));
      if (causes.length > 1) assert.match(summary, /^\[metadata\.labels: .*, metadata\.labels: .*\]$/);
      assertFailure(await server.request('GET', `${CMS}/${name}`), 404, 'NotFound');
    });
  }

  test('valid prefixed labels and annotations are stored', async () => {
    const metadata = { name: 'lab-ok', labels: { 'example.com/app': 'web', tier: '' }, annotations: { 'Example.com/Note': 'anything at all: {}' } };
    const res = await server.request('POST', CMS, { body: { metadata } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.metadata.labels, metadata.labels);
    assert.deepEqual(res.body.metadata.annotations, metadata.annotations);
  });
});

describe('Secret and ConfigMap data', () => {
  const SECRETS = `/api/v1/namespaces/${NS}/secrets`;
  test('stringData is merged into data (and wins), then dropped; type defaults to Opaque', async () => {
    const res = await server.request('POST', SECRETS, { body: { metadata: { name: 's1' }, data: { a: 'YQ==', keep: 'aw==' }, stringData: { a: 'override', b: 'hello' } } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data, { a: Buffer.from('override').toString('base64'), keep: 'aw==', b: 'aGVsbG8=' });
    assert.equal(res.body.stringData, undefined);
    assert.equal(res.body.type, 'Opaque');
    assert.deepEqual((await server.request('GET', `${SECRETS}/s1`)).body, res.body);
  });

  test('bad base64 in Secret data is 400 and writes nothing', async () => {
    const res = await server.request('POST', SECRETS, { body: { metadata: { name: 's2' }, data: { a: '!!notbase64' } } });
    assertFailure(res, 400, 'BadRequest', 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0');
    assertFailure(await server.request('GET', `${SECRETS}/s2`), 404, 'NotFound');
  });

  test('ConfigMap keys are validated: 422 per bad key, duplicate of binaryData', async () => {
    const res = await server.request('POST', CMS, { body: { metadata: { name: 'keys' }, data: { 'bad key': 'v', '..': 'v', dup: 'v', ok: 'v' }, binaryData: { dup: 'YQ==' } } });
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causesOf(res), [['FieldValueInvalid', 'data[bad key]'], ['FieldValueInvalid', 'data[..]'], ['FieldValueInvalid', 'data[dup]']]);
    assert.deepEqual(res.body.details.causes.map((c: any) => c.message), [
      `Invalid value: "bad key": ${CONFIG_KEY}`,
      `Invalid value: "..": must not be '..'`,
      'Invalid value: "dup": duplicate of key present in binaryData',
    ]);
    assertFailure(await server.request('GET', `${CMS}/keys`), 404, 'NotFound');
  });
});
