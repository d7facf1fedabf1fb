/**
 * Bootstrap token Secrets (SPEC 2.9): type `bootstrap.orch.io/token`, named
 * `bootstrap-token-<token-id>` in orch-system, with the keys of the SPEC's
 * table. Shared by Secret validation, the authenticator, the token cleaner
 * and the bootstrap signer.
 */
import type { ApiObject } from './strategy.ts';
import { index, invalid, required, type FieldError } from './validation/field-errors.ts';

export const BOOTSTRAP_TOKEN_TYPE = 'bootstrap.orch.io/token';
export const BOOTSTRAP_NAMESPACE = 'orch-system';
export const SECRET_PREFIX = 'bootstrap-token-';
export const TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const ID_PATTERN = /^[a-z0-9]{6}$/;
const SECRET_PATTERN = /^[a-z0-9]{16}$/;
/** upstream bootstrapapi.BootstrapGroupPattern */
const GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const USAGES = ['authentication', 'signing'];
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export interface BootstrapToken {
  id: string;
  secret: string;
  /** Milliseconds since the epoch; undefined when the token does not expire. */
  expiresAt?: number;
  usages: Set<string>;
  extraGroups: string[];
}

function decoded(obj: ApiObject, key: string): string | undefined {
  const value = obj.data?.[key];
  return typeof value === 'string' && Object.hasOwn(obj.data, key) ? Buffer.from(value, 'base64').toString('utf8') : undefined;
}

/** SPEC 2.9 rules for a Secret of the bootstrap type; run on every write (422 with these causes). */
export function validateBootstrapTokenSecret(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const key = (k: string) => index('data', k);
  const id = decoded(obj, 'token-id');
  if (id === undefined) errs.push(required(key('token-id')));
  else if (!ID_PATTERN.test(id)) errs.push(invalid(key('token-id'), id, 'must be 6 characters of [a-z0-9]'));
  else if (obj.metadata?.name !== `${SECRET_PREFIX}${id}`) errs.push(invalid('metadata.name', obj.metadata?.name, `must be ${SECRET_PREFIX}${id} for token-id ${id}`));
  const secret = decoded(obj, 'token-secret');
  if (secret === undefined) errs.push(required(key('token-secret')));
  else if (!SECRET_PATTERN.test(secret)) errs.push(invalid(key('token-secret'), '<secret contents redacted>', 'must be 16 characters of [a-z0-9]'));
  const expiration = decoded(obj, 'expiration');
  if (expiration !== undefined && (!RFC3339.test(expiration) || Number.isNaN(Date.parse(expiration)))) {
    errs.push(invalid(key('expiration'), expiration, 'must be an RFC 3339 time, e.g. 2006-01-02T15:04:05Z'));
  }
  for (const k of Object.keys(obj.data ?? {})) {
    if (!k.startsWith('usage-bootstrap-')) continue;
    const usage = k.slice('usage-bootstrap-'.length);
    const value = decoded(obj, k);
    if (!USAGES.includes(usage)) errs.push(invalid(key(k), value, `unknown usage; supported: ${USAGES.map((u) => `usage-bootstrap-${u}`).join(', ')}`));
    else if (value !== 'true' && value !== 'false') errs.push(invalid(key(k), value, 'must be "true" or "false"'));
  }
  const groups = decoded(obj, 'auth-extra-groups');
  if (groups !== undefined) {
    for (const group of groups.split(',')) {
      if (!GROUP_PATTERN.test(group)) errs.push(invalid(key('auth-extra-groups'), group, `group must match ${GROUP_PATTERN.source}`));
    }
  }
  return errs;
}

/** The token a Secret holds, or undefined when it is not a usable bootstrap token Secret. */
export function bootstrapTokenOf(obj: ApiObject | null): BootstrapToken | undefined {
  if (!obj || obj.type !== BOOTSTRAP_TOKEN_TYPE || obj.metadata?.namespace !== BOOTSTRAP_NAMESPACE) return undefined;
  if (validateBootstrapTokenSecret(obj).length) return undefined;
  const expiration = decoded(obj, 'expiration');
  const usages = new Set<string>();
  for (const usage of USAGES) if (decoded(obj, `usage-bootstrap-${usage}`) === 'true') usages.add(usage);
  const groups = decoded(obj, 'auth-extra-groups');
  return {
    id: decoded(obj, 'token-id')!,
    secret: decoded(obj, 'token-secret')!,
    expiresAt: expiration === undefined ? undefined : Date.parse(expiration),
    usages,
    extraGroups: groups ? groups.split(',') : [],
  };
}

export function expired(token: BootstrapToken, nowMs = Date.now()): boolean {
  return token.expiresAt !== undefined && token.expiresAt <= nowMs;
}
