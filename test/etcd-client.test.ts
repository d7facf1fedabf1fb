/**
 * Our etcd gRPC client (src/storage/etcd3: grpc-session, etcd-codec,
 * etcd-client, circuit-breaker, watch-stream) against a real etcd: large
 * values and lists through the codec and framing, deadlines and the circuit
 * breaker on a frozen etcd, failover past a dead endpoint, a watch that
 * resumes after a freeze outlasting its keepalive, and a compacted start.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BrokenCircuitError } from '../src/storage/etcd3/circuit-breaker.ts';
import { EtcdClient } from '../src/storage/etcd3/etcd-client.ts';
import { EtcdStorage } from '../src/storage/etcd3/etcd-storage.ts';
import { FrameReader, frame, GrpcCode, GrpcError } from '../src/storage/etcd3/grpc-session.ts';
import { WatchStream } from '../src/storage/etcd3/watch-stream.ts';
import type { WatchEvent } from '../src/storage/etcd3/etcd-codec.ts';
import { CompactedError, StorageUnavailableError } from '../src/storage/interface.ts';
import { eventually } from './helpers/eventually.ts';
import { etcdAvailable, freePort, freeze, startEtcd, type TestEtcd } from './helpers/etcd.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const key = (s: string) => Buffer.from(s);
/** The end of the range of keys starting with `prefix` (its last byte plus one; our prefixes end in '/'). */
const rangeEnd = (prefix: string) => Buffer.from(prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1));

test('frames split across chunks, and several in one chunk, come out whole', () => {
  const messages = [Buffer.alloc(0), Buffer.from('a'), Buffer.alloc(70_000, 7), Buffer.from('last')];
  const wire = Buffer.concat(messages.map((m) => frame(m)));
  for (const cut of [1, 3, 5, 6, 4096, wire.length]) {
    const reader = new FrameReader();
    const out: Buffer[] = [];
    for (let pos = 0; pos < wire.length; pos += cut) out.push(...reader.push(wire.subarray(pos, pos + cut)));
    assert.deepEqual(out, messages, `chunks of ${cut} bytes`);
  }
  const compressed = Buffer.from([1, 0, 0, 0, 0]);
  assert.throws(() => new FrameReader().push(compressed), (err: unknown) => err instanceof GrpcError && err.code === GrpcCode.INTERNAL);
});

