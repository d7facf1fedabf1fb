/**
 * SelfSubjectReview (SPEC 2.8, 4.11): answers who the caller is, after
 * impersonation, as upstream's registry/authentication/selfsubjectreview does.
 */
import type { ComputedCreate } from '../../registry/computed.ts';
import type { UserInfo } from '../../api/user.ts';

/** authentication.orch.io/v1 UserInfo: empty fields are omitted, as Go's omitempty does. */
export function userInfoStatus(user: UserInfo): Record<string, unknown> {
  const info: Record<string, unknown> = {};
  if (user.name) info.username = user.name;
  if (user.uid) info.uid = user.uid;
  if (user.groups.length) info.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) info.extra = structuredClone(user.extra);
  return info;
}

export const selfSubjectReview: ComputedCreate = async ({ body, user }) => ({
  ...body,
  status: { userInfo: userInfoStatus(user) },
});
