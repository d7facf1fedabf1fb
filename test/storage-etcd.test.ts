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
