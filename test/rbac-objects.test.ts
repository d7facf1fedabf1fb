/**
 * RBAC objects (issue 9 start; SPEC 5.5): stored with upstream's defaults and
 * validation; their Table columns. Evaluation comes with the RBAC authorizer.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';

const RBAC = '/apis/rbac.authorization.orch.io/v1';
const G = 'rbac.authorization.orch.io';

describe('RBAC objects', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  test('valid objects are stored; subjects and roleRef get their API group', async () => {
    const role = await server.request('POST', `${RBAC}/namespaces/default/roles`, { body: { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] } });
    assert.equal(role.status, 201, role.text);
    const cluster = await server.request('POST', `${RBAC}/clusterroles`, { body: { metadata: { name: 'probe:reader' }, rules: [{ nonResourceURLs: ['/healthz', '/metrics*'], verbs: ['get'] }] } });
    assert.equal(cluster.status, 201, cluster.text);
    const binding = await server.request('POST', `${RBAC}/namespaces/default/rolebindings`, {
      body: { metadata: { name: 'read' }, roleRef: { kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'bot', namespace: 'default' }] },
    });
    assert.equal(binding.status, 201, binding.text);
    assert.equal(binding.body.roleRef.apiGroup, G);
    assert.deepEqual(binding.body.subjects.map((s: any) => s.apiGroup), [G, G, undefined]);
    const table = await server.request('GET', `${RBAC}/namespaces/default/rolebindings`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' } });
    assert.deepEqual(table.body.columnDefinitions.map((c: any) => c.name), ['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
    const row = table.body.rows.find((r: any) => r.cells[0] === 'read');
    assert.deepEqual([row.cells[1], row.cells[3], row.cells[4], row.cells[5]], ['Role/reader', 'alice', 'devs', 'default/bot']);
  });

  test('rules, bindings and subjects are validated as upstream (422)', async () => {
    const cases: Array<[string, object, RegExp]> = [
      [`${RBAC}/namespaces/default/roles`, { metadata: { name: 'r1' }, rules: [{ apiGroups: [''], resources: ['pods'] }] }, /rules\[0\].verbs: Required value: verbs must contain at least one value/],
      [`${RBAC}/namespaces/default/roles`, { metadata: { name: 'r2' }, rules: [{ nonResourceURLs: ['/x'], verbs: ['get'] }] }, /namespaced rules cannot apply to non-resource URLs/],
      [`${RBAC}/clusterroles`, { metadata: { name: 'r3' }, rules: [{ nonResourceURLs: ['/x'], resources: ['pods'], verbs: ['get'] }] }, /rules cannot apply to both regular resources and non-resource URLs/],
      [`${RBAC}/clusterroles`, { metadata: { name: 'r4' }, rules: [{ verbs: ['get'] }] }, /resource rules must supply at least one api group/],
      [`${RBAC}/clusterroles`, { metadata: { name: 'r5' }, aggregationRule: {} }, /at least one clusterRoleSelector required/],
      [`${RBAC}/namespaces/default/rolebindings`, { metadata: { name: 'b1' }, roleRef: { kind: 'Pod', name: 'x' } }, /roleRef.kind: Unsupported value: "Pod"/],
      [`${RBAC}/clusterrolebindings`, { metadata: { name: 'b2' }, roleRef: { kind: 'Role', name: 'x' } }, /roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"/],
      [`${RBAC}/clusterrolebindings`, { metadata: { name: 'b3' }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: 'bot' }] }, /subjects\[0\].namespace: Required value/],
      [`${RBAC}/clusterrolebindings`, { metadata: { name: 'b4' }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'Robot', name: 'r' }] }, /subjects\[0\].kind: Unsupported value: "Robot"/],
      [`${RBAC}/clusterrolebindings`, { metadata: { name: 'b5' }, roleRef: { kind: 'ClusterRole', apiGroup: 'other.io', name: 'view' } }, /roleRef.apiGroup: Unsupported value: "other.io"/],
      [`${RBAC}/clusterrolebindings`, { metadata: { name: 'b6' }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: '' }] }, /subjects\[0\].name: Required value/],
    ];
    for (const [path, body, message] of cases) {
      const res = await server.request('POST', path, { body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.match(res.body.message, message);
    }
  });

  test('roleRef cannot change', async () => {
    const created = await server.request('POST', `${RBAC}/clusterrolebindings`, { body: { metadata: { name: 'fixed' }, roleRef: { kind: 'ClusterRole', name: 'view' } } });
    assert.equal(created.status, 201, created.text);
    const changed = await server.request('PUT', `${RBAC}/clusterrolebindings/fixed`, { body: { ...created.body, roleRef: { ...created.body.roleRef, name: 'edit' } } });
    assert.equal(changed.status, 422);
    assert.match(changed.body.message, /roleRef: Invalid value: .*cannot change roleRef/);
  });
});
