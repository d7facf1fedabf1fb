/**
 * Authentication (SPEC 5.2, 5.3): bearer tokens, then anonymous. An invalid
 * token is 401; no credentials make the request anonymous where allowed.
 */
import type { IncomingMessage } from 'node:http';
import * as errors from '../../api/status-error.ts';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, type UserInfo } from '../user.ts';

/** A token authenticator answers with a user, or null when the token is not its. */
export type TokenAuthenticator = (token: string) => UserInfo | null | Promise<UserInfo | null>;

export interface AuthenticatorOptions {
  tokenAuthenticators: TokenAuthenticator[];
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

export function createAuthenticator(options: AuthenticatorOptions) {
  return async function authenticate(req: IncomingMessage, path: string): Promise<UserInfo> {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (match) {
        for (const authenticator of options.tokenAuthenticators) {
          const user = await authenticator(match[1]);
          if (user) return withAuthenticatedGroup(user);
        }
        throw errors.unauthorized();
      }
    }
    if (options.anonymous || options.anonymousPaths(path)) return ANONYMOUS;
    throw errors.unauthorized();
  };
}
