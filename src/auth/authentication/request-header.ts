/**
 * The authenticating proxy (SPEC 5.2, `--requestheader-*`): a front proxy that
 * authenticated the user passes it in headers. They count only on a connection
 * whose client certificate `--requestheader-client-ca-file` verifies and whose
 * common name `--requestheader-allowed-names` allows (any, when empty); from
 * anyone else they are ignored and removed, and the request is authenticated by
 * its other credentials. Upstream's headerrequest authenticator.
 */
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../../api/user.ts';
import { presentedCertificates, subjectOf, type CertificateBundle } from './client-certificate.ts';
import type { RequestAuthenticator } from './authenticator.ts';

export interface RequestHeaderOptions {
  bundle: CertificateBundle;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

/** Removes every header the proxy could have set, so nothing later reads a client's forgery. */
function clearHeaders(req: IncomingMessage, options: RequestHeaderOptions): void {
  const names = new Set([...options.usernameHeaders, ...options.groupHeaders].map((h) => h.toLowerCase()));
  const prefixes = options.extraHeaderPrefixes.map((p) => p.toLowerCase());
  for (const name of Object.keys(req.headers)) {
    if (names.has(name) || prefixes.some((p) => name.startsWith(p))) delete req.headers[name];
  }
}

/** Go's url.PathUnescape of an extra key, lower-cased; undecodable keys stay as sent. */
function extraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded).toLowerCase();
  } catch {
    return encoded.toLowerCase();
  }
}

export function requestHeaderAuthenticator(options: RequestHeaderOptions): RequestAuthenticator {
  return (req) => {
    const presented = presentedCertificates(req);
    try {
      if (presented.length === 0) return null;
      const leaf = options.bundle.verify(presented);
      const { commonName } = subjectOf(leaf);
      if (options.allowedNames.length && !options.allowedNames.includes(commonName)) {
        throw new Error(`x509: subject with cn=${commonName} is not in the allowed list`);
      }
      // headersDistinct keeps repeated headers apart (Node joins them in req.headers).
      const headers = req.headersDistinct;
      const name = options.usernameHeaders.map((h) => headers[h.toLowerCase()]?.find((v) => v.length > 0)).find((v) => v !== undefined);
      if (!name) return null;
      const groups = options.groupHeaders.flatMap((h) => headers[h.toLowerCase()] ?? []);
      const extra: Record<string, string[]> = {};
      for (const prefix of options.extraHeaderPrefixes.map((p) => p.toLowerCase())) {
        for (const [header, values] of Object.entries(headers)) {
          if (!header.startsWith(prefix) || header.length === prefix.length || !values) continue;
          (extra[extraKey(header.slice(prefix.length))] ??= []).push(...values);
        }
      }
      const user: UserInfo = { name, groups };
      if (Object.keys(extra).length) user.extra = extra;
      return user;
    } finally {
      // Whoever sent them and whatever the outcome, the headers go no further.
      clearHeaders(req, options);
    }
  };
}
