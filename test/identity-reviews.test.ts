/**
 * SelfSubjectReview and TokenReview (issue 8; SPEC 2.8, 4.11): computed on
 * create, never stored, in discovery and OpenAPI like every other kind.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';

const AUTHN = '/apis/authentication.orch.io/v1';
const SSR = `${AUTHN}/selfsubjectreviews`;
const TR = `${AUTHN}/tokenreviews`;

describe('identity reviews', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-reviews-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'alice-token,alice,alice-uid,"dev,ops"\nbob-token,bob,,\n');
    server = await startTestServer([`--token-auth-file=${tokens}`]);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('SelfSubjectReview answers who the caller is, with system:authenticated', async () => {
    const res = await server.request('POST', SSR, { token: 'alice-token', body: { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.apiVersion, 'authentication.orch.io/v1');
    assert.equal(res.body.kind, 'SelfSubjectReview');
    assert.deepEqual(res.body.status.userInfo, { username: 'alice', uid: 'alice-uid', groups: ['dev', 'ops', 'system:authenticated'] });
    // Empty fields are omitted; apiVersion and kind are filled in when the body leaves them out.
    const bob = await server.request('POST', SSR, { token: 'bob-token', body: {} });
    assert.equal(bob.status, 201);
    assert.equal(bob.body.kind, 'SelfSubjectReview');
    assert.deepEqual(bob.body.status.userInfo, { username: 'bob', groups: ['system:authenticated'] });
    // Nothing is stored: there is no object to read, list or delete.
    assert.equal((await server.request('GET', SSR)).status, 405);
    assert.equal((await server.request('GET', `${SSR}/x`)).status, 404);
    assert.equal((await server.request('DELETE', SSR)).status, 405);
  });

  test('the body is decoded as any create: wrong kind 400, unknown fields refused when Strict', async () => {
    const wrongKind = await server.request('POST', SSR, { body: { apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview' } });
    assert.equal(wrongKind.status, 400);
    const wrongVersion = await server.request('POST', SSR, { body: { apiVersion: 'v1', kind: 'SelfSubjectReview' } });
    assert.equal(wrongVersion.status, 400);
    const strict = await server.request('POST', `${SSR}?fieldValidation=Strict`, { body: { kind: 'SelfSubjectReview', bogus: 1 } });
    assert.equal(strict.status, 400);
    assert.match(strict.body.message, /unknown field "bogus"/);
    const warned = await server.request('POST', SSR, { body: { kind: 'SelfSubjectReview', bogus: 1 } });
    assert.equal(warned.status, 201);
    assert.match(String(warned.headers.warning), /unknown field \\"bogus\\"/);
    const badOption = await server.request('POST', `${SSR}?dryRun=Maybe`, { body: {} });
    assert.equal(badOption.status, 400);
    const notJson = await server.request('POST', SSR, { raw: '{"kind":', headers: { 'content-type': 'application/json' } });
    assert.equal(notJson.status, 400);
  });

  test('TokenReview asks the token authenticators', async () => {
    const ok = await server.request('POST', TR, { body: { apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview', spec: { token: 'alice-token' } } });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.status.authenticated, true);
    assert.deepEqual(ok.body.status.user, { username: 'alice', uid: 'alice-uid', groups: ['dev', 'ops', 'system:authenticated'] });
    const bad = await server.request('POST', TR, { body: { kind: 'TokenReview', spec: { token: 'not-a-token' } } });
    assert.equal(bad.status, 201);
    assert.deepEqual(bad.body.status, { authenticated: false, error: 'invalid bearer token' });
    const none = await server.request('POST', TR, { body: { kind: 'TokenReview', spec: {} } });
    assert.equal(none.status, 400);
    assert.equal(none.body.message, 'token is required for TokenReview in authentication');
    const namespaced = await server.request('POST', TR, { body: { kind: 'TokenReview', metadata: { namespace: 'default' }, spec: { token: 'alice-token' } } });
    assert.equal(namespaced.status, 400);
    assert.equal(namespaced.body.message, 'namespace is not allowed on this type: default');
  });

  test('discovery and OpenAPI list the reviews and serviceaccounts/token', async () => {
    const resources = (await server.request('GET', AUTHN)).body.resources;
    assert.deepEqual(
      resources.map((r: any) => [r.name, r.kind, r.namespaced, r.verbs, r.storageVersionHash]),
      [
        ['selfsubjectreviews', 'SelfSubjectReview', false, ['create'], undefined],
        ['tokenreviews', 'TokenReview', false, ['create'], undefined],
      ],
    );
    const core = (await server.request('GET', '/api/v1')).body.resources;
    const token = core.find((r: any) => r.name === 'serviceaccounts/token');
    assert.deepEqual(token, { name: 'serviceaccounts/token', singularName: '', namespaced: true, group: 'authentication.orch.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] });
    const v3 = (await server.request('GET', '/openapi/v3/apis/authentication.orch.io/v1')).body;
    assert.deepEqual(Object.keys(v3.paths).sort(), [`${AUTHN}/selfsubjectreviews`, `${AUTHN}/tokenreviews`]);
    assert.equal(v3.paths[TR].post.operationId, 'createAuthenticationV1TokenReview');
    const coreV3 = (await server.request('GET', '/openapi/v3/api/v1')).body;
    const post = coreV3.paths['/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token'].post;
    assert.equal(post.operationId, 'createCoreV1NamespacedServiceAccountToken');
    assert.deepEqual(post['x-kubernetes-group-version-kind'], { group: 'authentication.orch.io', kind: 'TokenRequest', version: 'v1' });
    assert.equal(post.requestBody.content['*/*'].schema.$ref, '#/components/schemas/io.orch.api.authentication.v1.TokenRequest');
    assert.ok(coreV3.components.schemas['io.orch.api.authentication.v1.TokenRequest']);
  });
});

test('APISelfSubjectReview is GA and locked on, as upstream locks GA gates', async () => {
  const { parseFlags } = await import('../src/cli/flags.ts');
  assert.doesNotThrow(() => parseFlags(['--feature-gates=APISelfSubjectReview=true']));
  assert.throws(() => parseFlags(['--feature-gates=APISelfSubjectReview=false']), /cannot set feature gate APISelfSubjectReview to false, feature is locked to true/);
});
