/**
 * Authorization modes alone and in order (SPEC 5.1 items 3 and 5; issue 9):
 * the first allow or deny is final, AlwaysDeny has no opinion as upstream's,
 * AlwaysAllow turns every no-opinion before it into an allow, and the verbs
 * beyond the request verbs (impersonate, approve, use) reach RBAC.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure, expectWrite } from './helpers/api.ts';

const G = 'rbac.authorization.orch.io';
const RBAC = `/apis/${G}/v1`;
const user = (name: string) => ({ kind: 'User', apiGroup: G, name });

describe('authorization modes in order', () => {
  const servers: Record<string, TestServer> = {};
  let dir: string;
  const modes = ['AlwaysAllow', 'AlwaysDeny', 'AlwaysDeny,RBAC', 'RBAC,AlwaysAllow', 'RBAC'];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-modes-'));
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,1,\nbob-token,bob,2,\n');
    const started = await Promise.all(modes.map((m) => startTestServer([`--authorization-mode=${m}`, `--token-auth-file=${join(dir, 'tokens.csv')}`])));
    modes.forEach((m, i) => (servers[m] = started[i]));
    // The same grant everywhere: alice may list config maps in default through a RoleBinding.
    for (const server of started) {
      await expectWrite(server, 'POST', `${RBAC}/namespaces/default/roles`, { metadata: { name: 'cm' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] });
      await expectWrite(server, 'POST', `${RBAC}/namespaces/default/rolebindings`, { metadata: { name: 'cm' }, roleRef: { apiGroup: G, kind: 'Role', name: 'cm' }, subjects: [user('alice')] });
    }
  });
  after(async () => {
    await Promise.all(Object.values(servers).map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const status = async (mode: string, token: string | null, method: string, path: string) => (await servers[mode].request(method, path, { token })).status;

  test('AlwaysAllow alone allows every authenticated request; anonymous users are refused but for the probes', async () => {
    assert.equal(await status('AlwaysAllow', 'bob-token', 'GET', '/api/v1/secrets'), 200);
    assert.equal(await status('AlwaysAllow', null, 'GET', '/api/v1/secrets'), 401);
    assert.equal(await status('AlwaysAllow', null, 'GET', '/healthz'), 200);
  });

  test('AlwaysDeny alone refuses everyone but system:masters, with its reason', async () => {
    assertFailure(
      await servers.AlwaysDeny.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' }),
      403,
      'Forbidden',
      'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default": Everything is forbidden.',
    );
    assert.equal(await status('AlwaysDeny', null, 'GET', '/healthz'), 403);
    assert.equal((await servers.AlwaysDeny.request('GET', '/api/v1/secrets')).status, 200);
  });

  test('AlwaysDeny before RBAC has no opinion, so RBAC still grants', async () => {
    assert.equal(await status('AlwaysDeny,RBAC', 'alice-token', 'GET', '/api/v1/namespaces/default/configmaps'), 200);
    assert.equal(await status('AlwaysDeny,RBAC', 'bob-token', 'GET', '/api/v1/namespaces/default/configmaps'), 403);
  });

  test('AlwaysAllow after RBAC turns every no-opinion into an allow', async () => {
    assert.equal(await status('RBAC,AlwaysAllow', 'bob-token', 'DELETE', '/api/v1/namespaces/default/configmaps'), 200);
    const review = await servers['RBAC,AlwaysAllow'].request('POST', '/apis/authorization.orch.io/v1/subjectaccessreviews', {
      body: { spec: { user: 'alice', resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: 'default' } } },
    });
    assert.equal(review.body.status.reason, 'RBAC: allowed by RoleBinding "cm/default" of Role "cm" to User "alice"', 'RBAC answers first');
  });

  test('the verbs beyond requests: impersonate through RBAC, approve and use in reviews', async () => {
    const server = servers.RBAC;
    await expectWrite(server, 'POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'odd-verbs' },
      rules: [
        { apiGroups: [''], resources: ['users'], resourceNames: ['bob'], verbs: ['impersonate'] },
        { apiGroups: ['certificates.orch.io'], resources: ['signers'], resourceNames: ['example.com/signer'], verbs: ['approve'] },
        { apiGroups: ['policy'], resources: ['podsecuritypolicies'], verbs: ['use'] },
      ],
    });
    await expectWrite(server, 'POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'odd-verbs' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'odd-verbs' }, subjects: [user('alice')] });
    const asBob = await server.request('POST', '/apis/authentication.orch.io/v1/selfsubjectreviews', { token: 'alice-token', headers: { 'Impersonate-User': 'bob' }, body: {} });
    assert.equal(asBob.status, 201, asBob.text);
    assert.equal(asBob.body.status.userInfo.username, 'bob');
    assertFailure(
      await server.request('GET', '/api', { token: 'alice-token', headers: { 'Impersonate-User': 'carol' } }),
      403,
      'Forbidden',
      'users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const review = async (attributes: object) =>
      (await server.request('POST', '/apis/authorization.orch.io/v1/subjectaccessreviews', { body: { spec: { user: 'alice', resourceAttributes: attributes } } })).body.status.allowed;
    assert.equal(await review({ verb: 'approve', group: 'certificates.orch.io', resource: 'signers', name: 'example.com/signer' }), true);
    assert.equal(await review({ verb: 'approve', group: 'certificates.orch.io', resource: 'signers', name: 'other.com/signer' }), false);
    assert.equal(await review({ verb: 'use', group: 'policy', resource: 'podsecuritypolicies', name: 'restricted' }), true);
  });
});
