// The benchmark's wrk plumbing (scripts/bench/wrk*.ts): the JSON summary its Lua done() prints, how that becomes a measurement, Lua string quoting, CPU lists.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseCpuList } from '../scripts/bench/cpu-pin.ts';
import { createScript, getScript, luaString, pagedWalkScript } from '../scripts/bench/wrk-scripts.ts';
import { parseWrkOutput, runWrk, wrkMeasurement } from '../scripts/bench/wrk.ts';

const SAMPLE = `Running 8s test @ https://127.0.0.1:4443/x
  2 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.76ms    3.01ms  45.00ms   91.00%
  40770 requests in 8.00s, 70.1MB read
Requests/sec:   5096.25

WRK_JSON {"requests":40770,"durationUs":8000000,"bytes":73400320,"errors":{"connect":0,"read":2,"write":0,"status":30,"timeout":1},"latencyUs":{"min":310,"mean":2760.5,"max":45000,"p50":2100,"p90":5000,"p99":17150,"p999":30000},"statuses":{"201":40700,"409":70},"samples":["409: {\\"kind\\":\\"Status\\"}"]}
`;

describe('wrk summary', () => {
  test('the WRK_JSON line is found after the human-readable summary and parsed', () => {
    const s = parseWrkOutput(SAMPLE);
    assert.equal(s.requests, 40770);
    assert.equal(s.latencyUs.p99, 17150);
    assert.deepEqual(s.statuses, { '201': 40700, '409': 70 });
    assert.deepEqual(s.samples, ['409: {"kind":"Status"}']);
  });

  test('output without the line is an error that shows the output', () => {
    assert.throws(() => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused\n'), /no WRK_JSON line[\s\S]*Connection refused/);
  });

  test('a create measurement counts statuses other than 201 as bad and socket errors apart', () => {
    const m = wrkMeasurement('create', 'CREATE', parseWrkOutput(SAMPLE), 201);
    assert.equal(m.rps, 40770 / 8);
    assert.equal(m.p50, 2.1);
    assert.equal(m.p99, 17.15);
    assert.equal(m.good, 40700);
    assert.equal(m.bad, 70);
    assert.equal(m.errors, 3);
    assert.equal(m.tool, 'wrk');
  });

  test('a GET measurement (no response() in its script) takes wrk\'s own non-2xx/3xx count', () => {
    const m = wrkMeasurement('get', 'GET', parseWrkOutput(SAMPLE), null);
    assert.equal(m.bad, 30);
    assert.equal(m.good, 40740);
    assert.deepEqual(m.statuses, { '2xx/3xx': 40740, other: 30 });
  });
});

test('luaString escapes quotes, backslashes and bytes outside printable ASCII as Lua 5.1 decimal escapes', () => {
  assert.equal(luaString('a"b\\c\né'), '"a\\"b\\\\c\\10\\195\\169"');
});

test('parseCpuList reads /proc\'s CPU lists', () => {
  assert.deepEqual(parseCpuList('0-2,5\n'), [0, 1, 2, 5]);
  assert.deepEqual(parseCpuList('1'), [1]);
});

const haveWrk = !spawnSync('wrk', ['-v'], { stdio: 'ignore' }).error;

test('the create script sends unique names, counts statuses per thread and keeps a sample of the unexpected', { skip: !haveWrk && 'wrk is not installed' }, async () => {
  const names = new Set<string>();
  let duplicates = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const name = JSON.parse(body).metadata.name as string;
      if (names.has(name)) duplicates++;
      names.add(name);
      // Every tenth request is refused, so the sample and the status counts have something to show.
      const refuse = names.size % 10 === 0;
      res.writeHead(refuse ? 409 : 201, { 'content-type': 'application/json' });
      res.end(refuse ? '{"kind":"Status","reason":"AlreadyExists","message":"a \\"quoted\\" name"}' : '{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const [before, after] = '{"metadata":{"name":"@@"}}'.split('@@');
    const script = createScript('/create', { authorization: 'Bearer x', 'content-type': 'application/json' }, before, after, 'np-t-', 201);
    const { summary } = await runWrk({ url: `http://127.0.0.1:${port}/`, script, threads: 2, connections: 2, durationS: 1 });
    const counted = (summary.statuses['201'] ?? 0) + (summary.statuses['409'] ?? 0);
    assert.ok(summary.requests > 10, `only ${summary.requests} requests`);
    assert.equal(counted, summary.requests);
    assert.equal(duplicates, 0);
    assert.ok([...names].every((n) => /^np-t-[12]-\d+$/.test(n)), [...names].slice(0, 3).join(', '));
    assert.ok(summary.statuses['409'] > 0);
    assert.match(summary.samples[0], /^409: \{"kind":"Status","reason":"AlreadyExists","message":"a \\"quoted\\" name"\}/);
    assert.ok(summary.latencyUs.p50 > 0 && summary.latencyUs.p50 <= summary.latencyUs.p99);
  } finally {
    server.close();
  }
});

test('the GET script sends its headers', { skip: !haveWrk && 'wrk is not installed' }, async () => {
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    seen.add(`${req.method} ${req.headers.authorization} ${req.headers.accept}`);
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const { summary } = await runWrk({ url: `http://127.0.0.1:${port}/x`, script: getScript({ authorization: 'Bearer t', accept: 'application/json' }), threads: 1, connections: 1, durationS: 1 });
    assert.ok(summary.requests > 0);
    assert.deepEqual([...seen], ['GET Bearer t application/json']);
  } finally {
    server.close();
  }
});

