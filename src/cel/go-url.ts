/**
 * Go's net/url as Kubernetes' URL library uses it (SPEC 2.11; upstream
 * pkg/cel/library/urls.go calls url.ParseRequestURI to validate, then
 * url.Parse): not the WHATWG parser. Nothing is normalised but the scheme's
 * case; the host keeps IPv6 brackets; escapes are validated byte by byte on
 * the UTF-8 text with Go's rules and errors read as Go's
 * (`parse "https://a:b:c/": invalid port ":c" after host`).
 */

type Mode = 'path' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

export interface GoUrl {
  scheme: string;
  opaque: string;
  user?: { username: Buffer; password?: Buffer };
  host: string;
  /** Decoded bytes, as Go keeps them (they need not be UTF-8). */
  path: Buffer;
  rawPath: string;
  omitHost: boolean;
  forceQuery: boolean;
  rawQuery: string;
  fragment: Buffer;
  rawFragment: string;
}

class UrlError extends Error {}

const HEX = '0123456789ABCDEF';
const isHex = (b: number | undefined) => b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));
const unhex = (b: number) => (b <= 0x39 ? b - 0x30 : (b | 0x20) - 0x61 + 10);
const isAlnum = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
const has = (chars: string, c: number) => c < 0x80 && chars.includes(String.fromCharCode(c));

/** Go's strconv.Quote of a byte string. */
export function goQuote(input: string | Buffer): string {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v', 0x22: '\\"', 0x5c: '\\\\' };
  let out = '"';
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    if (b < 0x80) {
      out += named[b] ?? (b < 0x20 || b === 0x7f ? `\\x${b.toString(16).padStart(2, '0')}` : String.fromCharCode(b));
      i++;
      continue;
    }
    const width = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    const text = bytes.subarray(i, i + width).toString('utf8');
    const cp = text.codePointAt(0)!;
    if (width === 1 || text.length === 0 || cp === 0xfffd || Buffer.byteLength(text) !== width) {
      out += `\\x${b.toString(16).padStart(2, '0')}`;
      i++;
      continue;
    }
    out += /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(text) ? text : cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    i += width;
  }
  return `${out}"`;
}

/** Go's shouldEscape: must byte `c` be %-escaped in this part of a URL? */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if ((mode === 'host' || mode === 'zone') && has(`!$&'()*+,;=:[]<>"`, c)) return false;
  if (has('-_.~', c)) return false;
  if (has('$&+,/:;=?@', c)) {
    if (mode === 'path') return c === 0x3f;
    if (mode === 'userPassword') return has('@/?:', c);
    if (mode === 'queryComponent') return true;
    if (mode === 'fragment') return false;
  }
  if (mode === 'fragment' && has('!()*', c)) return false;
  return true;
}

/** Go's unescape: validates every escape (and, in a host, every byte), then decodes. */
function unescape(text: string, mode: Mode): Buffer {
  const s = Buffer.from(text, 'utf8');
  for (let i = 0; i < s.length; ) {
    const c = s[i];
    if (c === 0x25) {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) throw new UrlError(`invalid URL escape ${goQuote(s.subarray(i, i + 3))}`);
      const escape = s.subarray(i, i + 3);
      const isPercent = escape.toString('latin1') === '%25';
      if (mode === 'host' && unhex(s[i + 1]) < 8 && !isPercent) throw new UrlError(`invalid URL escape ${goQuote(escape)}`);
      if (mode === 'zone') {
        const v = (unhex(s[i + 1]) << 4) | unhex(s[i + 2]);
        if (!isPercent && v !== 0x20 && shouldEscape(v, 'host')) throw new UrlError(`invalid URL escape ${goQuote(escape)}`);
      }
      i += 3;
    } else {
      if ((mode === 'host' || mode === 'zone') && c < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character ${goQuote(s.subarray(i, i + 1))} in host name`);
      }
      i++;
    }
  }
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === 0x25) {
      out.push((unhex(s[i + 1]) << 4) | unhex(s[i + 2]));
      i += 2;
    } else out.push(s[i] === 0x2b && mode === 'queryComponent' ? 0x20 : s[i]);
  }
  return Buffer.from(out);
}

function escape(bytes: Buffer, mode: Mode): string {
  let out = '';
  for (const c of bytes) {
    if (!shouldEscape(c, mode)) out += String.fromCharCode(c);
    else if (c === 0x20 && mode === 'queryComponent') out += '+';
    else out += `%${HEX[c >> 4]}${HEX[c & 15]}`;
  }
  return out;
}

function validEncoded(text: string, mode: Mode): boolean {
  for (const c of Buffer.from(text, 'utf8')) {
    if (!has(`!$&'()*+,;=:@[]%`, c) && shouldEscape(c, mode)) return false;
  }
  return true;
}

function validOptionalPort(port: string): boolean {
  return port === '' || (port[0] === ':' && /^[0-9]*$/.test(port.slice(1)));
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) continue;
    if ((c >= 0x30 && c <= 0x39) || has('+-.', c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) throw new UrlError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      return Buffer.concat([unescape(host.slice(0, zone), 'host'), unescape(host.slice(zone, i), 'zone'), unescape(host.slice(i), 'host')]).toString('utf8');
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1 && !validOptionalPort(host.slice(i))) throw new UrlError(`invalid port ${goQuote(host.slice(i))} after host`);
  }
  return unescape(host, 'host').toString('utf8');
}

