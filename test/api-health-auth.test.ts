// Health endpoints, token authentication, authorization modes and graceful shutdown over HTTPS
// (SPEC 4.10, 5.1-5.3, 7; FACTS 1, 1.2, 12). Each scenario needs its own flags, so each
// describe block runs one server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure } from './helpers/api.ts';

const tokenDir = mkdtempSync(join(tmpdir(), 'orch-tokens-'));
const tokenFile = join(tokenDir, 'tokens.csv');
writeFileSync(tokenFile, 'tok1,alice,uid1,"g1,g2"\n');
after(() => rmSync(tokenDir, { recursive: true, force: true }));

const CHECK_LINE = /^\[\+\][\w/.:-]+ (ok|excluded: ok)$/;

describe('health endpoints (AlwaysAllow, token file)', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer([`--token-auth-file=${tokenFile}`, '--authorization-mode=AlwaysAllow'])));
  after(() => server?.close());

  test('/healthz, /livez and /readyz answer ok, without credentials too', async () => {
    for (const endpoint of ['healthz', 'livez', 'readyz']) {
      for (const token of [undefined, null]) {
        const res = await server.request('GET', `/${endpoint}`, { token });
        assert.equal(res.status, 200, endpoint);
        assert.equal(res.text, 'ok');
        assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
      }
    }
  });

  test('verbose lists one line per check and a final passed line', async () => {
    for (const endpoint of ['healthz', 'livez', 'readyz']) {
      const res = await server.request('GET', `/${endpoint}?verbose`, { token: null });
      assert.equal(res.status, 200);
      const lines = res.text.split('\n');
      assert.equal(lines.pop(), '', 'newline-terminated');
      assert.equal(lines.pop(), `${endpoint} check passed`);
      assert.equal(lines[0], '[+]ping ok');
      assert.ok(lines.includes('[+]log ok'));
      assert.ok(lines.includes('[+]poststarthook/start-system-namespaces-controller ok'));
      for (const line of lines) assert.match(line, CHECK_LINE);
      assert.equal(lines.includes('[+]shutdown ok'), endpoint === 'readyz', 'shutdown is a readyz-only check');
    }
  });

  test('exclude skips checks; unknown names are warned about', async () => {
    const res = await server.request('GET', '/readyz?verbose&exclude=ping&exclude=log');
    const lines = res.text.trimEnd().split('\n');
    assert.equal(lines[0], '[+]ping excluded: ok');
    assert.equal(lines[1], '[+]log excluded: ok');
    assert.ok(!lines.includes('[+]ping ok'));
    assert.equal((await server.request('GET', '/livez?exclude=ping')).text, 'ok');
    const unknown = await server.request('GET', '/livez?verbose&exclude=nope&exclude=ping');
    const unknownLines = unknown.text.trimEnd().split('\n');
    assert.equal(unknown.status, 200);
    assert.equal(unknownLines.at(-2), 'warn: some health checks cannot be excluded: no matches for "nope"');
    assert.equal(unknownLines.at(-1), 'livez check passed');
  });

  test('single checks: /readyz/ping is ok, unknown or readyz-only checks elsewhere are 404', async () => {
    for (const path of ['/readyz/ping', '/livez/ping', '/healthz/log', '/readyz/shutdown']) {
      const res = await server.request('GET', path, { token: null });
      assert.equal(res.status, 200, path);
      assert.equal(res.text, 'ok');
    }
    for (const path of ['/readyz/nope', '/livez/shutdown']) {
      const res = await server.request('GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.text, '404 page not found\n');
    }
  });

  test('a token-file user may list; an invalid token is 401; no token is 401 on resources', async () => {
    const listed = await server.request('GET', '/api/v1/namespaces', { token: 'tok1' });
    assert.equal(listed.status, 200);
    assert.equal(listed.body.kind, 'NamespaceList');
    for (const path of ['/api/v1/namespaces', '/readyz', '/version']) {
      assertFailure(await server.request('GET', path, { token: 'wrong' }), 401, 'Unauthorized', 'Unauthorized');
    }
    assertFailure(await server.request('GET', '/api/v1/namespaces', { token: null }), 401, 'Unauthorized', 'Unauthorized');
    const write = await server.request('POST', '/api/v1/namespaces', { token: null, body: { metadata: { name: 'anon' } } });
    assertFailure(write, 401, 'Unauthorized');
    assertFailure(await server.request('GET', '/api/v1/namespaces/anon'), 404, 'NotFound');
    assert.equal((await server.request('GET', '/readyz', { token: null })).status, 200);
  });
});

