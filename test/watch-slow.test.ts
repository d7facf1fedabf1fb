/**
 * A watcher that cannot keep up is closed rather than buffered without bound
 * (issue 3, the watch cache); other watchers are unaffected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { startTestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const CM = '/api/v1/namespaces/default/configmaps';

test('a watcher that stops reading is dropped; a reading one gets every event', async () => {
  const server = await startTestServer(['--watch-buffer-limit=65536']);
  try {
    const start = (await server.request('GET', CM)).body.metadata.resourceVersion;
    const socket = connect({ host: '127.0.0.1', port: server.port, ca: server.ca, servername: 'localhost' });
    await new Promise((r) => socket.once('secureConnect', r));
    socket.write(`GET ${CM}?watch=1&resourceVersion=${start} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\n\r\n`);
    socket.pause();
    const healthy = openWatch(server, `${CM}?watch=1&resourceVersion=${start}`);
    const blob = 'x'.repeat(100_000);
    const writes = 120;
    for (let i = 0; i < writes; i++) {
      const res = await server.request('POST', CM, { body: { metadata: { name: `big-${i}` }, data: { blob } } });
      assert.equal(res.status, 201);
    }
    await healthy.waitFor(writes, 20_000);
    healthy.close();

    // Now read what the stalled watcher was sent: the server gave up on it part way.
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    const outcome = await new Promise<string>((resolve) => {
      socket.once('end', () => resolve('end'));
      socket.once('close', () => resolve('close'));
      socket.once('error', () => resolve('error'));
      socket.resume();
      setTimeout(() => resolve('still open'), 10_000);
    });
    socket.destroy();
    assert.notEqual(outcome, 'still open', 'the stalled watch was not closed');
    const events = received.split('\n').filter((l) => l.includes('"type":"ADDED"')).length;
    assert.ok(events < writes, `the stalled watcher was closed before getting all ${writes} events (got ${events})`);
    assert.ok(!received.endsWith('0\r\n\r\n'), 'closed abruptly, not as a completed stream');
    const ready = await server.request('GET', '/readyz');
    assert.equal(ready.status, 200);
  } finally {
    await server.close();
  }
});
