// Hostile request bodies (issue 7): every case of the body corpus is refused
// with its Status and changes nothing; what upstream accepts as plain data
// (prototype-named keys where names are free, depth just under the limit,
// odd but valid media types and YAML) is stored as data and never leaks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyCases, deepYaml } from './helpers/hostile-bodies.ts';
import type { CorpusTargets } from './helpers/hostile-requests.ts';
import { rawExchange } from './helpers/raw-http.ts';
import { checkAnswer, snapshot } from './helpers/refusals.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const TOKEN = 'hostile-bodies-token';
const NS = 'bodies';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const TARGETS: CorpusTargets = { token: TOKEN, namespace: NS, other: NS };

let server: TestServer;

const raw = (contentType: string, body: string | Buffer) => ({ raw: body, headers: { 'content-type': contentType } });
const nested = (depth: number, inner = '"v"') => '{"a":'.repeat(depth) + inner + '}'.repeat(depth);

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-tokens-'));
  writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},bodies-admin,bodies-admin-uid,"system:masters"\n`);
  server = await startTestServer([`--token-auth-file=${join(dir, 'tokens.csv')}`]);
  assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
  assert.equal((await server.request('POST', CM, { body: { metadata: { name: 'cm1' }, data: { k: 'v' } } })).status, 201);
});
after(() => server?.close());

describe('the body corpus: each refused with its Status, nothing changed', () => {
  for (const c of bodyCases(TARGETS)) {
    test(c.name, async () => {
      const before = await snapshot(server);
      checkAnswer(c, await rawExchange(server.port, server.ca, c.bytes, { responses: 1, waitMs: 20_000 }));
      assert.equal(await snapshot(server), before);
    });
  }
});

describe('prototype-named keys are plain data', () => {
  test('ConfigMap keys __proto__, constructor and prototype round-trip through create, patch and apply', async () => {
    // Written as text: in an object literal `__proto__` would set a prototype, not a key.
    const created = await server.request('POST', CM, raw('application/json', '{"metadata":{"name":"proto-keys"},"data":{"__proto__":"p","constructor":"c","prototype":"r"}}'));
    assert.equal(created.status, 201, created.text);
    const read = await server.request('GET', `${CM}/proto-keys`);
    assert.deepEqual(Object.keys(read.body.data).sort(), ['__proto__', 'constructor', 'prototype']);
    assert.equal(JSON.parse(read.text).data.__proto__, 'p');

    const merged = await server.request('PATCH', `${CM}/proto-keys`, raw('application/merge-patch+json', '{"data":{"__proto__":"merged"}}'));
    assert.equal(merged.status, 200, merged.text);
    assert.match(merged.text, /"__proto__":"merged"/);
    const strategic = await server.request('PATCH', `${CM}/proto-keys`, raw('application/strategic-merge-patch+json', '{"data":{"constructor":"strategic"}}'));
    assert.match(strategic.text, /"constructor":"strategic"/);
    const patched = await server.request('PATCH', `${CM}/proto-keys`, raw('application/json-patch+json', '[{"op":"replace","path":"/data/prototype","value":"json"}]'));
    assert.match(patched.text, /"prototype":"json"/);
    const applied = await server.request(
      'PATCH',
      `/api/v1/namespaces/${NS}/configmaps/proto-apply?fieldManager=hostile`,
      raw('application/apply-patch+yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: proto-apply\ndata:\n  __proto__: applied\n'),
    );
    assert.equal(applied.status, 201, applied.text);
    assert.match(applied.text, /"__proto__":"applied"/);
    assert.match(applied.text, /"f:__proto__":\{\}/, 'the managed field set names the key');
  });

  test('an object under __proto__ anywhere never reaches a prototype', async () => {
    const attempts: Array<[string, string, string]> = [
      ['POST', CM, '{"metadata":{"name":"leak-1"},"__proto__":{"polluted":"yes"},"data":{"a":"b"}}'],
      ['PATCH', `${CM}/cm1`, '{"__proto__":{"polluted":"yes"},"metadata":{"__proto__":{"polluted":"yes"}}}'],
      ['PUT', `${CM}/cm1`, '{"metadata":{"name":"cm1","__proto__":{"polluted":"yes"}},"constructor":{"prototype":{"polluted":"yes"}}}'],
    ];
    for (const [method, path, body] of attempts) {
      const res = await server.request(method, path, raw(method === 'PATCH' ? 'application/merge-patch+json' : 'application/json', body));
      assert.ok(res.status < 500, `${method} ${path}: ${res.status} ${res.text}`);
    }
    const fresh = await server.request('POST', CM, { body: { metadata: { name: 'fresh' } } });
    assert.equal(fresh.status, 201);
    assert.doesNotMatch(fresh.text, /polluted/);
    const list = await server.request('GET', CM);
    assert.doesNotMatch(list.text, /polluted/);
    assert.doesNotMatch((await server.request('GET', '/api/v1/namespaces')).text, /polluted/);
  });
});

describe('what upstream accepts is accepted', () => {
  test('a document nested 9,990 deep in a field nobody knows is decoded and dropped (a warning), never a stack overflow', async () => {
    const res = await server.request('POST', CM, raw('application/json', `{"metadata":{"name":"deep-ok"},"unknown":${nested(9_990)}}`));
    assert.equal(res.status, 201, res.text.slice(0, 300));
    assert.match(String(res.headers.warning), /unknown field \\"unknown\\"/);
    for (const [type, body] of [
      ['application/merge-patch+json', `{"zz":${nested(9_990)}}`],
      ['application/strategic-merge-patch+json', `{"zz":${nested(9_990)}}`],
      ['application/json-patch+json', `[{"op":"add","path":"/zz","value":${nested(9_990)}}]`],
    ]) {
      const patched = await server.request('PATCH', `${CM}/deep-ok`, raw(type, body));
      assert.equal(patched.status, 200, `${type}: ${patched.text.slice(0, 300)}`);
    }
    const applied = await server.request('PATCH', `${CM}/deep-ok?fieldManager=deep`, raw('application/apply-patch+yaml', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-ok"},"zz":${nested(9_990)}}`));
    assert.equal(applied.status, 200, applied.text.slice(0, 300));
  });

  test('YAML nested 2,000 blocks deep is decoded off the event loop while other requests are served', async () => {
    const [res, probe] = await Promise.all([server.request('POST', CM, raw('application/yaml', deepYaml('deep-yaml'))), server.request('GET', '/livez')]);
    assert.equal(res.status, 201, res.text.slice(0, 300));
    assert.equal(probe.status, 200);
  });

  test('YAML still decoding when its deadline passes: 504, nothing created, and the next deep YAML decodes', async () => {
    // The deadline is the decoding job's abort signal (src/util/deadline-signal.ts): the job is dropped or its worker stopped.
    const late = await server.request('POST', `${CM}?timeout=1ms`, raw('application/yaml', deepYaml('deep-late')));
    assert.equal(late.status, 504, late.text.slice(0, 300));
    assert.equal(late.body.reason, 'Timeout');
    assert.equal((await server.request('GET', `${CM}/deep-late`)).status, 404);
    const next = await server.request('POST', CM, raw('application/yaml', deepYaml('deep-after')));
    assert.equal(next.status, 201, next.text.slice(0, 300));
  });

  test('media type parameters and case are ignored, as upstream', async () => {
    for (const [name, type] of [['charset', 'application/json; charset=utf-8'], ['upper', 'APPLICATION/JSON'], ['quoted', 'application/json; x="a;b"']]) {
      const res = await server.request('POST', CM, raw(type, `{"metadata":{"name":"media-${name}"}}`));
      assert.equal(res.status, 201, `${type}: ${res.text}`);
    }
  });

  test('YAML: only the first document counts, !!binary is a string, unknown tags are plain values', async () => {
    const multi = await server.request('POST', CM, raw('application/yaml', 'metadata: {name: first-doc}\n---\nmetadata: {name: second-doc}\n'));
    assert.equal(multi.status, 201, multi.text);
    assert.equal((await server.request('GET', `${CM}/second-doc`)).status, 404);
    const tagged = await server.request('POST', CM, raw('application/yaml', 'metadata: {name: tagged}\ndata:\n  b: !!binary aGk=\n  t: !foo bar\n'));
    assert.ok(tagged.status === 201 || tagged.status === 400, tagged.text);
    if (tagged.status === 400) assert.equal(tagged.body.kind, 'Status');
  });

  test('a body of invalid UTF-8 is read as Go reads it: the broken bytes become U+FFFD, the field is unknown, the warning is sendable', async () => {
    const body = Buffer.concat([Buffer.from('{"metadata":{"name":"utf8"},"'), Buffer.from([0xff, 0xfe]), Buffer.from('":1}')]);
    const res = await server.request('POST', CM, raw('application/json', body));
    assert.equal(res.status, 201, res.text);
    assert.match(Buffer.from(String(res.headers.warning), 'latin1').toString('utf8'), /unknown field \\"\uFFFD\uFFFD\\"/);
  });

  test('a field name with a control character is not echoed into a Warning header', async () => {
    const res = await server.request('POST', CM, raw('application/json', '{"metadata":{"name":"ctl"},"bad\\u0001name":1}'));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.warning, undefined);
  });

  test('the server is still whole', async () => {
    assert.equal((await server.request('GET', '/readyz')).status, 200);
    const cm1 = await server.request('GET', `${CM}/cm1`);
    assert.equal(cm1.status, 200);
  });
});
