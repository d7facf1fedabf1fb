// Hostile requests below the handlers (issue 7): request targets are never
// normalised, framing errors are Status answers with a clean close, headers up
// to 1 MiB are served, query values are parsed as upstream, every request has a
// deadline, in-flight limits answer 429, Impersonate-* is refused. All over real
// TLS, byte for byte, so no client library tidies the request first.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { rawExchange, rawRequest, type RawExchange, type RawResponse } from './helpers/raw-http.ts';
import { framingCases, optionCases, pathCases, sizeCases, type CorpusTargets, type HostileCase } from './helpers/hostile-requests.ts';
import { checkAnswer, snapshot } from './helpers/refusals.ts';

const NS = 'hostile';
const OTHER = 'hostile-other';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const REQUEST_TIMEOUT_S = 2;

let server: TestServer;

function exchange(bytes: string | Buffer, options: Parameters<typeof rawExchange>[3] = {}): Promise<RawExchange> {
  return rawExchange(server.port, server.ca, bytes, { waitMs: 5000, ...options });
}

/** One request on its own connection, answered once. */
async function send(method: string, target: string, options: Parameters<typeof rawRequest>[2] = {}): Promise<RawResponse> {
  const result = await exchange(rawRequest(method, target, { token: server.token, ...options }), { responses: 1 });
  assert.equal(result.responses.length, 1, `no answer to ${method} ${target.slice(0, 200)}: ${result.error ?? 'timed out'}`);
  return result.responses[0];
}

function assertStatus(res: RawResponse, code: number, reason: string, message?: string | RegExp): void {
  assert.equal(res.status, code, `expected ${code}, got ${res.status}: ${res.text.slice(0, 300)}`);
  assert.equal(res.body?.kind, 'Status', res.text.slice(0, 300));
  assert.equal(res.body.code, code);
  assert.equal(res.body.reason, reason);
  if (typeof message === 'string') assert.equal(res.body.message, message);
  else if (message) assert.match(res.body.message, message);
}

/** A token the test knows before the server starts, so the corpus can be built when the tests are declared. */
const TOKEN = 'hostile-requests-token';

function targets(): CorpusTargets {
  return { token: TOKEN, namespace: NS, other: OTHER };
}

function tokenFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'orch-tokens-'));
  writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},hostile-admin,hostile-admin-uid,"system:masters"\n`);
  return join(dir, 'tokens.csv');
}

/** Sends one corpus case: its answer, the close it demands, and no change anywhere. */
async function expectRefusal(c: HostileCase): Promise<void> {
  const before = await snapshot(server);
  checkAnswer(c, await exchange(c.bytes, { end: c.end, responses: c.closes ? undefined : 1 }));
  assert.equal(await snapshot(server), before);
}

before(async () => {
  server = await startTestServer([`--request-timeout=${REQUEST_TIMEOUT_S}s`, `--token-auth-file=${tokenFile()}`, '--controllers=garbagecollector,namespace']);
  for (const ns of [NS, OTHER]) assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
  for (const name of ['cm1', 'cm2', 'abc']) {
    assert.equal((await server.request('POST', CM, { body: { metadata: { name }, data: { k: name } } })).status, 201);
  }
  assert.equal((await server.request('POST', `/api/v1/namespaces/${OTHER}/secrets`, { body: { metadata: { name: 'secret' }, stringData: { password: 'p' } } })).status, 201);
});
after(() => server?.close());

describe('request targets are never normalised', () => {
  for (const c of pathCases(targets())) {
    test(`${c.name} is 400 and acts on nothing`, () => expectRefusal(c));
  }

  test('the refusal comes before authentication and authorization', async () => {
    const res = await send('DELETE', `${CM}/..`, { token: 'not-a-token' });
    assertStatus(res, 400, 'BadRequest');
  });

  test('a secret of another namespace is never served through a dot segment, whatever the escapes', async () => {
    for (const dots of ['..', '%2e%2e', '%2E%2E', '.%2e', '%2e.']) {
      const res = await send('GET', `/api/v1/namespaces/${NS}/${dots}/${OTHER}/secrets`);
      assert.equal(res.status, 400);
      assert.doesNotMatch(res.text, /password/);
    }
  });

  test('escapes of ordinary characters name the same object, and the absolute form names its path', async () => {
    const escaped = await send('GET', `${CM}/%61bc`);
    assert.equal(escaped.status, 200, escaped.text);
    assert.equal(escaped.body.metadata.name, 'abc');
    const absolute = await send('GET', `https://localhost${CM}/cm1`);
    assert.equal(absolute.status, 200, absolute.text);
    assert.equal(absolute.body.metadata.name, 'cm1');
    const trailing = await send('GET', `${CM}/cm1/`);
    assert.equal(trailing.body.metadata.name, 'cm1');
  });
});

