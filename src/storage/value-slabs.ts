/**
 * Where the watch cache keeps stored values: UTF-8 bytes packed into shared
 * slabs outside V8's heap (DESIGN "watch cache").
 *
 * Why not strings: every scavenge walks every page of V8's old generation, so
 * its cost follows the bytes the heap holds. At 1,000,000 cached objects kept
 * as strings (1.5 GB) a scavenge took 6-7 ms however little survived it, and
 * random GETs ran at 0.7x their rate at 10,000 objects.
 *
 * Why not a buffer per value: each buffer is an ArrayBuffer with a backing
 * store V8 tracks one by one, and its bytes count as external memory. Loading
 * 1,000,000 of them set off a full collection for every 64 MB or so: a
 * restart took 20-24 s against 12-15 s with strings. A slab holds about 700
 * values of the bench's size; a value is a view into it, an ordinary small
 * object.
 *
 * Slabs are filled in order and never written twice. A value a cache keeps
 * is its slab's resident (adopt), counted live; when the cache lets it go
 * (release) the slab counts it dead, and a slab less than half live once it
 * is no longer filled moves its residents to the slab being filled and is
 * no longer counted. Views nobody adopted are never counted: whoever holds
 * one keeps its slab's memory alive until it lets go.
 */

import { SlabToucher } from './slab-toucher.ts';

/** Bytes per slab. */
const SLAB_BYTES = 1024 * 1024;
/** A larger value gets a buffer of its own: it would waste most of a slab's tail. */
const OWN_BUFFER_FROM = SLAB_BYTES / 8;

/** A holder of a packed value that may be moved (the watch cache's current object versions). */
export interface SlabResident {
  /** The view the resident holds now, or undefined once it no longer needs it (after release). */
  packedBytes(): Buffer | undefined;
  /** Takes a copy of its bytes in another slab. */
  moveTo(view: Buffer): void;
}

class Slab {
  /**
   * Memory of a SharedArrayBuffer, which V8 does not count as external
   * memory: ArrayBuffers' bytes are counted, and loading 1.5 GB into them set
   * off a full collection for each 64 MB, 22 in all, against 2 here.
   */
  readonly bytes: Buffer;
  used = 0;
  /** Bytes of the residents' values not yet released. */
  live = 0;
  residents: SlabResident[] = [];
  /** Until compacted: its residents are counted and moved. */
  counted = true;

  constructor(memory: SharedArrayBuffer) {
    (memory as SlabMemory)[SLAB] = this;
    this.bytes = Buffer.from(memory);
  }
}

/** Slabs a bulk load fills before its new slabs come from the toucher: a small store never starts its thread. */
const BULK_SLABS_BEFORE_TOUCHER = 8;
const toucher = new SlabToucher(SLAB_BYTES);
/** Bulk loads under way (bulkPacking), and the slabs they made so far. */
let bulkLoads = 0;
let bulkSlabs = 0;

/**
 * Runs `load`, which packs many values (a watch cache's list), with its
 * slabs' pages made resident on another thread ahead of it (slab-toucher.ts).
 */
export async function bulkPacking<T>(load: () => T | Promise<T>): Promise<T> {
  if (bulkLoads++ === 0) bulkSlabs = 0;
  try {
    return await load();
  } finally {
    if (--bulkLoads === 0) toucher.stop();
  }
}

/** Memory for a new slab: from the toucher well into a bulk load. */
function slabMemory(): SharedArrayBuffer {
  if (bulkLoads && ++bulkSlabs > BULK_SLABS_BEFORE_TOUCHER) return toucher.take();
  return new SharedArrayBuffer(SLAB_BYTES);
}

/**
 * Each slab's memory names its slab (a symbol-keyed property of the
 * SharedArrayBuffer), so a view finds its slab by two property loads: a
 * WeakMap lookup per value was 3 % of a 1,000,000-object start. A slab lives
 * while the one being filled or any view into it does, so values packed and
 * never adopted (a relist given up) cost nothing once dropped.
 */
const SLAB = Symbol('slab');
type SlabMemory = ArrayBufferLike & { [SLAB]?: Slab };
let filling: Slab | undefined;
/** Live bytes of every counted slab together (slabStats). */
let liveBytes = 0;
let compactions = 0;

/** The counted slab `view` lies in, if any (not one already compacted). */
function slabOf(view: Buffer): Slab | undefined {
  const slab = (view.buffer as SlabMemory)[SLAB];
  return slab?.counted ? slab : undefined;
}

/**
 * `value` (text, or bytes to copy) as UTF-8 bytes packed into the slab being
 * filled: a view. A value of OWN_BUFFER_FROM bytes or more gets a buffer of
 * its own.
 */
export function packValue(value: string | Buffer): Buffer {
  const length = typeof value === 'string' ? Buffer.byteLength(value) : value.length;
  const [bytes, start] = reserve(length);
  if (typeof value === 'string') bytes.write(value, start);
  else value.copy(bytes, start);
  return bytes.subarray(start, start + length);
}

/** `bytes` with the ASCII text `insert` at byte offset `at`, packed as packValue packs a value: one copy, no joined buffer in between. */
export function packSpliced(bytes: Buffer, at: number, insert: string): Buffer {
  const length = bytes.length + insert.length;
  const [out, start] = reserve(length);
  bytes.copy(out, start, 0, at);
  out.write(insert, start + at, 'latin1');
  bytes.copy(out, start + at + insert.length, at);
  return out.subarray(start, start + length);
}

/** Room for `length` bytes: a buffer of its own from OWN_BUFFER_FROM, else the slab being filled (a new one when it is full), and where in it. */
function reserve(length: number): [Buffer, number] {
  if (length >= OWN_BUFFER_FROM) return [Buffer.allocUnsafeSlow(length), 0];
  let slab = filling;
  if (!slab || slab.used + length > SLAB_BYTES) {
    const full = slab;
    slab = filling = new Slab(slabMemory());
    // Filled while its residents came and went (a cache's writes): compacted now if most left.
    // A slab a load filled has no residents yet; they are adopted after.
    if (full?.residents.length) maybeCompact(full);
  }
  const start = slab.used;
  slab.used += length;
  return [slab.bytes, start];
}

/** Registers `resident` as the holder of its packed view, counted live until released, and moved when its slab is compacted. */
export function adopt(resident: SlabResident, view: Buffer): void {
  const slab = slabOf(view);
  if (!slab) return;
  slab.residents.push(resident);
  slab.live += view.length;
  liveBytes += view.length;
}

/** Counts an adopted `view` dead: its resident no longer needs the slab to keep it (it may still read it). */
export function release(view: Buffer): void {
  const slab = slabOf(view);
  if (!slab) return;
  slab.live -= view.length;
  liveBytes -= view.length;
  if (slab !== filling) maybeCompact(slab);
}

/** Moves the residents of a slab less than half live to the slab being filled; the slab is then no longer counted. */
function maybeCompact(slab: Slab): void {
  if (slab.live * 2 >= slab.used) return;
  slab.counted = false;
  liveBytes -= slab.live;
  compactions++;
  const residents = slab.residents;
  slab.residents = [];
  slab.live = 0;
  for (const resident of residents) {
    const view = resident.packedBytes();
    if (view?.buffer !== slab.bytes.buffer) continue;
    const moved = packValue(view);
    resident.moveTo(moved);
    adopt(resident, moved);
  }
}

/** Live bytes of the counted slabs, and how many slabs were compacted so far (for tests). */
export function slabStats(): { live: number; compactions: number } {
  return { live: liveBytes, compactions };
}
