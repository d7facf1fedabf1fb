/**
 * Service-account tokens (SPEC 5.2): JWTs issued by serviceaccounts/token and
 * the legacy token controller, and the authenticator that accepts them, as
 * upstream's pkg/serviceaccount (claims.go, legacy.go, jwt.go) with `orch.io`
 * in place of `kubernetes.io`. Signed and verified with jose.
 */
import { randomUUID } from 'node:crypto';
import type { ObjectReader } from '../../registry/object-reader.ts';
import type { GenericStore } from '../../registry/store.ts';
import type { ApiObject } from '../../registry/strategy.ts';
import type { AuthenticationResult, TokenAuthenticator } from '../authentication/authenticator.ts';
import { serviceAccountGroups, serviceAccountUsername, type UserInfo } from '../../api/user.ts';
import { jose } from '../../util/lazy-packages.ts';
import type { SigningKey, VerificationKey } from './keys.ts';

/** The issuer of legacy Secret tokens (upstream `kubernetes/serviceaccount`). */
export const LEGACY_ISSUER = 'orch/serviceaccount';
const CLAIM = 'orch.io';
const LEGACY = 'orch.io/serviceaccount';
/** jwt.DefaultLeeway: clocks may differ by a minute. */
const LEEWAY_S = 60;
/** A pod or secret deleted this long ago still authenticates its tokens (upstream's grace for terminating pods). */
const DELETION_GRACE_S = 60;

export interface BoundObject {
  kind: 'Pod' | 'Secret';
  name: string;
  uid: string;
}

/** Issues bound tokens (claims.go Claims + the issuer's signing). */
export async function issueBoundToken(
  signing: SigningKey,
  issuer: string,
  request: { account: ApiObject; audiences: string[]; expirationSeconds: number; warnAfterSeconds?: number; bound?: BoundObject; nowS: number },
): Promise<string> {
  const { account, nowS } = request;
  const claim: Record<string, unknown> = {
    namespace: account.metadata.namespace,
    serviceaccount: { name: account.metadata.name, uid: account.metadata.uid },
  };
  if (request.bound) claim[request.bound.kind.toLowerCase()] = { name: request.bound.name, uid: request.bound.uid };
  if (request.warnAfterSeconds) claim.warnafter = nowS + request.warnAfterSeconds;
  return new (jose().SignJWT)({ [CLAIM]: claim })
    .setProtectedHeader({ alg: signing.alg, kid: signing.kid })
    .setIssuer(issuer)
    .setSubject(serviceAccountUsername(account.metadata.namespace, account.metadata.name))
    .setAudience(request.audiences)
    .setIssuedAt(nowS)
    .setNotBefore(nowS)
    .setExpirationTime(nowS + request.expirationSeconds)
    .setJti(randomUUID())
    .sign(signing.key);
}

/** A legacy token for a Secret of type orch.io/service-account-token (legacy.go LegacyClaims): no expiry. */
export async function issueLegacyToken(signing: SigningKey, account: ApiObject, secretName: string): Promise<string> {
  const { namespace, name, uid } = account.metadata;
  return new (jose().SignJWT)({
    [`${LEGACY}/namespace`]: namespace,
    [`${LEGACY}/secret.name`]: secretName,
    [`${LEGACY}/service-account.name`]: name,
    [`${LEGACY}/service-account.uid`]: uid,
  })
    .setProtectedHeader({ alg: signing.alg, kid: signing.kid })
    .setIssuer(LEGACY_ISSUER)
    .setSubject(serviceAccountUsername(namespace, name))
    .sign(signing.key);
}

export interface ServiceAccountAuthenticatorOptions {
  keys: VerificationKey[];
  /** --service-account-issuer: every one is accepted (the first issues). */
  issuers: string[];
  /** --api-audiences: tokens for none of them are refused. */
  apiAudiences: string[];
  /** --service-account-lookup: legacy tokens need their Secret and account to exist. */
  lookup: boolean;
  serviceAccounts: ObjectReader;
  secrets: ObjectReader;
  pods: ObjectReader;
  /** Records that a legacy token Secret was used today (upstream's legacy token tracking label). */
  markLegacyTokenUsed?: (namespace: string, secretName: string, today: string) => void;
}

/** Upstream's legacy token tracking labels, renamed. */
export const LEGACY_LAST_USED_LABEL = 'orch.io/legacy-token-last-used';
export const LEGACY_INVALID_SINCE_LABEL = 'orch.io/legacy-token-invalid-since';

const looksLikeJwt = (token: string) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);

/**
 * The service-account token authenticator (jwt.go): a token signed by a known
 * key, from an accepted issuer, for the request's audiences, unexpired, whose
 * account (and bound object) still exist with the uids it names.
 */
export function serviceAccountTokenAuthenticator(options: ServiceAccountAuthenticatorOptions): TokenAuthenticator {
  return async (token, audiences) => {
    if (!looksLikeJwt(token)) return null;
    let claims: Record<string, any>;
    try {
      const header = jose().decodeProtectedHeader(token);
      const candidates = options.keys.filter((k) => typeof header.alg === 'string' && k.algorithms.includes(header.alg));
      claims = await verifyWithAny(token, candidates);
    } catch {
      return null;
    }
    if (claims.iss === LEGACY_ISSUER) return legacy(options, token, claims);
    if (typeof claims.iss !== 'string' || !options.issuers.includes(claims.iss)) return null;
    return bound(options, claims, audiences);
  };
}

