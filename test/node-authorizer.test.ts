// The Node authorizer (SPEC 5.1 item 5; upstream plugin/pkg/auth/authorizer/node at 1.31): who is a
// node, the graph of pods bound to nodes kept from the watch cache, the subdivided kinds with
// upstream's reasons, NodeRules() for the rest, rules that cannot be listed; then end to end on a
// server run with --authorization-mode=Node,RBAC.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeGraph } from '../src/auth/node/node-graph.ts';
import { nodeAuthorizer } from '../src/auth/node/node-authorizer.ts';
import { nodeIdentity } from '../src/auth/node/node-identity.ts';
import { podConfigMapNames, podSecretNames } from '../src/auth/node/pod-references.ts';
import type { AuthorizationAttributes } from '../src/auth/authorization/authorizer.ts';
import { buildAuthorizer } from '../src/auth/authorization/build-authorizer.ts';
import { ResourceCache } from '../src/storage/cacher/resource-cache.ts';
import { objectKey } from '../src/storage/keys.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';

const n1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const attrs = (over: Partial<AuthorizationAttributes>): AuthorizationAttributes => ({
  user: n1,
  verb: 'get',
  isResourceRequest: true,
  path: '',
  group: '',
  version: 'v1',
  namespace: 'ns',
  resource: 'secrets',
  subresource: '',
  name: '',
  ...over,
});
const podKey = (ns: string, name: string) => objectKey('', 'pods', ns, name);
const pod = (name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...metadata },
  spec: { containers: [{ name: 'c', image: 'x' }], ...spec },
});

describe('who is a node', () => {
  test('system:node:<name> in system:nodes; the name alone or the group alone is not a node', () => {
    assert.deepEqual(nodeIdentity(n1), { isNode: true, nodeName: 'n1' });
    assert.deepEqual(nodeIdentity({ name: 'system:node:n1', groups: [] }), { isNode: false, nodeName: '' });
    assert.deepEqual(nodeIdentity({ name: 'n1', groups: ['system:nodes'] }), { isNode: false, nodeName: '' });
    assert.deepEqual(nodeIdentity({ name: 'system:node:', groups: ['system:nodes'] }), { isNode: true, nodeName: '' });
    assert.deepEqual(nodeIdentity(undefined), { isNode: false, nodeName: '' });
  });
});

describe('what a pod references (VisitPodSecretNames, VisitPodConfigmapNames)', () => {
  test('image pull secrets, env and envFrom of every container kind, and each volume source', () => {
    const p = pod('refs', {
      imagePullSecrets: [{ name: 'pull' }, { name: '' }],
      initContainers: [{ name: 'i', image: 'x', envFrom: [{ secretRef: { name: 'init-from' } }, { configMapRef: { name: 'cm-init-from' } }] }],
      containers: [{ name: 'c', image: 'x', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'env', key: 'k' } } }, { name: 'B', valueFrom: { configMapKeyRef: { name: 'cm-env', key: 'k' } } }] }],
      ephemeralContainers: [{ name: 'e', image: 'x', envFrom: [{ secretRef: { name: 'ephemeral' } }] }],
      volumes: [
        { name: 'a', secret: { secretName: 'vol' } },
        { name: 'b', projected: { sources: [{ secret: { name: 'projected' } }, { configMap: { name: 'cm-projected' } }, { serviceAccountToken: { path: 't' } }] } },
        { name: 'c', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi' } } },
        { name: 'd', rbd: { monitors: ['m'], image: 'i', secretRef: { name: 'rbd' } } },
        { name: 'e', azureFile: { secretName: 'azure', shareName: 's' } },
        { name: 'f', configMap: { name: 'cm-vol' } },
      ],
    });
    assert.deepEqual(podSecretNames(p), ['pull', 'init-from', 'env', 'ephemeral', 'vol', 'projected', 'csi', 'rbd', 'azure']);
    assert.deepEqual(podConfigMapNames(p), ['cm-init-from', 'cm-env', 'cm-projected', 'cm-vol']);
  });
});