test('the paged walk script follows each connection\'s continue tokens, times whole walks and counts the bad ones', { skip: !haveWrk && 'wrk is not installed' }, async () => {
  // 3 pages of 2 items; every connection's 4th walk returns one item short on its last page.
  const walksByConnection = new Map<string, number>();
  let outOfOrder = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const page = Number(url.searchParams.get('continue') ?? '0');
    const conn = `${req.socket.remotePort}`;
    if (page === 0) walksByConnection.set(conn, (walksByConnection.get(conn) ?? 0) + 1);
    else if (!walksByConnection.has(conn)) outOfOrder++;
    const short = page === 2 && walksByConnection.get(conn)! % 4 === 0;
    const items = Array.from({ length: short ? 1 : 2 }, (_, i) => `{"metadata":{"name":"o${page}-${i}","uid":"u${page}-${i}"}}`);
    const meta = page < 2 ? `{"resourceVersion":"7","continue":"${page + 1}"}` : '{"resourceVersion":"7"}';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"kind":"List","apiVersion":"v1","metadata":${meta},"items":[${items.join(',')}]}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const script = pagedWalkScript({ authorization: 'Bearer t' }, '/list?limit=2', 6);
    const { summary } = await runWrk({ url: `http://127.0.0.1:${port}/`, script, threads: 2, connections: 2, durationS: 1 });
    assert.equal(outOfOrder, 0, 'a connection asks for page 1 only after its own page 0');
    const walks = summary.walks ?? [];
    const started = [...walksByConnection.values()].reduce((a, b) => a + b, 0);
    assert.ok(walks.length > 5, `only ${walks.length} whole walks`);
    assert.ok(walks.every((ms) => ms > 0 && ms < 1000), walks.slice(0, 5).join(', '));
    // Every fourth walk of a connection is short; the walk in flight when wrk stopped counts as neither.
    const bad = summary.badWalks ?? 0;
    assert.ok(bad >= Math.floor(walks.length / 4) - 2 && bad <= Math.ceil(started / 4), `${bad} bad of ${walks.length} good, ${started} started`);
    assert.ok(walks.length + bad <= started && walks.length + bad >= started - 2, `${walks.length} + ${bad} walks of ${started} started`);
    assert.match(summary.samples[0] ?? '', /^a walk returned 5 items, expected 6$/);
  } finally {
    server.close();
  }
});
