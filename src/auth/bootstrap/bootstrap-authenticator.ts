/**
 * Bootstrap token authentication (SPEC 5.2, `--enable-bootstrap-token-auth`),
 * as upstream's plugin/pkg/auth/authenticator/token/bootstrap: `<id>.<secret>`
 * names the Secret `bootstrap-token-<id>` in orch-system; it authenticates as
 * `system:bootstrap:<id>` in `system:bootstrappers` and its extra groups while
 * the Secret exists, is not being deleted, is unexpired and allows
 * authentication. The secret is compared in constant time.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ObjectReader } from '../../registry/object-reader.ts';
import type { TokenAuthenticator } from '../authentication/authenticator.ts';
import { BOOTSTRAP_NAMESPACE, bootstrapTokenOf, expired, SECRET_PREFIX, TOKEN_PATTERN } from '../../registry/bootstrap-token.ts';

/** Equal-length by construction (both match [a-z0-9]{16}), so the comparison's time says nothing. */
function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function bootstrapTokenAuthenticator(secrets: ObjectReader): TokenAuthenticator {
  return async (token) => {
    const match = TOKEN_PATTERN.exec(token);
    if (!match) return null;
    const [, id, secret] = match;
    const stored = await secrets.get(BOOTSTRAP_NAMESPACE, `${SECRET_PREFIX}${id}`);
    if (!stored || stored.metadata.deletionTimestamp) return null;
    const parsed = bootstrapTokenOf(stored);
    if (!parsed || parsed.id !== id || !sameSecret(parsed.secret, secret)) return null;
    if (expired(parsed) || !parsed.usages.has('authentication')) return null;
    return { user: { name: `system:bootstrap:${id}`, groups: ['system:bootstrappers', ...parsed.extraGroups] } };
  };
}
