/**
 * Running the same tests on both storage backends: SQLite, and etcd3 against a
 * real etcd started for the test (skipped with a reason when etcd is missing).
 */
import { etcdAvailable, startEtcd } from './etcd.ts';
import { startTestServer, type TestServer } from './server.ts';

export const BACKENDS = [
  { backend: 'sqlite', skip: false },
  { backend: 'etcd3', skip: etcdAvailable() ? false : 'etcd is not installed (apt-get install etcd-server)' },
] as const;

export type Backend = (typeof BACKENDS)[number]['backend'];

/** A server on `backend`; its close() also stops the etcd it started. */
export async function startServerOn(backend: Backend, flags: string[] = []): Promise<TestServer> {
  if (backend === 'sqlite') return startTestServer(flags);
  const etcd = await startEtcd();
  const server = await startTestServer([...flags, '--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`]);
  const close = server.close;
  server.close = async () => {
    await close();
    await etcd.stop();
  };
  return server;
}
