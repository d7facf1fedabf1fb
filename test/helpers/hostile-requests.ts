/**
 * The corpus of hostile requests below the handlers (issue 7): request targets
 * with dot segments and odd escapes, malformed request lines and framing,
 * oversized headers, malformed query values, Impersonate-* headers. Each case
 * is the exact bytes of one request and the answers it may get; every one of
 * them is a refusal, so none may change anything. Used by
 * hostile-requests.test.ts case by case and by robustness.test.ts in bulk.
 */
import { rawRequest } from './raw-http.ts';

export interface HostileCase {
  name: string;
  bytes: Buffer;
  /** The status codes the answer may have. */
  expect: number[];
  /** The answer's Status reason, where one is certain. */
  reason?: string;
  /** The answer's Status message. */
  message?: RegExp;
  /** The server must close the connection after answering. */
  closes?: boolean;
  /** The client half-closes after sending (a body that ends early). */
  end?: boolean;
}

export interface CorpusTargets {
  token: string;
  /** A namespace with ConfigMaps `cm1`, `cm2` (and `abc`) in it. */
  namespace: string;
  /** Another namespace holding a Secret `secret`. */
  other: string;
}

/** Request targets that name nothing unambiguously: 400 before authentication. */
export function pathCases({ token, namespace, other }: CorpusTargets): HostileCase[] {
  const cm = `/api/v1/namespaces/${namespace}/configmaps`;
  const table: Array<[string, string, RegExp]> = [
    ['DELETE', `${cm}/..`, /segment "\.\." may not be '\.\.'/],
    ['DELETE', `${cm}/%2e%2e`, /segment "\.\." may not be '\.\.'/],
    ['DELETE', `${cm}/%2E%2e`, /segment "\.\." may not be '\.\.'/],
    ['DELETE', `${cm}/.%2E`, /segment "\.\." may not be '\.\.'/],
    ['DELETE', `${cm}/.`, /segment "\." may not be '\.'/],
    ['DELETE', `${cm}/%2e`, /segment "\." may not be '\.'/],
    ['DELETE', `${cm}/cm1/..`, /segment "\.\." may not be '\.\.'/],
    ['DELETE', `${cm}/cm1/.`, /segment "\." may not be '\.'/],
    ['DELETE', `/api/v1/namespaces/${namespace}/..`, /may not be '\.\.'/],
    ['DELETE', `${cm}/../../${other}`, /may not be '\.\.'/],
    ['PUT', `${cm}/cm1/../cm2`, /may not be '\.\.'/],
    ['PATCH', `${cm}/%2e%2e`, /may not be '\.\.'/],
    ['POST', `/api/v1/namespaces/${namespace}/../${other}/configmaps`, /may not be '\.\.'/],
    ['GET', `/api/v1/namespaces/${namespace}/../${other}/secrets`, /may not be '\.\.'/],
    ['GET', `/api/v1/namespaces/${namespace}/%2E%2E/${other}/secrets/secret`, /may not be '\.\.'/],
    ['GET', `/api/v1/namespaces/${namespace}/./configmaps`, /may not be '\.'/],
    ['GET', `/api/v1/./namespaces`, /may not be '\.'/],
    ['GET', `/api/./v1/namespaces`, /may not be '\.'/],
    ['GET', `/../api/v1/namespaces`, /may not be '\.\.'/],
    ['GET', `/healthz/..`, /may not be '\.\.'/],
    ['GET', `/openapi/v3/../v2`, /may not be '\.\.'/],
    ['DELETE', `/api/v1/namespaces//configmaps`, /segment "" may not be empty/],
    ['DELETE', `/api/v1//namespaces/${namespace}`, /may not be empty/],
    ['DELETE', `//api/v1/namespaces/${namespace}`, /may not be empty/],
    ['DELETE', `${cm}//`, /may not be empty/],
    ['DELETE', `${cm}/cm1%2F..`, /segment "cm1\/\.\." may not contain '\/'/],
    ['DELETE', `/api/v1/namespaces/${namespace}%2fconfigmaps`, /may not contain '\/'/],
    ['GET', `${cm}/cm1%2fstatus`, /may not contain '\/'/],
    ['DELETE', `${cm}/cm%251`, /may not contain '%'/],
    ['DELETE', `${cm}/cm1%00`, /may not contain control characters/],
    ['DELETE', `${cm}/%0a`, /may not contain control characters/],
    ['DELETE', `${cm}/%zz`, /invalid URL escape "%zz"/],
    ['DELETE', `${cm}/%`, /invalid URL escape "%"/],
    ['DELETE', `${cm}/cm%2`, /invalid URL escape "%2"/],
    ['DELETE', `${cm}/%c0%af`, /invalid UTF-8/],
    ['DELETE', `${cm}/%ff`, /invalid UTF-8/],
    ['DELETE', `${cm}/%ed%a0%80`, /invalid UTF-8/],
    ['DELETE', `${cm}?labelSelector=%zz`, /invalid query string: invalid URL escape "%zz"/],
    ['DELETE', `${cm}?fieldSelector=metadata.name%3D%c0`, /invalid query string: invalid UTF-8/],
    ['GET', `*`, /invalid request target "\*"/],
  ];
  return table.map(([method, target, message]) => ({
    name: `${method} ${target}`,
    bytes: rawRequest(method, target, { token, headers: method === 'GET' || method === 'DELETE' ? {} : { 'Content-Type': 'application/json' }, body: method === 'GET' || method === 'DELETE' ? undefined : '{}' }),
    expect: [400],
    reason: 'BadRequest',
    message,
  }));
}

