/**
 * Authorization (SPEC 5.1): an ordered chain of authorizers; the first allow or
 * deny is final, all no-opinion is a deny. RBAC, Node and Webhook join the same
 * interface.
 */
import type { RequestInfo } from '../../server/request-info.ts';
import { MASTERS_GROUP, type UserInfo } from '../user.ts';

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

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
}

/** What a SelfSubjectRulesReview lists (SPEC 2.8): the rules an authorizer grants a user in a namespace. */
export interface Rules {
  resourceRules: Array<{ verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }>;
  nonResourceRules: Array<{ verbs: string[]; nonResourceURLs?: string[] }>;
  /** The authorizer cannot list every rule it would apply. */
  incomplete: boolean;
}

export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): Promise<{ decision: Decision; reason: string }>;
  /** upstream's RuleResolver; an authorizer without one makes the list incomplete. */
  rulesFor?(user: UserInfo, namespace: string): Promise<Rules>;
}

const NO_RULES = async (): Promise<Rules> => ({ resourceRules: [], nonResourceRules: [], incomplete: false });
/** Everything, as upstream's AlwaysAllow rule resolver lists it. */
const EVERYTHING: Rules = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

export function attributesFor(user: UserInfo, info: RequestInfo): AuthorizationAttributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    group: info.group,
    version: info.version,
    namespace: info.namespace,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

export const alwaysAllow: Authorizer = { authorize: async () => ({ decision: 'Allow', reason: '' }), rulesFor: async () => structuredClone(EVERYTHING) };
export const alwaysDeny: Authorizer = { authorize: async () => ({ decision: 'Deny', reason: '' }), rulesFor: NO_RULES };

/** Members of system:masters may do anything, before any mode is consulted (FACTS 11). */
export const privilegedGroups: Authorizer = {
  authorize: async ({ user }) => ({ decision: user.groups.includes(MASTERS_GROUP) ? 'Allow' : 'NoOpinion', reason: '' }),
  rulesFor: async (user) => (user.groups.includes(MASTERS_GROUP) ? structuredClone(EVERYTHING) : { resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/** Paths the default `system:public-info-viewer` binding opens to everyone (FACTS 11). */
const PUBLIC_INFO = new Set(['/livez', '/readyz', '/healthz', '/version', '/version/']);

export function isPublicInfoPath(path: string): boolean {
  return PUBLIC_INFO.has(path) || /^\/(livez|readyz|healthz)\/.+$/.test(path);
}

/** The read-only health and version probes upstream's default roles grant to all (FACTS 11, 12). */
export const publicInfo: Authorizer = {
  authorize: async ({ isResourceRequest, verb, path }) => ({
    decision: !isResourceRequest && verb === 'get' && isPublicInfoPath(path) ? 'Allow' : 'NoOpinion',
    reason: '',
  }),
  rulesFor: async () => ({
    resourceRules: [],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/healthz/*', '/livez', '/livez/*', '/readyz', '/readyz/*', '/version', '/version/'] }],
    incomplete: false,
  }),
};

/** Runs authorizers in order; the first Allow or Deny wins (SPEC 5.1 item 3). */
export function chain(authorizers: Authorizer[]): Authorizer {
  return {
    async authorize(attributes) {
      for (const authorizer of authorizers) {
        const result = await authorizer.authorize(attributes);
        if (result.decision !== 'NoOpinion') return result;
      }
      return { decision: 'NoOpinion', reason: '' };
    },
    // upstream's union rule resolver: every authorizer's rules added up.
    async rulesFor(user, namespace) {
      const all: Rules = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const authorizer of authorizers) {
        if (!authorizer.rulesFor) {
          all.incomplete = true;
          continue;
        }
        const rules = await authorizer.rulesFor(user, namespace);
        all.resourceRules.push(...rules.resourceRules);
        all.nonResourceRules.push(...rules.nonResourceRules);
        all.incomplete ||= rules.incomplete;
      }
      return all;
    },
  };
}

/** `--authorization-mode` values served today; the others are refused at start-up. */
export const AUTHORIZATION_MODES: Record<string, Authorizer> = { AlwaysAllow: alwaysAllow, AlwaysDeny: alwaysDeny };

export function authorizerForModes(modes: string[]): Authorizer {
  const chosen = modes.map((mode) => {
    const authorizer = AUTHORIZATION_MODES[mode];
    if (!authorizer) throw new Error(`--authorization-mode: unsupported mode ${JSON.stringify(mode)}; supported: ${Object.keys(AUTHORIZATION_MODES).join(', ')}`);
    return authorizer;
  });
  return chain([privilegedGroups, publicInfo, ...chosen]);
}
