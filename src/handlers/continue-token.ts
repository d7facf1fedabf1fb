/**
 * Continue tokens of chunked lists (SPEC 2.3, 4.4.5; FACTS 3): base64url JSON
 * `{"v":"meta.orch.io/v1","rv":<revision>,"start":"<key after the list prefix>"}`.
 * The revision pins every chunk to the first chunk's snapshot.
 */
import * as errors from '../api/status-error.ts';

const TOKEN_VERSION = 'meta.orch.io/v1';

export interface ContinueToken {
  revision: number;
  /** Key, relative to the list prefix, to resume from (inclusive). */
  start: string;
}

export function encodeContinueToken(revision: number, lastKeyRelative: string): string {
  // `\0` sorts right after the last returned key: the next chunk starts past it.
  const json = JSON.stringify({ v: TOKEN_VERSION, rv: revision, start: `${lastKeyRelative}\u0000` });
  return Buffer.from(json).toString('base64url');
}

export function decodeContinueToken(token: string): ContinueToken {
  let parsed: any;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw errors.badRequest('invalid continue token: continue key is not valid: illegal base64 data');
  }
  if (parsed?.v !== TOKEN_VERSION) throw errors.badRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.orch.io/v1)');
  if (!Number.isInteger(parsed.rv) || typeof parsed.start !== 'string') {
    throw errors.badRequest('invalid continue token: continue key is not valid: missing start key or resourceVersion');
  }
  const start = parsed.start;
  if (start.startsWith('/') || start.split('/').some((s: string) => s === '..' || s === '.')) {
    throw errors.badRequest('invalid continue token: continue key is not valid: path traversal not allowed');
  }
  return { revision: parsed.rv, start };
}
