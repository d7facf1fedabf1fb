/**
 * RBAC escalation prevention (SPEC 5.5; issue 9): every escalation attempt is
 * refused with upstream's message, and a positive control beside each shows
 * that the same user may make the same kind of write when it grants nothing
 * new, so the refusals are escalation checks, not missing verbs.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure, expectWrite } from './helpers/api.ts';

const RBAC = '/apis/rbac.authorization.orch.io/v1';
const G = 'rbac.authorization.orch.io';
const NOT_HELD = (kind: string, name: string) => `${kind}.${G} "${name}" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n`;
const role = (name: string, rules: object[], extra: object = {}) => ({ metadata: { name, ...extra }, rules });
const bindingTo = (name: string, kind: string, roleName: string, users: string[]) => ({
  metadata: { name },
  roleRef: { apiGroup: G, kind, name: roleName },
  subjects: users.map((u) => ({ kind: 'User', apiGroup: G, name: u })),
});
const CONFIGMAPS_GET = { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] };
const SECRETS_GET = { apiGroups: [''], resources: ['secrets'], verbs: ['get'] };

describe('RBAC escalation prevention', () => {
  let server: TestServer;
  let dir: string;
  const bob = (method: string, path: string, body?: unknown, contentType?: string) =>
    server.request(method, path, { token: 'bob-token', body, ...(contentType ? { headers: { 'content-type': contentType } } : {}) });
  const admin = (method: string, path: string, body?: unknown) => expectWrite(server, method, path, body);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-escalation-'));
    writeFileSync(join(dir, 'tokens.csv'), 'bob-token,bob,2,\ncarol-token,carol,3,\n');
    server = await startTestServer(['--authorization-mode=RBAC', `--token-auth-file=${join(dir, 'tokens.csv')}`]);
    await admin('POST', '/api/v1/namespaces', { metadata: { name: 'esc' } });
    // bob may write roles and bindings in esc and read config maps there; nothing else.
    await admin('POST', `${RBAC}/namespaces/esc/roles`, role('rbac-writer', [{ apiGroups: [G], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'patch', 'get'] }, CONFIGMAPS_GET]));
    await admin('POST', `${RBAC}/namespaces/esc/rolebindings`, bindingTo('bob-writer', 'Role', 'rbac-writer', ['bob']));
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a Role may grant only what its author holds, unless the author may escalate', async () => {
    // Positive control: a role within bob's own permissions.
    assert.equal((await bob('POST', `${RBAC}/namespaces/esc/roles`, role('cm-reader', [CONFIGMAPS_GET]))).status, 201);
    assertFailure(await bob('POST', `${RBAC}/namespaces/esc/roles`, role('secret-reader', [SECRETS_GET])), 403, 'Forbidden', `${NOT_HELD('roles', 'secret-reader')}{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`);
    // Dry run is checked the same, and nothing is written either way.
    assert.equal((await bob('POST', `${RBAC}/namespaces/esc/roles?dryRun=All`, role('secret-reader', [SECRETS_GET]))).status, 403);
    assert.equal((await server.request('GET', `${RBAC}/namespaces/esc/roles/secret-reader`)).status, 404);
    // */*/* is everything bob does not hold, compacted per group and resource.
    const all = await bob('POST', `${RBAC}/namespaces/esc/roles`, role('everything', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
    assertFailure(all, 403, 'Forbidden', `${NOT_HELD('roles', 'everything')}{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`);
    // Several missing verbs of one resource compact into one line; lines are sorted.
    const two = await bob('POST', `${RBAC}/namespaces/esc/roles`, role('two', [{ apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'list'] }]));
    assertFailure(two, 403, 'Forbidden', `${NOT_HELD('roles', 'two')}{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`);
    // With `escalate` on roles, the same create goes through.
    await admin('POST', `${RBAC}/namespaces/esc/roles`, role('escalator', [{ apiGroups: [G], resources: ['roles'], verbs: ['escalate'] }]));
    await admin('POST', `${RBAC}/namespaces/esc/rolebindings`, bindingTo('bob-escalates', 'Role', 'escalator', ['bob']));
    assert.equal((await bob('POST', `${RBAC}/namespaces/esc/roles`, role('secret-reader', [SECRETS_GET]))).status, 201);
    assert.equal((await server.request('DELETE', `${RBAC}/namespaces/esc/rolebindings/bob-escalates`)).status, 200);
    // Without it again, an update that widens the role is refused; only what the garbage collector touches may change.
    const patched = await bob('PATCH', `${RBAC}/namespaces/esc/roles/cm-reader`, { rules: [CONFIGMAPS_GET, SECRETS_GET] }, 'application/merge-patch+json');
    assertFailure(patched, 403, 'Forbidden', `${NOT_HELD('roles', 'cm-reader')}{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`);
    const finalizer = await bob('PATCH', `${RBAC}/namespaces/esc/roles/secret-reader`, { metadata: { finalizers: ['example.io/keep'] } }, 'application/merge-patch+json');
    assert.equal(finalizer.status, 200, finalizer.text);
    const label = await bob('PATCH', `${RBAC}/namespaces/esc/roles/secret-reader`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
    assert.equal(label.status, 403);
  });

  test('a binding needs `bind` on its role or every permission of it', async () => {
    // Positive control: binding a role whose rules bob holds.
    assert.equal((await bob('POST', `${RBAC}/namespaces/esc/rolebindings`, bindingTo('carol-cm', 'Role', 'cm-reader', ['carol']))).status, 201);
    assert.equal((await server.request('GET', '/api/v1/namespaces/esc/configmaps/orch-root-ca.crt', { token: 'carol-token' })).status, 200);
    // Binding himself to cluster-admin in the namespace.
    const admin403 = await bob('POST', `${RBAC}/namespaces/esc/rolebindings`, bindingTo('bob-admin', 'ClusterRole', 'cluster-admin', ['bob']));
    assertFailure(admin403, 403, 'Forbidden', `${NOT_HELD('rolebindings', 'bob-admin')}{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}`);
    assertFailure(await bob('POST', `${RBAC}/namespaces/esc/rolebindings`, bindingTo('carol-secrets', 'Role', 'secret-reader', ['carol'])), 403, 'Forbidden', /is attempting to grant RBAC permissions not currently held/);
    // A binding to a role that does not exist is upstream's NotFound.
    assertFailure(await bob('POST', `${RBAC}/namespaces/esc/rolebindings`, bindingTo('nowhere', 'Role', 'nope', ['carol'])), 404, 'NotFound', `roles.${G} "nope" not found`);
    // `bind` on the view ClusterRole (by name) lets bob bind it, and only it.
    await admin('POST', `${RBAC}/namespaces/esc/roles`, role('binder', [{ apiGroups: [G], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['view'] }]));
    await admin('POST', `${RBAC}/namespaces/esc/rolebindings`, bindingTo('bob-binds', 'Role', 'binder', ['bob']));
    assert.equal((await bob('POST', `${RBAC}/namespaces/esc/rolebindings`, bindingTo('carol-view', 'ClusterRole', 'view', ['carol']))).status, 201);
    assert.equal((await bob('POST', `${RBAC}/namespaces/esc/rolebindings`, bindingTo('carol-edit', 'ClusterRole', 'edit', ['carol']))).status, 403);
  });

  test('nobody adds themselves to a binding or repoints one without holding its role', async () => {
    await admin('POST', `${RBAC}/namespaces/esc/rolebindings`, bindingTo('admins', 'ClusterRole', 'admin', ['carol']));
    const join = await bob('PATCH', `${RBAC}/namespaces/esc/rolebindings/admins`, { subjects: [{ kind: 'User', apiGroup: G, name: 'carol' }, { kind: 'User', apiGroup: G, name: 'bob' }] }, 'application/merge-patch+json');
    assertFailure(join, 403, 'Forbidden', /^rolebindings\.rbac\.authorization\.orch\.io "admins" is forbidden: user "bob" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/);
    const put = await bob('PUT', `${RBAC}/namespaces/esc/rolebindings/carol-cm`, { ...bindingTo('carol-cm', 'ClusterRole', 'cluster-admin', ['carol']) });
    assert.equal(put.status, 403, put.text);
    // Holding the role does not lift roleRef's immutability: the admin gets the validation error.
    const repointed = await server.request('PATCH', `${RBAC}/namespaces/esc/rolebindings/carol-cm`, { body: { roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assertFailure(repointed, 422, 'Invalid', /roleRef: Invalid value: .*cannot change roleRef/);
    // Positive control: bob may update the subjects of a binding whose role he holds.
    assert.equal((await bob('PATCH', `${RBAC}/namespaces/esc/rolebindings/carol-cm`, { subjects: [{ kind: 'User', apiGroup: G, name: 'bob' }] }, 'application/merge-patch+json')).status, 200);
  });

  test('cluster roles and cluster role bindings: cluster-admin and aggregation rules stay out of reach', async () => {
    await admin('POST', `${RBAC}/clusterroles`, role('rbac-cluster-writer', [{ apiGroups: [G], resources: ['clusterroles', 'clusterrolebindings'], verbs: ['create'] }, CONFIGMAPS_GET]));
    await admin('POST', `${RBAC}/clusterrolebindings`, bindingTo('bob-cluster-writer', 'ClusterRole', 'rbac-cluster-writer', ['bob']));
    assert.equal((await bob('POST', `${RBAC}/clusterroles`, role('cm-anywhere', [CONFIGMAPS_GET]))).status, 201);
    assertFailure(await bob('POST', `${RBAC}/clusterrolebindings`, bindingTo('bob-root', 'ClusterRole', 'cluster-admin', ['bob'])), 403, 'Forbidden', new RegExp(`^clusterrolebindings\\.${G.replace(/\./g, '\\.')} "bob-root" is forbidden: user "bob"`));
    assert.equal((await bob('POST', `${RBAC}/clusterrolebindings`, bindingTo('carol-cm-anywhere', 'ClusterRole', 'cm-anywhere', ['carol']))).status, 201);
    const aggregated = await bob('POST', `${RBAC}/clusterroles`, { metadata: { name: 'gatherer' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] } });
    assertFailure(aggregated, 403, 'Forbidden', `clusterroles.${G} "gatherer" is forbidden: must have cluster-admin privileges to use the aggregationRule`);
    // A role bob holds in one namespace is not held cluster-wide.
    assertFailure(await bob('POST', `${RBAC}/clusterroles`, role('secrets-anywhere', [{ apiGroups: [G], resources: ['roles'], verbs: ['create'] }])), 403, 'Forbidden', /Resources:\["roles"\], Verbs:\["create"\]/);
  });
});
