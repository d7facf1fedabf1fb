/**
 * Webhook token authentication (SPEC 5.2, `--authentication-token-webhook-*`),
 * as upstream's plugin/pkg/authenticator/token/webhook with its token cache: a
 * TokenReview (authentication.orch.io v1beta1 or v1) is POSTed to the service
 * the orchconfig names, retried as upstream's DefaultShouldRetry says (the
 * shared webhook client); answers (authenticated or not) are cached for the TTL,
 * keyed by a keyed hash of token and audiences, never the token itself.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { loadOrchconfig } from '../../client/orchconfig.ts';
import { ExpiringCache } from '../../util/expiring-cache.ts';
import { DEFAULT_RETRY_BACKOFF, WebhookClient, type RetryBackoff } from '../webhook-client.ts';
import type { AuthenticationResult, TokenAuthenticator } from './authenticator.ts';

export interface WebhookTokenOptions {
  configFile: string;
  /** --authentication-token-webhook-cache-ttl (default 2 minutes); 0 disables the cache. */
  cacheTtlMs: number;
  /** --authentication-token-webhook-version. */
  version: 'v1' | 'v1beta1';
  /** --api-audiences: assumed when the webhook names none. */
  apiAudiences: string[];
  /** Upstream's webhook.DefaultRetryBackoff; shorter in tests. */
  retry?: RetryBackoff;
  timeoutMs?: number;
}

const MAX_CACHED = 10_000;

export function webhookTokenAuthenticator(options: WebhookTokenOptions): TokenAuthenticator {
  const client = new WebhookClient(loadOrchconfig(options.configFile), options.timeoutMs ?? 30_000, options.retry ?? DEFAULT_RETRY_BACKOFF);
  const hashKey = randomBytes(32);
  const cache = new ExpiringCache<string, AuthenticationResult | null>(MAX_CACHED);

  async function review(token: string, audiences: string[]): Promise<AuthenticationResult | null> {
    const body = {
      apiVersion: `authentication.orch.io/${options.version}`,
      kind: 'TokenReview',
      spec: { token, ...(audiences.length ? { audiences } : {}) },
    };
    let answer: unknown;
    try {
      answer = (await client.post(body)).body;
    } catch (err) {
      throw new Error(`webhook token authentication failed: ${(err as Error).message}`);
    }
    return interpret(answer, audiences);
  }

  function interpret(answer: any, wanted: string[]): AuthenticationResult | null {
    const status = answer?.status;
    if (!status || typeof status !== 'object') throw new Error('webhook token authentication: the answer is not a TokenReview');
    if (status.authenticated !== true) return null;
    const user = status.user ?? {};
    if (typeof user.username !== 'string' || !user.username) return null;
    const returned: string[] = Array.isArray(status.audiences) ? status.audiences.filter((a: unknown) => typeof a === 'string') : [];
    // A webhook that names no audiences answers for the server's own.
    const got = returned.length ? returned : options.apiAudiences;
    const audiences = wanted.length ? wanted.filter((a) => got.includes(a)) : got;
    if (wanted.length && audiences.length === 0) return null;
    const extra: Record<string, string[]> = {};
    for (const [key, values] of Object.entries(user.extra ?? {})) if (Array.isArray(values)) extra[key] = values.map(String);
    return {
      user: {
        name: user.username,
        uid: typeof user.uid === 'string' && user.uid ? user.uid : undefined,
        groups: Array.isArray(user.groups) ? user.groups.map(String) : [],
        ...(Object.keys(extra).length ? { extra } : {}),
      },
      audiences,
    };
  }

  return async (token, audiences) => {
    if (options.cacheTtlMs <= 0) return review(token, audiences);
    const key = createHmac('sha256', hashKey).update(token).update('\0').update(audiences.join('\0')).digest('base64');
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    // Errors are not cached: the next request asks again.
    const result = await review(token, audiences);
    cache.set(key, result, options.cacheTtlMs);
    return result;
  };
}
