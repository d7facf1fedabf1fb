/**
 * The watch cache's keys in order (SPEC 4.6 list order; DESIGN "watch cache"):
 * a sorted sequence of blocks, so an insert or delete moves at most one block
 * (re-sorting or splicing one flat array cost O(n) per change, 8 MB of
 * pointers at 1,000,000 objects) and a page starts by binary search.
 */

/** Blocks split past this size; small enough that a splice is a short copy, large enough that there are few blocks. */
const MAX_BLOCK = 1024;

/** A position in the sequence: the block and the index within it. */
interface Cursor {
  block: number;
  index: number;
}

export class SortedKeys {
  private blocks: string[][] = [];
  private count = 0;

  /** Builds the sequence from keys in any order (a store's list comes in key order, and is not sorted again). */
  static from(keys: Iterable<string>): SortedKeys {
    const sorted = [...keys];
    if (!inOrder(sorted)) sorted.sort();
    const out = new SortedKeys();
    for (let i = 0; i < sorted.length; i += MAX_BLOCK / 2) out.blocks.push(sorted.slice(i, i + MAX_BLOCK / 2));
    out.count = sorted.length;
    return out;
  }

  get size(): number {
    return this.count;
  }

  /** Adds a key not yet present. */
  insert(key: string): void {
    if (!this.blocks.length) {
      this.blocks.push([key]);
      this.count = 1;
      return;
    }
    const block = this.blockFor(key);
    const keys = this.blocks[block];
    keys.splice(lowerBound(keys, key), 0, key);
    this.count++;
    if (keys.length > MAX_BLOCK) this.blocks.splice(block + 1, 0, keys.splice(keys.length >>> 1));
  }

  /** Removes a key; absent keys are ignored. */
  delete(key: string): void {
    if (!this.blocks.length) return;
    const block = this.blockFor(key);
    const keys = this.blocks[block];
    const at = lowerBound(keys, key);
    if (keys[at] !== key) return;
    keys.splice(at, 1);
    this.count--;
    if (!keys.length) this.blocks.splice(block, 1);
  }

  /** Keys from the first one ≥ `start` onwards, in order, while they begin with `prefix`. */
  *from(start: string, prefix: string): Generator<string> {
    const cursor = this.seek(start);
    for (let b = cursor.block; b < this.blocks.length; b++) {
      const keys = this.blocks[b];
      for (let i = b === cursor.block ? cursor.index : 0; i < keys.length; i++) {
        if (!keys[i].startsWith(prefix)) return;
        yield keys[i];
      }
    }
  }

  /** How many keys are < `key`. */
  rank(key: string): number {
    const cursor = this.seek(key);
    let n = cursor.index;
    for (let b = 0; b < cursor.block; b++) n += this.blocks[b].length;
    return n;
  }

  /** The block whose range holds `key`: the last one whose first key is ≤ it (or the first). */
  private blockFor(key: string): number {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.blocks[mid][0] <= key) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private seek(key: string): Cursor {
    if (!this.blocks.length) return { block: 0, index: 0 };
    const block = this.blockFor(key);
    const index = lowerBound(this.blocks[block], key);
    // Past the end of its block, the position is the start of the next one.
    return index === this.blocks[block].length ? { block: block + 1, index: 0 } : { block, index };
  }
}

/** The first index whose key is ≥ `key`. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function inOrder(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1] > keys[i]) return false;
  return true;
}
