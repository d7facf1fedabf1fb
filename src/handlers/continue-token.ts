/**
 * Continue tokens of chunked lists (SPEC 2.3, 4.4.5; FACTS 3): base64url JSON
 * `{"v":"meta.orch.io/v1","rv":<revision>,"start":"<key after the list prefix>"}`.
 * The revision pins every chunk to the first chunk's snapshot; `rv: -1` (the
 * token inside a 410 for a compacted snapshot) continues at the latest revision.
 * Decode errors carry upstream's messages (storage/continue.go `DecodeContinue`).
 */
import { posix } from 'node:path';
import * as errors from '../api/status-error.ts';

const TOKEN_VERSION = 'meta.orch.io/v1';

export interface ContinueToken {
  /** Snapshot revision; -1 = the latest revision (inconsistent continue). */
  revision: number;
  /** Key, relative to the list prefix, to resume from (inclusive). */
  start: string;
}

/** A token resuming at `start` (relative to the list prefix, inclusive). */
export function encodeContinueStart(revision: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, rv: revision, start })).toString('base64url');
}

export function encodeContinueToken(revision: number, lastKeyRelative: string): string {
  // `\0` sorts right after the last returned key: the next chunk starts past it.
  return encodeContinueStart(revision, `${lastKeyRelative}\u0000`);
}

function invalid(detail: string): errors.StatusError {
  return errors.badRequest(`invalid continue token: continue key is not valid${detail}`);
}

/** Go's base64.RawURLEncoding error position: the first illegal byte, or the dangling last one. */
function base64Error(token: string): string | undefined {
  const bad = token.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0) return `illegal base64 data at input byte ${bad}`;
  if (token.length % 4 === 1) return `illegal base64 data at input byte ${token.length - 1}`;
  return undefined;
}

export function decodeContinueToken(token: string): ContinueToken {
  const base64Problem = base64Error(token);
  if (base64Problem) throw invalid(`: ${base64Problem}`);
  let parsed: any;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (err) {
    throw invalid(`: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid(': cannot unmarshal into a continue token');
  const { v = '', rv = 0, start = '' } = parsed;
  if (typeof v !== 'string' || !Number.isInteger(rv) || typeof start !== 'string') throw invalid(': cannot unmarshal into a continue token');
  if (v !== TOKEN_VERSION) throw invalid(`: server does not recognize this encoded version ${v}`);
  if (rv === 0) throw invalid(`: incorrect encoded start resourceVersion (version ${TOKEN_VERSION})`);
  if (start === '') throw invalid(`: encoded start key empty (version ${TOKEN_VERSION})`);
  // Path traversal: the start key must already be clean, so it stays under the list prefix.
  const rooted = start.startsWith('/') ? start : `/${start}`;
  let cleaned = posix.normalize(rooted);
  if (cleaned.length > 1 && cleaned.endsWith('/')) cleaned = cleaned.slice(0, -1);
  if (cleaned !== rooted) throw invalid(`: ${start}`);
  return { revision: rv, start: cleaned.slice(1) };
}
