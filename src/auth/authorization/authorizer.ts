/**
 * Authorization (SPEC 5.1): the Authorizer interface every mode implements and
 * upstream's union of authorizers; the first allow or deny is final, all
 * no-opinion is a deny.
 */
import type { FieldRequirement } from '../../registry/selectors/field-selector.ts';
import type { LabelRequirement } from '../../registry/selectors/label-selector.ts';
import { MASTERS_GROUP, type UserInfo } from '../../api/user.ts';

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

/**
 * A request's selector as authorizers see it under AuthorizeWithSelectors
 * (SPEC 2.11, 9.6): the parsed requirements, or why it did not parse.
 */
export interface SelectorAttribute<R> {
  requirements: R[];
  /** Set when the selector did not parse; then there are no requirements. */
  error?: string;
}

/** A selector's text as request info gives it to authorizers: its requirements (none: no attribute), or its parse error. */
export function selectorAttribute<R>(text: string, parse: (text: string) => R[]): SelectorAttribute<R> | undefined {
  try {
    const requirements = parse(text);
    return requirements.length ? { requirements } : undefined;
  } catch (err) {
    return { requirements: [], error: (err as Error).message };
  }
}

/** The attributes of SPEC 5.1 item 2. */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** AuthorizeWithSelectors only, on list, watch and deletecollection (upstream GetFieldSelector). */
  fieldSelector?: SelectorAttribute<FieldRequirement>;
  /** AuthorizeWithSelectors only, on list, watch and deletecollection (upstream GetLabelSelector). */
  labelSelector?: SelectorAttribute<LabelRequirement>;
}

/**
 * upstream's (decision, reason, error). `error` says the authorizer could not
 * decide (a webhook that did not answer); a request nobody allowed that carries
 * one is a 500, as upstream's filter answers, and reviews report it as
 * evaluationError.
 */
export interface AuthorizationResult {
  decision: Decision;
  reason: string;
  error?: string;
}

/** What a SelfSubjectRulesReview lists (SPEC 2.8): the rules an authorizer grants a user in a namespace. */
export interface Rules {
  resourceRules: Array<{ verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }>;
  nonResourceRules: Array<{ verbs: string[]; nonResourceURLs?: string[] }>;
  /** The authorizer cannot list every rule it would apply. */
  incomplete: boolean;
  /** Why the list is incomplete (SelfSubjectRulesReview's evaluationError). */
  error?: string;
}

export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): Promise<AuthorizationResult>;
  /** upstream's RuleResolver; an authorizer without one makes the list incomplete. */
  rulesFor?(user: UserInfo, namespace: string): Promise<Rules>;
}

export const noRules = (): Rules => ({ resourceRules: [], nonResourceRules: [], incomplete: false });

/** Everything, as upstream's AlwaysAllow rule resolver lists it. */
const everything = (): Rules => ({
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
});

const ALLOW: AuthorizationResult = Object.freeze({ decision: 'Allow', reason: '' });
/** upstream's AlwaysDeny has no opinion, with a reason: a later authorizer may still allow (SPEC 5.1 item 5). */
const EVERYTHING_FORBIDDEN: AuthorizationResult = Object.freeze({ decision: 'NoOpinion', reason: 'Everything is forbidden.' });
const NO_OPINION: AuthorizationResult = Object.freeze({ decision: 'NoOpinion', reason: '' });

export const alwaysAllow: Authorizer = { authorize: async () => ALLOW, rulesFor: async () => everything() };
export const alwaysDeny: Authorizer = { authorize: async () => EVERYTHING_FORBIDDEN, rulesFor: async () => noRules() };

/** Members of system:masters may do anything, before any mode is consulted (FACTS 11). */
export const privilegedGroups: Authorizer = {
  authorize: async ({ user }) => (user.groups.includes(MASTERS_GROUP) ? ALLOW : NO_OPINION),
  rulesFor: async (user) => (user.groups.includes(MASTERS_GROUP) ? everything() : noRules()),
};

/**
 * upstream's union authorizer (SPEC 5.1 item 3): the first Allow or Deny wins;
 * otherwise no opinion, with every authorizer's reason and error joined.
 */
export function chain(authorizers: Authorizer[]): Authorizer {
  return {
    async authorize(attributes) {
      let reasons: string[] | undefined;
      let errors: string[] | undefined;
      for (const authorizer of authorizers) {
        const result = await authorizer.authorize(attributes);
        if (result.decision !== 'NoOpinion') return result;
        if (result.reason) (reasons ??= []).push(result.reason);
        if (result.error) (errors ??= []).push(result.error);
      }
      if (!reasons && !errors) return NO_OPINION;
      const result: AuthorizationResult = { decision: 'NoOpinion', reason: reasons?.join('\n') ?? '' };
      if (errors) result.error = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
      return result;
    },
    // upstream's union rule resolver: every authorizer's rules added up, errors aggregated.
    async rulesFor(user, namespace) {
      const all = noRules();
      const errors: string[] = [];
      for (const authorizer of authorizers) {
        if (!authorizer.rulesFor) {
          all.incomplete = true;
          continue;
        }
        const rules = await authorizer.rulesFor(user, namespace);
        all.resourceRules.push(...rules.resourceRules);
        all.nonResourceRules.push(...rules.nonResourceRules);
        all.incomplete ||= rules.incomplete;
        if (rules.error) errors.push(rules.error);
      }
      if (errors.length) all.error = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
      return all;
    },
  };
}
