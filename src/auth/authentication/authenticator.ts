/**
 * Authentication (SPEC 5.2, 5.3) as upstream's union of request
 * authenticators: the authenticating proxy's headers, client certificates,
 * then bearer tokens (token file, service accounts, bootstrap tokens,
 * webhook). The first that succeeds wins; if none does and any failed (a
 * certificate that does not verify, a token nobody accepts) the request is
 * 401; a request without credentials is anonymous where allowed.
 */
import type { IncomingMessage } from 'node:http';
import * as errors from '../../api/status-error.ts';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, type UserInfo } from '../../api/user.ts';

export interface AuthenticationResult {
  user: UserInfo;
  /** The audiences the credential is good for; absent when the authenticator does not know audiences. */
  audiences?: string[];
}

/**
 * A bearer-token authenticator: null when the token is not its own or not valid
 * (the chain answers 401 when none accepts). `audiences` are the ones the request
 * is authenticated for (--api-audiences, or a TokenReview's spec.audiences).
 */
export type TokenAuthenticator = (token: string, audiences: string[]) => Promise<AuthenticationResult | null>;

/** A credential carried by the request itself: null when absent, a user, or a thrown reason it is not valid. */
export type RequestAuthenticator = (req: IncomingMessage) => UserInfo | null;

export interface AuthenticatorOptions {
  /** The authenticating proxy (--requestheader-*). */
  requestHeader?: RequestAuthenticator;
  /** --client-ca-file. */
  clientCertificate?: RequestAuthenticator;
  tokenAuthenticators: TokenAuthenticator[];
  /** --api-audiences: what a request's credentials must be good for. */
  apiAudiences: string[];
  /** Whether a request without credentials to `path` is anonymous (SPEC 5.3); otherwise 401. */
  anonymousAllowed: (path: string) => boolean;
}

const ANONYMOUS: UserInfo = { name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };

/** Adds `system:authenticated` as upstream's authenticated-group adder does. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(AUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

/**
 * The bearer token of a request as upstream's bearertoken authenticator reads
 * it: `Bearer <token>` with the scheme in any case and exactly one space; an
 * empty token (two spaces) is no token at all.
 */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization?.trim();
  if (!header) return undefined;
  const parts = header.split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

/** Runs the token authenticators in order, as a bearer token in a request meets them (TokenReview asks this). */
export function tokenChain(authenticators: TokenAuthenticator[]) {
  return async (token: string, audiences: string[]): Promise<AuthenticationResult | null> => {
    for (const authenticator of authenticators) {
      const result = await authenticator(token, audiences);
      if (!result) continue;
      const user = withAuthenticatedGroup(result.user);
      return user === result.user ? result : { ...result, user };
    }
    return null;
  };
}

export function createAuthenticator(options: AuthenticatorOptions) {
  const tokens = tokenChain(options.tokenAuthenticators);
  const requestAuthenticators = [options.requestHeader, options.clientCertificate].filter((a): a is RequestAuthenticator => !!a);
  return async function authenticate(req: IncomingMessage, path: string): Promise<UserInfo> {
    let failed = false;
    for (const authenticator of requestAuthenticators) {
      try {
        const user = authenticator(req);
        if (user) return withAuthenticatedGroup(user);
      } catch {
        // Another credential may still succeed; only if none does is the failure the answer.
        failed = true;
      }
    }
    const token = bearerToken(req);
    if (token !== undefined) {
      let result: AuthenticationResult | null = null;
      try {
        result = await tokens(token, options.apiAudiences);
      } catch {
        // An authenticator that cannot answer (a webhook down, a store timing out) authenticates nothing.
      }
      // Upstream deletes the header after this; nothing here forwards a request, and a delete
      // on the headers object would slow every later read of it.
      if (result) return result.user;
      failed = true;
    }
    if (failed) throw errors.unauthorized();
    if (options.anonymousAllowed(path)) return ANONYMOUS;
    throw errors.unauthorized();
  };
}
