/**
 * What every node may do beyond the objects the graph ties to it: upstream
 * plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go NodeRules() with
 * 1.31's default feature gates (DynamicResourceAllocation and
 * ClusterTrustBundle off), groups renamed (FACTS 0). Taken as data: rules
 * about kinds this server does not serve allow nothing that exists here.
 * Secrets, config maps, service-account tokens, leases and claims are
 * narrowed by the Node authorizer before these rules are read.
 */
import type { PolicyRule } from '../authorization/rbac-rules.ts';

const READ = ['get', 'list', 'watch'];

export const NODE_RULES: readonly PolicyRule[] = Object.freeze([
  // Needed to check API access. These creates are non-mutating.
  { verbs: ['create'], apiGroups: ['authentication.orch.io'], resources: ['tokenreviews'] },
  { verbs: ['create'], apiGroups: ['authorization.orch.io'], resources: ['subjectaccessreviews', 'localsubjectaccessreviews'] },
  // Needed to build serviceLister, to populate env vars for services.
  { verbs: READ, apiGroups: [''], resources: ['services'] },
  // Nodes can register Node API objects and report status; NodeRestriction limits a node to its own.
  { verbs: ['create', 'get', 'list', 'watch'], apiGroups: [''], resources: ['nodes'] },
  { verbs: ['update', 'patch'], apiGroups: [''], resources: ['nodes/status'] },
  { verbs: ['update', 'patch'], apiGroups: [''], resources: ['nodes'] },
  { verbs: ['create', 'update', 'patch'], apiGroups: [''], resources: ['events'] },
  { verbs: READ, apiGroups: [''], resources: ['pods'] },
  // Mirror pods; NodeRestriction limits a node to creating and deleting mirror pods bound to itself.
  { verbs: ['create', 'delete'], apiGroups: [''], resources: ['pods'] },
  // Status of the pods it runs; NodeRestriction limits a node to pods bound to itself.
  { verbs: ['update', 'patch'], apiGroups: [''], resources: ['pods/status'] },
  { verbs: ['create'], apiGroups: [''], resources: ['pods/eviction'] },
  // The Node authorizer limits these to the objects referenced by pods bound to the node.
  { verbs: READ, apiGroups: [''], resources: ['secrets', 'configmaps'] },
  { verbs: ['get'], apiGroups: [''], resources: ['persistentvolumeclaims', 'persistentvolumes'] },
  { verbs: ['get'], apiGroups: [''], resources: ['endpoints'] },
  { verbs: ['create', 'get', 'list', 'watch'], apiGroups: ['certificates.orch.io'], resources: ['certificatesigningrequests'] },
  { verbs: ['get', 'create', 'update', 'patch', 'delete'], apiGroups: ['coordination.orch.io'], resources: ['leases'] },
  { verbs: ['get'], apiGroups: ['storage.orch.io'], resources: ['volumeattachments'] },
  { verbs: ['create'], apiGroups: [''], resources: ['serviceaccounts/token'] },
  { verbs: ['get', 'update', 'patch'], apiGroups: [''], resources: ['persistentvolumeclaims/status'] },
  { verbs: ['get', 'watch', 'list'], apiGroups: ['storage.orch.io'], resources: ['csidrivers'] },
  { verbs: ['get', 'create', 'update', 'patch', 'delete'], apiGroups: ['storage.orch.io'], resources: ['csinodes'] },
  { verbs: READ, apiGroups: ['node.orch.io'], resources: ['runtimeclasses'] },
]);
