/**
 * The request target exactly as sent (DESIGN: paths are never normalised).
 * Each path segment is percent-decoded on its own, so an encoded slash stays
 * inside its segment and is refused instead of becoming a separator; no dot
 * segment is ever resolved: `.`, `..` (literal or encoded, any case), empty
 * segments, `/`, `%` or control characters inside a segment, malformed escapes
 * and invalid UTF-8 are a 400 before authentication, authorization and routing,
 * so no request can act on another object, namespace or collection than the
 * one its path names. The rules are upstream's for path-segment names
 * (IsValidPathSegmentName: never `.` or `..`, never `/` or `%`), applied to every
 * segment.
 */
import { badRequest } from '../api/status-error.ts';

export interface RequestTarget {
  /** The decoded path, `/` joined: what request info, authorization and non-resource routing see. */
  path: string;
  /** Decoded segments without the leading empty one; a single trailing slash is dropped. */
  segments: string[];
  query: URLSearchParams;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Percent-decodes strictly: a malformed escape or invalid UTF-8 is an error, never a replacement character. */
function decodeComponent(raw: string, plusIsSpace: boolean): string {
  const text = plusIsSpace ? raw.replaceAll('+', ' ') : raw;
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x25) {
      // Request targets are ASCII on the wire (the parser refuses other bytes); keep any other unit as UTF-8.
      if (c < 0x80) bytes.push(c);
      else bytes.push(...Buffer.from(text[i], 'utf8'));
      continue;
    }
    const hex = text.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new Error(`invalid URL escape ${JSON.stringify(text.slice(i, i + 3))}`);
    bytes.push(Number.parseInt(hex, 16));
    i += 2;
  }
  try {
    return utf8.decode(Uint8Array.from(bytes));
  } catch {
    throw new Error('invalid UTF-8 after percent-decoding');
  }
}

/** Upstream's path-segment name rules, for every segment, plus what no name may hold. */
function segmentProblem(segment: string): string | undefined {
  if (segment === '') return 'may not be empty';
  if (segment === '.' || segment === '..') return `may not be '${segment}'`;
  if (segment.includes('/')) return "may not contain '/'";
  if (segment.includes('%')) return "may not contain '%'";
  if (/[\x00-\x1f\x7f]/.test(segment)) return 'may not contain control characters';
  return undefined;
}

/**
 * Parses `req.url` (origin form, or the absolute form HTTP/1.1 allows); throws
 * a 400 StatusError for anything that does not name one path unambiguously.
 */
export function parseRequestTarget(raw: string): RequestTarget {
  let target = raw;
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*/.exec(target);
  if (absolute) target = target.slice(absolute[0].length) || '/';
  if (!target.startsWith('/')) throw badRequest(`invalid request target ${JSON.stringify(raw)}: it must be an absolute path`);
  const queryStart = target.indexOf('?');
  const rawPath = queryStart < 0 ? target : target.slice(0, queryStart);
  const rawQuery = queryStart < 0 ? '' : target.slice(queryStart + 1);

  const rawSegments = rawPath.split('/').slice(1);
  // One trailing slash is tolerated (`/api/`, `.../configmaps/`): it names the same resource.
  if (rawSegments.length > 1 && rawSegments[rawSegments.length - 1] === '') rawSegments.pop();
  const segments: string[] = [];
  if (!(rawSegments.length === 1 && rawSegments[0] === '')) {
    for (const rawSegment of rawSegments) {
      let segment: string;
      try {
        segment = decodeComponent(rawSegment, false);
      } catch (err) {
        throw badRequest(`invalid request path ${JSON.stringify(rawPath)}: ${(err as Error).message}`);
      }
      const problem = segmentProblem(segment);
      if (problem) throw badRequest(`invalid request path ${JSON.stringify(rawPath)}: segment ${JSON.stringify(segment)} ${problem}`);
      segments.push(segment);
    }
  }

  const query = new URLSearchParams();
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    try {
      query.append(decodeComponent(eq < 0 ? pair : pair.slice(0, eq), true), eq < 0 ? '' : decodeComponent(pair.slice(eq + 1), true));
    } catch (err) {
      throw badRequest(`invalid query string: ${(err as Error).message}`);
    }
  }
  return { path: '/' + segments.join('/'), segments, query };
}
