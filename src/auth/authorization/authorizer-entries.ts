/**
 * The authorizer chain as data (SPEC 5.1 items 5-6): one entry per authorizer,
 * in order, as an AuthorizationConfiguration's `authorizers[]`. Upstream turns
 * `--authorization-mode` and the `--authorization-webhook-*` flags into the
 * same list (kube-apiserver's buildAuthorizationConfiguration), so flags and
 * the configuration file build one kind of chain.
 */

import { goQuote, goQuoteList } from '../../util/go-print.ts';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

/** A webhook authorizer's settings (SPEC 5.1.6 table, 8). */
export interface WebhookSettings {
  /** How long an allow is cached; 0 caches none. */
  authorizedTtlMs: number;
  /** How long a deny or no-opinion is cached; 0 caches none. */
  unauthorizedTtlMs: number;
  /** Bound of one call (at most 30 s). */
  timeoutMs: number;
  subjectAccessReviewVersion: 'v1' | 'v1beta1';
  matchConditionSubjectAccessReviewVersion: 'v1';
  /** What a failed call, a malformed answer or a condition error decides. */
  failurePolicy: 'NoOpinion' | 'Deny';
  connectionInfo: { type: 'OrchConfig'; orchConfigFile: string } | { type: 'InClusterConfig' };
  /** Expressions over the SubjectAccessReview (SPEC 2.11); all must be true to call the webhook. */
  matchConditions: Array<{ expression: string }>;
}

export type AuthorizerEntry =
  | { type: 'Webhook'; name: string; webhook: WebhookSettings }
  | { type: 'ABAC'; name: string; policyFile: string }
  | { type: Exclude<AuthorizationMode, 'Webhook' | 'ABAC'>; name: string };

/** The legacy flags that build the chain when no --authorization-config is given. */
export interface AuthorizationFlags {
  modes: string[];
  policyFile?: string;
  webhookConfigFile?: string;
  webhookVersion: 'v1' | 'v1beta1';
  webhookCacheAuthorizedTtlMs: number;
  webhookCacheUnauthorizedTtlMs: number;
}

/**
 * The default of `npm start`: secure by default (issue 9), where upstream's
 * default is AlwaysAllow. The admin orchconfig's user is in system:masters,
 * which every chain allows first.
 */
export const DEFAULT_AUTHORIZATION_MODES = ['Node', 'RBAC'];

/** upstream BuiltInAuthorizationOptions.Validate, its messages word for word. */
export function validateAuthorizationFlags(flags: AuthorizationFlags): string[] {
  const errors: string[] = [];
  const { modes } = flags;
  if (modes.length === 0) errors.push('at least one authorization-mode must be passed');
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) errors.push(`authorization-mode ${goQuote(mode)} is not a valid mode`);
    if (mode === 'ABAC' && !flags.policyFile) errors.push("authorization-mode ABAC's authorization policy file not passed");
    if (mode === 'Webhook' && !flags.webhookConfigFile) errors.push("authorization-mode Webhook's authorization config file not passed");
  }
  if (flags.policyFile && !modes.includes('ABAC')) errors.push('cannot specify --authorization-policy-file without mode ABAC');
  if (flags.webhookConfigFile && !modes.includes('Webhook')) errors.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (new Set(modes).size !== modes.length) errors.push(`authorization-mode ${goQuoteList(modes)} has mode specified more than once`);
  return errors;
}

/** upstream buildAuthorizationConfiguration: each mode an entry named in lower case, the webhook "default". */
export function entriesFromFlags(flags: AuthorizationFlags): AuthorizerEntry[] {
  const errors = validateAuthorizationFlags(flags);
  if (errors.length) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  return flags.modes.map((mode): AuthorizerEntry => {
    if (mode === 'Webhook') {
      return {
        type: 'Webhook',
        name: 'default',
        webhook: {
          authorizedTtlMs: flags.webhookCacheAuthorizedTtlMs,
          unauthorizedTtlMs: flags.webhookCacheUnauthorizedTtlMs,
          // Required by the file format; upstream sets these two for the flags.
          timeoutMs: 30_000,
          failurePolicy: 'NoOpinion',
          subjectAccessReviewVersion: flags.webhookVersion,
          matchConditionSubjectAccessReviewVersion: 'v1',
          connectionInfo: { type: 'OrchConfig', orchConfigFile: flags.webhookConfigFile! },
          matchConditions: [],
        },
      };
    }
    if (mode === 'ABAC') return { type: 'ABAC', name: 'abac', policyFile: flags.policyFile! };
    return { type: mode as Exclude<AuthorizationMode, 'Webhook' | 'ABAC'>, name: mode.toLowerCase() };
  });
}