describe('etcd client against a real etcd', { skip: !etcdAvailable() && 'etcd is not installed' }, () => {
  let etcd: TestEtcd;
  let client: EtcdClient;
  before(async () => {
    etcd = await startEtcd();
    client = new EtcdClient({ servers: [etcd.endpoint], callTimeoutMs: 5_000 });
  });
  after(async () => {
    client?.close();
    await etcd?.stop();
  });

  test('a value at etcd\'s 1.5 MiB request limit goes and comes back byte for byte', async () => {
    // etcd's --max-request-bytes (1.5 MiB) counts the key and the request's own fields too.
    const value = Buffer.alloc(1.5 * 1024 * 1024 - 512);
    for (let i = 0; i < value.length; i++) value[i] = (i * 31) & 0xff;
    const revision = await client.put(key('/big/one'), value);
    const res = await client.range({ key: key('/big/one') });
    assert.equal(res.kvs.length, 1);
    assert.equal(res.kvs[0].modRevision, revision);
    assert.equal(res.kvs[0].createRevision, revision);
    assert.ok(res.kvs[0].value.equals(value));
    assert.equal(res.header.revision, revision);
  });

  test('a list of 2,000 keys in one answer, and paged through the storage', async () => {
    for (let i = 0; i < 2000; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => client.put(key(`/many/k-${String(i + j).padStart(4, '0')}`), key(`v${i + j}`))));
    }
    const all = await client.range({ key: key('/many/'), rangeEnd: rangeEnd('/many/') });
    assert.equal(all.kvs.length, 2000);
    assert.equal(all.count, 2000);
    assert.equal(all.more, false);
    assert.deepEqual(all.kvs.slice(0, 2).map((kv) => kv.key.toString()), ['/many/k-0000', '/many/k-0001']);
    const limited = await client.range({ key: key('/many/'), rangeEnd: rangeEnd('/many/'), limit: 10 });
    assert.equal(limited.kvs.length, 10);
    assert.equal(limited.more, true);
    assert.equal(limited.count, 2000);
    const counted = await client.range({ key: key('/many/'), rangeEnd: rangeEnd('/many/'), countOnly: true });
    assert.equal(counted.kvs.length, 0);
    assert.equal(counted.count, 2000);

    const storage = await EtcdStorage.connect({ servers: [etcd.endpoint], prefix: '/many' });
    try {
      const listed = await storage.list({ prefix: '/' });
      assert.equal(listed.items.length, 2000);
      assert.equal(listed.items[1999].key, '/k-1999');
      assert.equal(listed.items[1999].value, 'v1999');
    } finally {
      await storage.close();
    }
  });

  test('a transaction compares, puts, and answers the failure branch\'s range', async () => {
    const k = key('/txn/one');
    const created = await client.txn({ compare: [{ key: k, target: 'create', revision: 0 }], success: [{ put: { key: k, value: key('1') } }], failure: [] });
    assert.equal(created.succeeded, true);
    const again = await client.txn({ compare: [{ key: k, target: 'create', revision: 0 }], success: [{ put: { key: k, value: key('2') } }], failure: [{ range: { key: k } }] });
    assert.equal(again.succeeded, false);
    assert.equal(again.ranges[0].kvs[0].value.toString(), '1');
    assert.equal(again.ranges[0].kvs[0].modRevision, created.header.revision);
    const deleted = await client.txn({ compare: [{ key: k, target: 'mod', revision: created.header.revision }], success: [{ deleteKey: k }], failure: [] });
    assert.equal(deleted.succeeded, true);
    assert.equal((await client.range({ key: k })).kvs.length, 0);
  });

  test('a call to a dead endpoint moves on to the next one', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const failover = new EtcdClient({ servers: [dead, etcd.endpoint], callTimeoutMs: 5_000 });
    // A watch opened first tries the dead endpoint, then the next one.
    const events: WatchEvent[] = [];
    const watch = new WatchStream({
      session: (attempt) => failover.watchSession(attempt),
      key: key('/failover/'),
      rangeEnd: rangeEnd('/failover/'),
      afterRevision: (await client.range({ key: key('/failover/'), countOnly: true })).header.revision,
      onEvents: (batch) => events.push(...batch),
      onCanceled: (reason) => assert.fail(`cancelled: ${reason}`),
    });
    try {
      const revision = await failover.put(key('/failover/a'), key('x'));
      await eventually('the watch through the live endpoint', async () => (events.length ? true : undefined));
      assert.equal(events[0].kv.modRevision, revision);
      assert.ok(revision > 0);
      assert.equal((await failover.range({ key: key('/failover/a') })).kvs[0].value.toString(), 'x');
      await failover.status(2_000);
    } finally {
      watch.stop();
      failover.close();
    }
    const onlyDead = new EtcdClient({ servers: [dead], callTimeoutMs: 5_000 });
    try {
      await assert.rejects(onlyDead.range({ key: key('/x') }), (err: unknown) => err instanceof GrpcError && err.code === GrpcCode.UNAVAILABLE);
    } finally {
      onlyDead.close();
    }
  });

  test('a compacted start revision cancels the watch with the compact revision', async () => {
    const first = await client.put(key('/compact/a'), key('1'));
    await client.put(key('/compact/a'), key('2'));
    const last = await client.put(key('/compact/a'), key('3'));
    await client.compact(last);
    const canceled = await new Promise<{ reason: string; compactRevision: number }>((resolve) => {
      const watch = new WatchStream({
        session: (attempt) => client.watchSession(attempt),
        key: key('/compact/'),
        rangeEnd: rangeEnd('/compact/'),
        afterRevision: first,
        onEvents: () => assert.fail('no events from a compacted start'),
        onCanceled: (reason, compactRevision) => {
          watch.stop();
          resolve({ reason, compactRevision });
        },
      });
    });
    assert.equal(canceled.compactRevision, last);

    // Through the storage: a CompactedError, which makes the cacher relist.
    const storage = await EtcdStorage.connect({ servers: [etcd.endpoint], prefix: '/compact' });
    try {
      const err = await new Promise<Error>((resolve) => {
        const watch = storage.watch('/', first, () => assert.fail('no events'), (e) => (watch.stop(), resolve(e)));
      });
      assert.ok(err instanceof CompactedError, String(err));
      assert.equal(err.compacted, last);
    } finally {
      await storage.close();
    }
  });
  test('a closed storage fails calls as unavailable and its watches end without retrying', async () => {
    const storage = await EtcdStorage.connect({ servers: [etcd.endpoint], prefix: '/closing' });
    const revision = await storage.create('/a', '1');
    const events: string[] = [];
    storage.watch('/', revision, (e) => events.push(e.key), (err) => assert.fail(String(err)));
    await storage.close();
    await assert.rejects(storage.get('/a'), StorageUnavailableError);
    await client.put(key('/closing/c'), key('3'));
    await sleep(500);
    assert.deepEqual(events, []);
  });
});

