/**
 * --event-ttl (src/controllers/event-expiry.ts): events are deleted from
 * storage one TTL after their last write, as upstream's etcd leases delete
 * them; other kinds are untouched, and 0 keeps events.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';
import { eventually } from './helpers/eventually.ts';
import { lastWriteOf } from '../src/controllers/event-expiry.ts';
import { parseFlags } from '../src/cli/flags.ts';

const EVENTS = '/api/v1/namespaces/default/events';
const event = (name: string) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Started', message: 'one' });

describe('events expire one --event-ttl after their last write', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(['--event-ttl=2s']);
  });
  after(() => server?.close());

  test('an event nobody updates is deleted, with a DELETED watch event; a ConfigMap stays', async () => {
    const created = await server.request('POST', EVENTS, { body: event('lonely') });
    assert.equal(created.status, 201);
    const cm = await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'stays' } } });
    assert.equal(cm.status, 201);
    const watch = openWatch(server, `${EVENTS}?watch=1&resourceVersion=${created.body.metadata.resourceVersion}&fieldSelector=metadata.name%3Dlonely`);
    try {
      const started = Date.now();
      const [deleted] = await watch.waitFor(1, 10_000);
      const elapsed = Date.now() - started;
      assert.equal(deleted.type, 'DELETED');
      assert.equal(deleted.object.metadata.name, 'lonely');
      assert.ok(elapsed >= 1_000, `deleted ${elapsed} ms after the watch began, not before its TTL`);
    } finally {
      watch.close();
    }
    assert.equal((await server.request('GET', `${EVENTS}/lonely`)).status, 404);
    assert.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps/stays')).status, 200);
  });

  test('an update starts a new TTL', async () => {
    assert.equal((await server.request('POST', EVENTS, { body: event('busy') })).status, 201);
    await new Promise((r) => setTimeout(r, 1_400));
    const patched = await server.request('PATCH', `${EVENTS}/busy`, { body: { message: 'two' }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200);
    const patchedAt = Date.now();
    // 2.4 s after creation: past the first TTL, within the one the update started.
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal((await server.request('GET', `${EVENTS}/busy`)).status, 200, 'still there: the update renewed it');
    await eventually('the updated event expires', async () => ((await server.request('GET', `${EVENTS}/busy`)).status === 404 ? true : undefined), 10_000);
    assert.ok(Date.now() - patchedAt >= 1_500);
  });
});

describe('across a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-event-ttl-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('an old event is not given a fresh TTL by a restart; --event-ttl=0 keeps events', async () => {
    const first = await startTestServer([], { dataDir });
    try {
      assert.equal((await first.request('POST', EVENTS, { body: event('old') })).status, 201);
      assert.equal((await first.request('POST', EVENTS, { body: event('kept') })).status, 201);
    } finally {
      await first.close();
    }
    await new Promise((r) => setTimeout(r, 1_200));
    const keeping = await startTestServer(['--event-ttl=0'], { dataDir });
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      assert.equal((await keeping.request('GET', `${EVENTS}/old`)).status, 200, '--event-ttl=0: no expiry');
    } finally {
      await keeping.close();
    }
    const second = await startTestServer(['--event-ttl=1s'], { dataDir });
    try {
      const started = Date.now();
      await eventually('the old event expires at once', async () => ((await second.request('GET', `${EVENTS}/old`)).status === 404 ? true : undefined), 5_000, 50);
      assert.ok(Date.now() - started < 2_500, 'its TTL counted from its last write, before the restart');
    } finally {
      await second.close();
    }
  });
});

test('the last write of a stored event, and the flag', () => {
  assert.equal(
    lastWriteOf({ metadata: { creationTimestamp: '2026-01-01T00:00:00Z', managedFields: [{ time: '2026-01-01T00:05:00Z' }, { time: 'garbage' }, {}] } }),
    Date.parse('2026-01-01T00:05:00Z'),
  );
  assert.equal(lastWriteOf({ metadata: { creationTimestamp: '2026-01-01T00:00:00Z' } }), Date.parse('2026-01-01T00:00:00Z'));
  const flags = parseFlags(['--event-ttl=90m']);
  assert.ok(flags !== 'help');
  assert.equal(flags.eventTtlMs, 90 * 60_000);
  assert.throws(() => parseFlags(['--event-ttl=-1s']), /invalid argument "-1s" for "--event-ttl" flag/);
});
