/** The etcd3 backend against the storage conformance suite, on a real etcd process. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdStorage } from '../src/storage/etcd3/etcd-storage.ts';
import { etcdAvailable, startEtcd } from './helpers/etcd.ts';
import { storageConformance } from './helpers/storage-conformance.ts';

if (!etcdAvailable()) {
  test('etcd storage conformance', { skip: 'etcd is not installed (apt-get install etcd-server)' }, () => {});
} else {
  storageConformance('etcd3', async () => {
    const etcd = await startEtcd();
    const storage = await EtcdStorage.connect({ servers: [etcd.endpoint], prefix: '/registry' });
    return {
      storage,
      async cleanup() {
        await storage.close();
        await etcd.stop();
      },
    };
  });
}

test('a list larger than gRPC\'s default 4 MiB answer comes whole, at one revision', { skip: !etcdAvailable() && 'etcd is not installed' }, async () => {
  const etcd = await startEtcd();
  const storage = await EtcdStorage.connect({ servers: [etcd.endpoint], prefix: '/registry' });
  try {
    const value = JSON.stringify({ padding: 'x'.repeat(8 * 1024) });
    const count = 600;
    for (let from = 0; from < count; from += 50) {
      await Promise.all(Array.from({ length: Math.min(50, count - from) }, (_, i) => storage.create(`/big/${String(from + i).padStart(4, '0')}`, value)));
    }
    const revision = await storage.currentRevision();
    const listed = await storage.list({ prefix: '/big/' });
    assert.equal(listed.items.length, count);
    assert.equal(listed.revision, revision);
    assert.equal(listed.items.at(-1)!.key, '/big/0599');
    const limited = await storage.list({ prefix: '/big/', limit: 550 });
    assert.equal(limited.items.length, 550);
    assert.equal(limited.more, true);
    assert.equal(limited.remaining, 50);
  } finally {
    await storage.close();
    await etcd.stop();
  }
});

test('a list whose pages grow past the first 500 objects comes whole, in key order, at one revision', { skip: !etcdAvailable() && 'etcd is not installed' }, async () => {
  const etcd = await startEtcd();
  const storage = await EtcdStorage.connect({ servers: [etcd.endpoint], prefix: '/registry' });
  try {
    const count = 2_500;
    for (let from = 0; from < count; from += 250) {
      await Promise.all(Array.from({ length: 250 }, (_, i) => storage.create(`/small/${String(from + i).padStart(5, '0')}`, `{"n":${from + i}}`)));
    }
    const revision = await storage.currentRevision();
    // A write after the list's revision must not show up in any of its pages.
    await storage.create('/small/99999', '{}');
    const listed = await storage.list({ prefix: '/small/', revision });
    assert.equal(listed.items.length, count);
    assert.equal(listed.revision, revision);
    assert.deepEqual(listed.items.map((kv) => kv.key), Array.from({ length: count }, (_, i) => `/small/${String(i).padStart(5, '0')}`));
    // A limit beyond the first page is met exactly, with the rest counted.
    const limited = await storage.list({ prefix: '/small/', limit: 1_200, revision });
    assert.equal(limited.items.length, 1_200);
    assert.equal(limited.items.at(-1)!.key, '/small/01199');
    assert.equal(limited.more, true);
    assert.equal(limited.remaining, count - 1_200);
  } finally {
    await storage.close();
    await etcd.stop();
  }
});
