/**
 * Impersonation (SPEC 5.4), as upstream's impersonation filter: each
 * Impersonate-* header is a request the caller must be allowed, with the
 * `impersonate` verb, on users or serviceaccounts (core group), groups, and
 * uids or `userextras/<key>` (authentication.orch.io), the value as the
 * resource name; the rest of the request then runs as the identity they name.
 */
import type { IncomingMessage } from 'node:http';
import * as errors from '../api/status-error.ts';
import type { AuthorizationAttributes, Authorizer } from './authorization/authorizer.ts';
import { authorizeRequest } from './authorization/forbidden.ts';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, type UserInfo } from '../api/user.ts';

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const AUTHN_GROUP = 'authentication.orch.io';

interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  name: string;
  namespace?: string;
  /** The extra's key, for UserExtra. */
  key?: string;
}

/** `system:serviceaccount:<ns>:<name>` -> its namespace and name, as upstream's serviceaccount.SplitUsername. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  const prefix = 'system:serviceaccount:';
  if (!username.startsWith(prefix)) return undefined;
  const parts = username.slice(prefix.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

/** Go's url.PathUnescape of a lower-cased extra key; a key that does not decode stays as sent. */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Most requests impersonate nobody: a scan of the raw header names, without building header maps. */
function hasImpersonationHeaders(req: IncomingMessage): boolean {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name.length > 12 && (name.charCodeAt(0) | 0x20) === 0x69 && name.toLowerCase().startsWith('impersonate-')) return true;
  }
  return false;
}

/** The requests the headers make, in upstream's order; empty when there are none. */
function impersonationRequests(req: IncomingMessage): ImpersonationRequest[] {
  const headers = req.headersDistinct;
  const requests: ImpersonationRequest[] = [];
  const user = headers[USER]?.[0] ?? '';
  if (user) {
    const account = splitServiceAccountUsername(user);
    requests.push(account ? { kind: 'ServiceAccount', ...account } : { kind: 'User', name: user });
  }
  const groups = headers[GROUP] ?? [];
  for (const group of groups) requests.push({ kind: 'Group', name: group });
  let hasExtra = false;
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(EXTRA_PREFIX) || !values) continue;
    hasExtra = true;
    const key = unescapeExtraKey(header.slice(EXTRA_PREFIX.length));
    for (const value of values) requests.push({ kind: 'UserExtra', name: value, key });
  }
  const uid = headers[UID]?.[0] ?? '';
  if (uid) requests.push({ kind: 'UID', name: uid });
  if ((groups.length || hasExtra || uid) && !user) {
    // Upstream answers this 500; it is the client's mistake, so 400.
    const described = requests.map((r) => `{${r.kind} ${r.namespace ?? ''} ${r.name}${r.key ? ` ${r.key}` : ''}}`).join(' ');
    throw errors.badRequest(`requested [${described}] without impersonating a user`);
  }
  return requests;
}

/**
 * The identity the request runs as: the caller's, or after every check the
 * impersonated one (403 naming the first refused request). The headers are
 * removed either way.
 */
export async function impersonate(req: IncomingMessage, caller: UserInfo, authorizer: Authorizer): Promise<UserInfo> {
  if (!hasImpersonationHeaders(req)) return caller;
  const requests = impersonationRequests(req);
  for (const header of Object.keys(req.headers)) if (header.startsWith('impersonate-')) delete req.headers[header];
  if (requests.length === 0) return caller;
  const groupsSpecified = requests.some((r) => r.kind === 'Group');
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const request of requests) {
    const attributes: AuthorizationAttributes = {
      user: caller, verb: 'impersonate', isResourceRequest: true, path: '',
      group: '', version: 'v1', namespace: '', resource: '', subresource: '', name: request.name,
    };
    switch (request.kind) {
      case 'ServiceAccount':
        Object.assign(attributes, { resource: 'serviceaccounts', namespace: request.namespace });
        name = `system:serviceaccount:${request.namespace}:${request.name}`;
        if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${request.namespace}`];
        break;
      case 'User':
        attributes.resource = 'users';
        name = request.name;
        break;
      case 'Group':
        attributes.resource = 'groups';
        groups.push(request.name);
        break;
      case 'UserExtra':
        Object.assign(attributes, { group: AUTHN_GROUP, resource: 'userextras', subresource: request.key });
        (extra[request.key!] ??= []).push(request.name);
        break;
      case 'UID':
        Object.assign(attributes, { group: AUTHN_GROUP, resource: 'uids' });
        uid = request.name;
        break;
    }
    await authorizeRequest(authorizer, attributes);
  }
  // Upstream's group rules: system:authenticated unless the groups say otherwise; anonymous is unauthenticated.
  if (name !== ANONYMOUS_USER) {
    if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) groups.push(UNAUTHENTICATED_GROUP);
  const user: UserInfo = { name, groups };
  if (uid) user.uid = uid;
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}
