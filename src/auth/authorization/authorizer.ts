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

export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): Promise<{ decision: Decision; reason: string }>;
}

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

export const alwaysAllow: Authorizer = { authorize: async () => ({ decision: 'Allow', reason: '' }) };
export const alwaysDeny: Authorizer = { authorize: async () => ({ decision: 'Deny', reason: '' }) };

/** Members of system:masters may do anything, before any mode is consulted (FACTS 11). */
export const privilegedGroups: Authorizer = {
  authorize: async ({ user }) => ({ decision: user.groups.includes(MASTERS_GROUP) ? 'Allow' : 'NoOpinion', reason: '' }),
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
