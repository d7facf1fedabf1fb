/**
 * Webhook token authentication (SPEC 5.2, `--authentication-token-webhook-*`),
 * as upstream's plugin/pkg/authenticator/token/webhook with its token cache: a
 * TokenReview (authentication.orch.io v1beta1 or v1) is POSTed to the service
 * the orchconfig names; connection errors, 429 and 5xx are retried with
 * upstream's backoff; answers (authenticated or not) are cached for the TTL,
 * keyed by a keyed hash of token and audiences, never the token itself.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { requestJson } from '../../client/http-client.ts';
import { loadOrchconfig, type ClusterConnection } from '../../client/orchconfig.ts';
import { sleep } from '../../util/timers.ts';
import type { AuthenticationResult, TokenAuthenticator } from './authenticator.ts';

export interface WebhookTokenOptions {
  configFile: string;
  /** --authentication-token-webhook-cache-ttl (default 2 minutes); 0 disables the cache. */
  cacheTtlMs: number;
  /** --authentication-token-webhook-version. */
  version: 'v1' | 'v1beta1';
  /** --api-audiences: assumed when the webhook names none. */
  apiAudiences: string[];
  /** Upstream's webhook.DefaultRetryBackoff: 500 ms, x1.5, 5 tries; shorter in tests. */
  retry?: { initialMs: number; factor: number; attempts: number };
  timeoutMs?: number;
}

const MAX_CACHED = 10_000;

/** Upstream's DefaultShouldRetry: connection failures, 429 and 5xx. */
function retriable(status: number | undefined): boolean {
  return status === undefined || status === 429 || status >= 500;
}

export function webhookTokenAuthenticator(options: WebhookTokenOptions): TokenAuthenticator {
  const connection: ClusterConnection = loadOrchconfig(options.configFile);
  const retry = options.retry ?? { initialMs: 500, factor: 1.5, attempts: 5 };
  const hashKey = randomBytes(32);
  const cache = new Map<string, { result: AuthenticationResult | null; expiresAt: number }>();

  async function review(token: string, audiences: string[]): Promise<AuthenticationResult | null> {
    const body = {
      apiVersion: `authentication.orch.io/${options.version}`,
      kind: 'TokenReview',
      spec: { token, ...(audiences.length ? { audiences } : {}) },
    };
    let delay = retry.initialMs;
    for (let attempt = 1; ; attempt++) {
      let status: number | undefined;
      let answer: any;
      try {
        const res = await requestJson(connection, '', { method: 'POST', body, timeoutMs: options.timeoutMs ?? 30_000 });
        status = res.status;
        answer = res.body;
      } catch {
        status = undefined;
      }
      if (status !== undefined && status >= 200 && status < 300) return interpret(answer, audiences);
      if (!retriable(status) || attempt >= retry.attempts) throw new Error(`webhook token authentication failed${status ? ` with status ${status}` : ''}`);
      await sleep(delay * (1 + Math.random() * 0.2));
      delay *= retry.factor;
    }
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
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && hit.expiresAt > now) return hit.result;
    // Errors are not cached: the next request asks again.
    const result = await review(token, audiences);
    if (cache.size >= MAX_CACHED) for (const [k, v] of cache) if (v.expiresAt <= now || cache.size >= MAX_CACHED) cache.delete(k);
    cache.set(key, { result, expiresAt: now + options.cacheTtlMs });
    return result;
  };
}
