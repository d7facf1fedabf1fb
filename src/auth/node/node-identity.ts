/**
 * Who is a node (upstream pkg/auth/nodeidentifier/default.go): a user named
 * `system:node:<name>` who is also in the group `system:nodes`. A user with
 * the name prefix and the group but nothing after the prefix is a node whose
 * name is unknown; the Node authorizer and NodeRestriction refuse it.
 */
import type { UserInfo } from '../../api/user.ts';

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';

export interface NodeIdentity {
  isNode: boolean;
  /** '' when the user is not a node, or a node whose name cannot be told. */
  nodeName: string;
}

const NOT_A_NODE: NodeIdentity = Object.freeze({ isNode: false, nodeName: '' });

export function nodeIdentity(user: UserInfo | undefined): NodeIdentity {
  if (!user || !user.name.startsWith(NODE_USER_PREFIX)) return NOT_A_NODE;
  if (!user.groups.includes(NODES_GROUP)) return NOT_A_NODE;
  return { isNode: true, nodeName: user.name.slice(NODE_USER_PREFIX.length) };
}
