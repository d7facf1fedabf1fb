/**
 * Authentication (SPEC 5.2, 5.3): bearer tokens, then anonymous. An invalid
 * token is 401; no credentials make the request anonymous where allowed.
 */
import type { IncomingMessage } from 'node:http';
import * as errors from '../../api/status-error.ts';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, type UserInfo } from '../user.ts';

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

export interface AuthenticatorOptions {
  tokenAuthenticators: TokenAuthenticator[];
  /** --api-audiences: what a request's credentials must be good for. */
  apiAudiences: string[];
  /** Anonymous requests for every path (SPEC 5.3). */
  anonymous: boolean;
  /** Paths that accept anonymous requests even when `anonymous` is off (health and version probes). */
  anonymousPaths: (path: string) => boolean;
}

const ANONYMOUS: UserInfo = { name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };

/** Adds `system:authenticated` as upstream's authenticated-group adder does. */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(AUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

/** Runs the token authenticators in order, as a bearer token in a request meets them (TokenReview asks this). */
export function tokenChain(authenticators: TokenAuthenticator[]) {
  return async (token: string, audiences: string[]): Promise<AuthenticationResult | null> => {
    for (const authenticator of authenticators) {
      const result = await authenticator(token, audiences);
      if (result) return { ...result, user: withAuthenticatedGroup(result.user) };
    }
    return null;
  };
}

export function createAuthenticator(options: AuthenticatorOptions) {
  return async function authenticate(req: IncomingMessage, path: string): Promise<UserInfo> {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (match) {
        for (const authenticator of options.tokenAuthenticators) {
          const result = await authenticator(match[1], options.apiAudiences);
          if (result) return withAuthenticatedGroup(result.user);
        }
        throw errors.unauthorized();
      }
    }
    if (options.anonymous || options.anonymousPaths(path)) return ANONYMOUS;
    throw errors.unauthorized();
  };
}
