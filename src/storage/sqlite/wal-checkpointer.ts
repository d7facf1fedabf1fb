/**
 * Checkpoints of the SQLite WAL off the event loop (issue 10). SQLite's own
 * automatic checkpoint runs inside the COMMIT whose WAL crosses 1,000 pages:
 * on the event loop, it copies the WAL into the database file and fsyncs both,
 * which doubled the storage's commit time in a create-bound run and held every
 * request behind it for as long as the disk took. The writer's connection turns
 * it off (`wal_autocheckpoint = 0`); this worker thread, with a connection of its
 * own, runs PASSIVE checkpoints while commits keep arriving. PASSIVE never waits
 * for the writer or for readers, nor makes them wait: it copies what no reader
 * still needs, and the writer rewinds the WAL once everything is copied.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Shortest time between two checkpoints: at 5,000 creates/s the WAL grows about 13 MB in it. */
export const CHECKPOINT_INTERVAL_MS = 200;

/** What one checkpoint reported: SQLite's wal_checkpoint row, or the error it threw. */
export interface CheckpointOutcome {
  busy?: number;
  log?: number;
  checkpointed?: number;
  error?: string;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage(db.pragma('wal_checkpoint(PASSIVE)')[0]);
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message) });
  }
});`;

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly timer: NodeJS.Timeout;
  /** Commits since the last checkpoint began. */
  private dirty = false;
  private running = false;
  private closing: Promise<void> | undefined;
  /** The last checkpoint's report, for tests and diagnostics. */
  last: CheckpointOutcome | undefined;
  /** Checkpoints finished. */
  completed = 0;

  constructor(file: string) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver } });
    this.worker.unref();
    this.worker.on('message', (outcome: CheckpointOutcome) => {
      this.running = false;
      this.completed++;
      // A failed checkpoint loses nothing (the WAL keeps the commits); the next one tries again.
      this.last = outcome;
    });
    this.worker.on('error', (err) => {
      this.running = false;
      this.last = { error: err.message };
    });
    this.timer = setInterval(() => this.tick(), CHECKPOINT_INTERVAL_MS).unref();
  }

  /** Called after every commit of the writer's connection. */
  committed(): void {
    this.dirty = true;
  }

  private tick(): void {
    if (this.running || !this.dirty || this.closing) return;
    this.dirty = false;
    this.running = true;
    this.worker.postMessage('checkpoint');
  }

  /** Lets a running checkpoint finish, then closes the worker's connection. */
  close(): Promise<void> {
    return (this.closing ??= new Promise<void>((resolve) => {
      clearInterval(this.timer);
      // Held open until the worker's connection is closed.
      this.worker.ref();
      this.worker.once('exit', () => resolve());
      this.worker.postMessage('close');
    }));
  }
}