describe('framing errors are a Status and close the connection', () => {
  for (const c of framingCases(targets())) test(c.name, () => expectRefusal(c));

  test('a malformed line is judged however the bytes are split', async () => {
    const result = await exchange(`GET  ${CM}  HTTP/1.1\r\nHost: localhost\r\n\r\n`, { pieces: { size: 1, delayMs: 1 } });
    assertStatus(result.responses[0], 400, 'BadRequest', /^malformed HTTP request/);
    assert.ok(result.closedByServer);
  });

  test('requests before a malformed one on the same connection are answered, the malformed one and after are refused', async () => {
    const body = JSON.stringify({ metadata: { name: 'pipelined' } });
    const good = rawRequest('GET', `${CM}/cm1`, { token: server.token });
    const post = rawRequest('POST', CM, { token: server.token, headers: { 'Content-Type': 'application/json' }, body });
    const bad = `GET  ${CM}/cm2  HTTP/1.1\r\nHost: localhost\r\n\r\n`;
    const result = await exchange(Buffer.concat([good, post, Buffer.from(bad), good]));
    assert.deepEqual(result.responses.map((r) => r.status), [200, 201, 400]);
    assert.ok(result.closedByServer);
    assert.equal((await server.request('DELETE', `${CM}/pipelined`)).status, 200);
  });

  test('leading empty lines and a request split byte by byte are still served', async () => {
    const result = await exchange(Buffer.concat([Buffer.from('\r\n'), rawRequest('GET', `${CM}/cm1`, { token: server.token })]), { pieces: { size: 3, delayMs: 1 }, responses: 1 });
    assert.equal(result.responses[0]?.status, 200);
  });
});

describe('sizes as upstream: 1 MiB of headers, 3 MiB of body', () => {
  for (const c of sizeCases(targets())) test(`${c.name} is read and refused as such`, () => expectRefusal(c));

  test('5,000 Accept types are read, and JSON among them is served', async () => {
    const types = Array.from({ length: 5000 }, (_, i) => `application/x-type-${i}`);
    assertStatus(await send('GET', `${CM}/cm1`, { headers: { Accept: types.join(', ') } }), 406, 'NotAcceptable');
    const res = await send('GET', `${CM}/cm1`, { headers: { Accept: [...types, 'application/json'].join(', ') } });
    assert.equal(res.status, 200);
  });
  test('headers of 1,000,000 bytes are served', async () => {
    const res = await send('GET', `${CM}/cm1`, { headers: { 'X-Padding': 'p'.repeat(1_000_000) } });
    assert.equal(res.status, 200);
  });
  test('many small headers are all read', async () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 5000; i++) headers[`X-H${i}`] = 'v';
    headers['Impersonate-Group'] = 'qa';
    // The last header still counts: nothing is dropped after Node's default 2,000 (a group without a user is 400).
    assertStatus(await send('GET', `${CM}/cm1`, { headers }), 400, 'BadRequest');
  });
});

