/**
 * Several orch-apiserver processes on one etcd (issue 3): a write through one is
 * read and watched through the other; conflicting updates through both give one
 * success and one 409.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './helpers/eventually.ts';
import { etcdAvailable, startEtcd, type TestEtcd } from './helpers/etcd.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { EtcdClient } from '../src/storage/etcd3/etcd-client.ts';
import { openWatch } from './helpers/watch.ts';

const NP = '/apis/networking.orch.io/v1/namespaces/default/networkpolicies';
const policy = (name: string) => ({ metadata: { name }, spec: { podSelector: { matchLabels: { app: name } } } });

describe('two servers on one etcd', { skip: !etcdAvailable() && 'etcd is not installed' }, () => {
  let etcd: TestEtcd;
  let a: TestServer;
  let b: TestServer;
  let dir: string;
  before(async () => {
    etcd = await startEtcd();
    dir = mkdtempSync(join(tmpdir(), 'orch-replicas-'));
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,1,\n');
    // Both start at once: their RBAC bootstrap writes race on one store.
    const flags = ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--authorization-mode=RBAC', `--token-auth-file=${join(dir, 'tokens.csv')}`];
    [a, b] = await Promise.all([startTestServer(flags), startTestServer(flags)]);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('RBAC: the default roles made once by racing replicas; a binding made through one grants and revokes through the other', async () => {
    const roles = await b.request('GET', '/apis/rbac.authorization.orch.io/v1/clusterroles');
    assert.equal(roles.body.items.filter((r: any) => r.metadata.name === 'cluster-admin').length, 1);
    for (const server of [a, b]) assert.equal((await server.request('GET', '/healthz', { token: null })).status, 200);
    const list = () => b.request('GET', NP, { token: 'alice-token' });
    assert.equal((await list()).status, 403);
    const binding = {
      metadata: { name: 'alice-view' },
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: 'alice' }],
    };
    assert.equal((await a.request('POST', '/apis/rbac.authorization.orch.io/v1/namespaces/default/rolebindings', { body: binding })).status, 201);
    await eventually('the grant on the other replica', async () => ((await list()).status === 200 ? true : undefined), 5_000, 20);
    assert.equal((await a.request('DELETE', '/apis/rbac.authorization.orch.io/v1/namespaces/default/rolebindings/alice-view')).status, 200);
    await eventually('the revocation on the other replica', async () => ((await list()).status === 403 ? true : undefined), 5_000, 20);
  });

  test('a write through one server is read and watched through the other', async () => {
    const start = (await b.request('GET', NP)).body.metadata.resourceVersion;
    const watch = openWatch(b, `${NP}?watch=1&resourceVersion=${start}`);
    assert.equal(await watch.status, 200);
    const created = await a.request('POST', NP, { body: policy('shared') });
    assert.equal(created.status, 201);
    const read = await b.request('GET', `${NP}/shared`);
    assert.equal(read.status, 200);
    assert.equal(read.body.metadata.uid, created.body.metadata.uid);
    assert.equal(read.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
    // A consistent list through the other server includes the write at once.
    const listed = await b.request('GET', NP);
    assert.ok(Number(listed.body.metadata.resourceVersion) >= Number(created.body.metadata.resourceVersion));
    assert.ok(listed.body.items.some((i: any) => i.metadata.name === 'shared'));
    const [event] = await watch.waitFor(1);
    watch.close();
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.metadata.resourceVersion, created.body.metadata.resourceVersion);
  });

  test('conflicting updates through both servers: one succeeds, one gets 409', async () => {
    const created = await a.request('POST', NP, { body: policy('contended') });
    const base = created.body;
    const update = (server: TestServer, app: string) =>
      server.request('PUT', `${NP}/contended`, { body: { ...base, spec: { podSelector: { matchLabels: { app } } } } });
    const results = await Promise.all([update(a, 'from-a'), update(b, 'from-b')]);
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409]);
    const loser = results.find((r) => r.status === 409)!;
    assert.equal(loser.body.reason, 'Conflict');
    const winner = results.find((r) => r.status === 200)!;
    const stored = await b.request('GET', `${NP}/contended`);
    assert.deepEqual(stored.body.spec.podSelector, winner.body.spec.podSelector);
  });
});

describe('etcd shared with other users', { skip: !etcdAvailable() && 'etcd is not installed' }, () => {
  let etcd: TestEtcd;
  let server: TestServer;
  before(async () => {
    etcd = await startEtcd();
    server = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`]);
  });
  after(async () => {
    await server?.close();
    await etcd?.stop();
  });

  test('writes outside our prefix do not stall consistent reads', async () => {
    const other = new EtcdClient({ servers: [etcd.endpoint], callTimeoutMs: 5_000 });
    try {
      for (let i = 0; i < 3; i++) await other.put(Buffer.from(`/someone-else/key-${i}`), Buffer.from('x'));
      const started = Date.now();
      const list = await server.request('GET', NP);
      assert.equal(list.status, 200, list.text);
      assert.ok(Date.now() - started < 1500, `consistent list took ${Date.now() - started} ms`);
      const watch = openWatch(server, `${NP}?watch=1`);
      assert.equal(await watch.status, 200);
      await server.request('POST', NP, { body: policy('after-foreign-writes') });
      const events = await watch.waitFor(1);
      watch.close();
      assert.equal(events.at(-1).object.metadata.name, 'after-foreign-writes');
    } finally {
      other.close();
    }
  });
});