/** Framing Node's parser refuses or Go would: a Status, then the connection closes. */
export function framingCases({ token, namespace }: CorpusTargets): HostileCase[] {
  const cm = `/api/v1/namespaces/${namespace}/configmaps`;
  const host = 'Host: localhost\r\n';
  const auth = `Authorization: Bearer ${token}\r\n`;
  const table: Array<[string, string, number, string, RegExp, boolean?]> = [
    ['double spaces in the request line', `GET  ${cm}  HTTP/1.1\r\n${host}${auth}\r\n`, 400, 'BadRequest', /^malformed HTTP request "GET  \/api/],
    ['a request line without a version (HTTP/0.9)', `GET ${cm}\r\n\r\n`, 400, 'BadRequest', /^malformed HTTP request/],
    ['a tab for a space', `GET\t${cm} HTTP/1.1\r\n${host}\r\n`, 400, 'BadRequest', /^malformed HTTP request/],
    ['a trailing space after the version', `GET ${cm} HTTP/1.1 \r\n${host}\r\n`, 400, 'BadRequest', /^malformed HTTP request/],
    ['a lower-case method', `get ${cm} HTTP/1.1\r\n${host}\r\n`, 400, 'BadRequest', /^malformed HTTP request/],
    ['HTTP/9.9', `GET ${cm} HTTP/9.9\r\n${host}\r\n`, 505, 'HTTPVersionNotSupported', /^unsupported protocol version$/],
    ['HTTP/2.0 in HTTP/1 framing', `GET ${cm} HTTP/2.0\r\n${host}\r\n`, 505, 'HTTPVersionNotSupported', /^unsupported protocol version$/],
    ['HTTP/1.1 without Host', `GET ${cm} HTTP/1.1\r\n${auth}\r\n`, 400, 'BadRequest', /^missing required Host header$/],
    ['a space in a header name', `GET ${cm} HTTP/1.1\r\n${host}X Y: z\r\n\r\n`, 400, 'BadRequest', /^malformed HTTP request: /],
    ['a header without a colon', `GET ${cm} HTTP/1.1\r\n${host}Broken\r\n\r\n`, 400, 'BadRequest', /^malformed HTTP request: /],
    ['a NUL in a header value', `GET ${cm} HTTP/1.1\r\n${host}X-A: a\0b\r\n\r\n`, 400, 'BadRequest', /^malformed HTTP request: /],
    ['an obsolete folded header', `GET ${cm} HTTP/1.1\r\n${host}X-A: a\r\n b\r\n\r\n`, 400, 'BadRequest', /^malformed HTTP request: /],
    ['bare LF line ends', `GET ${cm} HTTP/1.1\n${host.trim()}\n\n`, 400, 'BadRequest', /^malformed HTTP request/],
    ['a broken chunk size', `POST ${cm} HTTP/1.1\r\n${host}${auth}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, 400, 'BadRequest', /chunk size/],
    ['Content-Length and Transfer-Encoding', `POST ${cm} HTTP/1.1\r\n${host}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 400, 'BadRequest', /Content-Length/],
    ['two different Content-Lengths', `POST ${cm} HTTP/1.1\r\n${host}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, 400, 'BadRequest', /^malformed HTTP request: /],
    ['a negative Content-Length', `POST ${cm} HTTP/1.1\r\n${host}Content-Length: -1\r\n\r\n`, 400, 'BadRequest', /^malformed HTTP request: /],
    ['CONNECT, which no route serves', `CONNECT localhost:443 HTTP/1.1\r\n${host}\r\n`, 405, 'MethodNotAllowed', /^the server does not allow this method/],
    ['an unsupported transfer coding', `POST ${cm} HTTP/1.1\r\n${host}Transfer-Encoding: gzip\r\n\r\n{}`, 501, 'NotImplemented', /^Unsupported transfer encoding$/],
    ['a body that ends before its Content-Length', `POST ${cm} HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{"metadata":{"name":"truncated"}}`, 400, 'BadRequest', /^unexpected EOF/, true],
    ['a chunked body that ends early', `POST ${cm} HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n{"metadata":`, 400, 'BadRequest', /^unexpected EOF/, true],
  ];
  return table.map(([name, bytes, code, reason, message, end]) => ({ name, bytes: Buffer.from(bytes, 'latin1'), expect: [code], reason, message, closes: true, end }));
}

/** Headers and targets near and over the limits (1 MiB of headers is served, more is 431). */
export function sizeCases({ token, namespace }: CorpusTargets): HostileCase[] {
  const cm = `/api/v1/namespaces/${namespace}/configmaps`;
  const manyTypes = Array.from({ length: 5000 }, (_, i) => `application/x-type-${i}`).join(', ');
  return [
    { name: 'a 64 KB bearer token', bytes: rawRequest('GET', cm, { token: 'x'.repeat(65536) }), expect: [401], reason: 'Unauthorized' },
    { name: 'a 100 KB continue token', bytes: rawRequest('GET', `${cm}?limit=1&continue=${'A'.repeat(100_000)}`, { token }), expect: [400], reason: 'BadRequest', message: /continue/ },
    { name: 'a 500 KB label selector', bytes: rawRequest('GET', `${cm}?labelSelector=${'a'.repeat(500_000)}`, { token }), expect: [400], reason: 'BadRequest' },
    { name: 'a 100,000-character name', bytes: rawRequest('GET', `${cm}/${'a'.repeat(100_000)}`, { token }), expect: [404], reason: 'NotFound' },
    { name: '5,000 Accept types', bytes: rawRequest('GET', `${cm}/cm1`, { token, headers: { Accept: manyTypes } }), expect: [406], reason: 'NotAcceptable' },
    { name: 'headers over 1 MiB', bytes: rawRequest('GET', `${cm}/cm1`, { token, headers: { 'X-Padding': 'p'.repeat(1_200_000) } }), expect: [431], reason: 'RequestHeaderFieldsTooLarge', closes: true },
    {
      name: 'a body over 3 MiB',
      bytes: rawRequest('POST', cm, { token, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'big' }, data: { k: 'v'.repeat(3 * 1024 * 1024) } }) }),
      expect: [413],
      reason: 'RequestEntityTooLarge',
    },
  ];
}

/** Query values upstream's parameter codec refuses, and headers asking for what is not served. */
export function optionCases({ token, namespace }: CorpusTargets): HostileCase[] {
  const cm = `/api/v1/namespaces/${namespace}/configmaps`;
  const badRequest = (name: string, method: string, target: string, message: RegExp, headers: Record<string, string> = {}): HostileCase => ({
    name,
    bytes: rawRequest(method, target, { token, headers }),
    expect: [400],
    reason: 'BadRequest',
    message,
  });
  return [
    badRequest('limit=abc', 'GET', `${cm}?limit=abc`, /^strconv\.ParseInt: parsing "abc": invalid syntax$/),
    badRequest('limit=', 'GET', `${cm}?limit=`, /invalid syntax/),
    badRequest('limit out of int64', 'GET', `${cm}?limit=99999999999999999999`, /value out of range/),
    badRequest('timeoutSeconds=1.5', 'GET', `${cm}?timeoutSeconds=1.5`, /invalid syntax/),
    badRequest('gracePeriodSeconds=abc on delete', 'DELETE', `${cm}/cm1?gracePeriodSeconds=abc`, /invalid syntax/),
    badRequest('gracePeriodSeconds=abc on deletecollection', 'DELETE', `${cm}?gracePeriodSeconds=abc`, /invalid syntax/),
    badRequest('timeout=abc', 'GET', `${cm}?timeout=abc`, /^invalid timeout specified in the request URL/),
    badRequest('dryRun=all', 'DELETE', `${cm}/cm1?dryRun=all`, /dryRun/),
    badRequest('propagationPolicy=Nope', 'DELETE', `${cm}/cm1?propagationPolicy=Nope`, /propagationPolicy/),
    badRequest('resourceVersionMatch without resourceVersion', 'DELETE', `${cm}?resourceVersionMatch=Exact`, /resourceVersionMatch/),
    badRequest('a label selector that does not parse', 'DELETE', `${cm}?labelSelector=a%20in%20(`, /./),
    badRequest('an unknown field selector', 'DELETE', `${cm}?fieldSelector=spec.nope%3Dx`, /not a known field selector/),
    badRequest('a continue token that is not one', 'DELETE', `${cm}?limit=1&continue=garbage`, /continue/),
    badRequest('Impersonate-Group without a user', 'DELETE', `${cm}/cm1`, /without impersonating a user$/, { 'Impersonate-Group': 'system:masters' }),
    { name: 'no credentials', bytes: rawRequest('DELETE', `${cm}/cm1`, { token: 'not-a-token' }), expect: [401], reason: 'Unauthorized' },
  ];
}

/** Every case of this corpus. */
export function hostileRequestCases(targets: CorpusTargets): HostileCase[] {
  return [...pathCases(targets), ...framingCases(targets), ...sizeCases(targets), ...optionCases(targets)];
}
