/**
 * RBAC's default roles and bindings (SPEC 5.5; issue 9): created on the first
 * start, reconciled at every start as upstream's bootstrap policy does, and
 * the aggregated roles kept current by the aggregation controller.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { expectWrite } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';

const RBAC = '/apis/rbac.authorization.orch.io/v1';
const MERGE = { 'content-type': 'application/merge-patch+json' };

async function get(server: TestServer, path: string): Promise<any> {
  const res = await server.request('GET', path);
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return res.body;
}

test('the defaults are reconciled at every start: removed rules and subjects return, additions stay, autoupdate=false is left alone', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-rbac-defaults-'));
  const flags = ['--authorization-mode=RBAC'];
  let server = await startTestServer(flags, { dataDir });
  try {
    const basic = await get(server, `${RBAC}/clusterroles/system:basic-user`);
    assert.equal(basic.metadata.labels['orch.io/bootstrapping'], 'rbac-defaults');
    assert.equal(basic.metadata.annotations['rbac.authorization.orch.io/autoupdate'], 'true');
    const admins = await get(server, `${RBAC}/clusterrolebindings/cluster-admin`);
    const viewersBefore = await get(server, `${RBAC}/clusterrolebindings/system:public-info-viewer`);
    assert.deepEqual(admins.subjects, [{ kind: 'Group', apiGroup: 'rbac.authorization.orch.io', name: 'system:masters' }]);
    assert.deepEqual((await get(server, `${RBAC}/namespaces/orch-public/rolebindings/orchadm:bootstrap-signer-clusterinfo`)).subjects, [
      { kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: 'system:anonymous' },
    ]);

    // An operator's edits: a rule removed and one added, a subject removed, a role frozen, a binding deleted and one repointed.
    const patch = (path: string, body: object) => server.request('PATCH', path, { body, headers: MERGE });
    assert.equal((await patch(`${RBAC}/clusterroles/system:basic-user`, { rules: [basic.rules[0], { apiGroups: ['example.io'], resources: ['widgets'], verbs: ['get'] }] })).status, 200);
    assert.equal((await patch(`${RBAC}/clusterrolebindings/system:public-info-viewer`, { subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.orch.io', name: 'system:authenticated' }] })).status, 200);
    assert.equal((await patch(`${RBAC}/clusterroles/system:monitoring`, { metadata: { annotations: { 'rbac.authorization.orch.io/autoupdate': 'false' } }, rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] })).status, 200);
    assert.equal((await server.request('DELETE', `${RBAC}/clusterrolebindings/system:discovery`)).status, 200);
    assert.equal((await server.request('DELETE', `${RBAC}/clusterrolebindings/system:basic-user`)).status, 200);
    await expectWrite(server, 'POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'system:basic-user' },
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.orch.io', name: 'system:authenticated' }],
    });
    // Anonymous probes are closed now...
    assert.equal((await server.request('GET', '/healthz', { token: null })).status, 403);

    await server.stop();
    server = await startTestServer(flags, { dataDir });
    // ...and open again after the restart.
    assert.equal((await server.request('GET', '/healthz', { token: null })).status, 200);
    const reconciled = await get(server, `${RBAC}/clusterroles/system:basic-user`);
    assert.equal(reconciled.rules.length, 3, JSON.stringify(reconciled.rules));
    assert.ok(reconciled.rules.some((r: any) => r.resources?.includes('widgets')), 'the operator\'s rule stays');
    assert.ok(reconciled.rules.some((r: any) => r.resources?.includes('selfsubjectreviews')), 'the removed rule is back');
    const viewers = await get(server, `${RBAC}/clusterrolebindings/system:public-info-viewer`);
    assert.deepEqual(viewers.subjects.map((s: any) => s.name), ['system:authenticated', 'system:unauthenticated']);
    const monitoring = await get(server, `${RBAC}/clusterroles/system:monitoring`);
    assert.deepEqual(monitoring.rules, [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
    assert.equal((await get(server, `${RBAC}/clusterrolebindings/system:discovery`)).roleRef.name, 'system:discovery');
    const repointed = await get(server, `${RBAC}/clusterrolebindings/system:basic-user`);
    assert.equal(repointed.roleRef.name, 'system:basic-user');
    // A binding that only needed reconciling is the same object, not a re-created one (roleRef compared by its fields).
    assert.equal((await get(server, `${RBAC}/clusterrolebindings/cluster-admin`)).metadata.uid, admins.metadata.uid);
    assert.equal(viewers.metadata.uid, viewersBefore.metadata.uid);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('aggregated roles follow the roles labelled into them, through edit into admin', async () => {
  const server = await startTestServer(['--authorization-mode=RBAC']);
  try {
    const resources = async (name: string) => (await get(server, `${RBAC}/clusterroles/${name}`)).rules.flatMap((r: any) => r.resources ?? []);
    await eventually('view aggregated', async () => ((await resources('view')).includes('networkpolicies') ? true : undefined));
    assert.ok((await resources('edit')).includes('secrets'));
    assert.ok((await resources('admin')).includes('rolebindings'));
    await expectWrite(server, 'POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'widget-viewer', labels: { 'rbac.authorization.orch.io/aggregate-to-view': 'true' } },
      rules: [{ apiGroups: ['example.io'], resources: ['widgets'], verbs: ['get'] }],
    });
    for (const name of ['view', 'edit', 'admin']) await eventually(`${name} has widgets`, async () => ((await resources(name)).includes('widgets') ? true : undefined));
    assert.equal((await server.request('DELETE', `${RBAC}/clusterroles/widget-viewer`)).status, 200);
    for (const name of ['view', 'edit', 'admin']) await eventually(`${name} lost widgets`, async () => ((await resources(name)).includes('widgets') ? undefined : true));
  } finally {
    await server.close();
  }
});