describe('the graph', () => {
  test('a pod bound to a node links its secrets, config maps and account to that node only', () => {
    const graph = new NodeGraph();
    graph.setPod(podKey('ns', 'p'), pod('p', { nodeName: 'n1', serviceAccountName: 'sa', volumes: [{ name: 'v', secret: { secretName: 's' } }, { name: 'w', configMap: { name: 'cm' } }] }));
    assert.equal(graph.hasPathFrom('n1', 'secret', 'ns', 's'), true);
    assert.equal(graph.hasPathFrom('n1', 'configmap', 'ns', 'cm'), true);
    assert.equal(graph.hasPathFrom('n1', 'serviceAccount', 'ns', 'sa'), true);
    assert.equal(graph.hasPathFrom('n1', 'pod', 'ns', 'p'), true);
    assert.equal(graph.hasPathFrom('n2', 'secret', 'ns', 's'), false);
    assert.equal(graph.hasPathFrom('n1', 'secret', 'other', 's'), false);
    assert.equal(graph.hasPathFrom('n1', 'configmap', 'ns', 's'), false);
  });

  test('unbound pods link nothing; moved, changed and deleted pods update the links; shared objects stay while one pod needs them', () => {
    const graph = new NodeGraph();
    const spec = (node: string | undefined, secret: string) => ({ ...(node ? { nodeName: node } : {}), volumes: [{ name: 'v', secret: { secretName: secret } }] });
    graph.setPod(podKey('ns', 'a'), pod('a', spec(undefined, 's')));
    assert.equal(graph.hasPathFrom('n1', 'secret', 'ns', 's'), false);
    graph.setPod(podKey('ns', 'a'), pod('a', spec('n1', 's')));
    graph.setPod(podKey('ns', 'b'), pod('b', spec('n1', 's')));
    assert.equal(graph.hasPathFrom('n1', 'secret', 'ns', 's'), true);
    graph.setPod(podKey('ns', 'a'), undefined);
    assert.equal(graph.hasPathFrom('n1', 'secret', 'ns', 's'), true, 'pod b still references it');
    graph.setPod(podKey('ns', 'b'), pod('b', spec('n2', 's')));
    assert.equal(graph.hasPathFrom('n1', 'secret', 'ns', 's'), false, 'moved to n2');
    assert.equal(graph.hasPathFrom('n2', 'secret', 'ns', 's'), true);
    graph.setPod(podKey('ns', 'b'), pod('b', spec('n2', 't')));
    assert.equal(graph.hasPathFrom('n2', 'secret', 'ns', 's'), false, 'references changed');
    assert.equal(graph.hasPathFrom('n2', 'secret', 'ns', 't'), true);
    graph.setPod(podKey('ns', 'b'), undefined);
    assert.equal(graph.hasPathFrom('n2', 'secret', 'ns', 't'), false);
    assert.equal(graph.hasPathFrom('n2', 'pod', 'ns', 'b'), false);
  });

  test('a mirror pod links only itself (upstream defence in depth)', () => {
    const graph = new NodeGraph();
    graph.setPod(podKey('ns', 'm'), pod('m', { nodeName: 'n1', serviceAccountName: 'sa', volumes: [{ name: 'v', secret: { secretName: 's' } }] }, { annotations: { 'orch.io/config.mirror': 'x' } }));
    assert.equal(graph.hasPathFrom('n1', 'pod', 'ns', 'm'), true);
    assert.equal(graph.hasPathFrom('n1', 'secret', 'ns', 's'), false);
    assert.equal(graph.hasPathFrom('n1', 'serviceAccount', 'ns', 'sa'), false);
  });

  test('built from a watch cache: its objects first, then every event', () => {
    const cache = new ResourceCache('/core/pods/', { historyMs: 60_000, maxEvents: 100 }, [{ key: podKey('ns', 'a'), value: JSON.stringify(pod('a', { nodeName: 'n1', imagePullSecrets: [{ name: 'pull' }] })), modRevision: 1 }], 1);
    const graph = NodeGraph.fromCache(cache);
    assert.equal(graph.hasPathFrom('n1', 'secret', 'ns', 'pull'), true);
    const moved = JSON.stringify(pod('a', { nodeName: 'n2', imagePullSecrets: [{ name: 'pull' }] }));
    cache.apply({ type: 'MODIFIED', key: podKey('ns', 'a'), value: moved, revision: 2, createRevision: 1 }, Date.now());
    assert.equal(graph.hasPathFrom('n1', 'secret', 'ns', 'pull'), false);
    assert.equal(graph.hasPathFrom('n2', 'secret', 'ns', 'pull'), true);
    cache.apply({ type: 'DELETED', key: podKey('ns', 'a'), value: moved, prevValue: moved, revision: 3, createRevision: 1 }, Date.now());
    assert.equal(graph.hasPathFrom('n2', 'secret', 'ns', 'pull'), false);
  });
});

