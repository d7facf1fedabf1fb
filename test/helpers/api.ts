/**
 * Assertions shared by the end-to-end API tests: the Status error body of
 * FACTS 1 and the causes of a 422 Invalid (FACTS 1.1).
 */
import assert from 'node:assert/strict';
import type { Response, TestServer } from './server.ts';

/**
 * Asserts a failure Status: HTTP code, `kind: Status`, `apiVersion: v1`,
 * `status: Failure`, `code` equal to the HTTP status, `reason`, and the message
 * (exact string, or a pattern).
 */
export function assertFailure(res: Response, code: number, reason: string, message?: string | RegExp): void {
  assert.equal(res.status, code, `expected ${code} ${reason}, got ${res.status}: ${res.text}`);
  assert.ok(res.body, `not a JSON body: ${res.text}`);
  assert.equal(res.body.kind, 'Status');
  assert.equal(res.body.apiVersion, 'v1');
  assert.deepEqual(res.body.metadata, {});
  assert.equal(res.body.status, 'Failure');
  assert.equal(res.body.code, code);
  assert.equal(res.body.reason, reason);
  if (typeof message === 'string') assert.equal(res.body.message, message);
  else if (message) assert.match(res.body.message, message);
}

/** `[reason, field]` of every cause of a Status, in order. */
export function causesOf(res: Response): Array<[string, string]> {
  return (res.body?.details?.causes ?? []).map((c: any) => [c.reason, c.field]);
}

/** Names of the items of a list response, sorted. */
export function itemNames(res: Response): string[] {
  assert.equal(res.status, 200, res.text);
  return res.body.items.map((i: any) => i.metadata.name).sort();
}

/** A write that must succeed (200 or 201); returns the object. */
export async function expectWrite(server: TestServer, method: string, path: string, body?: unknown): Promise<any> {
  const res = await server.request(method, path, { body });
  assert.ok(res.status === 200 || res.status === 201, `${method} ${path}: ${res.text}`);
  return res.body;
}

/** A GET that must answer 200; returns the body. */
export async function expectGet(server: TestServer, path: string): Promise<any> {
  const res = await server.request('GET', path);
  assert.equal(res.status, 200, `GET ${path}: ${res.text}`);
  return res.body;
}
