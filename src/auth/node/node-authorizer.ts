/**
 * The Node authorizer (SPEC 5.1 item 5; upstream plugin/pkg/auth/authorizer/node
 * node_authorizer.go, 1.31 with its default gates): requests of a node
 * (`system:node:<name>` in `system:nodes`, pkg/auth/nodeidentifier) to the
 * kinds a node reaches through its pods are decided by the graph; everything
 * else a node does is the static NodeRules(). Anyone else gets no opinion, so
 * the chain goes on (to RBAC).
 *
 *  - secrets, configmaps: get, and list/watch of one object (the name of a
 *    `metadata.name` field selector), when a pod bound to the node names it;
 *  - serviceaccounts: only create of `token`, for an account a pod bound to
 *    the node runs as;
 *  - leases: in orch-node-lease, the node's own name (create is left to NodeRestriction);
 *  - persistentvolumeclaims, persistentvolumes, volumeattachments,
 *    resourceclaims, csinodes, resourceslices: as upstream, though this server
 *    serves none of them; only access reviews ever ask.
 */
import type { UserInfo } from '../../api/user.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, Rules } from '../authorization/authorizer.ts';
import { noRules } from '../authorization/authorizer.ts';
import { ruleAllows } from '../authorization/rbac-rules.ts';
import { goQuote } from '../../util/go-print.ts';
import type { NodeGraph, VertexType } from './node-graph.ts';
import { nodeIdentity } from './node-identity.ts';
import { NODE_RULES } from './node-rules.ts';

/** upstream api.NamespaceNodeLease, renamed (FACTS 0). */
export const NODE_LEASE_NAMESPACE = 'orch-node-lease';

const ALLOW: AuthorizationResult = Object.freeze({ decision: 'Allow', reason: '' });
const NO_OPINION: AuthorizationResult = Object.freeze({ decision: 'NoOpinion', reason: '' });
const noOpinion = (reason: string): AuthorizationResult => ({ decision: 'NoOpinion', reason });

export function nodeAuthorizer(graph: NodeGraph): Authorizer {
  const noRelationship = (nodeName: string) => noOpinion(`no relationship found between node '${nodeName}' and this object`);

  /** upstream authorize: an object named in the request that reaches the node. */
  function authorize(nodeName: string, type: VertexType, a: AuthorizationAttributes): AuthorizationResult {
    if (!a.name) return noOpinion('No Object name found');
    return graph.hasPathFrom(nodeName, type, a.namespace, a.name) ? ALLOW : noRelationship(nodeName);
  }

  /** upstream authorizeReadNamespacedObject: get, list and watch of one namespaced object. */
  function readNamespacedObject(nodeName: string, type: VertexType, a: AuthorizationAttributes): AuthorizationResult {
    if (!['get', 'list', 'watch'].includes(a.verb)) return noOpinion('can only read resources of this type');
    if (a.subresource) return noOpinion('cannot read subresource');
    if (!a.namespace) return noOpinion('can only read namespaced object of this type');
    return authorize(nodeName, type, a);
  }

  /** upstream authorizeGet. */
  function get(nodeName: string, type: VertexType, a: AuthorizationAttributes): AuthorizationResult {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource) return noOpinion('cannot get subresource');
    return authorize(nodeName, type, a);
  }

  /** upstream authorizeStatusUpdate. */
  function statusUpdate(nodeName: string, type: VertexType, a: AuthorizationAttributes): AuthorizationResult {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (a.subresource !== 'status') return noOpinion('can only update status subresource');
    return authorize(nodeName, type, a);
  }

  /** upstream authorizeCreateToken. */
  function createToken(nodeName: string, a: AuthorizationAttributes): AuthorizationResult {
    if (a.verb !== 'create' || !a.name) return noOpinion('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return graph.hasPathFrom(nodeName, 'serviceAccount', a.namespace, a.name) ? ALLOW : noRelationship(nodeName);
  }

  /** upstream authorizeLease: the node's own lease in orch-node-lease; create is NodeRestriction's to check. */
  function lease(nodeName: string, a: AuthorizationAttributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the ${goQuote(NODE_LEASE_NAMESPACE)} system namespace`);
    if (a.verb !== 'create' && a.name !== nodeName) return noOpinion('can only access node lease with the same name as the requesting node');
    return ALLOW;
  }

  /** upstream authorizeCSINode. */
  function csiNode(nodeName: string, a: AuthorizationAttributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
    if (a.subresource) return noOpinion('cannot authorize CSINode subresources');
    if (a.verb !== 'create' && a.name !== nodeName) return noOpinion('can only access CSINode with the same name as the requesting node');
    return ALLOW;
  }

  /** upstream authorizeResourceSlice with AuthorizeNodeWithSelectors off (1.31). */
  function resourceSlice(nodeName: string, a: AuthorizationAttributes): AuthorizationResult {
    if (a.subresource) return noOpinion('cannot authorize ResourceSlice subresources');
    switch (a.verb) {
      case 'create':
      case 'watch':
      case 'list':
      case 'deletecollection':
        return ALLOW;
      case 'get':
      case 'update':
      case 'patch':
      case 'delete':
        return authorize(nodeName, 'resourceslice', a);
      default:
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    }
  }

  function subdivided(nodeName: string, a: AuthorizationAttributes): AuthorizationResult | undefined {
    switch (`${a.group}/${a.resource}`) {
      case '/secrets':
        return readNamespacedObject(nodeName, 'secret', a);
      case '/configmaps':
        return readNamespacedObject(nodeName, 'configmap', a);
      case '/persistentvolumeclaims':
        return a.subresource === 'status' ? statusUpdate(nodeName, 'pvc', a) : get(nodeName, 'pvc', a);
      case '/persistentvolumes':
        return get(nodeName, 'pv', a);
      case 'resource.orch.io/resourceclaims':
        return get(nodeName, 'resourceclaim', a);
      case 'storage.orch.io/volumeattachments':
        return get(nodeName, 'volumeattachment', a);
      case '/serviceaccounts':
        return createToken(nodeName, a);
      case 'coordination.orch.io/leases':
        return lease(nodeName, a);
      case 'storage.orch.io/csinodes':
        return csiNode(nodeName, a);
      case 'resource.orch.io/resourceslices':
        return resourceSlice(nodeName, a);
      default:
        return undefined;
    }
  }

  return {
    async authorize(a: AuthorizationAttributes): Promise<AuthorizationResult> {
      const { isNode, nodeName } = nodeIdentity(a.user);
      if (!isNode) return NO_OPINION;
      if (!nodeName) return noOpinion(`unknown node for user ${goQuote(a.user.name)}`);
      if (a.isResourceRequest) {
        const decided = subdivided(nodeName, a);
        if (decided) return decided;
      }
      return NODE_RULES.some((rule) => ruleAllows(a, rule)) ? ALLOW : NO_OPINION;
    },
    // upstream RulesFor: a node's permissions cannot be listed.
    async rulesFor(user: UserInfo): Promise<Rules> {
      if (!nodeIdentity(user).isNode) return noRules();
      return { ...noRules(), incomplete: true, error: 'node authorizer does not support user rule resolution' };
    },
  };
}
