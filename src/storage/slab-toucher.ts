/**
 * Fresh slab memory made resident on another thread, ahead of a bulk load
 * (value-slabs.ts). The first write to each 4 KiB page of fresh memory is a
 * page fault, and a watch cache's load of 1,000,000 values (1.5 GB) spent
 * about 1.7 s of its main thread in them; kept as strings, V8's parallel
 * scavenger had taken most of that cost on its helper threads.
 *
 * The main thread hands buffers to the thread and keeps going: a load is
 * one synchronous loop, so nothing can be waited for. Each buffer has a
 * state in shared memory that both sides change by compare-and-swap, so a
 * buffer is either touched by the thread or taken untouched by the main
 * thread, never written by both.
 */
import { Worker } from 'node:worker_threads';

const FREE = 0;
const TOUCHING = 1;
const TAKEN = 2;
const READY = 3;

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ buffer, state }) => {
  if (Atomics.compareExchange(state, 0, ${FREE}, ${TOUCHING}) !== ${FREE}) return;
  const bytes = new Uint8Array(buffer);
  for (let at = 0; at < bytes.length; at += 4096) bytes[at] = 0;
  Atomics.store(state, 0, ${READY});
});`;

/** A buffer handed to the thread, and its state, which only it and the main thread change. */
interface Handed {
  buffer: SharedArrayBuffer;
  state: Int32Array;
}

/** Buffers handed to the thread at most at once. */
const AHEAD = 16;

/** Hands out SharedArrayBuffers of one size, made resident on a thread of its own while the main thread fills others. */
export class SlabToucher {
  private worker: Worker | undefined;
  /** The buffers handed, oldest first from `next`. */
  private readonly slots: Array<Handed | undefined> = new Array(AHEAD);
  private next = 0;
  /** Buffers taken that the thread had made resident, and taken before it started on them (tests, diagnostics). */
  readonly taken = { resident: 0, untouched: 0 };

  constructor(private readonly bytes: number) {}

  /**
   * A fresh buffer: one the thread made resident when it has, else one the
   * thread has not started on (taken from it), else a new one. Each buffer
   * taken is replaced by a new one handed to the thread.
   */
  take(): SharedArrayBuffer {
    this.worker ??= this.start();
    for (let tried = 0; tried < AHEAD; tried++) {
      const index = (this.next + tried) % AHEAD;
      const handed = this.slots[index];
      if (!handed) continue;
      const state = Atomics.load(handed.state, 0);
      if (state === TOUCHING) continue;
      if (state === FREE && Atomics.compareExchange(handed.state, 0, FREE, TAKEN) !== FREE) continue;
      this.next = (index + 1) % AHEAD;
      this.refill(index);
      if (state === READY) this.taken.resident++;
      else this.taken.untouched++;
      return handed.buffer;
    }
    // Nothing handed yet, or all being touched: fill every empty slot, and make this one here.
    for (let index = 0; index < AHEAD; index++) if (!this.slots[index]) this.refill(index);
    this.taken.untouched++;
    return new SharedArrayBuffer(this.bytes);
  }

  private refill(index: number): void {
    const handed = { buffer: new SharedArrayBuffer(this.bytes), state: new Int32Array(new SharedArrayBuffer(4)) };
    this.slots[index] = handed;
    this.worker!.postMessage(handed);
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    return worker;
  }

  /** Ends the thread; buffers handed and not taken are dropped (a later take starts again). */
  stop(): void {
    void this.worker?.terminate();
    this.worker = undefined;
    this.slots.fill(undefined);
  }
}
