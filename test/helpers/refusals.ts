/**
 * Checks for hostile-corpus cases: the answer a case got is a Status with one
 * of its codes, reason and message, with the close it demands; and a snapshot
 * of every object a refused request could reach, to prove it changed nothing.
 */
import assert from 'node:assert/strict';
import type { HostileCase } from './hostile-requests.ts';
import type { RawExchange, RawResponse } from './raw-http.ts';
import type { TestServer } from './server.ts';

/**
 * Asserts `result` is a proper answer to `c`: one response, no reset, a code
 * in `allowed` (the case's own by default), a Status body for every failure,
 * and the case's reason and message when it got one of the case's own codes.
 */
export function checkAnswer(c: HostileCase, result: RawExchange, allowed: number[] = c.expect): RawResponse {
  const res = result.responses[0];
  assert.ok(res, `${c.name}: no answer (${result.error ?? 'waited'} after ${Math.round(result.ms)} ms)`);
  assert.ok(allowed.includes(res.status), `${c.name}: expected ${allowed}, got ${res.status}: ${res.text.slice(0, 300)}`);
  if (res.status >= 400) {
    assert.equal(res.body?.kind, 'Status', `${c.name}: not a Status: ${res.text.slice(0, 200)}`);
    assert.equal(res.body.apiVersion, 'v1');
    assert.equal(res.body.status, 'Failure');
    assert.equal(res.body.code, res.status, c.name);
  }
  if (c.expect.includes(res.status)) {
    if (c.reason) assert.equal(res.body.reason, c.reason, c.name);
    if (c.message) assert.match(res.body.message, c.message, c.name);
    if (c.closes) {
      assert.equal(res.headers.connection, 'close', c.name);
      assert.ok(result.closedByServer, `${c.name}: the server closes the connection`);
    }
  }
  return res;
}

const SNAPSHOT_PATHS = ['/api/v1/namespaces', '/api/v1/configmaps', '/api/v1/secrets', '/apis/networking.orch.io/v1/networkpolicies'];

/** Names, uids and resourceVersions of every object a hostile request could reach. */
export async function snapshot(server: TestServer): Promise<string> {
  const lines: string[] = [];
  for (const path of SNAPSHOT_PATHS) {
    const res = await server.request('GET', path);
    assert.equal(res.status, 200, res.text);
    lines.push(...res.body.items.map((i: any) => `${path} ${i.metadata.namespace ?? ''}/${i.metadata.name} ${i.metadata.uid} ${i.metadata.resourceVersion}`));
  }
  return lines.sort().join('\n');
}
