/**
 * The Webhook authorizer (SPEC 5.1.5-6, 8), as upstream's
 * plugin/pkg/authorizer/webhook (1.31): the request's attributes become a
 * SubjectAccessReview (v1, or v1beta1 with `group`), matchConditions decide
 * whether the webhook is asked at all, answers are cached by the review's
 * spec (allows for authorizedTTL, the rest for unauthorizedTTL, errors
 * never), and a call that fails, an answer that cannot be read or a condition
 * that errs decides as the failure policy says, with the error beside it.
 */
import type { WebhookSettings } from './authorizer-entries.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, Rules } from './authorizer.ts';
import { compileMatchConditions, matches, type MatchConditions } from './match-conditions.ts';
import { decodeStatus, reviewObject, specFor, type SubjectAccessReviewStatus } from './subject-access-review.ts';
import { aggregateText } from '../../registry/validation/field-errors.ts';
import { ExpiringCache } from '../../util/expiring-cache.ts';
import { decodeError, DEFAULT_RETRY_BACKOFF, WebhookClient, webhookConnection, type RetryBackoff } from '../webhook-client.ts';

/** upstream's responseCache size. */
const CACHE_ENTRIES = 8192;
/** upstream maxControlledAttrCacheSize: larger requester-controlled attributes are not cached (a DoS guard). */
const MAX_CACHED_ATTRIBUTE_BYTES = 10_000;

export interface WebhookAuthorizerOptions {
  /** The AuthorizeWithSelectors gate: selectors in reviews and in matchConditions. */
  authorizeWithSelectors?: boolean;
  /** Upstream's DefaultRetryBackoff; shorter in tests. */
  retry?: RetryBackoff;
}

/** upstream shouldCache. */
function shouldCache(a: AuthorizationAttributes): boolean {
  const size = [a.namespace, a.verb, a.group, a.version, a.resource, a.subresource, a.name, a.path].reduce((sum, s) => sum + Buffer.byteLength(s), 0);
  return size < MAX_CACHED_ATTRIBUTE_BYTES;
}

/** upstream's switch over the status; both allowed and denied is a deny with an error. */
function decide(status: SubjectAccessReviewStatus): AuthorizationResult {
  if (status.denied && status.allowed) return { decision: 'Deny', reason: status.reason, error: 'webhook subject access review returned both allow and deny response' };
  if (status.denied) return { decision: 'Deny', reason: status.reason };
  if (status.allowed) return { decision: 'Allow', reason: status.reason };
  return { decision: 'NoOpinion', reason: status.reason };
}

/**
 * Builds the authorizer for one webhook entry; throws when its connection
 * cannot be loaded or its matchConditions do not compile (upstream's New).
 */
export function webhookAuthorizer(settings: WebhookSettings, options: WebhookAuthorizerOptions = {}): Authorizer {
  const selectors = options.authorizeWithSelectors ?? false;
  const compiled = compileMatchConditions(settings.matchConditions, '', selectors);
  if (compiled.errors.length) throw new Error(aggregateText(compiled.errors));
  const matcher: MatchConditions | undefined = compiled.matcher;
  const client = new WebhookClient(webhookConnection(settings.connectionInfo), settings.timeoutMs, options.retry ?? DEFAULT_RETRY_BACKOFF);
  const cache = new ExpiringCache<string, SubjectAccessReviewStatus>(CACHE_ENTRIES);
  const version = settings.subjectAccessReviewVersion;
  const onError = (error: unknown): AuthorizationResult => ({ decision: settings.failurePolicy, reason: '', error: (error as Error).message });

  async function ask(spec: ReturnType<typeof specFor>): Promise<SubjectAccessReviewStatus> {
    const res = await client.post(reviewObject(spec, version));
    const malformed = decodeError(res, `${version}.SubjectAccessReview`);
    if (malformed) throw malformed;
    return decodeStatus(res.body as Record<string, unknown>, version);
  }

  return {
    async authorize(attributes) {
      const spec = specFor(selectors ? attributes : { ...attributes, fieldSelector: undefined, labelSelector: undefined });
      if (matcher) {
        try {
          if (!matches(matcher, spec)) return { decision: 'NoOpinion', reason: '' };
        } catch (err) {
          return onError(err);
        }
      }
      const key = JSON.stringify(spec);
      let status = cache.get(key);
      if (!status) {
        try {
          status = await ask(spec);
        } catch (err) {
          console.error(`Failed to make webhook authorizer request: ${(err as Error).message}`);
          return onError(err);
        }
        if (shouldCache(attributes)) cache.set(key, status, status.allowed ? settings.authorizedTtlMs : settings.unauthorizedTtlMs);
      }
      return decide(status);
    },
    // A webhook answers reviews, not rule lists: upstream's webhook authorizer says so the same way.
    async rulesFor(): Promise<Rules> {
      return { resourceRules: [], nonResourceRules: [], incomplete: true, error: 'webhook authorizer does not support user rule resolution' };
    },
  };
}
