/**
 * The ABAC authorizer (SPEC 5.1 item 5, `--authorization-mode=ABAC`), as
 * upstream's pkg/auth/authorizer/abac: a request is allowed when one policy
 * matches its user or group, its verb (read-only policies match get, list and
 * watch only) and either its API group, namespace and resource or its
 * non-resource path; otherwise ABAC has no opinion. The policies come from
 * the policy file, read once at start-up (abac-policy-file.ts).
 */
import type { UserInfo } from '../../api/user.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, Rules } from './authorizer.ts';
import type { PolicySpec } from './abac-policy.ts';
import { nonResourcePathMatches } from './rbac-rules.ts';

const ALLOW: AuthorizationResult = Object.freeze({ decision: 'Allow', reason: '' });
const NO_POLICY_MATCHED: AuthorizationResult = Object.freeze({ decision: 'NoOpinion', reason: 'No policy matched.' });

const READ_ONLY_VERBS = ['get', 'list', 'watch'];

/**
 * A set user must be the user (or `*`), a set group one of the user's groups
 * (or `*`); a policy naming neither matches nobody.
 */
function subjectMatches(policy: PolicySpec, user: UserInfo): boolean {
  let matched = false;
  if (policy.user) {
    if (policy.user !== '*' && policy.user !== user.name) return false;
    matched = true;
  }
  if (policy.group) {
    if (policy.group !== '*' && !user.groups.includes(policy.group)) return false;
    matched = true;
  }
  return matched;
}

/** Every policy allows reads; only a policy that is not read-only allows the rest. */
const verbMatches = (policy: PolicySpec, verb: string) => READ_ONLY_VERBS.includes(verb) || !policy.readonly;

/** `*` or the request's namespace (`""` is cluster scope), resource (subresources not considered) and API group. */
function resourceMatches(policy: PolicySpec, a: AuthorizationAttributes): boolean {
  return (
    a.isResourceRequest &&
    (policy.namespace === '*' || policy.namespace === a.namespace) &&
    (policy.resource === '*' || policy.resource === a.resource) &&
    (policy.apiGroup === '*' || policy.apiGroup === a.group)
  );
}

const nonResourceMatches = (policy: PolicySpec, a: AuthorizationAttributes) => !a.isResourceRequest && nonResourcePathMatches(policy.nonResourcePath, a.path);

/** upstream's `matches`. */
export function policyMatches(policy: PolicySpec, a: AuthorizationAttributes): boolean {
  return subjectMatches(policy, a.user) && verbMatches(policy, a.verb) && (resourceMatches(policy, a) || nonResourceMatches(policy, a));
}

const verbsOf = (policy: PolicySpec) => (policy.readonly ? [...READ_ONLY_VERBS] : ['*']);

/** Allow when a policy matches, else no opinion ("No policy matched."); rules as upstream's RulesFor lists them. */
export function abacAuthorizer(policies: readonly PolicySpec[]): Authorizer {
  return {
    async authorize(attributes) {
      return policies.some((policy) => policyMatches(policy, attributes)) ? ALLOW : NO_POLICY_MATCHED;
    },
    // Each policy of the user in the namespace (or `*`) grants its resource and its non-resource path, if set.
    async rulesFor(user, namespace) {
      const rules: Rules = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const policy of policies) {
        if (!subjectMatches(policy, user) || (policy.namespace !== '*' && policy.namespace !== namespace)) continue;
        if (policy.resource) rules.resourceRules.push({ verbs: verbsOf(policy), apiGroups: [policy.apiGroup], resources: [policy.resource] });
        if (policy.nonResourcePath) rules.nonResourceRules.push({ verbs: verbsOf(policy), nonResourceURLs: [policy.nonResourcePath] });
      }
      return rules;
    },
  };
}
