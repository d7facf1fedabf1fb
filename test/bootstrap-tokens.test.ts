/**
 * Bootstrap tokens and the controllers that keep identity objects (issue 8;
 * SPEC 2.9, 3, 5.2): token Secrets validated on write; `<id>.<secret>`
 * authenticates while valid; the token cleaner deletes expired tokens; the
 * bootstrap signer signs cluster-info; every namespace gets `default` and
 * `orch-root-ca.crt`; legacy token Secrets are filled and replaced.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { compactVerify } from 'jose';
import { parse as parseYaml } from 'yaml';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { eventually } from './helpers/eventually.ts';

const SYS = '/api/v1/namespaces/orch-system/secrets';
const SSR = '/apis/authentication.orch.io/v1/selfsubjectreviews';
const CLUSTER_INFO = '/api/v1/namespaces/orch-public/configmaps/cluster-info';

function tokenSecret(id: string, secret: string, extra: Record<string, string> = {}) {
  return { metadata: { name: `bootstrap-token-${id}` }, type: 'bootstrap.orch.io/token', stringData: { 'token-id': id, 'token-secret': secret, ...extra } };
}


describe('bootstrap tokens', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(['--enable-bootstrap-token-auth']);
  });
  after(async () => server?.close());
  const whoami = async (token: string) => {
    const res = await server.request('POST', SSR, { token, body: { kind: 'SelfSubjectReview' } });
    return { status: res.status, user: res.body?.status?.userInfo };
  };

  test('token Secrets are validated on write (422 with a cause per rule)', async () => {
    const cases: Array<[object, RegExp]> = [
      [tokenSecret('ABCDEF', '0123456789abcdef'), /data\[token-id\]: Invalid value: "ABCDEF"/],
      [tokenSecret('abcdef', 'short'), /data\[token-secret\]: Invalid value/],
      [{ ...tokenSecret('abcdef', '0123456789abcdef'), metadata: { name: 'bootstrap-token-other1' } }, /metadata.name: Invalid value: "bootstrap-token-other1"/],
      [tokenSecret('abcdef', '0123456789abcdef', { expiration: 'tomorrow' }), /data\[expiration\]: Invalid value: "tomorrow"/],
      [tokenSecret('abcdef', '0123456789abcdef', { 'usage-bootstrap-authentication': 'yes' }), /must be "true" or "false"/],
      [tokenSecret('abcdef', '0123456789abcdef', { 'usage-bootstrap-teleport': 'true' }), /unknown usage/],
      [tokenSecret('abcdef', '0123456789abcdef', { 'auth-extra-groups': 'system:bootstrappers:ok,admins' }), /data\[auth-extra-groups\]: Invalid value: "admins"/],
      [{ metadata: { name: 'bootstrap-token-abcdef' }, type: 'bootstrap.orch.io/token', stringData: { 'token-id': 'abcdef' } }, /data\[token-secret\]: Required value/],
    ];
    for (const [body, message] of cases) {
      const res = await server.request('POST', SYS, { body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.match(res.body.message, message);
      // The secret itself never appears in the answer.
      assert.doesNotMatch(res.text, /0123456789abcdef/);
    }
  });

  test('a valid token authenticates as system:bootstrap:<id> with its extra groups; every failure is 401', async () => {
    const created = await server.request('POST', SYS, {
      body: tokenSecret('abc123', 'abcdefghijklmnop', { 'usage-bootstrap-authentication': 'true', 'auth-extra-groups': 'system:bootstrappers:workers' }),
    });
    assert.equal(created.status, 201, created.text);
    const me = await whoami('abc123.abcdefghijklmnop');
    assert.equal(me.status, 201);
    assert.deepEqual(me.user, { username: 'system:bootstrap:abc123', groups: ['system:bootstrappers', 'system:bootstrappers:workers', 'system:authenticated'] });
    // Wrong secret, malformed, unknown id.
    for (const token of ['abc123.abcdefghijklmnoq', 'abc123.abcdefghijklmno', 'ABC123.abcdefghijklmnop', 'zzz999.abcdefghijklmnop', 'abc123abcdefghijklmnop']) {
      assert.equal((await whoami(token)).status, 401, token);
    }
    // Usage not allowed.
    await server.request('POST', SYS, { body: tokenSecret('nouse1', 'abcdefghijklmnop', { 'usage-bootstrap-signing': 'true' }) });
    assert.equal((await whoami('nouse1.abcdefghijklmnop')).status, 401);
    // Expired.
    await server.request('POST', SYS, { body: tokenSecret('old123', 'abcdefghijklmnop', { 'usage-bootstrap-authentication': 'true', expiration: '2001-01-01T00:00:00Z' }) });
    assert.equal((await whoami('old123.abcdefghijklmnop')).status, 401);
    // In another namespace it is not a bootstrap token.
    await server.request('POST', '/api/v1/namespaces/default/secrets', { body: tokenSecret('wrongn', 'abcdefghijklmnop', { 'usage-bootstrap-authentication': 'true' }) });
    assert.equal((await whoami('wrongn.abcdefghijklmnop')).status, 401);
    // Deleted.
    await server.request('DELETE', `${SYS}/bootstrap-token-abc123`);
    assert.equal((await whoami('abc123.abcdefghijklmnop')).status, 401);
  });

  test('the token cleaner deletes a token when it expires', async () => {
    const expiration = new Date(Date.now() + 2000).toISOString().replace(/\.\d+Z$/, 'Z');
    const res = await server.request('POST', SYS, { body: tokenSecret('soon12', 'abcdefghijklmnop', { 'usage-bootstrap-authentication': 'true', expiration }) });
    assert.equal(res.status, 201, res.text);
    assert.equal((await whoami('soon12.abcdefghijklmnop')).status, 201);
    await eventually('the expired token to be deleted', async () => ((await server.request('GET', `${SYS}/bootstrap-token-soon12`)).status === 404 ? true : undefined));
    assert.equal((await whoami('soon12.abcdefghijklmnop')).status, 401);
  });

  test('cluster-info: readable, signed per signing token with the full token as HS256 key, unsigned when the token goes', async () => {
    const info = (await server.request('GET', CLUSTER_INFO)).body;
    const orchconfig = parseYaml(info.data.orchconfig);
    assert.equal(orchconfig.clusters[0].cluster.server, server.url);
    assert.equal(Buffer.from(orchconfig.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), server.ca);
    assert.equal(orchconfig.users, null);
    await server.request('POST', SYS, { body: tokenSecret('sign01', 'qrstuvwxyz012345', { 'usage-bootstrap-signing': 'true' }) });
    const signed = await eventually('a signature', async () => {
      const body = (await server.request('GET', CLUSTER_INFO)).body;
      return body.data['jws-orchconfig-sign01'] ? body : undefined;
    });
    const detached: string = signed.data['jws-orchconfig-sign01'];
    const [header, empty, signature] = detached.split('.');
    assert.equal(empty, '');
    assert.deepEqual(JSON.parse(Buffer.from(header, 'base64url').toString()), { alg: 'HS256', kid: 'sign01' });
    const payload = Buffer.from(signed.data.orchconfig).toString('base64url');
    const key = new TextEncoder().encode('sign01.qrstuvwxyz012345');
    const { payload: verified } = await compactVerify(`${header}.${payload}.${signature}`, key, { algorithms: ['HS256'] });
    assert.equal(Buffer.from(verified).toString(), signed.data.orchconfig);
    await assert.rejects(compactVerify(`${header}.${payload}.${signature}`, new TextEncoder().encode('qrstuvwxyz012345')));
    await server.request('DELETE', `${SYS}/bootstrap-token-sign01`);
    await eventually('the signature to go', async () => ((await server.request('GET', CLUSTER_INFO)).body.data['jws-orchconfig-sign01'] ? undefined : true));
    // Deleted by a user, cluster-info comes back.
    await server.request('DELETE', CLUSTER_INFO);
    await eventually('cluster-info again', async () => ((await server.request('GET', CLUSTER_INFO)).status === 200 ? true : undefined));
  });
});

describe('identity objects in every namespace', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  test('a new namespace gets default and orch-root-ca.crt, restored after deletion or edits', async () => {
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'team' } } })).status, 201);
    const SA = '/api/v1/namespaces/team/serviceaccounts/default';
    const CA = '/api/v1/namespaces/team/configmaps/orch-root-ca.crt';
    await eventually('default', async () => ((await server.request('GET', SA)).status === 200 ? true : undefined));
    const ca = await eventually('the CA config map', async () => {
      const res = await server.request('GET', CA);
      return res.status === 200 ? res.body : undefined;
    });
    assert.deepEqual(ca.data, { 'ca.crt': server.ca });
    assert.match(ca.metadata.annotations['orch.io/description'], /CA bundle/);
    await server.request('DELETE', SA);
    await eventually('default again', async () => ((await server.request('GET', SA)).status === 200 ? true : undefined));
    await server.request('PUT', CA, { body: { ...ca, data: { 'ca.crt': 'tampered' } } });
    await eventually('the CA restored', async () => ((await server.request('GET', CA)).body.data['ca.crt'] === server.ca ? true : undefined));
  });

  test('a legacy token Secret is filled, authenticates, and is replaced when deleted', async () => {
    await server.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'robot' } } });
    const created = await server.request('POST', '/api/v1/namespaces/default/secrets', {
      body: { metadata: { name: 'robot-token-first', annotations: { 'orch.io/service-account.name': 'robot' } }, type: 'orch.io/service-account-token' },
    });
    assert.equal(created.status, 201, created.text);
    const filled = await eventually('the token', async () => {
      const res = await server.request('GET', '/api/v1/namespaces/default/secrets/robot-token-first');
      return res.body.data?.token ? res.body : undefined;
    });
    // The controller lists the Secret in the account in a write of its own, after filling it.
    const account = await eventually('the account listing its token', async () => {
      const res = await server.request('GET', '/api/v1/namespaces/default/serviceaccounts/robot');
      return res.body.secrets?.length ? res.body : undefined;
    });
    assert.equal(filled.metadata.annotations['orch.io/service-account.uid'], account.metadata.uid);
    assert.equal(Buffer.from(filled.data['ca.crt'], 'base64').toString(), server.ca);
    assert.equal(Buffer.from(filled.data.namespace, 'base64').toString(), 'default');
    const token = Buffer.from(filled.data.token, 'base64').toString();
    const me = await server.request('POST', SSR, { token, body: { kind: 'SelfSubjectReview' } });
    assert.equal(me.body.status.userInfo.username, 'system:serviceaccount:default:robot');
    assert.deepEqual(account.secrets, [{ name: 'robot-token-first' }]);
    // Legacy token tracking: the Secret records the day it was used; one marked invalid is refused.
    const today = new Date().toISOString().slice(0, 10);
    const used = await eventually('the last-used label', async () => {
      const res = await server.request('GET', '/api/v1/namespaces/default/secrets/robot-token-first');
      return res.body.metadata.labels?.['orch.io/legacy-token-last-used'] === today ? res.body : undefined;
    });
    await server.request('PATCH', '/api/v1/namespaces/default/secrets/robot-token-first', {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { metadata: { labels: { 'orch.io/legacy-token-invalid-since': today } } },
    });
    assert.equal((await server.request('POST', SSR, { token, body: {} })).status, 401);
    await server.request('PATCH', '/api/v1/namespaces/default/secrets/robot-token-first', {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { metadata: { labels: { 'orch.io/legacy-token-invalid-since': null } } },
    });
    assert.equal((await server.request('POST', SSR, { token, body: {} })).status, 201);
    assert.ok(used);
    await server.request('DELETE', '/api/v1/namespaces/default/secrets/robot-token-first');
    // The deleted token stops working; a replacement is listed instead.
    assert.equal((await server.request('POST', SSR, { token, body: {} })).status, 401);
    const replaced = await eventually('a replacement', async () => {
      const refs = (await server.request('GET', '/api/v1/namespaces/default/serviceaccounts/robot')).body.secrets ?? [];
      return refs.length === 1 && refs[0].name !== 'robot-token-first' ? refs[0].name : undefined;
    });
    assert.match(replaced, /^robot-token-[a-z0-9]{5}$/);
    await eventually('the replacement filled', async () => ((await server.request('GET', `/api/v1/namespaces/default/secrets/${replaced}`)).body.data?.token ? true : undefined));
    // A Secret naming a missing account is deleted.
    await server.request('POST', '/api/v1/namespaces/default/secrets', {
      body: { metadata: { name: 'orphan-token', annotations: { 'orch.io/service-account.name': 'ghost' } }, type: 'orch.io/service-account-token' },
    });
    await eventually('the orphan deleted', async () => ((await server.request('GET', '/api/v1/namespaces/default/secrets/orphan-token')).status === 404 ? true : undefined));
  });
});
