/**
 * A worker's SQLite replica (issue 10): its own reads of the file, writes
 * through the one writer over a real message channel, the writer's commits as
 * its watch events. It passes the storage conformance suite, and the cases
 * only a replica has: a watch replayed from the file while commits are in
 * flight, a cancelled write, a writer that goes away.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.ts';
import { SqliteReplica } from '../src/storage/sqlite/sqlite-replica.ts';
import { WriterHost } from '../src/storage/sqlite/writer-host.ts';
import type { Channel } from '../src/storage/sqlite/write-channel.ts';
import { DeadlineExceededError, StorageUnavailableError, type StorageEvent } from '../src/storage/interface.ts';
import { storageConformance } from './helpers/storage-conformance.ts';

function portChannel<Out, In>(port: MessagePort): Channel<Out, In> {
  return {
    send: (message) => port.postMessage(message),
    onMessage(listener) {
      port.on('message', listener);
      return () => port.off('message', listener);
    },
    onClose: (listener) => port.once('close', listener),
  };
}

async function openPair(replicas = 1) {
  const dir = mkdtempSync(join(tmpdir(), 'orch-replica-'));
  const file = join(dir, 'orch.db');
  const writer = new SqliteStorage({ file });
  const host = new WriterHost(writer);
  await host.start();
  const channels: MessageChannel[] = [];
  const opened = Array.from({ length: replicas }, () => {
    const channel = new MessageChannel();
    channels.push(channel);
    host.attach(portChannel(channel.port1));
    return new SqliteReplica({ file, channel: portChannel(channel.port2) });
  });
  return {
    writer,
    replicas: opened,
    channels,
    async cleanup() {
      for (const replica of opened) await replica.close();
      for (const channel of channels) channel.port1.close();
      host.stop();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

storageConformance('sqlite replica', async () => {
  const pair = await openPair();
  return { storage: pair.replicas[0], cleanup: pair.cleanup };
});

test('two replicas: a write through one is read and watched through the other, each event once and in order', async () => {
  const { replicas: [a, b], cleanup } = await openPair(2);
  try {
    const seen: StorageEvent[] = [];
    const start = await b.currentRevision();
    const watch = b.watch('/w/', start, (e) => seen.push(e), (err) => assert.fail(err));
    const writes = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).create(`/w/${i}`, `{"i":${i}}`)));
    // An acknowledged write is in the file at once, whoever wrote it.
    assert.equal((await b.get('/w/7'))?.value, '{"i":7}');
    assert.ok((await a.currentRevision()) >= Math.max(...writes));
    for (let i = 0; i < 100 && seen.length < 50; i++) await new Promise((r) => setTimeout(r, 10));
    watch.stop();
    assert.deepEqual(seen.map((e) => e.revision), [...writes].sort((x, y) => x - y));
  } finally {
    await cleanup();
  }
});

test('a watch replayed from the file while commits are still on their way sees each once', async () => {
  const { replicas: [a, b], cleanup } = await openPair(2);
  try {
    const from = await a.currentRevision();
    const burst = Array.from({ length: 20 }, (_, i) => a.create(`/r/${i}`, '{}'));
    // Registered while the writer's batches for the burst may not have reached b yet.
    await new Promise((r) => setImmediate(r));
    const seen: number[] = [];
    const watch = b.watch('/r/', from, (e) => seen.push(e.revision), (err) => assert.fail(err));
    const revisions = await Promise.all(burst);
    for (let i = 0; i < 100 && seen.length < 20; i++) await new Promise((r) => setTimeout(r, 10));
    watch.stop();
    assert.deepEqual(seen, [...revisions].sort((x, y) => x - y));
  } finally {
    await cleanup();
  }
});

test('a write cancelled before its commit changes nothing; a writer that goes away fails the writes waiting on it', async () => {
  const { replicas: [a], channels, cleanup } = await openPair();
  try {
    const controller = new AbortController();
    const write = a.create('/c/late', '{}', { signal: controller.signal });
    controller.abort();
    await assert.rejects(write, DeadlineExceededError);
    assert.equal(await a.get('/c/late'), null);
    const aborted = new AbortController();
    aborted.abort();
    await assert.rejects(a.create('/c/never', '{}', { signal: aborted.signal }), DeadlineExceededError);
    const stranded = a.create('/c/stranded', '{}');
    channels[0].port1.close();
    await assert.rejects(stranded, StorageUnavailableError);
  } finally {
    await cleanup();
  }
});
