/** The etcd3 backend against the storage conformance suite, on a real etcd process. */
import { test } from 'node:test';
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
