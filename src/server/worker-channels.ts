/**
 * The write channel (src/storage/sqlite/write-channel.ts) over the IPC pipe
 * between the primary and a worker process, from either side. The same pipe carries the primary's own control
 * messages (`ctl`), which these adapters leave to the primary.
 */
import type { ChildProcess } from 'node:child_process';
import type { FromWriter, ReplicaChannel, ToWriter, WriterChannel } from '../storage/sqlite/write-channel.ts';

const isStorageMessage = (message: unknown): boolean => !!message && typeof message === 'object' && 't' in message;

/** The primary's end of one worker's channel. */
export function workerChannel(worker: ChildProcess): ReplicaChannel {
  return {
    send(message: FromWriter) {
      if (worker.connected) worker.send(message);
    },
    onMessage(listener: (message: ToWriter) => void) {
      const filtered = (message: unknown) => isStorageMessage(message) && listener(message as ToWriter);
      worker.on('message', filtered);
      return () => worker.off('message', filtered);
    },
    onClose: (listener) => worker.once('disconnect', listener),
  };
}

/** A worker's end of its channel to the primary. */
export function primaryChannel(): WriterChannel {
  return {
    send(message: ToWriter) {
      if (!process.connected) throw new Error('the primary process is gone');
      process.send!(message);
    },
    onMessage(listener: (message: FromWriter) => void) {
      const filtered = (message: unknown) => isStorageMessage(message) && listener(message as FromWriter);
      process.on('message', filtered);
      return () => process.off('message', filtered);
    },
    onClose: (listener) => process.once('disconnect', listener),
  };
}