async function verifyWithAny(token: string, keys: VerificationKey[]): Promise<Record<string, any>> {
  for (const key of keys) {
    try {
      const { payload } = await jose().compactVerify(token, key.key, { algorithms: key.algorithms });
      const claims = JSON.parse(Buffer.from(payload).toString('utf8'));
      if (claims && typeof claims === 'object' && !Array.isArray(claims)) return claims;
    } catch {
      // the next key may have signed it
    }
  }
  throw new Error('no key verifies the token');
}

/** exp, nbf and iat within a minute's leeway, as go-jose's Claims.Validate. */
function timely(claims: Record<string, any>, nowS: number): boolean {
  if (typeof claims.exp !== 'number' || nowS > claims.exp + LEEWAY_S) return false;
  if (typeof claims.nbf === 'number' && nowS + LEEWAY_S < claims.nbf) return false;
  if (typeof claims.iat === 'number' && nowS + LEEWAY_S < claims.iat) return false;
  return true;
}

function alive(obj: ApiObject | null, uid: unknown, nowS: number): boolean {
  if (!obj || typeof uid !== 'string' || obj.metadata.uid !== uid) return false;
  const deleting = obj.metadata.deletionTimestamp;
  return !deleting || Date.parse(deleting) / 1000 > nowS - DELETION_GRACE_S;
}

async function bound(options: ServiceAccountAuthenticatorOptions, claims: Record<string, any>, requested: string[]): Promise<AuthenticationResult | null> {
  const nowS = Math.floor(Date.now() / 1000);
  if (!timely(claims, nowS)) return null;
  const tokenAudiences: string[] = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a: unknown) => typeof a === 'string') : [];
  let audiences = tokenAudiences.filter((a) => requested.includes(a));
  if (audiences.length === 0) audiences = tokenAudiences.filter((a) => options.apiAudiences.includes(a));
  if (audiences.length === 0) return null;
  const claim = claims[CLAIM];
  const namespace = claim?.namespace;
  const accountName = claim?.serviceaccount?.name;
  if (typeof namespace !== 'string' || typeof accountName !== 'string' || claims.sub !== serviceAccountUsername(namespace, accountName)) return null;
  const account = await options.serviceAccounts.get(namespace, accountName);
  if (!alive(account, claim.serviceaccount.uid, nowS)) return null;
  const extra: Record<string, string[]> = {};
  if (claim.pod) {
    if (!alive(await options.pods.get(namespace, claim.pod.name), claim.pod.uid, nowS)) return null;
    extra['authentication.orch.io/pod-name'] = [claim.pod.name];
    extra['authentication.orch.io/pod-uid'] = [claim.pod.uid];
  }
  if (claim.secret && !alive(await options.secrets.get(namespace, claim.secret.name), claim.secret.uid, nowS)) return null;
  if (typeof claims.jti === 'string') extra['authentication.orch.io/credential-id'] = [`JTI=${claims.jti}`];
  const user: UserInfo = { name: serviceAccountUsername(namespace, accountName), uid: account!.metadata.uid, groups: serviceAccountGroups(namespace) };
  if (Object.keys(extra).length) user.extra = extra;
  return { user, audiences };
}

async function legacy(options: ServiceAccountAuthenticatorOptions, token: string, claims: Record<string, any>): Promise<AuthenticationResult | null> {
  const namespace = claims[`${LEGACY}/namespace`];
  const secretName = claims[`${LEGACY}/secret.name`];
  const accountName = claims[`${LEGACY}/service-account.name`];
  const accountUid = claims[`${LEGACY}/service-account.uid`];
  if ([namespace, secretName, accountName, accountUid].some((v) => typeof v !== 'string' || !v)) return null;
  if (claims.sub !== serviceAccountUsername(namespace, accountName)) return null;
  if (options.lookup) {
    const secret = await options.secrets.get(namespace, secretName);
    const stored = secret?.data?.token ? Buffer.from(secret.data.token, 'base64').toString('utf8') : undefined;
    if (!secret || secret.metadata.deletionTimestamp || stored !== token) return null;
    // A token the cleaner has marked invalid stays refused until the label is removed.
    if (secret.metadata.labels?.[LEGACY_INVALID_SINCE_LABEL]) return null;
    const account = await options.serviceAccounts.get(namespace, accountName);
    if (!account || account.metadata.deletionTimestamp || account.metadata.uid !== accountUid) return null;
    const today = new Date().toISOString().slice(0, 10);
    if (secret.metadata.labels?.[LEGACY_LAST_USED_LABEL] !== today) options.markLegacyTokenUsed?.(namespace, secretName, today);
  }
  const user: UserInfo = {
    name: serviceAccountUsername(namespace, accountName),
    uid: accountUid,
    groups: serviceAccountGroups(namespace),
  };
  // Legacy tokens are good for every audience of this server (upstream: the api audiences).
  return { user, audiences: options.apiAudiences };
}

/** Sets the last-used label on a legacy token Secret; failures only mean it is tried again on the next use. */
export async function markLegacyTokenUsed(secrets: GenericStore, namespace: string, name: string, today: string): Promise<void> {
  try {
    await secrets.update(
      namespace,
      name,
      (current) => {
        if (!current) throw Object.assign(new Error('gone'), { code: 404 });
        return { ...current, metadata: { ...current.metadata, labels: { ...(current.metadata.labels ?? {}), [LEGACY_LAST_USED_LABEL]: today } } };
      },
      { dryRun: false },
    );
  } catch {
    // best effort, as upstream logs and goes on
  }
}