function parseAuthority(authority: string): Pick<GoUrl, 'user' | 'host'> {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return { host };
  const userinfo = authority.slice(0, at);
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new UrlError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon < 0) return { host, user: { username: unescape(userinfo, 'userPassword') } };
  return { host, user: { username: unescape(userinfo.slice(0, colon), 'userPassword'), password: unescape(userinfo.slice(colon + 1), 'userPassword') } };
}

function emptyUrl(): GoUrl {
  return { scheme: '', opaque: '', host: '', path: Buffer.alloc(0), rawPath: '', omitHost: false, forceQuery: false, rawQuery: '', fragment: Buffer.alloc(0), rawFragment: '' };
}

/** Go's unexported parse. */
function parse(raw: string, viaRequest: boolean): GoUrl {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new UrlError('empty url');
  const url = emptyUrl();
  if (raw === '*') {
    url.path = Buffer.from('*');
    return url;
  }
  let rest: string;
  [url.scheme, rest] = getScheme(raw);
  url.scheme = url.scheme.toLowerCase();
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) {
    url.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) [rest, url.rawQuery] = [rest.slice(0, q), rest.slice(q + 1)];
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      url.opaque = rest;
      return url;
    }
    if (viaRequest) throw new UrlError('invalid URI for request');
    if (rest.split('/', 1)[0].includes(':')) throw new UrlError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) [authority, rest] = [authority.slice(0, slash), authority.slice(slash)];
    Object.assign(url, parseAuthority(authority));
  } else if (url.scheme !== '' && rest.startsWith('/')) url.omitHost = true;
  url.path = unescape(rest, 'path');
  url.rawPath = escape(url.path, 'path') === rest ? '' : rest;
  return url;
}

const wrap = (op: () => GoUrl, quoted: string): GoUrl => {
  try {
    return op();
  } catch (err) {
    if (err instanceof UrlError) throw new UrlError(`parse ${goQuote(quoted)}: ${err.message}`);
    throw err;
  }
};

/** Go's url.ParseRequestURI: an absolute URI or an absolute path; a fragment is not split off. */
export const parseRequestUri = (raw: string): GoUrl => wrap(() => parse(raw, true), raw);

/** Go's url.Parse: any URL reference, its fragment split off first. */
export function parseUrl(raw: string): GoUrl {
  const hash = raw.indexOf('#');
  const before = hash < 0 ? raw : raw.slice(0, hash);
  const url = wrap(() => parse(before, false), before);
  if (hash < 0 || hash === raw.length - 1) return url;
  const frag = raw.slice(hash + 1);
  return wrap(() => {
    url.fragment = unescape(frag, 'fragment');
    url.rawFragment = escape(url.fragment, 'fragment') === frag ? '' : frag;
    return url;
  }, raw);
}

const escapedRaw = (raw: string, decoded: Buffer, mode: Mode): string | undefined => {
  if (raw === '' || !validEncoded(raw, mode)) return undefined;
  try {
    return unescape(raw, mode).equals(decoded) ? raw : undefined;
  } catch {
    return undefined;
  }
};

/** Go's URL.EscapedPath: RawPath when it is a valid encoding of Path, otherwise Path escaped. */
export function escapedPath(url: GoUrl): string {
  const raw = escapedRaw(url.rawPath, url.path, 'path');
  if (raw !== undefined) return raw;
  if (url.path.toString('latin1') === '*') return '*';
  return escape(url.path, 'path');
}

/** Go's splitHostPort, for Hostname and Port. */
export function splitHostPort(hostPort: string): { hostname: string; port: string } {
  let hostname = hostPort;
  let port = '';
  const colon = hostname.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(hostname.slice(colon))) [hostname, port] = [hostname.slice(0, colon), hostname.slice(colon + 1)];
  if (hostname.startsWith('[') && hostname.endsWith(']')) hostname = hostname.slice(1, -1);
  return { hostname, port };
}

/** Go's URL.Query: the query's pairs, decoded; a malformed pair (a semicolon, a bad escape) is left out. */
export function queryValues(url: GoUrl): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const pair of url.rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    try {
      const key = unescape(eq < 0 ? pair : pair.slice(0, eq), 'queryComponent').toString('utf8');
      const value = unescape(eq < 0 ? '' : pair.slice(eq + 1), 'queryComponent').toString('utf8');
      values.set(key, [...(values.get(key) ?? []), value]);
    } catch {
      // Go's parseQuery records the error and goes on; Query() ignores it.
    }
  }
  return values;
}

/** Go's URL.String, by which upstream compares two URLs. */
export function urlString(url: GoUrl): string {
  let out = url.scheme ? `${url.scheme}:` : '';
  if (url.opaque) out += url.opaque;
  else {
    if ((url.scheme || url.host || url.user) && !(url.omitHost && !url.host && !url.user)) {
      if (url.host || url.path.length || url.user) out += '//';
      if (url.user) out += `${escape(url.user.username, 'userPassword')}${url.user.password ? `:${escape(url.user.password, 'userPassword')}` : ''}@`;
      if (url.host) out += escape(Buffer.from(url.host, 'utf8'), 'host');
    }
    const path = escapedPath(url);
    if (path && path[0] !== '/' && url.host) out += '/';
    if (!out && path.split('/', 1)[0].includes(':')) out += './';
    out += path;
  }
  if (url.forceQuery || url.rawQuery) out += `?${url.rawQuery}`;
  if (url.fragment.length) out += `#${escapedRaw(url.rawFragment, url.fragment, 'fragment') ?? escape(url.fragment, 'fragment')}`;
  return out;
}
