// Deadlines share one timer (src/server/request-limits.ts): those of the default
// length expire in start order, a finished request never expires, the timer is
// re-armed for whatever is oldest, and other lengths keep a timer of their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { Deadlines } from '../src/server/request-limits.ts';

function fakeResponse(): ServerResponse {
  return { writableEnded: false, headersSent: false, destroy() {} } as unknown as ServerResponse;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('default-length deadlines expire in order, finished ones never, and the timer re-arms', async () => {
  // first at 200, second and third at 300, fourth at 450, short at 350 (times in ms).
  const deadlines = new Deadlines(200);
  const expired: string[] = [];
  const start = (name: string, ms = 200) => deadlines.start(fakeResponse(), ms, () => expired.push(name));
  const first = start('first');
  await sleep(100);
  start('second');
  const third = start('third');
  first.clear();
  third.clear();
  await sleep(150);
  start('fourth');
  start('short', 100);
  await sleep(150);
  // first was cleared before its time; second expired on the timer re-armed after first's slot.
  assert.deepEqual(expired, ['second', 'short']);
  await sleep(100);
  assert.deepEqual(expired, ['second', 'short', 'fourth']);
});

test('a deadline that passed makes its signal aborted, asked for before or after', async () => {
  const deadlines = new Deadlines(20);
  const early = deadlines.start(fakeResponse(), 20, () => {});
  const signal = early.signal;
  const late = deadlines.start(fakeResponse(), 20, () => {});
  assert.equal(signal.aborted, false);
  await sleep(50);
  assert.equal(signal.aborted, true);
  assert.equal(late.signal.aborted, true);
  assert.equal(deadlines.start(fakeResponse(), 0, () => assert.fail('no deadline')).signal.aborted, false);
});

test('a cleared deadline leaves the list wherever it was and keeps no link to its neighbours', async () => {
  // Links kept by removed deadlines would hold finished requests for the collector (request-limits.ts, Deadlines).
  const deadlines = new Deadlines(30);
  const expired: string[] = [];
  const start = (name: string, ms = 30) => deadlines.start(fakeResponse(), ms, () => expired.push(name));
  const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((name) => start(name));
  const short = start('short', 10);
  for (const cleared of [c, a, e]) cleared.clear(); // middle, oldest, newest
  c.clear(); // twice is harmless
  short.clear();
  for (const cleared of [a, c, e]) {
    const links = cleared as unknown as { older?: unknown; newer?: unknown };
    assert.equal(links.older, undefined);
    assert.equal(links.newer, undefined);
  }
  await sleep(60);
  assert.deepEqual(expired, ['b', 'd']);
  b.clear(); // after it expired: nothing to unlink
  const f = start('f');
  await sleep(60);
  assert.deepEqual(expired, ['b', 'd', 'f']);
  assert.equal(f.signal.aborted, true);
});

test('a deadline signal runs each listener once when it passes, never after, and survives a failing one', async () => {
  const deadlines = new Deadlines(20);
  const deadline = deadlines.start(fakeResponse(), 20, () => {});
  const { signal } = deadline;
  const heard: string[] = [];
  const removed = () => heard.push('removed');
  signal.addEventListener('abort', () => heard.push('first'));
  signal.addEventListener('abort', removed);
  signal.addEventListener('abort', () => {
    throw new Error('listener failure');
  });
  signal.addEventListener('abort', () => heard.push('last'));
  signal.removeEventListener('abort', removed);
  assert.equal(signal.aborted, false);
  assert.equal(signal.reason, undefined);
  const logged: unknown[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    await sleep(50);
  } finally {
    console.error = error;
  }
  assert.deepEqual(heard, ['first', 'last']);
  assert.equal(logged.length, 1);
  assert.equal(signal.aborted, true);
  assert.ok((signal.reason as unknown) instanceof Error);
  signal.addEventListener('abort', () => heard.push('too late'));
  deadline.clear();
  await sleep(10);
  assert.deepEqual(heard, ['first', 'last']);
});
