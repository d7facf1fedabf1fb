/**
 * fieldValidation Ignore / Warn / Strict on create and update (SPEC 4.9):
 * unknown fields at any depth and duplicate keys in the raw body.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';

const NP = '/apis/networking.orch.io/v1/namespaces/default/networkpolicies';
const raw = (name: string) =>
  `{"apiVersion":"networking.orch.io/v1","kind":"NetworkPolicy","metadata":{"name":"${name}","labels":{"a":"1","a":"2"}},` +
  `"spec":{"podSelector":{},"bogus":1,"ingress":[{"ports":[{"port":80,"extra":true}]}]}}`;

function warnings(header: string | string[] | undefined): string[] {
  if (!header) return [];
  return (Array.isArray(header) ? header : header.split(/,\s*(?=299)/)).map((w) => w.trim());
}

describe('field validation', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server.close());

  const send = (method: string, path: string, level: string, body: string) =>
    server.request(method, `${path}${level ? `?fieldValidation=${level}` : ''}`, { raw: body, headers: { 'content-type': 'application/json' } });

  for (const method of ['POST', 'PUT'] as const) {
    const name = `fv-${method.toLowerCase()}`;
    const path = method === 'POST' ? NP : `${NP}/${name}`;
    test(`${method}: Strict refuses every unknown and duplicate field, writing nothing`, async () => {
      if (method === 'PUT') assert.equal((await server.request('POST', NP, { body: { metadata: { name }, spec: { podSelector: {} } } })).status, 201);
      const before = await server.request('GET', `${NP}/${name}`);
      const res = await send(method, path, 'Strict', raw(name));
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.reason, 'BadRequest');
      assert.equal(
        res.body.message,
        'NetworkPolicy in version "v1" cannot be handled as a NetworkPolicy: strict decoding error: duplicate field "metadata.labels.a", unknown field "spec.bogus", unknown field "spec.ingress[0].ports[0].extra"',
      );
      const after = await server.request('GET', `${NP}/${name}`);
      assert.equal(after.status, before.status);
      if (method === 'PUT') assert.equal(after.body.metadata.resourceVersion, before.body.metadata.resourceVersion);
    });

    test(`${method}: Warn (the default) succeeds with one Warning per field and drops unknown fields`, async () => {
      for (const level of ['', 'Warn']) {
        const res = await send(method, path, level, method === 'POST' ? raw(`${name}-${level.toLowerCase() || 'default'}`) : raw(name));
        assert.equal(res.status, method === 'POST' ? 201 : 200, res.text);
        assert.deepEqual(warnings(res.headers.warning), [
          '299 - "duplicate field \\"metadata.labels.a\\""',
          '299 - "unknown field \\"spec.bogus\\""',
          '299 - "unknown field \\"spec.ingress[0].ports[0].extra\\""',
        ]);
        assert.equal(res.body.spec.bogus, undefined);
        assert.deepEqual(res.body.spec.ingress, [{ ports: [{ port: 80, protocol: 'TCP' }] }]);
        assert.deepEqual(res.body.metadata.labels, { a: '2' }, 'the last duplicate wins, as in Go');
      }
    });

    test(`${method}: Ignore succeeds silently`, async () => {
      const res = await send(method, path, 'Ignore', method === 'POST' ? raw(`${name}-ignore`) : raw(name));
      assert.equal(res.status, method === 'POST' ? 201 : 200, res.text);
      assert.equal(res.headers.warning, undefined);
      assert.equal(res.body.spec.bogus, undefined);
    });
  }

  test('PATCH: the patched object is validated at the requested level', async () => {
    const patch = (level: string, body: string) =>
      server.request('PATCH', `${NP}/fv-put${level ? `?fieldValidation=${level}` : ''}`, { raw: body, headers: { 'content-type': 'application/merge-patch+json' } });
    const strict = await patch('Strict', '{"spec":{"bogus":1}}');
    assert.equal(strict.status, 400);
    assert.match(strict.body.message, /strict decoding error: unknown field "spec.bogus"$/);
    const warn = await patch('', '{"spec":{"bogus":1}}');
    assert.equal(warn.status, 200);
    assert.deepEqual(warnings(warn.headers.warning), ['299 - "unknown field \\"spec.bogus\\""']);
    const ignore = await patch('Ignore', '{"spec":{"bogus":1}}');
    assert.equal(ignore.headers.warning, undefined);
    const apply = await server.request('PATCH', `${NP}/fv-put?fieldManager=a&fieldValidation=Strict`, {
      raw: '{"apiVersion":"networking.orch.io/v1","kind":"NetworkPolicy","metadata":{"name":"fv-put"},"spec":{"extra":1}}',
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.equal(apply.status, 400);
    assert.match(apply.body.message, /unknown field "spec.extra"/);
  });

  test('a request invalid for another reason names only the first fatal error', async () => {
    const res = await send('POST', NP, 'Strict', '{"metadata":{"name":"fatal"},"spec":{"bogus":1,"podSelector":"nope"}}');
    assert.equal(res.status, 400);
    assert.match(res.body.message, /cannot unmarshal string into Go struct field NetworkPolicySpec\.spec\.podSelector of type v1\.LabelSelector$/);
    assert.doesNotMatch(res.body.message, /bogus/);
  });

  test('an unknown fieldValidation value is a 400', async () => {
    const res = await send('POST', NP, 'Loose', raw('loose'));
    assert.equal(res.status, 400);
    assert.match(res.body.message, /fieldValidation: Unsupported value: "Loose"/);
  });
});
