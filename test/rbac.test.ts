/**
 * RBAC as an authorization mode, end to end over HTTPS (SPEC 5.1, 5.5; issue 9):
 * the default roles' reach for anonymous and authenticated users, every rule
 * shape through real bindings, namespaces, revocation, and upstream's 403s.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure, expectWrite } from './helpers/api.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';

const RBAC = '/apis/rbac.authorization.orch.io/v1';
const TOKENS = 'alice-token,alice,1,"devs"\nbob-token,bob,2,\ncarol-token,carol,3,"devs"\n';

export const role = (name: string, rules: object[]) => ({ apiVersion: 'rbac.authorization.orch.io/v1', kind: 'Role', metadata: { name }, rules });
export const binding = (name: string, roleRef: { kind: string; name: string }, subjects: object[]) => ({
  apiVersion: 'rbac.authorization.orch.io/v1',
  kind: 'RoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.orch.io', ...roleRef },
  subjects,
});
export const userSubject = (name: string) => ({ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name });

describe('RBAC mode', () => {
  let server: TestServer;
  let dir: string;
  const as = (token: string | null, method: string, path: string, body?: unknown) => server.request(method, path, { token, body });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-rbac-'));
    writeFileSync(join(dir, 'tokens.csv'), TOKENS);
    server = await startTestServer(['--authorization-mode=RBAC', `--token-auth-file=${join(dir, 'tokens.csv')}`]);
    for (const ns of ['team', 'other']) await expectWrite(server, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('anonymous users reach the probes, the version and cluster-info, nothing else', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/version', '/version/']) assert.equal((await as(null, 'GET', path)).status, 200, path);
    // Single checks are system:monitoring's, as upstream's public-info-viewer grants only the endpoints.
    assertFailure(await as(null, 'GET', '/readyz/ping'), 403, 'Forbidden', 'forbidden: User "system:anonymous" cannot get path "/readyz/ping"');
    assert.equal((await as(null, 'GET', '/api/v1/namespaces/orch-public/configmaps/cluster-info')).status, 200);
    assertFailure(await as(null, 'GET', '/api'), 403, 'Forbidden', 'forbidden: User "system:anonymous" cannot get path "/api"');
    assertFailure(await as(null, 'GET', '/metrics'), 403, 'Forbidden', 'forbidden: User "system:anonymous" cannot get path "/metrics"');
    assertFailure(
      await as(null, 'GET', '/api/v1/namespaces/orch-public/configmaps/orch-root-ca.crt'),
      403,
      'Forbidden',
      'configmaps "orch-root-ca.crt" is forbidden: User "system:anonymous" cannot get resource "configmaps" in API group "" in the namespace "orch-public"',
    );
    assertFailure(await as(null, 'POST', '/apis/authorization.orch.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } }), 403, 'Forbidden');
  });

  test('every authenticated user has discovery, the self reviews, and nothing more', async () => {
    for (const path of ['/api', '/api/v1', '/apis', '/apis/rbac.authorization.orch.io/v1', '/openapi/v2', '/openapi/v3', '/version']) {
      assert.equal((await as('bob-token', 'GET', path)).status, 200, path);
    }
    const review = await as('bob-token', 'POST', '/apis/authentication.orch.io/v1/selfsubjectreviews', { kind: 'SelfSubjectReview' });
    assert.equal(review.status, 201, review.text);
    assert.equal(review.body.status.userInfo.username, 'bob');
    const rules = await as('bob-token', 'POST', '/apis/authorization.orch.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'team' } });
    assert.equal(rules.status, 201, rules.text);
    assert.ok(rules.body.status.resourceRules.some((r: any) => r.resources.includes('selfsubjectaccessreviews')));
    assert.ok(rules.body.status.nonResourceRules.some((r: any) => r.nonResourceURLs.includes('/apis/*')));
    assertFailure(
      await as('bob-token', 'GET', '/api/v1/namespaces'),
      403,
      'Forbidden',
      'namespaces is forbidden: User "bob" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    assertFailure(await as('bob-token', 'GET', '/metrics'), 403, 'Forbidden', 'forbidden: User "bob" cannot get path "/metrics"');
  });

  test('a RoleBinding to a ClusterRole grants in its namespace only; permissions add up; deletion revokes at once', async () => {
    const list = (ns: string) => as('alice-token', 'GET', `/api/v1/namespaces/${ns}/configmaps`);
    assertFailure(await list('team'), 403, 'Forbidden', 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team"');
    await expectWrite(server, 'POST', `${RBAC}/namespaces/team/rolebindings`, binding('view', { kind: 'ClusterRole', name: 'view' }, [userSubject('alice')]));
    assert.equal((await list('team')).status, 200);
    assert.equal((await list('other')).status, 403);
    // view reads no secrets; a second binding adds that, and only that.
    assert.equal((await as('alice-token', 'GET', '/api/v1/namespaces/team/secrets')).status, 403);
    await expectWrite(server, 'POST', `${RBAC}/namespaces/team/roles`, role('secret-reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }]));
    await expectWrite(server, 'POST', `${RBAC}/namespaces/team/rolebindings`, binding('secrets', { kind: 'Role', name: 'secret-reader' }, [{ kind: 'Group', apiGroup: 'rbac.authorization.orch.io', name: 'devs' }]));
    assert.equal((await as('alice-token', 'GET', '/api/v1/namespaces/team/secrets')).status, 200);
    assert.equal((await as('carol-token', 'GET', '/api/v1/namespaces/team/secrets')).status, 200);
    assert.equal((await as('carol-token', 'GET', '/api/v1/namespaces/team/configmaps')).status, 403);
    assert.equal((await as('alice-token', 'DELETE', '/api/v1/namespaces/team/configmaps/x')).status, 403);
    // Deleting the binding revokes on the very next request.
    assert.equal((await server.request('DELETE', `${RBAC}/namespaces/team/rolebindings/view`)).status, 200);
    assert.equal((await list('team')).status, 403);
    assert.equal((await as('alice-token', 'GET', '/api/v1/namespaces/team/secrets')).status, 200);
    // Deleting the role behind a binding revokes too, and the 403 names the missing role, as upstream's RBAC reason.
    assert.equal((await server.request('DELETE', `${RBAC}/namespaces/team/roles/secret-reader`)).status, 200);
    assertFailure(
      await as('alice-token', 'GET', '/api/v1/namespaces/team/secrets'),
      403,
      'Forbidden',
      'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "team": RBAC: role.rbac.authorization.orch.io "secret-reader" not found',
    );
    await server.request('DELETE', `${RBAC}/namespaces/team/rolebindings/secrets`);
  });

  test('rule shapes: resource names, subresources, wildcards, non-resource URLs, case-sensitive subjects, service accounts', async () => {
    await expectWrite(server, 'POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'named' } });
    await expectWrite(server, 'POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'unnamed' } });
    await expectWrite(
      server,
      'POST',
      `${RBAC}/namespaces/team/roles`,
      role('shapes', [
        { apiGroups: [''], resources: ['configmaps'], resourceNames: ['named'], verbs: ['get', 'list', 'watch', 'update', 'create', 'deletecollection'] },
        { apiGroups: [''], resources: ['pods/status'], verbs: ['get'] },
        { apiGroups: ['*'], resources: ['*/finalize'], verbs: ['update'] },
      ]),
    );
    await expectWrite(server, 'POST', `${RBAC}/namespaces/team/rolebindings`, binding('shapes', { kind: 'Role', name: 'shapes' }, [userSubject('bob'), userSubject('Alice')]));
    assert.equal((await as('bob-token', 'GET', '/api/v1/namespaces/team/configmaps/named')).status, 200);
    assert.equal((await as('bob-token', 'GET', '/api/v1/namespaces/team/configmaps/unnamed')).status, 403);
    // Names never allow a whole list, a create or a deletecollection...
    assert.equal((await as('bob-token', 'GET', '/api/v1/namespaces/team/configmaps')).status, 403);
    assert.equal((await as('bob-token', 'POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'named' } })).status, 403);
    assert.equal((await as('bob-token', 'DELETE', '/api/v1/namespaces/team/configmaps')).status, 403);
    // ...but a list or watch narrowed to the name by a field selector is authorized as that name.
    const narrowed = await as('bob-token', 'GET', '/api/v1/namespaces/team/configmaps?fieldSelector=metadata.name%3Dnamed');
    assert.equal(narrowed.status, 200, narrowed.text);
    assert.deepEqual(narrowed.body.items.map((i: any) => i.metadata.name), ['named']);
    assert.equal((await as('bob-token', 'GET', '/api/v1/namespaces/team/configmaps?fieldSelector=metadata.name%3Dunnamed')).status, 403);
    // HEAD is authorized as the GET it mirrors.
    assert.equal((await as('bob-token', 'HEAD', '/api/v1/namespaces/team/configmaps/named')).status, 200);
    assert.equal((await as('bob-token', 'HEAD', '/api/v1/namespaces/team/configmaps')).status, 403);
    // A subresource rule is not the resource, and the resource rule is not the subresource.
    assert.equal((await as('bob-token', 'GET', '/api/v1/namespaces/team/pods/p/status')).status, 404);
    assert.equal((await as('bob-token', 'GET', '/api/v1/namespaces/team/pods/p')).status, 403);
    // `*/finalize` in any group is namespaces/finalize; a Role grants it only in its namespace.
    const finalize = await as('bob-token', 'PUT', '/api/v1/namespaces/team/finalize', { metadata: { name: 'team' } });
    assert.notEqual(finalize.status, 403, finalize.text);
    // Subjects are case-sensitive: the binding to "Alice" is not alice's.
    assert.equal((await as('alice-token', 'GET', '/api/v1/namespaces/team/configmaps/named')).status, 403);

    // Non-resource URLs: exact and trailing-star prefixes, cluster-wide only.
    await expectWrite(server, 'POST', `${RBAC}/clusterroles`, { metadata: { name: 'metrics-reader' }, rules: [{ nonResourceURLs: ['/metrics', '/readyz/*'], verbs: ['get'] }] });
    await expectWrite(server, 'POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'metrics-reader' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'metrics-reader' }, subjects: [userSubject('bob')] });
    const metrics = await as('bob-token', 'GET', '/metrics');
    assert.notEqual(metrics.status, 403, metrics.text);

    // A service account subject: the account's tokens are the user system:serviceaccount:<ns>:<name>.
    await expectWrite(server, 'POST', '/api/v1/namespaces/team/serviceaccounts', { metadata: { name: 'bot' } });
    const token = await expectWrite(server, 'POST', '/api/v1/namespaces/team/serviceaccounts/bot/token', { spec: {} });
    await expectWrite(server, 'POST', `${RBAC}/namespaces/team/rolebindings`, binding('bot', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'ServiceAccount', name: 'bot' }]));
    assert.equal((await as(token.status.token, 'GET', '/api/v1/namespaces/team/configmaps')).status, 200);
    assert.equal((await as(token.status.token, 'GET', '/api/v1/namespaces/other/configmaps')).status, 403);
  });

  test('authorization comes before validation, and dry run is authorized as the real request', async () => {
    const invalid = { metadata: { name: 'Not_Valid' }, spec: { podSelector: { matchLabels: { '!': 'x' } } } };
    assertFailure(
      await as('bob-token', 'POST', '/apis/networking.orch.io/v1/namespaces/team/networkpolicies', invalid),
      403,
      'Forbidden',
      'networkpolicies.networking.orch.io is forbidden: User "bob" cannot create resource "networkpolicies" in API group "networking.orch.io" in the namespace "team"',
    );
    assert.equal((await as('bob-token', 'POST', '/apis/networking.orch.io/v1/namespaces/team/networkpolicies?dryRun=All', invalid)).status, 403);
    // The admin gets past authorization to the validation error.
    assert.equal((await server.request('POST', '/apis/networking.orch.io/v1/namespaces/team/networkpolicies?dryRun=All', { body: invalid })).status, 422);
  });

  test('access reviews answer with the chain\'s real decisions', async () => {
    await expectWrite(server, 'POST', `${RBAC}/namespaces/other/rolebindings`, binding('carol-edit', { kind: 'ClusterRole', name: 'edit' }, [userSubject('carol')]));
    const ssar = (token: string, attributes: object) => as(token, 'POST', '/apis/authorization.orch.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: attributes } });
    const allowed = await ssar('carol-token', { verb: 'create', resource: 'secrets', namespace: 'other' });
    assert.equal(allowed.status, 201);
    assert.equal(allowed.body.status.allowed, true);
    assert.equal(allowed.body.status.reason, 'RBAC: allowed by RoleBinding "carol-edit/other" of ClusterRole "edit" to User "carol"');
    assert.equal((await as('carol-token', 'POST', '/api/v1/namespaces/other/secrets', { metadata: { name: 's' } })).status, 201);
    const denied = await ssar('carol-token', { verb: 'create', resource: 'secrets', namespace: 'team' });
    assert.equal(denied.body.status.allowed, false);
    assert.equal((await as('carol-token', 'POST', '/api/v1/namespaces/team/secrets', { metadata: { name: 's' } })).status, 403);
    const sar = await server.request('POST', '/apis/authorization.orch.io/v1/subjectaccessreviews', {
      body: { spec: { user: 'carol', groups: ['devs', 'system:authenticated'], resourceAttributes: { verb: 'delete', resource: 'configmaps', namespace: 'other', name: 'x' } } },
    });
    assert.equal(sar.body.status.allowed, true);
    const rules = await as('carol-token', 'POST', '/apis/authorization.orch.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'other' } });
    assert.ok(rules.body.status.resourceRules.some((r: any) => r.resources?.includes('secrets') && r.verbs.includes('create')));
    const local = await as('carol-token', 'POST', '/apis/authorization.orch.io/v1/namespaces/other/localsubjectaccessreviews', {
      spec: { user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'other' } },
    });
    // edit does not include creating local reviews (admin does): the review itself is refused.
    assert.equal(local.status, 403);
  });

  test('kubectl with a non-admin orchconfig gets upstream\'s Forbidden messages and what its bindings allow', { skip: !hasKubectl() && 'kubectl is not on PATH' }, async () => {
    const config = join(dir, 'bob.orchconfig');
    writeFileSync(config, readFileSync(server.orchconfig, 'utf8').replace(server.token, 'bob-token'));
    const kubectl = (...args: string[]) => runKubectl(config, dir, args);
    const secrets = await kubectl('get', 'secrets', '-n', 'default');
    assert.notEqual(secrets.code, 0);
    assert.match(secrets.stderr, /Error from server \(Forbidden\): secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "default"/);
    const create = await kubectl('create', 'configmap', 'x', '-n', 'team');
    assert.match(create.stderr, /failed to create configmap: configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "team"/);
    const named = await kubectl('get', 'configmap', 'named', '-n', 'team', '-o', 'name');
    assert.equal(named.stdout.trim(), 'configmap/named', named.stderr);
    const forbiddenGet = await kubectl('get', 'configmap', 'unnamed', '-n', 'team');
    assert.match(forbiddenGet.stderr, /Error from server \(Forbidden\): configmaps "unnamed" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "team"/);
  });
});
