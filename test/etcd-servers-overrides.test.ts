/**
 * --etcd-servers-overrides (kube-apiserver's per-resource etcd servers): events
 * and leases on a second etcd, everything else on --etcd-servers. Both etcds
 * are read directly to check where each key landed.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdAvailable, startEtcd, type TestEtcd } from './helpers/etcd.ts';
import { BIN, ROOT, startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure, expectGet, expectWrite, itemNames } from './helpers/api.ts';
import { openWatch } from './helpers/watch.ts';
import { eventually } from './helpers/eventually.ts';
import { EtcdStorage } from '../src/storage/etcd3/etcd-storage.ts';
import { objectKey } from '../src/storage/keys.ts';
import { FlagError, parseFlags } from '../src/cli/flags.ts';
import { etcdLocations, OVERRIDES_INVALID, parseEtcdServersOverrides } from '../src/storage/etcd3/servers-overrides.ts';

const event = (name: string, extra: object = {}) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name, ...extra }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Started', message: 'one' });
const EVENTS = '/api/v1/namespaces/default/events';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const LEASES = '/apis/coordination.orch.io/v1/namespaces/default/leases';

describe('the flag', () => {
  test('malformed entries fail at start with upstream\'s message', () => {
    for (const value of ['events#http://x:2379', '/events', 'a/b/c#http://x:2379', '/events#', '/events#http://a:2379;;http://b:2379', '/events#a#b']) {
      assert.throws(
        () => parseFlags(['--storage-backend=etcd3', '--etcd-servers=http://a:2379', `--etcd-servers-overrides=${value}`]),
        (err: Error) => err instanceof FlagError && err.message.includes(OVERRIDES_INVALID),
        value,
      );
    }
  });

  test('entries are comma separated and every use of the flag adds its own; the core group is empty', () => {
    const flags = parseFlags(['--storage-backend=etcd3', '--etcd-servers=http://a:2379', '--etcd-servers-overrides=/events#http://b:2379;http://c:2379,apps/deployments#http://d:2379', '--etcd-servers-overrides=coordination.orch.io/leases#http://c:2379;http://b:2379']);
    assert.ok(flags !== 'help');
    assert.deepEqual(flags.etcdServersOverrides, [
      { group: '', resource: 'events', servers: ['http://b:2379', 'http://c:2379'] },
      { group: 'apps', resource: 'deployments', servers: ['http://d:2379'] },
      { group: 'coordination.orch.io', resource: 'leases', servers: ['http://c:2379', 'http://b:2379'] },
    ]);
    // One etcd per distinct server list, whatever its order, as upstream's Configs.
    assert.deepEqual(etcdLocations(flags.etcdServersOverrides), [
      { servers: ['http://b:2379', 'http://c:2379'], resourcePrefixes: ['/core/events/', '/coordination.orch.io/leases/'] },
      { servers: ['http://d:2379'], resourcePrefixes: ['/apps/deployments/'] },
    ]);
  });

  test('a resource named twice takes its last servers, as upstream\'s SetEtcdLocation', () => {
    assert.deepEqual(etcdLocations(parseEtcdServersOverrides(['/events#http://a:2379', '/events#http://b:2379'])), [{ servers: ['http://b:2379'], resourcePrefixes: ['/core/events/'] }]);
  });

  test('the SQLite backend refuses the flag', () => {
    assert.throws(() => parseFlags(['--etcd-servers-overrides=/events#http://b:2379']), (err: Error) => err instanceof FlagError && /--etcd-servers-overrides needs --storage-backend=etcd3/.test(err.message));
    const flags = parseFlags(['--etcd-servers-overrides=']);
    assert.ok(flags !== 'help');
    assert.deepEqual(flags.etcdServersOverrides, []);
  });

  test('the server does not start with a malformed entry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-overrides-'));
    try {
      const run = spawnSync(process.execPath, [BIN, '--secure-port=0', `--data-dir=${dir}`, '--storage-backend=etcd3', '--etcd-servers=http://127.0.0.1:1', '--etcd-servers-overrides=/events'], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, new RegExp(OVERRIDES_INVALID.replace(/[/#]/g, '\\$&')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('events and leases on their own etcd', { skip: !etcdAvailable() && 'etcd is not installed' }, () => {
  let main: TestEtcd;
  let second: TestEtcd;
  let server: TestServer;
  let mainStore: EtcdStorage;
  let secondStore: EtcdStorage;
  /** Where a key is: 'main', 'second', 'both' or 'none'. */
  const whereIs = async (key: string) => {
    const [inMain, inSecond] = await Promise.all([mainStore.get(key), secondStore.get(key)]);
    return inMain && inSecond ? 'both' : inMain ? 'main' : inSecond ? 'second' : 'none';
  };

  before(async () => {
    [main, second] = await Promise.all([startEtcd(), startEtcd()]);
    server = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${main.endpoint}`, `--etcd-servers-overrides=/events#${second.endpoint},coordination.orch.io/leases#${second.endpoint},events.orch.io/events#${second.endpoint}`]);
    mainStore = await EtcdStorage.connect({ servers: [main.endpoint], prefix: '/registry' });
    secondStore = await EtcdStorage.connect({ servers: [second.endpoint], prefix: '/registry' });
  });
  after(async () => {
    await server?.close();
    await mainStore?.close();
    await secondStore?.close();
    await Promise.all([main?.stop(), second?.stop()]);
  });

  test('an overridden resource is written to its etcd only, at that etcd\'s revision; the others to --etcd-servers', async () => {
    const created = await expectWrite(server, 'POST', EVENTS, event('e-where'));
    const key = objectKey('', 'events', 'default', 'e-where');
    assert.equal(await whereIs(key), 'second');
    assert.equal(created.metadata.resourceVersion, String((await secondStore.get(key))!.modRevision));
    const lease = await expectWrite(server, 'POST', LEASES, { metadata: { name: 'l-where' }, spec: { holderIdentity: 'me' } });
    const leaseKey = objectKey('coordination.orch.io', 'leases', 'default', 'l-where');
    assert.equal(await whereIs(leaseKey), 'second');
    assert.equal(lease.metadata.resourceVersion, String((await secondStore.get(leaseKey))!.modRevision));
    const configMap = await expectWrite(server, 'POST', CONFIGMAPS, { metadata: { name: 'cm-where' } });
    const configMapKey = objectKey('', 'configmaps', 'default', 'cm-where');
    assert.equal(await whereIs(configMapKey), 'main');
    assert.equal(configMap.metadata.resourceVersion, String((await mainStore.get(configMapKey))!.modRevision));
    // The system namespaces and the default roles stay on --etcd-servers.
    assert.equal(await whereIs(objectKey('', 'namespaces', undefined, 'default')), 'main');
    assert.equal(await whereIs(objectKey('rbac.authorization.orch.io', 'clusterroles', undefined, 'admin')), 'main');
    // The controllers' election lease is a Lease like any other: on the second etcd.
    await eventually('the election lease', async () => ((await whereIs(objectKey('coordination.orch.io', 'leases', 'orch-system', 'orch-controller-manager'))) === 'second' ? true : undefined));
  });

  // Events are read from storage by default (as upstream's --watch-cache-sizes default), leases through their watch cache.
  test('a consistent get and list right after a write see it; the list\'s resourceVersion is the second etcd\'s', async () => {
    for (let i = 0; i < 5; i++) {
      for (const [path, body] of [[EVENTS, event(`e-fresh-${i}`)], [LEASES, { metadata: { name: `e-fresh-${i}` }, spec: { holderIdentity: 'me' } }]] as const) {
        const created = await expectWrite(server, 'POST', path, body);
        assert.equal((await expectGet(server, `${path}/e-fresh-${i}`)).metadata.resourceVersion, created.metadata.resourceVersion);
        const list = await server.request('GET', path);
        assert.equal(list.status, 200);
        assert.ok(itemNames(list).includes(`e-fresh-${i}`));
        const listRevision = Number(list.body.metadata.resourceVersion);
        assert.ok(listRevision >= Number(created.metadata.resourceVersion));
        assert.ok(listRevision <= (await secondStore.currentRevision()));
      }
    }
    // events.orch.io/v1 events share the core group's key space, so its etcd too.
    const viaEventsGroup = await expectGet(server, '/apis/events.orch.io/v1/namespaces/default/events/e-fresh-0');
    assert.equal(viaEventsGroup.metadata.name, 'e-fresh-0');
  });

  test('a list in pages follows its continue token through the second etcd', async () => {
    for (let i = 0; i < 5; i++) await expectWrite(server, 'POST', EVENTS, event(`e-page-${i}`, { labels: { paged: 'yes' } }));
    const names: string[] = [];
    let next = '';
    let pages = 0;
    let revision: string | undefined;
    do {
      const page = await server.request('GET', `${EVENTS}?labelSelector=paged%3Dyes&limit=2${next ? `&continue=${encodeURIComponent(next)}` : ''}`);
      assert.equal(page.status, 200);
      revision ??= page.body.metadata.resourceVersion;
      // Every page is read at the first page's revision.
      assert.equal(page.body.metadata.resourceVersion, revision);
      names.push(...itemNames(page));
      next = page.body.metadata.continue ?? '';
      pages++;
    } while (next);
    assert.deepEqual(names, [0, 1, 2, 3, 4].map((i) => `e-page-${i}`));
    assert.equal(pages, 3);
    const full = await server.request('GET', `${EVENTS}?labelSelector=paged%3Dyes`);
    assert.deepEqual(itemNames(full), names);
  });

  for (const [resource, path, body] of [
    ['events', EVENTS, event('watched')],
    ['leases', LEASES, { metadata: { name: 'watched' }, spec: { holderIdentity: 'me' } }],
  ] as const) {
    test(`a watch of ${resource} from a resourceVersion of the second etcd sees what follows it`, async () => {
      const list = await server.request('GET', path);
      const from = list.body.metadata.resourceVersion;
      const watch = openWatch(server, `${path}?watch=1&resourceVersion=${from}`);
      try {
        assert.equal(await watch.status, 200);
        const created = await expectWrite(server, 'POST', path, body);
        const updated = await expectWrite(server, 'PUT', `${path}/watched`, { ...created, metadata: { ...created.metadata, labels: { updated: 'yes' } } });
        const events = await watch.waitFor(2);
        assert.deepEqual(events.slice(0, 2).map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'watched'], ['MODIFIED', 'watched']]);
        assert.equal(events[0].object.metadata.resourceVersion, created.metadata.resourceVersion);
        assert.equal(events[1].object.metadata.resourceVersion, updated.metadata.resourceVersion);
        const group = resource === 'leases' ? 'coordination.orch.io' : '';
        assert.equal(updated.metadata.resourceVersion, String((await secondStore.get(objectKey(group, resource, 'default', 'watched')))!.modRevision));
      } finally {
        watch.close();
      }
    });
  }

  test('an update with a stale resourceVersion is a conflict; deletes remove the key from its etcd', async () => {
    const created = await expectWrite(server, 'POST', EVENTS, event('e-conflict'));
    await expectWrite(server, 'PUT', `${EVENTS}/e-conflict`, { ...created, message: 'two' });
    const stale = await server.request('PUT', `${EVENTS}/e-conflict`, { body: { ...created, message: 'three' } });
    assertFailure(stale, 409, 'Conflict');
    assert.equal((await expectGet(server, `${EVENTS}/e-conflict`)).message, 'two');

    assert.equal((await server.request('DELETE', `${EVENTS}/e-conflict`)).status, 200);
    assert.equal(await whereIs(objectKey('', 'events', 'default', 'e-conflict')), 'none');
    assert.equal((await server.request('GET', `${EVENTS}/e-conflict`)).status, 404);
    await expectWrite(server, 'POST', CONFIGMAPS, { metadata: { name: 'cm-deleted' } });
    assert.equal((await server.request('DELETE', `${CONFIGMAPS}/cm-deleted`)).status, 200);
    assert.equal(await whereIs(objectKey('', 'configmaps', 'default', 'cm-deleted')), 'none');
  });

  test('the garbage collector and namespace deletion reach objects on either etcd', async () => {
    const owner = await expectWrite(server, 'POST', CONFIGMAPS, { metadata: { name: 'cm-owner' } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm-owner', uid: owner.metadata.uid }];
    await expectWrite(server, 'POST', EVENTS, event('e-owned', { ownerReferences }));
    assert.equal((await server.request('DELETE', `${CONFIGMAPS}/cm-owner`)).status, 200);
    await eventually('the owned event collected', async () => ((await whereIs(objectKey('', 'events', 'default', 'e-owned'))) === 'none' ? true : undefined));

    await expectWrite(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    await expectWrite(server, 'POST', '/api/v1/namespaces/doomed/events', { ...event('e-doomed'), involvedObject: { kind: 'Pod', name: 'p', namespace: 'doomed' } });
    await expectWrite(server, 'POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'cm-doomed' } });
    assert.equal((await server.request('DELETE', '/api/v1/namespaces/doomed')).status, 200);
    await eventually('the namespace gone', async () => ((await server.request('GET', '/api/v1/namespaces/doomed')).status === 404 ? true : undefined), 30_000);
    assert.equal(await whereIs(objectKey('', 'events', 'doomed', 'e-doomed')), 'none');
    assert.equal(await whereIs(objectKey('', 'configmaps', 'doomed', 'cm-doomed')), 'none');
  });

  test('the server is ready, its watch caches following both etcds', async () => {
    const ready = await server.request('GET', '/readyz?verbose');
    assert.equal(ready.status, 200, ready.text);
    assert.match(ready.text, /\[\+\]watch-cache ok/);
  });

  test('an override of a resource not stored under that name is said to have no effect', () => {
    assert.match(server.output(), /--etcd-servers-overrides: events\.orch\.io\/events is not a resource this server stores under that name; its override has no effect/);
  });
});
