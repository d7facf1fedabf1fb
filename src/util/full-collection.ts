/**
 * One full garbage collection on demand. V8 frees an ArrayBuffer's memory only
 * when a collection finds its object dead, and one promoted to the old
 * generation waits for the next full collection, which external memory alone
 * sets off only past about 64 MiB. Loading a store's pages leaves such buffers
 * behind (etcd's list pages are frames of up to 64 MiB, alive while their
 * values become strings), where nothing allocates afterwards to collect them.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** ArrayBuffer bytes past which `collectLoadGarbage` collects. */
export const LOAD_GARBAGE_BYTES = 32 * 1024 * 1024;

/**
 * Runs one full collection when more than LOAD_GARBAGE_BYTES of ArrayBuffers
 * are held (the caller knows the live data holds none: the watch cache keeps
 * strings); returns its milliseconds, or undefined when it did not run. The
 * gc extension is exposed for the one call only (an operator's --expose-gc is
 * left as given).
 */
export function collectLoadGarbage(): number | undefined {
  if (process.memoryUsage().arrayBuffers <= LOAD_GARBAGE_BYTES) return undefined;
  const exposed = typeof (globalThis as { gc?: unknown }).gc === 'function';
  if (!exposed) setFlagsFromString('--expose-gc');
  try {
    const gc = runInNewContext('gc') as (() => void) | undefined;
    if (typeof gc !== 'function') return undefined;
    const started = performance.now();
    gc();
    return performance.now() - started;
  } finally {
    if (!exposed) setFlagsFromString('--no-expose-gc');
  }
}
