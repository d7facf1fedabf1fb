/**
 * The worker pool (issue 10, every core; src/server/worker-pool.ts): an idle
 * server is one process; under load it forks a worker that accepts from the
 * same socket and takes a share of the keep-alive connections; once idle it
 * stops the worker again, and nothing fails on the way. A killed worker below
 * --min-workers is replaced, and SIGTERM stops the whole pool.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { startTestServer, type TestServer } from './helpers/server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NP_PATH = '/apis/networking.orch.io/v1/namespaces/default/networkpolicies';

function children(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
}

/** The established TCP connections to `port` that process `pid` holds (its accepted clients). */
function clientConnections(pid: number, port: number): number {
  const established = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const localPort = parseInt(fields[1].split(':')[1], 16);
      if (localPort === port && fields[3] === '01') established.add(fields[9]);
    }
  }
  let held = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode && established.has(inode)) held++;
    } catch {
      // closed meanwhile
    }
  }
  return held;
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => T | undefined | false): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Keeps `concurrency` keep-alive requests in flight until stopped; counts statuses and `Connection: close` answers. */
function load(server: TestServer, concurrency: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: server.ca });
  const statuses = new Map<number, number>();
  let closes = 0;
  let running = true;
  const one = (i: number, n: number) =>
    new Promise<void>((resolve, reject) => {
      const create = n % 4 === 0;
      const body = create ? JSON.stringify({ metadata: { name: `np-${i}-${n}` }, spec: { podSelector: {} } }) : undefined;
      const req = httpsRequest(
        new URL(create ? NP_PATH : `${NP_PATH}?limit=50`, server.url),
        { method: create ? 'POST' : 'GET', agent, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' } },
        (res) => {
          if (res.headers.connection === 'close') closes++;
          res.resume();
          res.on('end', () => {
            statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const loops = Array.from({ length: concurrency }, async (_, i) => {
    for (let n = 0; running; n++) await one(i, n);
  });
  return {
    statuses,
    closes: () => closes,
    async stop() {
      running = false;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}

test('idle: one process; under load a worker joins on the same socket and takes connections; idle again, it stops; nothing fails', { timeout: 120_000 }, async () => {
  const server = await startTestServer(['--min-workers=1', '--workers=2', '--worker-idle-timeout=2s']);
  try {
    const pid = server.process.pid!;
    assert.deepEqual(children(pid), [], 'an idle server is one process');
    const traffic = load(server, 48);
    const [worker] = await waitFor('a worker under load', 60_000, () => children(pid).length > 0 && children(pid));
    // Connections move to the worker as the primary sheds its excess.
    await waitFor('the worker holding client connections', 30_000, () => clientConnections(worker, server.port) >= 8);
    assert.ok(clientConnections(pid, server.port) >= 8, 'the primary keeps its share');
    await traffic.stop();
    assert.deepEqual([...traffic.statuses.keys()].sort(), [200, 201], `every request succeeded: ${JSON.stringify([...traffic.statuses])}`);
    assert.ok(traffic.closes() > 0, 'moved clients were told Connection: close');
    await waitFor('the idle worker to stop', 30_000, () => children(pid).length === 0);
    assert.equal(existsSync(`/proc/${worker}`), false);
    const after = await server.request('GET', NP_PATH);
    assert.equal(after.status, 200);
    assert.ok(after.body.items.length > 0, 'the writes made through both processes are there');
    assert.doesNotMatch(server.output(), /worker \d+ \(pid \d+\) exited/, 'a worker stopped for idleness is not reported as a failure');
    // The pool's changes are logged: the bench's warm-up waits on them for a worker's start (scripts/bench/orch.ts startingWorkers).
    assert.match(server.output(), /^worker 1 \(pid \d+\) serving: 2 processes$/m);
    assert.match(server.output(), /^worker 1 \(pid \d+\) stopping: the pool was idle$/m);
  } finally {
    await server.close();
  }
});

test('--min-workers=2: a killed worker is replaced; SIGTERM stops the primary and its workers, exit 0', { timeout: 60_000 }, async () => {
  const server = await startTestServer(['--min-workers=2', '--workers=2']);
  const pid = server.process.pid!;
  let replacement: number | undefined;
  try {
    const [first] = await waitFor('the worker', 10_000, () => children(pid).length === 1 && children(pid));
    process.kill(first, 'SIGKILL');
    [replacement] = await waitFor('a replacement worker', 20_000, () => {
      const now = children(pid);
      return now.length === 1 && now[0] !== first && now;
    });
    for (let i = 0; i < 20; i++) assert.equal((await server.request('GET', '/readyz')).status, 200);
    assert.match(server.output(), /worker 1 \(pid \d+\) exited \(code null, signal SIGKILL\)/);
    await waitFor('the replacement to serve', 20_000, () => (server.output().match(/^worker 1 \(pid \d+\) serving: 2 processes$/gm) ?? []).length === 2);
  } finally {
    assert.equal(await server.stop(), 0);
    await server.close();
  }
  assert.equal(existsSync(`/proc/${replacement}`), false, 'the workers exit with the primary');
});
