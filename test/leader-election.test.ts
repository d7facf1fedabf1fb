/**
 * Controllers on one replica at a time (issue 8, SPEC 5.2): with several
 * servers on one etcd, the holder of the orch-controller-manager Lease runs the
 * controllers; when it dies without releasing, another takes over once the
 * lease has gone unrenewed for its duration; a graceful stop hands over at once.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { etcdAvailable, startEtcd, type TestEtcd } from './helpers/etcd.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { eventually } from './helpers/eventually.ts';
import { parseControllerSelection } from '../src/controllers/controller-manager.ts';
import { checkLeaderElectionTimings } from '../src/controllers/leader-election.ts';
import { parseFlags } from '../src/cli/flags.ts';

const LEASE = '/apis/coordination.orch.io/v1/namespaces/orch-system/leases/orch-controller-manager';
const ELECTION = ['--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=500ms'];


const leading = (server: TestServer) => /controller manager: leading/.test(server.output());

describe('--controllers', () => {
  test('kube-controller-manager syntax: *, names, older names, -name; unknown names refused', () => {
    const all = parseControllerSelection(['*']);
    assert.equal(all('namespace-controller'), true);
    assert.equal(all('token-cleaner-controller'), true);
    const some = parseControllerSelection(['*', '-tokencleaner', '-garbage-collector-controller']);
    assert.equal(some('token-cleaner-controller'), false);
    assert.equal(some('garbage-collector-controller'), false);
    assert.equal(some('namespace-controller'), true);
    const only = parseControllerSelection(['namespace']);
    assert.equal(only('namespace-controller'), true);
    assert.equal(only('serviceaccount-controller'), false);
    assert.throws(() => parseControllerSelection(['nope']), /"nope" is not in the list of known controllers/);
    assert.throws(() => parseFlags(['--controllers=*,bogus']), /"bogus" is not in the list of known controllers/);
  });

  test('leader election timings are checked as client-go checks them', () => {
    assert.throws(() => checkLeaderElectionTimings(10_000, 10_000, 2_000), /leaseDuration must be greater than renewDeadline/);
    assert.throws(() => checkLeaderElectionTimings(15_000, 2_000, 2_000), /renewDeadline must be greater than retryPeriod/);
    assert.throws(() => parseFlags(['--leader-elect-renew-deadline=20s']), /leaseDuration must be greater than renewDeadline/);
    checkLeaderElectionTimings(15_000, 10_000, 2_000);
  });
});

describe('leader election on one etcd', { skip: !etcdAvailable() && 'etcd is not installed' }, () => {
  let etcd: TestEtcd;
  const servers: TestServer[] = [];
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await etcd?.stop();
  });

  test('one leader; a killed leader is replaced after the lease duration, a stopped one at once', async () => {
    const flags = ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, ...ELECTION];
    const [a, b] = await Promise.all([startTestServer(flags), startTestServer(flags)]);
    servers.push(a, b);
    const lease = await eventually('a lease holder', async () => {
      const res = await a.request('GET', LEASE);
      return res.status === 200 && res.body.spec.holderIdentity ? res.body : undefined;
    });
    assert.equal(lease.spec.leaseDurationSeconds, 3);
    assert.ok(lease.spec.renewTime && lease.spec.acquireTime);
    await eventually('the leader to start its controllers', async () => (leading(a) || leading(b) ? true : undefined));
    assert.equal(leading(a) && leading(b), false, 'exactly one replica leads');
    const [leader, follower] = leading(a) ? [a, b] : [b, a];
    // The holder renews: renewTime moves while the holder stays.
    const renewed = await eventually('a renewal', async () => {
      const res = await follower.request('GET', LEASE);
      return res.body.spec.renewTime !== lease.spec.renewTime ? res.body : undefined;
    });
    assert.equal(renewed.spec.holderIdentity, lease.spec.holderIdentity);

    // Killed without releasing: the follower waits out the lease, then leads.
    const killedAt = Date.now();
    leader.process.kill('SIGKILL');
    await eventually('the follower to lead', async () => (leading(follower) ? true : undefined));
    assert.ok(Date.now() - killedAt >= 2_000, 'the lease was honoured until it expired');
    const taken = (await follower.request('GET', LEASE)).body;
    assert.notEqual(taken.spec.holderIdentity, lease.spec.holderIdentity);
    assert.equal(taken.spec.leaseTransitions, (lease.spec.leaseTransitions ?? 0) + 1);

    // The namespace controller runs on the new leader: a deleted namespace is emptied and goes.
    const ns = await follower.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'handover' } } });
    assert.equal(ns.status, 201);
    await follower.request('POST', '/api/v1/namespaces/handover/configmaps', { body: { metadata: { name: 'c' } } });
    await follower.request('DELETE', '/api/v1/namespaces/handover');
    await eventually('the namespace to go', async () => ((await follower.request('GET', '/api/v1/namespaces/handover')).status === 404 ? true : undefined));

    // A graceful stop releases the lease: a new replica leads well within the lease duration.
    const c = await startTestServer(flags);
    servers.push(c);
    const heldBefore = (await c.request('GET', LEASE)).body;
    await follower.stop();
    // The stop wrote the release (an empty holder, as client-go's ReleaseOnCancel), so the lease is
    // free at once rather than after its 3 s: checked on the record, not on a wall clock.
    const released = await eventually('the release or the new holder', async () => {
      const res = await c.request('GET', LEASE);
      return res.body.spec.holderIdentity !== heldBefore.spec.holderIdentity ? res.body : undefined;
    });
    if (released.spec.holderIdentity === '') {
      assert.equal(released.spec.leaseDurationSeconds, 1);
      assert.equal(released.spec.leaseTransitions, heldBefore.spec.leaseTransitions);
    }
    await eventually('the new replica to lead', async () => (leading(c) ? true : undefined));
    const after = (await c.request('GET', LEASE)).body;
    assert.notEqual(after.spec.holderIdentity, heldBefore.spec.holderIdentity);
    assert.ok(after.spec.holderIdentity);
    assert.equal(after.spec.leaseTransitions, heldBefore.spec.leaseTransitions + 1);
  });
});
