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

/**
 * Percent-decodes strictly: a malformed escape is Go's `invalid URL escape`, and
 * invalid UTF-8 is an error (decodeURIComponent refuses it), never a replacement
 * character.
 */
function decodeComponent(text: string): string {
  if (!text.includes('%')) return text;
  const bad = /%(?![0-9A-Fa-f]{2})/.exec(text);
  if (bad) throw new Error(`invalid URL escape ${JSON.stringify(text.slice(bad.index, bad.index + 3))}`);
  try {
    return decodeURIComponent(text);
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
 * What makes a raw path need decoding or refusing: an escape, a control
 * character, an empty segment or a dot segment. Paths without any (nearly all)
 * are split as they are.
 */
const NEEDS_CHECK = /%|[\x00-\x1f\x7f]|\/\/|\/\.\.?(?:\/|$)/;

function pathSegments(rawPath: string): string[] {
  const rawSegments = rawPath.split('/').slice(1);
  // One trailing slash is tolerated (`/api/`, `.../configmaps/`): it names the same resource.
  if (rawSegments.length > 1 && rawSegments[rawSegments.length - 1] === '') rawSegments.pop();
  if (rawSegments.length === 1 && rawSegments[0] === '') return [];
  if (!NEEDS_CHECK.test(rawPath)) return rawSegments;
  return rawSegments.map((rawSegment) => {
    let segment: string;
    try {
      segment = decodeComponent(rawSegment);
    } catch (err) {
      throw badRequest(`invalid request path ${JSON.stringify(rawPath)}: ${(err as Error).message}`);
    }
    const problem = segmentProblem(segment);
    if (problem) throw badRequest(`invalid request path ${JSON.stringify(rawPath)}: segment ${JSON.stringify(segment)} ${problem}`);
    return segment;
  });
}

function queryParameters(rawQuery: string): URLSearchParams {
  // The native parser replaces what it cannot decode; checking the whole string first
  // is the same as checking each name and value, since separators are never part of
  // an escape or a UTF-8 sequence.
  try {
    decodeComponent(rawQuery);
  } catch (err) {
    throw badRequest(`invalid query string: ${(err as Error).message}`);
  }
  return new URLSearchParams(rawQuery);
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
  const segments = pathSegments(rawPath);
  return { path: '/' + segments.join('/'), segments, query: queryParameters(queryStart < 0 ? '' : target.slice(queryStart + 1)) };
}