describe('the decision', () => {
  const graph = new NodeGraph();
  graph.setPod(podKey('ns', 'p'), pod('p', { nodeName: 'n1', serviceAccountName: 'sa', volumes: [{ name: 'v', secret: { secretName: 's' } }] }));
  const authorizer = nodeAuthorizer(graph);
  const decide = async (over: Partial<AuthorizationAttributes>) => {
    const { decision, reason } = await authorizer.authorize(attrs(over));
    return [decision, reason];
  };
  const NO_RELATIONSHIP = "no relationship found between node 'n1' and this object";

  test('non-nodes get no opinion; a node without a name gets upstream reason', async () => {
    assert.deepEqual(await decide({ user: { name: 'alice', groups: ['system:nodes'] }, name: 's' }), ['NoOpinion', '']);
    assert.deepEqual(await decide({ user: { name: 'system:node:', groups: ['system:nodes'] }, name: 's' }), ['NoOpinion', 'unknown node for user "system:node:"']);
  });

  test('secrets and config maps: get, list and watch of one related object', async () => {
    assert.deepEqual(await decide({ name: 's' }), ['Allow', '']);
    assert.deepEqual(await decide({ verb: 'list', name: 's' }), ['Allow', '']);
    assert.deepEqual(await decide({ verb: 'watch', name: 's' }), ['Allow', '']);
    assert.deepEqual(await decide({ verb: 'list' }), ['NoOpinion', 'No Object name found']);
    assert.deepEqual(await decide({ name: 'other' }), ['NoOpinion', NO_RELATIONSHIP]);
    assert.deepEqual(await decide({ resource: 'configmaps', name: 's' }), ['NoOpinion', NO_RELATIONSHIP]);
    assert.deepEqual(await decide({ verb: 'update', name: 's' }), ['NoOpinion', 'can only read resources of this type']);
    assert.deepEqual(await decide({ subresource: 'x', name: 's' }), ['NoOpinion', 'cannot read subresource']);
    assert.deepEqual(await decide({ namespace: '', name: 's' }), ['NoOpinion', 'can only read namespaced object of this type']);
    assert.deepEqual(await decide({ user: { name: 'system:node:n2', groups: ['system:nodes'] }, name: 's' }), ['NoOpinion', "no relationship found between node 'n2' and this object"]);
  });

  test('service accounts: only the token of an account a pod on the node runs as', async () => {
    const sa = { resource: 'serviceaccounts', verb: 'create', subresource: 'token', name: 'sa' };
    assert.deepEqual(await decide(sa), ['Allow', '']);
    assert.deepEqual(await decide({ ...sa, name: 'default' }), ['NoOpinion', NO_RELATIONSHIP]);
    assert.deepEqual(await decide({ ...sa, verb: 'get' }), ['NoOpinion', 'can only create tokens for individual service accounts']);
    assert.deepEqual(await decide({ ...sa, subresource: '' }), ['NoOpinion', 'can only create token subresource of serviceaccount']);
  });

  test('leases: its own in orch-node-lease', async () => {
    const lease = { group: 'coordination.orch.io', resource: 'leases', namespace: 'orch-node-lease', name: 'n1' };
    for (const verb of ['get', 'update', 'patch', 'delete']) assert.deepEqual(await decide({ ...lease, verb }), ['Allow', '']);
    assert.deepEqual(await decide({ ...lease, verb: 'create', name: 'anything' }), ['Allow', '']);
    assert.deepEqual(await decide({ ...lease, name: 'n2' }), ['NoOpinion', 'can only access node lease with the same name as the requesting node']);
    assert.deepEqual(await decide({ ...lease, namespace: 'orch-system' }), ['NoOpinion', 'can only access leases in the "orch-node-lease" system namespace']);
    assert.deepEqual(await decide({ ...lease, verb: 'list' }), ['NoOpinion', 'can only get, create, update, patch, or delete a node lease']);
  });

  test('claims and volumes this server does not serve are decided as upstream decides them', async () => {
    assert.deepEqual(await decide({ resource: 'persistentvolumeclaims', name: 'c' }), ['NoOpinion', NO_RELATIONSHIP]);
    assert.deepEqual(await decide({ resource: 'persistentvolumes', verb: 'list' }), ['NoOpinion', 'can only get individual resources of this type']);
    assert.deepEqual(await decide({ resource: 'persistentvolumeclaims', subresource: 'status', verb: 'get', name: 'c' }), ['NoOpinion', 'can only get/update/patch this type']);
  });

  test('everything else is NodeRules(): its own kinds yes, the rest no opinion', async () => {
    const allowed: Array<Partial<AuthorizationAttributes>> = [
      { resource: 'nodes', verb: 'list', namespace: '' },
      { resource: 'nodes', verb: 'create', namespace: '' },
      { resource: 'nodes', subresource: 'status', verb: 'patch', namespace: '', name: 'n2' },
      { resource: 'pods', verb: 'watch' },
      { resource: 'pods', verb: 'delete', name: 'p' },
      { resource: 'pods', subresource: 'status', verb: 'update', name: 'p' },
      { resource: 'events', verb: 'create' },
      { group: 'authentication.orch.io', resource: 'tokenreviews', verb: 'create', namespace: '' },
      { group: 'authorization.orch.io', resource: 'subjectaccessreviews', verb: 'create', namespace: '' },
    ];
    for (const over of allowed) assert.deepEqual(await decide(over), ['Allow', ''], JSON.stringify(over));
    const refused: Array<Partial<AuthorizationAttributes>> = [
      { resource: 'nodes', verb: 'delete', namespace: '', name: 'n1' },
      { resource: 'pods', verb: 'update', name: 'p' },
      { resource: 'namespaces', verb: 'get', namespace: '', name: 'ns' },
      { group: 'rbac.authorization.orch.io', resource: 'roles', verb: 'list' },
      { isResourceRequest: false, path: '/healthz', verb: 'get' },
    ];
    for (const over of refused) assert.deepEqual(await decide(over), ['NoOpinion', ''], JSON.stringify(over));
  });

  test("a node's rules cannot be listed; anyone else's are empty", async () => {
    assert.deepEqual(await authorizer.rulesFor!(n1, 'ns'), { resourceRules: [], nonResourceRules: [], incomplete: true, error: 'node authorizer does not support user rule resolution' });
    assert.deepEqual(await authorizer.rulesFor!({ name: 'alice', groups: [] }, 'ns'), { resourceRules: [], nonResourceRules: [], incomplete: false });
  });

  test('in a chain, the node reasons reach the 403 and RBAC still decides for others', async () => {
    const chain = buildAuthorizer([{ type: 'Node', name: 'node' }, { type: 'AlwaysDeny', name: 'alwaysdeny' }], { Node: () => authorizer });
    assert.equal((await chain.authorize(attrs({ name: 's' }))).decision, 'Allow');
    // upstream's AlwaysDeny has no opinion; its reason joins the node's.
    const refused = await chain.authorize(attrs({ name: 'other' }));
    assert.equal(refused.decision, 'NoOpinion');
    assert.match(refused.reason, /\nEverything is forbidden\.$/);
  });
});

