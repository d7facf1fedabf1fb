/**
 * Checkpoints of the SQLite WAL off the event loop under load (issue 10). SQLite's own
 * automatic checkpoint runs inside the COMMIT whose WAL crosses 1,000 pages:
 * on the event loop, it copies the WAL into the database file and fsyncs both,
 * which doubled the storage's commit time in a create-bound run and held every
 * request behind it for as long as the disk took. The writer's connection turns
 * it off (`wal_autocheckpoint = 0`) while writes are frequent; this worker
 * thread, with a connection of its own, then runs PASSIVE checkpoints while
 * commits keep arriving. PASSIVE never waits for the writer or for readers,
 * nor makes them wait: it copies what no reader still needs, and the writer
 * rewinds the WAL once everything is copied.
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

/** Commits in one tick that make it a busy tick (50 commits/s). */
const BUSY_COMMITS = 10;
/** Busy ticks in a row that move checkpoints to the thread: a second of writes, longer than start-up's burst. */
const BUSY_TICKS = 5;
/** SQLite's own default: while the load is light, a commit checkpoints after 1,000 pages itself. */
const INLINE_PAGES = 1000;

export interface CheckpointerOptions {
  /** Sets the writer connection's `wal_autocheckpoint` (0: off). */
  setAutocheckpoint: (pages: number) => void;
  /** After this long below the busy rate the thread stops and SQLite checkpoints inline again (default 30 s). */
  idleMs?: number;
}

/**
 * Paid for only under load, like the worker pool: an idle server keeps
 * SQLite's inline checkpoint (once per 1,000 pages, minutes apart when only
 * leases are renewed) and has no thread; after a second of 50 commits/s or
 * more, checkpoints move to the thread, and back after `idleMs` below that rate.
 */
export class WalCheckpointer {
  private worker: Worker | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly idleMs: number;
  /** Commits since the last tick. */
  private commits = 0;
  /** Commits since the last checkpoint began. */
  private dirty = false;
  private running = false;
  private busySince = 0;
  private busyTicks = 0;
  private closing: Promise<void> | undefined;
  /** The last checkpoint's report, for tests and diagnostics. */
  last: CheckpointOutcome | undefined;
  /** Checkpoints finished. */
  completed = 0;

  constructor(
    private readonly file: string,
    private readonly options: CheckpointerOptions,
  ) {
    this.idleMs = options.idleMs ?? 30_000;
    this.timer = setInterval(() => this.tick(), CHECKPOINT_INTERVAL_MS).unref();
  }

  /** Whether checkpoints run on the thread now. */
  get background(): boolean {
    return this.worker !== undefined;
  }

  /** Called after every commit of the writer's connection. */
  committed(): void {
    this.commits++;
    this.dirty = true;
  }

  private tick(): void {
    if (this.closing) return;
    const now = Date.now();
    if (this.commits >= BUSY_COMMITS) {
      this.busySince = now;
      this.busyTicks++;
    } else {
      this.busyTicks = 0;
    }
    this.commits = 0;
    if (!this.worker) {
      if (this.busyTicks >= BUSY_TICKS) this.start();
      return;
    }
    if (this.running) return;
    if (now - this.busySince >= this.idleMs) return void this.stop();
    if (!this.dirty) return;
    this.dirty = false;
    this.running = true;
    this.worker.postMessage('checkpoint');
  }

  private start(): void {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file: this.file, driver } });
    worker.unref();
    worker.on('message', (outcome: CheckpointOutcome) => {
      this.running = false;
      this.completed++;
      // A failed checkpoint loses nothing (the WAL keeps the commits); the next one tries again.
      this.last = outcome;
    });
    worker.on('error', (err) => {
      this.running = false;
      this.last = { error: err.message };
    });
    this.worker = worker;
    this.options.setAutocheckpoint(0);
  }

  /** SQLite checkpoints inline again; the thread closes its connection and exits. */
  private stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    this.worker = undefined;
    this.options.setAutocheckpoint(INLINE_PAGES);
    return new Promise<void>((resolve) => {
      // Held open until the worker's connection is closed.
      worker.ref();
      worker.once('exit', () => resolve());
      worker.postMessage('close');
    });
  }

  /** Lets a running checkpoint finish, then closes the thread's connection. */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      clearInterval(this.timer);
      await this.stop();
    })());
  }
}
