// NodeRestriction admission (upstream plugin/pkg/admission/noderestriction at 1.31) on a server run
// with --authorization-mode=Node,RBAC, and kube-apiserver's --enable-admission-plugins /
// --disable-admission-plugins over the plugins this server has.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enabledAdmissionPlugins, validateAdmissionFlags } from '../src/admission/plugins.ts';
import { BIN, ROOT, startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';

const NS = 'node-restriction';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const TOKENS = 'n1-token,system:node:n1,uid-n1,"system:nodes"\nn2-token,system:node:n2,uid-n2,"system:nodes"\nanon-token,system:node:,uid-x,"system:nodes"\n';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'orch-node-restriction-'));
  writeFileSync(join(dir, 'tokens.csv'), TOKENS);
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** A server with the Node authorizer, the token file of n1 and n2, a namespace, and its default account. */
async function start(extra: string[] = []): Promise<TestServer> {
  const server = await startTestServer(['--authorization-mode=Node,RBAC', `--token-auth-file=${join(dir, 'tokens.csv')}`, ...extra]);
  assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
  const sa = await server.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { body: { metadata: { name: 'default' } } });
  assert.ok(sa.status === 201 || sa.status === 409, sa.text);
  return server;
}

describe('NodeRestriction (on by default)', () => {
  let server: TestServer;
  const as = (who: string) => ({ token: `${who}-token` });
  const pods = `/api/v1/namespaces/${NS}/pods`;
  const leases = '/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases';
  let n1Uid: string;

  before(async () => {
    server = await start();
    // Each node registers itself.
    const n1 = await server.request('POST', '/api/v1/nodes', { ...as('n1'), body: { metadata: { name: 'n1', labels: { 'orch.io/hostname': 'n1', 'node.orch.io/instance-type': 'big' } }, spec: { taints: [{ key: 'gpu', effect: 'NoSchedule' }] } } });
    assert.equal(n1.status, 201, n1.text);
    n1Uid = n1.body.metadata.uid;
    assert.equal((await server.request('POST', '/api/v1/nodes', { ...as('n2'), body: { metadata: { name: 'n2' } } })).status, 201);
    for (const [name, node] of [['on-n1', 'n1'], ['on-n2', 'n2']]) {
      assert.equal((await server.request('POST', pods, { body: { metadata: { name }, spec: { nodeName: node, containers: [{ name: 'c', image: 'x' }] } } })).status, 201);
    }
  });
  after(() => server?.close());

  test('a node cannot create or change another node', async () => {
    assertFailure(await server.request('POST', '/api/v1/nodes', { ...as('n1'), body: { metadata: { name: 'n3' } } }), 403, 'Forbidden', 'nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"');
    assertFailure(
      await server.request('PATCH', '/api/v1/nodes/n2', { ...as('n1'), raw: JSON.stringify({ metadata: { labels: { a: 'b' } } }), headers: MERGE }),
      403,
      'Forbidden',
      'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
    );
    assertFailure(
      await server.request('PATCH', '/api/v1/nodes/n2/status', { ...as('n1'), raw: JSON.stringify({ status: { phase: 'Running' } }), headers: MERGE }),
      403,
      'Forbidden',
      'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
    );
    const own = await server.request('PATCH', '/api/v1/nodes/n1/status', { ...as('n1'), raw: JSON.stringify({ status: { conditions: [{ type: 'Ready', status: 'True' }] } }), headers: MERGE });
    assert.equal(own.status, 200, own.text);
  });

  test('labels: kubelet labels pass, node-restriction.orch.io and other orch.io labels do not', async () => {
    const label = (labels: Record<string, string | null>) => server.request('PATCH', '/api/v1/nodes/n1', { ...as('n1'), raw: JSON.stringify({ metadata: { labels } }), headers: MERGE });
    assert.equal((await label({ 'topology.orch.io/zone': 'z1', 'kubelet.orch.io/x': 'y', 'example.com/free': 'yes' })).status, 200);
    assertFailure(await label({ 'node-restriction.orch.io/pool': 'secure' }), 403, 'Forbidden', 'nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.orch.io/pool');
    assertFailure(await label({ 'orch.io/made-up': 'x', 'a.node-restriction.orch.io/b': 'c' }), 403, 'Forbidden', 'nodes "n1" is forbidden: is not allowed to modify labels: a.node-restriction.orch.io/b, orch.io/made-up');
    assertFailure(
      await server.request('POST', '/api/v1/nodes', { ...as('n2'), body: { metadata: { name: 'n2', labels: { 'node-restriction.orch.io/pool': 'x' } } } }),
      403,
      'Forbidden',
      'nodes "n2" is forbidden: node "n2" is not allowed to set the following labels: node-restriction.orch.io/pool',
    );
    // The admin may set them.
    assert.equal((await server.request('PATCH', '/api/v1/nodes/n1', { raw: JSON.stringify({ metadata: { labels: { 'node-restriction.orch.io/pool': 'secure' } } }), headers: MERGE })).status, 200);
  });

  test('taints: registered with the node, never changed by it', async () => {
    const node = await server.request('GET', '/api/v1/nodes/n1', as('n1'));
    assert.deepEqual(node.body.spec.taints, [{ key: 'gpu', effect: 'NoSchedule' }]);
    assertFailure(
      await server.request('PATCH', '/api/v1/nodes/n1', { ...as('n1'), raw: JSON.stringify({ spec: { taints: null } }), headers: MERGE }),
      403,
      'Forbidden',
      'nodes "n1" is forbidden: node "n1" is not allowed to modify taints',
    );
    assert.equal((await server.request('PATCH', '/api/v1/nodes/n1', { ...as('n1'), raw: JSON.stringify({ spec: { unschedulable: true } }), headers: MERGE })).status, 200);
  });

  test("pods/status only of its own pods; no other pod write but deleting its own", async () => {
    const status = (name: string, who: string) => server.request('PATCH', `${pods}/${name}/status`, { ...as(who), raw: JSON.stringify({ status: { phase: 'Running' } }), headers: MERGE });
    assert.equal((await status('on-n1', 'n1')).status, 200);
    assertFailure(await status('on-n2', 'n1'), 403, 'Forbidden', 'pods "on-n2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself');
    assertFailure(
      await server.request('PATCH', `${pods}/on-n1`, { ...as('n1'), raw: JSON.stringify({ metadata: { labels: { a: 'b' } } }), headers: MERGE }),
      403,
      'Forbidden',
      // RBAC's NodeRules give nodes no pod update: the authorizer refuses before admission
      /^pods "on-n1" is forbidden: User "system:node:n1" cannot patch resource "pods"/,
    );
    assertFailure(await server.request('DELETE', `${pods}/on-n2`, as('n1')), 403, 'Forbidden', 'pods "on-n2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
    assert.equal((await server.request('DELETE', `${pods}/on-n1`, as('n1'))).status, 200);
  });

  test('pods: only mirror pods bound to itself, owned by its Node, referencing nothing', async () => {
    const create = (name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) =>
      server.request('POST', pods, { ...as('n1'), body: { metadata: { name, ...metadata }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } } });
    const mirror = { 'orch.io/config.mirror': 'hash' };
    const owner = (over: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: n1Uid, controller: true, ...over });
    assertFailure(await create('plain', { nodeName: 'n1' }), 403, 'Forbidden', 'pods "plain" is forbidden: pod does not have "orch.io/config.mirror" annotation, node "n1" can only create mirror pods');
    assertFailure(await create('elsewhere', { nodeName: 'n2' }, { annotations: mirror }), 403, 'Forbidden', 'pods "elsewhere" is forbidden: node "n1" can only create pods with spec.nodeName set to itself');
    assertFailure(await create('orphan', { nodeName: 'n1' }, { annotations: mirror }), 403, 'Forbidden', 'pods "orphan" is forbidden: node "n1" can only create pods with an owner reference set to itself');
    assertFailure(
      await create('not-controller', { nodeName: 'n1' }, { annotations: mirror, ownerReferences: [owner({ controller: false })] }),
      403,
      'Forbidden',
      'pods "not-controller" is forbidden: node "n1" can only create pods with a controller owner reference set to itself',
    );
    assertFailure(
      await create('wrong-uid', { nodeName: 'n1' }, { annotations: mirror, ownerReferences: [owner({ uid: 'nope' })] }),
      403,
      'Forbidden',
      `pods "wrong-uid" is forbidden: node n1 UID mismatch: expected nope got ${n1Uid}`,
    );
    assertFailure(
      await create('with-secret', { nodeName: 'n1', volumes: [{ name: 'v', secret: { secretName: 's' } }], containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'v', mountPath: '/s' }] }] }, { annotations: mirror, ownerReferences: [owner()] }),
      403,
      'Forbidden',
      'pods "with-secret" is forbidden: node "n1" can not create pods that reference secrets',
    );
    assertFailure(
      await create('with-account', { nodeName: 'n1', serviceAccountName: 'default' }, { annotations: mirror, ownerReferences: [owner()] }),
      403,
      'Forbidden',
      'pods "with-account" is forbidden: node "n1" can not create pods that reference a service account',
    );
    const ok = await create('static', { nodeName: 'n1' }, { annotations: mirror, ownerReferences: [owner()] });
    assert.equal(ok.status, 201, ok.text);
  });

  test('tokens only bound to a pod on the node, by name and uid', async () => {
    // The pod's account reaches n1 through the graph, which follows the watch cache.
    const pod = await server.request('POST', pods, { body: { metadata: { name: 'runs' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] } } });
    assert.equal(pod.status, 201, pod.text);
    const token = (who: string, boundObjectRef?: Record<string, unknown>) =>
      server.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts/default/token`, { ...as(who), body: { spec: boundObjectRef ? { boundObjectRef } : {} } });
    const ref = { apiVersion: 'v1', kind: 'Pod', name: 'runs', uid: pod.body.metadata.uid };
    await eventually('n1 may ask for a token', async () => ((await token('n1', ref)).status === 201 ? true : undefined), 5000, 20);
    assertFailure(await token('n1'), 403, 'Forbidden', 'serviceaccounts "default" is forbidden: node requested token not bound to a pod');
    assertFailure(await token('n1', { ...ref, uid: undefined }), 403, 'Forbidden', 'serviceaccounts "default" is forbidden: node requested token with a pod binding without a uid');
    assertFailure(
      await token('n1', { ...ref, uid: 'stale' }),
      403,
      'Forbidden',
      'serviceaccounts "default" is forbidden: the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated',
    );
    // n2 runs a pod as `default` too (on-n2), so the authorizer lets it ask; admission checks the binding.
    await eventually('n2 passes the authorizer', async () => ((await token('n2', ref)).status === 403 ? true : undefined), 5000, 20);
    assertFailure(await token('n2', ref), 403, 'Forbidden', 'serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node');
  });

  test('leases: only in orch-node-lease, only its own', async () => {
    assertFailure(
      await server.request('POST', leases, { ...as('n1'), body: { metadata: { name: 'n2' } } }),
      403,
      'Forbidden',
      'leases.coordination.orch.io "n2" is forbidden: can only access node lease with the same name as the requesting node',
    );
    assert.equal((await server.request('POST', leases, { ...as('n1'), body: { metadata: { name: 'n1' } } })).status, 201);
    assert.equal((await server.request('PUT', `${leases}/n1`, { ...as('n1'), body: { metadata: { name: 'n1' }, spec: { holderIdentity: 'n1' } } })).status, 200);
  });

  test('a node whose name cannot be told is refused', async () => {
    // The authorizer refuses it first (no opinion: unknown node), so the 403 names the user.
    const res = await server.request('POST', '/api/v1/nodes', { ...as('anon'), body: { metadata: { name: 'x' } } });
    assertFailure(res, 403, 'Forbidden', /^nodes is forbidden: User "system:node:" cannot create resource "nodes" in API group "" at the cluster scope: unknown node for user "system:node:"$/);
  });
});

describe('admission flags', () => {
  test('validation as kube-apiserver words it', () => {
    assert.deepEqual(validateAdmissionFlags({ enable: ['NodeRestriction'], disable: [] }), []);
    assert.deepEqual(validateAdmissionFlags({ enable: ['Nope'], disable: ['AlwaysPullImages'] }), [
      'enable-admission-plugins plugin "Nope" is unknown',
      'disable-admission-plugins plugin "AlwaysPullImages" is unknown',
    ]);
    assert.deepEqual(validateAdmissionFlags({ enable: ['ServiceAccount', 'NodeRestriction'], disable: ['NodeRestriction', 'ServiceAccount'] }), [
      '[NodeRestriction ServiceAccount] in enable-admission-plugins and disable-admission-plugins overlapped',
    ]);
    assert.deepEqual(enabledAdmissionPlugins({ enable: [], disable: [] }), ['NamespaceLifecycle', 'ServiceAccount', 'NodeRestriction', 'DefaultIngressClass']);
    assert.deepEqual(enabledAdmissionPlugins({ enable: ['NodeRestriction'], disable: ['NamespaceLifecycle'] }), ['ServiceAccount', 'NodeRestriction', 'DefaultIngressClass']);
  });

  test('an unknown plugin or an overlap stops the server at start-up', () => {
    const cases: Array<[string[], string]> = [
      [['--enable-admission-plugins=NodeRestriction,PodSecurity'], 'Error: enable-admission-plugins plugin "PodSecurity" is unknown'],
      [['--disable-admission-plugins=Nope'], 'Error: disable-admission-plugins plugin "Nope" is unknown'],
      [['--enable-admission-plugins=NodeRestriction', '--disable-admission-plugins=NodeRestriction'], 'Error: [NodeRestriction] in enable-admission-plugins and disable-admission-plugins overlapped'],
    ];
    for (const [args, message] of cases) {
      const run = spawnSync(process.execPath, [BIN, '--secure-port=0', `--data-dir=${join(dir, 'never')}`, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
      assert.notEqual(run.status, 0, args.join(' '));
      assert.equal(run.stderr.split('\n')[0], message, args.join(' '));
    }
  });

  test('--disable-admission-plugins=NodeRestriction takes it out of the chain', async () => {
    const server = await start(['--disable-admission-plugins=NodeRestriction']);
    try {
      // Without the plugin the Node authorizer's NodeRules are all there is: n1 may write another node.
      assert.equal((await server.request('POST', '/api/v1/nodes', { token: 'n1-token', body: { metadata: { name: 'n2', labels: { 'node-restriction.orch.io/pool': 'x' } } } })).status, 201);
      const plain = await server.request('POST', `/api/v1/namespaces/${NS}/pods`, { token: 'n1-token', body: { metadata: { name: 'plain' }, spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'x' }] } } });
      assert.equal(plain.status, 201, plain.text);
    } finally {
      await server.close();
    }
  });

  test('--disable-admission-plugins=NamespaceLifecycle lets content into a namespace that does not exist', async () => {
    const server = await startTestServer(['--disable-admission-plugins=NamespaceLifecycle']);
    try {
      const res = await server.request('POST', '/api/v1/namespaces/nowhere/configmaps', { body: { metadata: { name: 'c' } } });
      assert.equal(res.status, 201, res.text);
    } finally {
      await server.close();
    }
  });
});