describe('query values are parsed as upstream', () => {
  for (const c of optionCases(targets())) test(`${c.name} is refused`, () => expectRefusal(c));

  test('booleans: only 0 and false in any case are false', async () => {
    const apply = (force: string) =>
      send('PATCH', `${CM}/cm1?fieldManager=hostile&force=${force}`, {
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' }, data: { k: `forced-${force}` } }),
      });
    // The creator owns data.k through its Update entry: only a forced apply may take it.
    for (const value of ['True', 'TRUE', 'true', '1', '', 'yes']) assert.equal((await apply(value)).status, 200, `force=${value}`);
    for (const value of ['False', 'FALSE', '0']) {
      await server.request('PUT', `${CM}/cm1`, { body: { metadata: { name: 'cm1' }, data: { k: 'cm1' } } });
      assertStatus(await apply(value), 409, 'Conflict');
    }
  });

  test('watch=FALSE is a list, watch=True a watch', async () => {
    const list = await send('GET', `${CM}?watch=FALSE`);
    assert.equal(list.body.kind, 'ConfigMapList');
    const watch = await exchange(rawRequest('GET', `${CM}?watch=True&timeoutSeconds=1`, { token: server.token }), { waitMs: 4000 });
    assert.equal(watch.responses[0]?.status, 200);
    assert.match(watch.responses[0].text, /"type":"ADDED"/);
  });

  test('orphanDependents=TRUE and allowWatchBookmarks=True are accepted', async () => {
    await server.request('POST', CM, { body: { metadata: { name: 'orphaned' } } });
    const res = await send('DELETE', `${CM}/orphaned?orphanDependents=TRUE`);
    assert.ok(res.status === 200, res.text);
    const watch = await exchange(rawRequest('GET', `${CM}?watch=1&allowWatchBookmarks=True&timeoutSeconds=1`, { token: server.token }), { waitMs: 4000 });
    assert.equal(watch.responses[0]?.status, 200);
  });

  const integers: Array<[string, number, RegExp | undefined]> = [
    ['limit=abc', 400, /^strconv\.ParseInt: parsing "abc": invalid syntax$/],
    ['limit=', 400, /^strconv\.ParseInt: parsing "": invalid syntax$/],
    ['limit=1.5', 400, /invalid syntax/],
    ['limit=1e3', 400, /invalid syntax/],
    ['limit=0x10', 400, /invalid syntax/],
    ['limit=99999999999999999999', 400, /^strconv\.ParseInt: parsing "99999999999999999999": value out of range$/],
    ['limit=-9223372036854775809', 400, /value out of range/],
    ['limit=-5', 200, undefined],
    ['limit=%2B2', 200, undefined],
    ['limit=+2', 400, /^strconv\.ParseInt: parsing " 2": invalid syntax$/],
    ['limit=9223372036854775807', 200, undefined],
    ['timeoutSeconds=abc', 400, /invalid syntax/],
  ];
  for (const [query, code, message] of integers) {
    test(`list ?${query} is ${code}`, async () => {
      const res = await send('GET', `${CM}?${query}`);
      if (code === 200) assert.equal(res.status, 200, res.text);
      else assertStatus(res, code, 'BadRequest', message);
    });
  }

  test('a negative limit is no limit, +2 is 2', async () => {
    assert.equal((await send('GET', `${CM}?limit=-5`)).body.items.length, 3);
    assert.equal((await send('GET', `${CM}?limit=%2B2`)).body.items.length, 2);
  });

  test('a negative gracePeriodSeconds counts as 1 s; a malformed one is 400 and deletes nothing', async () => {
    await server.request('POST', CM, { body: { metadata: { name: 'graceful' } } });
    assertStatus(await send('DELETE', `${CM}/graceful?gracePeriodSeconds=abc`), 400, 'BadRequest', /invalid syntax/);
    assert.equal((await server.request('GET', `${CM}/graceful`)).status, 200);
    assert.equal((await send('DELETE', `${CM}/graceful?gracePeriodSeconds=-10`)).status, 200);
  });

  test('a watch for timeoutSeconds=99999999 stays open; a negative one ends at once', async () => {
    const long = await exchange(rawRequest('GET', `${CM}?watch=1&timeoutSeconds=99999999`, { token: server.token }), { waitMs: 1500 });
    assert.equal(long.responses.length, 0, 'the watch has not ended after 1.5 s');
    assert.equal(long.closedByServer, false);
    const negative = await exchange(rawRequest('GET', `${CM}?watch=1&timeoutSeconds=-1`, { token: server.token }), { waitMs: 4000, responses: 1 });
    assert.equal(negative.responses[0]?.status, 200);
    assert.ok(negative.ms < 1000, `ended after ${negative.ms} ms`);
  });

  test('an unparsable timeout parameter is 400; a valid one shortens the deadline', async () => {
    assertStatus(await send('GET', `${CM}?timeout=abc`), 400, 'BadRequest', 'invalid timeout specified in the request URL - time: invalid duration "abc"');
    assertStatus(await send('GET', `${CM}?timeout=5`), 400, 'BadRequest', 'invalid timeout specified in the request URL - time: missing unit in duration "5"');
    const started = performance.now();
    assertStatus(await send('GET', `${CM}/cm1?resourceVersion=999999999&timeout=500ms`), 504, 'Timeout');
    assert.ok(performance.now() - started < 1500);
  });

  test('pretty follows strconv.ParseBool', async () => {
    assert.match((await send('GET', `${CM}/cm1?pretty=True`)).text, /\n {2}"kind"/);
    assert.doesNotMatch((await send('GET', `${CM}/cm1?pretty=yes`)).text, /\n/);
  });
});

