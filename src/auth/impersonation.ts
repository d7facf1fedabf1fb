/**
 * Impersonation (SPEC 5.4) is not served yet. A request that asks for it must
 * not run as its caller instead, so Impersonate-* headers are refused: 403 in
 * the words upstream uses when the caller lacks the `impersonate` verb, and 400
 * where upstream refuses the header set itself (groups, extras or a uid without
 * a user; upstream answers that one 500).
 */
import type { IncomingMessage } from 'node:http';
import * as errors from '../api/status-error.ts';
import { forbiddenError } from './authorization/forbidden.ts';
import type { UserInfo } from './user.ts';

const NOT_SERVED = 'impersonation is not supported by this server yet';

export function refuseImpersonation(req: IncomingMessage, caller: UserInfo): void {
  const requested = Object.keys(req.headers).filter((name) => name.startsWith('impersonate-'));
  if (requested.length === 0) return;
  const user = req.headers['impersonate-user'];
  if (user === undefined) {
    throw errors.badRequest(`requested ${requested.map((h) => `[${h}]`).join(' ')} without impersonating a user`);
  }
  // The first thing impersonation would check: may the caller act as this user?
  const resource = typeof user === 'string' && user.startsWith('system:serviceaccount:') ? 'serviceaccounts' : 'users';
  throw forbiddenError(
    { user: caller, verb: 'impersonate', isResourceRequest: true, path: '', group: '', version: '', namespace: '', resource, subresource: '', name: String(user) },
    NOT_SERVED,
  );
}