describe('AlwaysDeny authorization', () => {
  let server: TestServer;
  const NPS = '/apis/networking.orch.io/v1/namespaces/default/networkpolicies';
  before(async () => (server = await startTestServer([`--token-auth-file=${tokenFile}`, '--authorization-mode=AlwaysDeny'])));
  after(() => server?.close());

  test('alice is refused with upstream\'s messages', async () => {
    // upstream's AlwaysDeny has no opinion, with the reason every 403 ends with.
    const cases: Array<[string, string, string, object]> = [
      ['GET', NPS, 'networkpolicies.networking.orch.io is forbidden: User "alice" cannot list resource "networkpolicies" in API group "networking.orch.io" in the namespace "default": Everything is forbidden.',
        { group: 'networking.orch.io', kind: 'networkpolicies' }],
      ['GET', `${NPS}/np1`, 'networkpolicies.networking.orch.io "np1" is forbidden: User "alice" cannot get resource "networkpolicies" in API group "networking.orch.io" in the namespace "default": Everything is forbidden.',
        { name: 'np1', group: 'networking.orch.io', kind: 'networkpolicies' }],
      ['DELETE', NPS, 'networkpolicies.networking.orch.io is forbidden: User "alice" cannot deletecollection resource "networkpolicies" in API group "networking.orch.io" in the namespace "default": Everything is forbidden.',
        { group: 'networking.orch.io', kind: 'networkpolicies' }],
      ['GET', '/api/v1/namespaces', 'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.', { kind: 'namespaces' }],
      // upstream's request info scopes a namespace's own path to that namespace
      ['GET', '/api/v1/namespaces/default/status', 'namespaces "default" is forbidden: User "alice" cannot get resource "namespaces/status" in API group "" in the namespace "default": Everything is forbidden.',
        { name: 'default', kind: 'namespaces' }],
      ['GET', '/metrics', 'forbidden: User "alice" cannot get path "/metrics": Everything is forbidden.', {}],
    ];
    for (const [method, path, message, details] of cases) {
      const res = await server.request(method, path, { token: 'tok1' });
      assertFailure(res, 403, 'Forbidden', message);
      assert.deepEqual(res.body.details, details, path);
    }
  });

  test('a refused create writes nothing; the admin (system:masters) is allowed', async () => {
    const body = { metadata: { name: 'np1' }, spec: { podSelector: {} } };
    const refused = await server.request('POST', NPS, { token: 'tok1', body });
    assertFailure(refused, 403, 'Forbidden', 'networkpolicies.networking.orch.io is forbidden: User "alice" cannot create resource "networkpolicies" in API group "networking.orch.io" in the namespace "default": Everything is forbidden.');
    assertFailure(await server.request('GET', `${NPS}/np1`), 404, 'NotFound');
    assert.equal((await server.request('POST', NPS, { body })).status, 201);
    assert.equal((await server.request('GET', `${NPS}/np1`)).status, 200);
    assert.equal((await server.request('GET', '/api/v1/namespaces')).status, 200);
  });

  test('anonymous requests are allowed to authenticate and are then denied', async () => {
    const res = await server.request('GET', NPS, { token: null });
    assertFailure(res, 403, 'Forbidden', 'networkpolicies.networking.orch.io is forbidden: User "system:anonymous" cannot list resource "networkpolicies" in API group "networking.orch.io" in the namespace "default": Everything is forbidden.');
    assertFailure(await server.request('GET', NPS, { token: 'wrong' }), 401, 'Unauthorized', 'Unauthorized');
  });
});

describe('graceful shutdown', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer(['--shutdown-delay-duration=2s'])));
  after(() => server?.close());

  test('SIGTERM: readyz fails at once, requests are served through the delay, then exit 0', async () => {
    const cm = '/api/v1/namespaces/default/configmaps/before-shutdown';
    assert.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'before-shutdown' } } })).status, 201);
    const signalled = Date.now();
    const exited = server.stop('SIGTERM');
    let ready = await server.request('GET', '/readyz');
    for (let i = 0; ready.status === 200 && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 25));
      ready = await server.request('GET', '/readyz');
    }
    assert.equal(ready.status, 500);
    const lines = ready.text.split('\n');
    assert.equal(lines.pop(), '');
    assert.equal(lines.pop(), 'readyz check failed');
    assert.ok(lines.includes('[-]shutdown failed: reason withheld'), ready.text);
    for (const line of lines.filter((l) => !l.startsWith('[-]shutdown'))) assert.match(line, CHECK_LINE);
    assert.equal((await server.request('GET', '/readyz?verbose')).status, 500);
    const single = await server.request('GET', '/readyz/shutdown');
    assert.equal(single.status, 500);
    assert.match(single.text, /^internal server error: /);

    assert.equal((await server.request('GET', '/livez')).status, 200, 'still live');
    const got = await server.request('GET', cm);
    assert.equal(got.status, 200, 'resource reads are served during the delay');
    assert.equal(got.body.metadata.name, 'before-shutdown');
    assert.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'during-shutdown' } } })).status, 201);
    assert.ok(Date.now() - signalled < 1900, 'all of the above happened inside the delay');

    assert.equal(await exited, 0);
    assert.ok(Date.now() - signalled >= 1900, `exited after the delay (${Date.now() - signalled} ms)`);
    await assert.rejects(server.request('GET', '/readyz'), /ECONNREFUSED/);
  });
});

describe('graceful shutdown with --shutdown-send-retry-after', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer(['--workers=1', '--shutdown-delay-duration=500ms', '--shutdown-send-retry-after=true'])));
  after(() => server?.close());

  test('after the delay new requests get 429 with Retry-After and Connection: close, probes are served, and a request in flight finishes before the exit', async () => {
    // A create whose body is still arriving is in flight: the shutdown must wait for it.
    const body = JSON.stringify({ metadata: { name: 'in-flight' } });
    const { hostname, port } = new URL(server.url);
    const pending = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpsRequest(
        { host: hostname, port, method: 'POST', path: '/api/v1/namespaces/default/configmaps', ca: server.ca, agent: false, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', 'content-length': String(body.length) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 2_000);
    });
    await new Promise((r) => setTimeout(r, 200));
    const exited = server.stop('SIGTERM');
    await new Promise((r) => setTimeout(r, 900));
    const refused = await server.request('GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '5');
    assert.equal(refused.headers.connection, 'close');
    assert.equal(refused.text, 'The apiserver is shutting down, please try again later.\n');
    assert.equal((await server.request('GET', '/livez')).status, 200, 'probes are exempt');
    assert.equal((await server.request('GET', '/readyz')).status, 500);
    const created = await pending;
    assert.equal(created.status, 201, created.text);
    assert.equal(await exited, 0);
  });
});