describe('every request is bounded in time (--request-timeout)', () => {
  test('a read that waits past the deadline is 504 Timeout', async () => {
    const started = performance.now();
    const res = await send('GET', `${CM}/cm1?resourceVersion=999999999`);
    const elapsed = performance.now() - started;
    assertStatus(res, 504, 'Timeout', 'Timeout: request did not complete within the allotted timeout');
    assert.ok(elapsed >= REQUEST_TIMEOUT_S * 1000 - 100 && elapsed < REQUEST_TIMEOUT_S * 1000 + 1500, `answered after ${elapsed} ms`);
  });

  test('a body never finished gets 504 at the deadline, nothing is written, and the connection ends', async () => {
    const before = await snapshot(server);
    const head = rawRequest('POST', CM, { token: server.token, headers: { 'Content-Type': 'application/json', 'Content-Length': '100' } });
    const result = await exchange(Buffer.concat([head, Buffer.from('{"metadata":{"name":"slow"')]), { waitMs: 15_000 });
    assertStatus(result.responses[0], 504, 'Timeout');
    assert.ok(result.closedByServer, 'the half-sent request does not hold the connection');
    assert.ok(result.ms < REQUEST_TIMEOUT_S * 1000 + 7000, `closed after ${result.ms} ms`);
    assert.equal(await snapshot(server), before);
  });

  test('headers sent a byte at a time are cut off', async () => {
    const result = await exchange(rawRequest('GET', `${CM}/cm1`, { token: server.token, headers: { 'X-Slow': 's'.repeat(200) } }), {
      pieces: { size: 1, delayMs: 50 },
      waitMs: 15_000,
    });
    assert.ok(result.closedByServer, 'closed');
    assert.ok(result.ms < REQUEST_TIMEOUT_S * 1000 + 7000, `closed after ${result.ms} ms`);
    if (result.responses.length) assertStatus(result.responses[0], 408, 'RequestTimeout');
  });

  test('a connection that never sends a byte, or never finishes its handshake, is closed', async () => {
    const silent = await exchange('', { waitMs: 15_000 });
    assert.ok(silent.closedByServer, 'closed');
    assert.ok(silent.ms < REQUEST_TIMEOUT_S * 1000 + 7000, `closed after ${silent.ms} ms`);
    const started = performance.now();
    const handshake = await new Promise<number>((resolve) => {
      const socket = connectTcp(server.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.on('close', () => resolve(performance.now() - started));
      setTimeout(() => socket.destroy(), 15_000);
    });
    assert.ok(handshake < REQUEST_TIMEOUT_S * 1000 + 7000, `closed after ${handshake} ms`);
  });

  test('a watch outlives the request timeout', async () => {
    const watch = await exchange(rawRequest('GET', `${CM}?watch=1`, { token: server.token }), { waitMs: REQUEST_TIMEOUT_S * 1000 + 1000 });
    assert.equal(watch.responses.length, 0, 'the watch is still streaming');
    assert.equal(watch.closedByServer, false);
  });
});

describe('Impersonate-* headers that cannot be honoured', () => {
  test('groups, extras or a uid without a user are 400 and write nothing', async () => {
    const before = await snapshot(server);
    for (const header of ['Impersonate-Group', 'Impersonate-Uid', 'Impersonate-Extra-Scopes']) {
      assertStatus(await send('POST', CM, { headers: { [header]: 'x', 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'as-nobody' } }) }), 400, 'BadRequest', /without impersonating a user$/);
    }
    assert.equal(await snapshot(server), before);
  });
  test('an unauthenticated caller is still 401 first', async () => {
    assertStatus(await send('GET', CM, { token: 'nope', headers: { 'Impersonate-User': 'bob' } }), 401, 'Unauthorized');
  });
});