describe('end to end: --authorization-mode=Node,RBAC', () => {
  let server: TestServer;
  let dir: string;
  const NS = 'node-authz';
  const as = (who: 'n1' | 'n2') => ({ token: `${who}-token` });
  const secret = (name: string, ns = NS) => `/api/v1/namespaces/${ns}/secrets/${name}`;
  const createPod = async (name: string, spec: Record<string, unknown>) => {
    const res = await server.request('POST', `/api/v1/namespaces/${NS}/pods`, { body: { metadata: { name }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  /** The graph follows the watch cache: a write shows in it within a moment. */
  const until = (what: string, probe: () => Promise<boolean>) => eventually(what, async () => ((await probe()) ? true : undefined), 5000, 20);
  const status = async (method: string, path: string, who: 'n1' | 'n2', body?: unknown) => (await server.request(method, path, { ...as(who), body })).status;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-node-authz-'));
    writeFileSync(join(dir, 'tokens.csv'), 'n1-token,system:node:n1,uid-n1,"system:nodes"\nn2-token,system:node:n2,uid-n2,"system:nodes"\nalice-token,alice,uid-a,"dev"\n');
    server = await startTestServer(['--authorization-mode=Node,RBAC', `--token-auth-file=${join(dir, 'tokens.csv')}`]);
    // RBAC has no bindings yet: the admin (system:masters) sets everything up.
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
    for (const name of ['default', 'runner']) {
      const res = await server.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { body: { metadata: { name } } });
      assert.ok(res.status === 201 || res.status === 409, res.text);
    }
    for (const name of ['mine', 'other', 'theirs']) {
      assert.equal((await server.request('POST', `/api/v1/namespaces/${NS}/secrets`, { body: { metadata: { name }, stringData: { k: name } } })).status, 201);
    }
    assert.equal((await server.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'settings' }, data: { k: 'v' } } })).status, 201);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a node reads what its pods reference, not another secret, not another node\'s', async () => {
    await createPod('web', { nodeName: 'n1', serviceAccountName: 'runner', volumes: [{ name: 's', secret: { secretName: 'mine' } }], containers: [{ name: 'c', image: 'x', envFrom: [{ configMapRef: { name: 'settings' } }] }] });
    await createPod('db', { nodeName: 'n2', imagePullSecrets: [{ name: 'theirs' }] });
    await until('n1 may read its secret', async () => (await status('GET', secret('mine'), 'n1')) === 200);
    const read = await server.request('GET', secret('mine'), as('n1'));
    assert.equal(Buffer.from(read.body.data.k, 'base64').toString(), 'mine');
    assert.equal(await status('GET', `/api/v1/namespaces/${NS}/configmaps/settings`, 'n1'), 200);
    assertFailure(
      await server.request('GET', secret('other'), as('n1')),
      403,
      'Forbidden',
      `secrets "other" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "${NS}": no relationship found between node 'n1' and this object`,
    );
    await until('n2 may read its pull secret', async () => (await status('GET', secret('theirs'), 'n2')) === 200);
    assert.equal(await status('GET', secret('theirs'), 'n1'), 403);
    assert.equal(await status('GET', secret('mine'), 'n2'), 403);
    // A user who is no node falls through to RBAC, which grants nothing yet.
    assert.equal((await server.request('GET', secret('mine'), { token: 'alice-token' })).status, 403);
  });

  test('list and watch of one secret by field selector; the whole list is refused with upstream message', async () => {
    await until('n1 may read its secret', async () => (await status('GET', secret('mine'), 'n1')) === 200);
    const one = await server.request('GET', `/api/v1/namespaces/${NS}/secrets?fieldSelector=metadata.name%3Dmine`, as('n1'));
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body.items.map((i: any) => i.metadata.name), ['mine']);
    const watch = await server.request('GET', `/api/v1/namespaces/${NS}/secrets?watch=true&fieldSelector=metadata.name%3Dmine&timeoutSeconds=1`, as('n1'));
    assert.equal(watch.status, 200);
    assert.match(watch.text, /"type":"ADDED".*"name":"mine"/);
    assertFailure(
      await server.request('GET', `/api/v1/namespaces/${NS}/secrets`, as('n1')),
      403,
      'Forbidden',
      `secrets is forbidden: User "system:node:n1" cannot list resource "secrets" in API group "" in the namespace "${NS}": No Object name found`,
    );
    assert.equal((await server.request('GET', `/api/v1/namespaces/${NS}/secrets?fieldSelector=metadata.name%3Dother`, as('n1'))).status, 403);
  });

  test('deleting the pod takes the secret away; a pod recreated on another node moves it', async () => {
    await createPod('moving', { nodeName: 'n1', volumes: [{ name: 'p', projected: { sources: [{ secret: { name: 'other' } }] } }] });
    await until('n1 may read the projected secret', async () => (await status('GET', secret('other'), 'n1')) === 200);
    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${NS}/pods/moving`)).status, 200);
    await until('n1 loses it', async () => (await status('GET', secret('other'), 'n1')) === 403);
    await createPod('moving', { nodeName: 'n2', volumes: [{ name: 'p', projected: { sources: [{ secret: { name: 'other' } }] } }] });
    await until('n2 gains it', async () => (await status('GET', secret('other'), 'n2')) === 200);
    assert.equal(await status('GET', secret('other'), 'n1'), 403);
  });

  test('tokens only for the account a pod on the node runs as', async () => {
    const web = (await server.request('GET', `/api/v1/namespaces/${NS}/pods/web`)).body;
    const body = { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: web.metadata.uid } } };
    const token = (account: string, who: 'n1' | 'n2') => server.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts/${account}/token`, { ...as(who), body });
    await until('n1 may ask for runner tokens', async () => (await token('runner', 'n1')).status === 201);
    assertFailure(
      await token('runner', 'n2'),
      403,
      'Forbidden',
      `serviceaccounts "runner" is forbidden: User "system:node:n2" cannot create resource "serviceaccounts/token" in API group "" in the namespace "${NS}": no relationship found between node 'n2' and this object`,
    );
    assert.equal((await token('default', 'n1')).status, 403);
  });

  test('its own Node and status; its own lease; NodeRules for pods and events', async () => {
    assert.equal(await status('POST', '/api/v1/nodes', 'n1', { metadata: { name: 'n1' } }), 201);
    assert.equal(await status('GET', '/api/v1/nodes/n1', 'n1'), 200);
    const patch = await server.request('PATCH', '/api/v1/nodes/n1/status', { ...as('n1'), raw: JSON.stringify({ status: { conditions: [{ type: 'Ready', status: 'True' }] } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patch.status, 200, patch.text);
    assert.equal(await status('DELETE', '/api/v1/nodes/n1', 'n1'), 403);
    assert.equal(await status('GET', `/api/v1/namespaces/${NS}/pods`, 'n1'), 200);
    assert.equal(await status('POST', '/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases', 'n1', { metadata: { name: 'n1' } }), 201);
    assert.equal(await status('GET', '/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases/n1', 'n1'), 200);
    assertFailure(
      await server.request('GET', '/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases/n1', as('n2')),
      403,
      'Forbidden',
      'leases.coordination.orch.io "n1" is forbidden: User "system:node:n2" cannot get resource "leases" in API group "coordination.orch.io" in the namespace "orch-node-lease": can only access node lease with the same name as the requesting node',
    );
    assert.equal(await status('GET', '/api/v1/namespaces', 'n1'), 403);
  });

  test('access reviews ask the same chain', async () => {
    const review = (name: string) =>
      server.request('POST', '/apis/authorization.orch.io/v1/subjectaccessreviews', {
        body: { kind: 'SubjectAccessReview', spec: { user: 'system:node:n1', groups: ['system:nodes'], resourceAttributes: { verb: 'get', resource: 'secrets', namespace: NS, name } } },
      });
    await until('the review sees the graph', async () => (await review('mine')).body?.status?.allowed === true);
    const no = await review('theirs');
    assert.deepEqual(no.body.status, { allowed: false, reason: "no relationship found between node 'n1' and this object" });
  });
});