describe('etcd client on a frozen etcd', { skip: !etcdAvailable() && 'etcd is not installed' }, () => {
  let etcd: TestEtcd;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });

  test('calls end at their deadline, then the open circuit fails them at once; a trial after SIGCONT closes it', async () => {
    const client = new EtcdClient({ servers: [etcd.endpoint], callTimeoutMs: 400 });
    try {
      await client.put(key('/frozen/a'), key('1'));
      await freeze(etcd);
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        await assert.rejects(client.range({ key: key('/frozen/a') }), (err: unknown) => err instanceof GrpcError && err.code === GrpcCode.DEADLINE_EXCEEDED);
        const ms = performance.now() - started;
        assert.ok(ms >= 390 && ms < 1500, `deadline call took ${ms} ms`);
      }
      const started = performance.now();
      await assert.rejects(client.range({ key: key('/frozen/a') }), BrokenCircuitError);
      assert.ok(performance.now() - started < 200, 'an open circuit fails at once, not at a deadline');
      // Probes skip the breaker and ask etcd itself.
      await assert.rejects(client.status(300), (err: unknown) => err instanceof GrpcError && err.code === GrpcCode.DEADLINE_EXCEEDED);
      etcd.process.kill('SIGCONT');
      // A trial goes through once per second; on a loaded machine the first may still miss its short deadline.
      const res = await eventually('a trial call through the closed circuit', () => client.range({ key: key('/frozen/a') }).catch(() => undefined), 10_000, 250);
      assert.equal(res.kvs[0].value.toString(), '1');
    } finally {
      etcd.process.kill('SIGCONT');
      client.close();
    }
  });

  test('a watch frozen past its keepalive reconnects and resumes after the last delivered revision: nothing lost or repeated', async () => {
    const writer = new EtcdClient({ servers: [etcd.endpoint], callTimeoutMs: 5_000 });
    const watcher = new EtcdClient({ servers: [etcd.endpoint], callTimeoutMs: 5_000, keepaliveMs: 300 });
    const seen: WatchEvent[] = [];
    const logged: string[] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => void logged.push(args.join(' '));
    const start = await writer.put(key('/resume/start'), key('0'));
    const watch = new WatchStream({
      session: (attempt) => watcher.watchSession(attempt),
      key: key('/resume/'),
      rangeEnd: rangeEnd('/resume/'),
      afterRevision: start,
      onEvents: (events) => seen.push(...events),
      onCanceled: (reason) => assert.fail(`cancelled: ${reason}`),
    });
    try {
      const written: number[] = [];
      for (let i = 0; i < 5; i++) written.push(await writer.put(key(`/resume/k${i}`), key(`before-${i}`)));
      await eventually('the events before the freeze', async () => (seen.length === 5 ? true : undefined));
      await freeze(etcd);
      // Three keepalive intervals: the watch's session is found dead and dropped.
      await sleep(1_500);
      etcd.process.kill('SIGCONT');
      for (let i = 5; i < 10; i++) written.push(await writer.put(key(`/resume/k${i}`), key(`after-${i}`)));
      await eventually('the events after the freeze', async () => (seen.length >= 10 ? true : undefined));
      await sleep(300);
      assert.deepEqual(seen.map((e) => e.kv.modRevision), written);
      assert.deepEqual(seen.map((e) => e.kv.value.toString()).slice(4, 6), ['before-4', 'after-5']);
      assert.equal(watch.resumeAfter, written.at(-1));
      assert.ok(logged.some((line) => line.includes(`reconnected, resuming after revision ${written[4]}`)), `the watch reconnected: ${logged.join('; ')}`);
    } finally {
      console.error = consoleError;
      etcd.process.kill('SIGCONT');
      watch.stop();
      writer.close();
      watcher.close();
    }
  });
});
