/**
 * Every core (issue 10): the primary process forks one worker per CPU, each a
 * full server (watch cache, stores, authorization) on the shared port, as
 * replicas of one etcd already are. With the embedded SQLite store the primary
 * is the one writer: it owns the file's writes, the group commit and its
 * fsync, compaction, and sends every worker the committed events; workers read
 * the file themselves. The primary serves no request. A worker that dies is
 * replaced; SIGTERM stops the workers gracefully, then the store.
 */
import cluster, { type Worker } from 'node:cluster';
import { join } from 'node:path';
import { startCompactor } from '../storage/compactor.ts';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage.ts';
import { WriterHost } from '../storage/sqlite/writer-host.ts';
import { workerChannel } from './cluster-channels.ts';
import { prepareServerFiles, type ServerFileOptions } from './server-files.ts';

/** What a worker tells the primary once it serves. */
export interface ListeningMessage {
  ctl: 'listening';
  url: string;
}

export const WORKER_INDEX_ENV = 'ORCH_WORKER_INDEX';

export interface PrimaryOptions extends ServerFileOptions {
  workers: number;
  /** Whether the workers share the embedded SQLite store (the primary is then its writer), rather than etcd. */
  sqlite: boolean;
  compactionIntervalMs: number;
}

export interface RunningPrimary {
  url: string;
  orchconfigPath: string;
  shutdown(): Promise<void>;
}

export async function startPrimary(options: PrimaryOptions): Promise<RunningPrimary> {
  const files = await prepareServerFiles(options);
  const storage = options.sqlite ? new SqliteStorage({ file: join(files.dataDir, 'orch.db') }) : undefined;
  const host = storage ? new WriterHost(storage) : undefined;
  await host?.start();
  const compactor = storage ? startCompactor(storage, options.compactionIntervalMs) : undefined;
  cluster.setupPrimary({ serialization: 'advanced' });

  let stopping = false;
  const workers = new Map<number, Worker>();
  let resolveListening!: (url: string) => void;
  let rejectListening!: (err: Error) => void;
  const listening = new Promise<string>((resolve, reject) => {
    resolveListening = resolve;
    rejectListening = reject;
  });
  const listeningWorkers = new Set<number>();
  let started = false;

  const fork = (index: number) => {
    const worker = cluster.fork({ [WORKER_INDEX_ENV]: String(index) });
    workers.set(index, worker);
    if (host) host.attach(workerChannel(worker));
    worker.on('message', (message: ListeningMessage) => {
      if (message?.ctl !== 'listening') return;
      listeningWorkers.add(index);
      if (listeningWorkers.size === options.workers) resolveListening(message.url);
    });
    worker.once('exit', (code, signal) => {
      if (workers.get(index) === worker) workers.delete(index);
      if (stopping) return;
      if (!started) {
        rejectListening(new Error(`worker ${index} exited during start-up (code ${code}, signal ${signal})`));
        return;
      }
      console.error(`worker ${index} exited (code ${code}, signal ${signal}); starting a new one`);
      fork(index);
    });
  };

  const shutdown = async () => {
    stopping = true;
    const exits = [...workers.values()].map((worker) => new Promise<void>((r) => (worker.isDead() ? r() : worker.once('exit', () => r()))));
    for (const worker of workers.values()) worker.process.kill('SIGTERM');
    await Promise.all(exits);
    compactor?.stop();
    host?.stop();
    await storage?.close();
  };

  for (let i = 0; i < options.workers; i++) fork(i);
  let url: string;
  try {
    url = await listening;
  } catch (err) {
    await shutdown();
    throw err;
  }
  started = true;
  // Every worker wrote it (start.ts) before saying it listens.
  return { url, orchconfigPath: join(files.dataDir, 'admin.orchconfig'), shutdown };
}