describe('in-flight limits (--max-requests-inflight, --max-mutating-requests-inflight)', () => {
  let limited: TestServer;
  const userToken = 'alice-token';
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-tokens-'));
    writeFileSync(join(dir, 'tokens.csv'), `${userToken},alice,alice-uid,"developers"\n`);
    // The limits are per server process, as per kube-apiserver replica: one process makes them exact.
    limited = await startTestServer(['--workers=1', '--authorization-mode=AlwaysAllow', '--max-requests-inflight=2', '--max-mutating-requests-inflight=1', `--token-auth-file=${join(dir, 'tokens.csv')}`, '--request-timeout=10s']);
    assert.equal((await limited.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
  });
  after(() => limited?.close());
  const ex = (bytes: Buffer, options: Parameters<typeof rawExchange>[3] = {}) => rawExchange(limited.port, limited.ca, bytes, { waitMs: 5000, responses: 1, ...options });

  test('writes beyond the mutating limit get 429 with Retry-After; reads, probes, watches and system:masters pass', async () => {
    // A write holds its slot while its body is still arriving.
    const slow = ex(rawRequest('POST', CM, { token: userToken, headers: { 'Content-Type': 'application/json', 'Content-Length': '40' } }), { waitMs: 1500 });
    await new Promise((r) => setTimeout(r, 300));
    const refused = (await ex(rawRequest('POST', CM, { token: userToken, headers: { 'Content-Type': 'application/json' }, body: '{"metadata":{"name":"second"}}' }))).responses[0];
    assertStatus(refused, 429, 'TooManyRequests', 'Too many requests, please try again later.');
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.body.details.retryAfterSeconds, 1);
    assert.equal((await ex(rawRequest('GET', CM, { token: userToken }))).responses[0].status, 200);
    assert.equal((await ex(rawRequest('GET', '/livez', {}))).responses[0].status, 200);
    const admin = (await ex(rawRequest('POST', CM, { token: limited.token, headers: { 'Content-Type': 'application/json' }, body: '{"metadata":{"name":"by-admin"}}' }))).responses[0];
    assert.equal(admin.status, 201, admin.text);
    await slow;
    // The slot is free again once the slow write ended.
    const after = (await ex(rawRequest('POST', CM, { token: userToken, headers: { 'Content-Type': 'application/json' }, body: '{"metadata":{"name":"third"}}' }))).responses[0];
    assert.equal(after.status, 201, after.text);
  });

  test('reads beyond the read limit get 429; watches are not counted', async () => {
    const watches = [0, 1, 2].map(() => ex(rawRequest('GET', `${CM}?watch=1&timeoutSeconds=2`, { token: userToken }), { waitMs: 2500, responses: 0 }));
    const waiting = [0, 1].map(() => ex(rawRequest('GET', `${CM}/by-admin?resourceVersion=999999999`, { token: userToken }), { waitMs: 5000 }));
    await new Promise((r) => setTimeout(r, 300));
    assertStatus((await ex(rawRequest('GET', CM, { token: userToken }))).responses[0], 429, 'TooManyRequests');
    for (const r of await Promise.all(waiting)) assertStatus(r.responses[0], 504, 'Timeout');
    await Promise.all(watches);
    assert.equal((await ex(rawRequest('GET', CM, { token: userToken }))).responses[0].status, 200);
  });
});
