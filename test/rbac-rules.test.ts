/** RBAC matching (issue 9 start; SPEC 5.5): upstream's RuleAllows and appliesToUser, case by case. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ruleAllows, subjectMatches, type PolicyRule } from '../src/auth/authorization/rbac-rules.ts';
import type { AuthorizationAttributes } from '../src/auth/authorization/authorizer.ts';

const user = { name: 'alice', groups: ['devs', 'system:authenticated'] };
const request = (over: Partial<AuthorizationAttributes>): AuthorizationAttributes => ({
  user, verb: 'get', isResourceRequest: true, path: '', group: '', version: 'v1', namespace: 'default', resource: 'configmaps', subresource: '', name: 'cm', ...over,
});

test('resource rules: verbs, groups, resources, subresources and resource names', () => {
  const cases: Array<[PolicyRule, Partial<AuthorizationAttributes>, boolean]> = [
    [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, {}, true],
    [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'] }, {}, false],
    [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { group: 'apps', resource: 'deployments' }, true],
    [{ verbs: ['get'], apiGroups: ['apps'], resources: ['configmaps'] }, {}, false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { resource: 'pods', subresource: 'status' }, false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods/status'] }, { resource: 'pods', subresource: 'status' }, true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, { resource: 'pods', subresource: 'status' }, true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, { resource: 'pods' }, false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'] }, {}, true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['other'] }, {}, false],
    // A list names no object: a rule limited to names cannot allow it.
    [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'] }, { verb: 'list', name: '' }, false],
    // Names are case-sensitive.
    [{ verbs: ['get'], apiGroups: [''], resources: ['ConfigMaps'] }, {}, false],
    [{ verbs: [], apiGroups: ['*'], resources: ['*'] }, {}, false],
  ];
  for (const [rule, over, allowed] of cases) assert.equal(ruleAllows(request(over), rule), allowed, `${JSON.stringify(rule)} ${JSON.stringify(over)}`);
});

test('non-resource rules: exact paths and trailing-star prefixes', () => {
  const nonResource = (path: string, verb = 'get') => request({ isResourceRequest: false, path, verb, resource: '', name: '' });
  const rule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics*'] };
  assert.equal(ruleAllows(nonResource('/healthz'), rule), true);
  assert.equal(ruleAllows(nonResource('/healthz/etcd'), rule), false);
  assert.equal(ruleAllows(nonResource('/metrics/cadvisor'), rule), true);
  assert.equal(ruleAllows(nonResource('/healthz', 'post'), rule), false);
  assert.equal(ruleAllows(nonResource('/anything'), { verbs: ['*'], nonResourceURLs: ['*'] }), true);
  // A resource rule never allows a non-resource request.
  assert.equal(ruleAllows(nonResource('/healthz'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }), false);
});

test('subjects: users and groups by exact name, service accounts in their or the binding namespace', () => {
  assert.equal(subjectMatches(user, { kind: 'User', name: 'alice' }, ''), true);
  assert.equal(subjectMatches(user, { kind: 'User', name: 'Alice' }, ''), false);
  assert.equal(subjectMatches(user, { kind: 'Group', name: 'devs' }, ''), true);
  const sa = { name: 'system:serviceaccount:team:bot', groups: ['system:serviceaccounts'] };
  assert.equal(subjectMatches(sa, { kind: 'ServiceAccount', name: 'bot', namespace: 'team' }, ''), true);
  assert.equal(subjectMatches(sa, { kind: 'ServiceAccount', name: 'bot' }, 'team'), true);
  assert.equal(subjectMatches(sa, { kind: 'ServiceAccount', name: 'bot' }, ''), false);
  assert.equal(subjectMatches(sa, { kind: 'ServiceAccount', name: 'bot', namespace: 'other' }, 'team'), false);
  assert.equal(subjectMatches(user, { kind: 'Robot', name: 'alice' }, ''), false);
});

test('the RBAC decision: cluster bindings everywhere, role bindings in their namespace, upstream reasons', async () => {
  const { rbacAuthorizer, resolveGrants } = await import('../src/auth/authorization/rbac-authorizer.ts');
  // The source itself as the resolver: every binding read on every call.
  const scanningResolver = (source: Parameters<typeof resolveGrants>[0]) => ({ grantsFor: (u: any, ns: string) => resolveGrants(source, u, ns) });
  const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}) });
  const clusterRoles = new Map<string, any>([
    ['view', { metadata: meta('view'), rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }] }],
    ['probes', { metadata: meta('probes'), rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] }],
  ]);
  const roles = new Map<string, any>([['team/writer', { metadata: meta('writer', 'team'), rules: [{ verbs: ['create'], apiGroups: [''], resources: ['configmaps'] }] }]]);
  const clusterBindings = [{ metadata: meta('probes'), roleRef: { kind: 'ClusterRole', name: 'probes' }, subjects: [{ kind: 'Group', name: 'devs' }] }];
  const roleBindings = new Map<string, any[]>([
    [
      'team',
      [
        { metadata: meta('view', 'team'), roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'alice' }] },
        { metadata: meta('write', 'team'), roleRef: { kind: 'Role', name: 'writer' }, subjects: [{ kind: 'ServiceAccount', name: 'bot' }] },
        { metadata: meta('dangling', 'team'), roleRef: { kind: 'Role', name: 'gone' }, subjects: [{ kind: 'User', name: 'alice' }] },
      ],
    ],
  ]);
  const authorizer = rbacAuthorizer(scanningResolver({
    clusterRoleBindings: () => clusterBindings,
    roleBindings: (ns) => roleBindings.get(ns) ?? [],
    clusterRole: (name) => clusterRoles.get(name),
    role: (ns, name) => roles.get(`${ns}/${name}`),
  }));
  // A ClusterRole bound in a namespace grants there only.
  assert.deepEqual(await authorizer.authorize(request({ namespace: 'team' })), { decision: 'Allow', reason: 'RBAC: allowed by RoleBinding "view/team" of ClusterRole "view" to User "alice"' });
  const elsewhere = await authorizer.authorize(request({ namespace: 'default' }));
  assert.equal(elsewhere.decision, 'NoOpinion');
  // A service account named without a namespace is the binding's.
  const bot = { name: 'system:serviceaccount:team:bot', groups: [] };
  assert.deepEqual(await authorizer.authorize(request({ user: bot, namespace: 'team', verb: 'create', name: '' })), {
    decision: 'Allow',
    reason: 'RBAC: allowed by RoleBinding "write/team" of Role "writer" to ServiceAccount "bot/team"',
  });
  assert.deepEqual(await authorizer.authorize(request({ isResourceRequest: false, path: '/healthz', namespace: '', resource: '' })), {
    decision: 'Allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "probes" of ClusterRole "probes" to Group "devs"',
  });
  // Nothing allows: no opinion, naming the binding whose role is missing.
  const denied = await authorizer.authorize(request({ namespace: 'team', verb: 'delete' }));
  assert.deepEqual(denied, { decision: 'NoOpinion', reason: 'RBAC: role.rbac.authorization.orch.io "gone" not found' });
  const rules = await authorizer.rulesFor!(user, 'team');
  // upstream: a missing role is an evaluation error; the list still counts as complete.
  assert.equal(rules.incomplete, false);
  assert.equal(rules.error, 'role.rbac.authorization.orch.io "gone" not found');
  assert.deepEqual(rules.nonResourceRules, [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
  assert.deepEqual(rules.resourceRules, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: undefined }]);
});

test('the RBAC source reads the watch cache: a new binding grants, a deleted one stops at once', async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { SqliteStorage } = await import('../src/storage/sqlite/sqlite-storage.ts');
  const { Cacher } = await import('../src/storage/cacher/cacher.ts');
  const { objectKey } = await import('../src/storage/keys.ts');
  const { CachedRbacSource, RBAC_RESOURCES } = await import('../src/auth/authorization/rbac-source.ts');
  const { rbacAuthorizer } = await import('../src/auth/authorization/rbac-authorizer.ts');
  const dir = mkdtempSync(join(tmpdir(), 'orch-rbac-source-'));
  const storage = new SqliteStorage({ file: join(dir, 'rbac.db') });
  const cacher = new Cacher(storage, { historyMs: 60_000, maxEvents: 1000, bookmarkIntervalMs: 60_000, maxWatcherBufferedBytes: 1 << 20 });
  try {
    await cacher.start(RBAC_RESOURCES);
    const G = 'rbac.authorization.orch.io';
    const put = (resource: string, namespace: string | undefined, obj: object) => storage.create(objectKey(G, resource, namespace, (obj as any).metadata.name), JSON.stringify(obj));
    await put('roles', 'team', { metadata: { name: 'reader', namespace: 'team' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] });
    const revision = await put('rolebindings', 'team', { metadata: { name: 'read', namespace: 'team' }, roleRef: { kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'alice' }] });
    await cacher.waitFor(revision, 5000);
    const authorizer = rbacAuthorizer(new CachedRbacSource(cacher));
    assert.equal((await authorizer.authorize(request({ namespace: 'team' }))).decision, 'Allow');
    assert.equal((await authorizer.authorize(request({ namespace: 'team-2' }))).decision, 'NoOpinion');
    const current = await storage.get(objectKey(G, 'rolebindings', 'team', 'read'));
    const deleted = await storage.delete(objectKey(G, 'rolebindings', 'team', 'read'), current!.modRevision);
    await cacher.waitFor(deleted, 5000);
    assert.equal((await authorizer.authorize(request({ namespace: 'team' }))).decision, 'NoOpinion');
  } finally {
    cacher.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
