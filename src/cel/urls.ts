/**
 * Kubernetes' URL library (SPEC 2.11; upstream pkg/cel/library/urls.go and
 * pkg/cel/url.go): `isURL`, `url` and the accessors of the opaque type
 * `kubernetes.URL`, with Go's net/url semantics (go-url.ts): a URL is an
 * absolute URI or an absolute path, as url.ParseRequestURI accepts, then
 * read by url.Parse. Two URLs are equal when their Go String() forms are.
 * Costs are upstream's estimator's (SPEC 8, cost.go): `url` one traversal of
 * its argument, the accessors and `isURL` 1.
 */
import { actualSize, traversal } from './cost.ts';
import { escapedPath, type GoUrl, parseRequestUri, parseUrl, queryValues, splitHostPort, urlString } from './go-url.ts';
import { nominalEstimate, traverse } from './estimate-standard.ts';
import type { CelLibrary } from './library.ts';

/** A `kubernetes.URL` value. */
export class CelUrl {
  readonly #url: GoUrl;

  constructor(url: GoUrl) {
    this.#url = url;
  }

  get url(): GoUrl {
    return this.#url;
  }

  equals(other: unknown): boolean {
    return other instanceof CelUrl && urlString(this.#url) === urlString(other.#url);
  }

  toString(): string {
    return urlString(this.#url);
  }
}

function isUrl(text: string): boolean {
  try {
    parseRequestUri(text);
    return true;
  } catch {
    return false;
  }
}

function toUrl(text: string): CelUrl {
  try {
    // ParseRequestURI validates; Parse reads, splitting off a fragment ParseRequestURI would leave in the path or query.
    parseRequestUri(text);
    return new CelUrl(parseUrl(text));
  } catch (err) {
    throw new Error(`URL parse error during conversion from string: ${(err as Error).message}`);
  }
}

const URL_TYPE = 'kubernetes.URL';

export const urlsLibrary: CelLibrary = {
  name: 'kubernetes.urls',
  types: [{ name: URL_TYPE, ctor: CelUrl }],
  functions: [
    { signature: 'isURL(string): bool', impl: isUrl },
    { signature: `url(string): ${URL_TYPE}`, impl: toUrl },
    { signature: `${URL_TYPE}.getScheme(): string`, impl: (u: CelUrl) => u.url.scheme },
    { signature: `${URL_TYPE}.getHost(): string`, impl: (u: CelUrl) => u.url.host },
    { signature: `${URL_TYPE}.getHostname(): string`, impl: (u: CelUrl) => splitHostPort(u.url.host).hostname },
    { signature: `${URL_TYPE}.getPort(): string`, impl: (u: CelUrl) => splitHostPort(u.url.host).port },
    { signature: `${URL_TYPE}.getEscapedPath(): string`, impl: (u: CelUrl) => escapedPath(u.url) },
    { signature: `${URL_TYPE}.getQuery(): map<string, list<string>>`, impl: (u: CelUrl) => queryValues(u.url) },
  ],
  operators: [{ signature: `${URL_TYPE} == ${URL_TYPE}`, impl: (a: CelUrl, b: CelUrl) => a.equals(b) }],
  costs: {
    url: (args) => traversal(actualSize(args[0])),
  },
  // isURL has none in Kubernetes' estimator: cel-go's 1.
  estimates: {
    url: ({ args }) => (args.length === 1 ? { cost: traverse(args[0].size()) } : undefined),
    ...Object.fromEntries(['getScheme', 'getHostname', 'getHost', 'getPort', 'getEscapedPath', 'getQuery'].map((name) => [name, nominalEstimate])),
  },
};
