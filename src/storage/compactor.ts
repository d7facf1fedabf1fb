/**
 * Periodic compaction (SPEC 4.4 item 2, 8): every interval the store is compacted
 * to the revision it had one interval earlier, so history, continue tokens and
 * exact reads stay valid for at least one interval (5 minutes by default), as
 * kube-apiserver's --etcd-compaction-interval does.
 */
import type { Storage } from './interface.ts';

export function startCompactor(storage: Storage, intervalMs: number): { stop(): void } {
  if (intervalMs <= 0) return { stop() {} };
  let previous = 0;
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      const current = await storage.currentRevision();
      if (previous > 0) await storage.compact(previous);
      previous = current;
    } catch (err) {
      console.error('compaction failed:', err);
    } finally {
      running = false;
    }
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
