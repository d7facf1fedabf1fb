/**
 * RBAC's default roles and bindings (SPEC 5.5; FACTS 11), as upstream's
 * bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy) with the
 * renaming rule applied: `*.k8s.io` groups become `*.orch.io`, `kube-system`
 * and `kube-public` become `orch-system` and `orch-public`, and `kube-` in
 * component names becomes `orch-`. Every object carries upstream's label
 * `orch.io/bootstrapping: rbac-defaults` and the
 * annotation `rbac.authorization.orch.io/autoupdate: "true"` (addDefaultMetadata); the server
 * reconciles them at every start (bootstrap-reconciler.ts).
 *
 * Beyond upstream's policy: the Role and RoleBinding that let anonymous users
 * read `cluster-info` in orch-public, which upstream leaves to kubeadm
 * (`kubeadm:bootstrap-signer-clusterinfo`, here `orchadm:...`), because this
 * server owns the whole bootstrap flow (SPEC 2.9).
 */
import type { ApiObject } from '../../registry/strategy.ts';
import type { PolicyRule, Subject } from './rbac-rules.ts';

export const RBAC_GROUP = 'rbac.authorization.orch.io';
export const BOOTSTRAPPING_LABEL = 'orch.io/bootstrapping';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.orch.io/autoupdate';
export const AGGREGATE_TO = (role: 'admin' | 'edit' | 'view') => `rbac.authorization.orch.io/aggregate-to-${role}`;

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = [...READ, ...WRITE];
const EVENTS_WRITE = ['create', 'update', 'patch'];

/** upstream's NewRule(verbs...).Groups(...).Resources(...).Names(...): sets sorted as its builder sorts them. */
function rule(verbs: string[], groups: string[], resources: string[], names?: string[]): PolicyRule {
  const r: PolicyRule = { verbs: [...new Set(verbs)].sort(), apiGroups: [...new Set(groups)].sort(), resources: [...new Set(resources)].sort() };
  if (names) r.resourceNames = [...names].sort();
  return r;
}

function urls(verbs: string[], paths: string[]): PolicyRule {
  return { verbs: [...verbs].sort(), nonResourceURLs: [...paths].sort() };
}

const CORE = '';
const G = {
  authentication: 'authentication.orch.io',
  authorization: 'authorization.orch.io',
  rbac: RBAC_GROUP,
  networking: 'networking.orch.io',
  coordination: 'coordination.orch.io',
  discovery: 'discovery.orch.io',
  events: 'events.orch.io',
  certificates: 'certificates.orch.io',
  storage: 'storage.orch.io',
  node: 'node.orch.io',
  apps: 'apps',
  autoscaling: 'autoscaling',
  batch: 'batch',
  extensions: 'extensions',
  policy: 'policy',
};

const meta = (name: string, extraLabels: Record<string, string> = {}, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...extraLabels },
  annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
});

function clusterRole(name: string, rules: PolicyRule[], labels: Record<string, string> = {}, aggregateFrom?: string): ApiObject {
  const role: ApiObject = { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: meta(name, labels), rules };
  if (aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [aggregateFrom]: 'true' } }] };
  return role;
}

const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

function clusterRoleBinding(role: string, subjects: Subject[]): ApiObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: meta(role),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    ...(subjects.length ? { subjects } : {}),
  };
}

function role(namespace: string, name: string, rules: PolicyRule[]): ApiObject {
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: meta(name, {}, namespace), rules };
}

function roleBinding(namespace: string, name: string, roleName: string, subjects: Subject[]): ApiObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'RoleBinding',
    metadata: meta(name, {}, namespace),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: roleName },
    subjects,
  };
}

/** upstream ClusterRoles(). */
export function bootstrapClusterRoles(): ApiObject[] {
  return [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    clusterRole('system:discovery', [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'])]),
    clusterRole('system:monitoring', [urls(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])]),
    clusterRole('system:basic-user', [
      rule(['create'], [G.authorization], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], [G.authentication], ['selfsubjectreviews']),
    ]),
    clusterRole('system:public-info-viewer', [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])]),
    clusterRole('admin', [], {}, AGGREGATE_TO('admin')),
    clusterRole('edit', [], { [AGGREGATE_TO('admin')]: 'true' }, AGGREGATE_TO('edit')),
    clusterRole('view', [], { [AGGREGATE_TO('edit')]: 'true' }, AGGREGATE_TO('view')),
    clusterRole(
      'system:aggregate-to-admin',
      [rule(['create'], [G.authorization], ['localsubjectaccessreviews']), rule(READ_WRITE, [G.rbac], ['roles', 'rolebindings'])],
      { [AGGREGATE_TO('admin')]: 'true' },
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        rule(READ, [CORE], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
        rule(['impersonate'], [CORE], ['serviceaccounts']),
        rule(WRITE, [CORE], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
        rule(['create'], [CORE], ['pods/eviction']),
        rule(WRITE, [CORE], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
        rule(['create'], [CORE], ['serviceaccounts/token']),
        rule(WRITE, [G.apps], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
        rule(WRITE, [G.autoscaling], ['horizontalpodautoscalers']),
        rule(WRITE, [G.batch], ['jobs', 'cronjobs']),
        rule(WRITE, [G.extensions], ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
        rule(WRITE, [G.policy], ['poddisruptionbudgets']),
        rule(WRITE, [G.networking], ['networkpolicies', 'ingresses']),
        rule(READ_WRITE, [G.coordination], ['leases']),
      ],
      { [AGGREGATE_TO('edit')]: 'true' },
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        rule(READ, [CORE], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
        rule(READ, [CORE], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
        rule(READ, [CORE], ['namespaces']),
        rule(READ, [G.discovery], ['endpointslices']),
        rule(READ, [G.apps], ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
        rule(READ, [G.autoscaling], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        rule(READ, [G.batch], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
        rule(READ, [G.extensions], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
        rule(READ, [G.policy], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        rule(READ, [G.networking], ['networkpolicies', 'ingresses', 'ingresses/status']),
      ],
      { [AGGREGATE_TO('view')]: 'true' },
    ),
    clusterRole('system:heapster', [rule(READ, [CORE], ['events', 'pods', 'nodes', 'namespaces']), rule(READ, [G.extensions], ['deployments'])]),
    clusterRole('system:node', [
      rule(['create'], [G.authentication], ['tokenreviews']),
      rule(['create'], [G.authorization], ['subjectaccessreviews', 'localsubjectaccessreviews']),
      rule(READ, [CORE], ['services']),
      rule(['create', 'get', 'list', 'watch'], [CORE], ['nodes']),
      rule(['update', 'patch'], [CORE], ['nodes/status']),
      rule(['update', 'patch'], [CORE], ['nodes']),
      rule(['create', 'update', 'patch'], [CORE], ['events']),
      rule(READ, [CORE], ['pods']),
      rule(['create', 'delete'], [CORE], ['pods']),
      rule(['update', 'patch'], [CORE], ['pods/status']),
      rule(['create'], [CORE], ['pods/eviction']),
      rule(READ, [CORE], ['secrets', 'configmaps']),
      rule(['get'], [CORE], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['get'], [CORE], ['endpoints']),
      rule(['create', 'get', 'list', 'watch'], [G.certificates], ['certificatesigningrequests']),
      rule(['get', 'create', 'update', 'patch', 'delete'], [G.coordination], ['leases']),
      rule(['get'], [G.storage], ['volumeattachments']),
      rule(['create'], [CORE], ['serviceaccounts/token']),
      rule(['get', 'update', 'patch'], [CORE], ['persistentvolumeclaims/status']),
      rule(READ, [G.storage], ['csidrivers']),
      rule(['create', 'delete', 'get', 'patch', 'update'], [G.storage], ['csinodes']),
      rule(READ, [G.node], ['runtimeclasses']),
    ]),
    clusterRole('system:node-problem-detector', [rule(['get'], [CORE], ['nodes']), rule(['patch'], [CORE], ['nodes/status']), rule(EVENTS_WRITE, [CORE, G.events], ['events'])]),
    clusterRole('system:kubelet-api-admin', [rule(READ, [CORE], ['nodes']), rule(['proxy'], [CORE], ['nodes']), rule(['*'], [CORE], ['nodes/proxy', 'nodes/metrics', 'nodes/stats', 'nodes/log'])]),
    clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], [G.certificates], ['certificatesigningrequests'])]),
    clusterRole('system:auth-delegator', [rule(['create'], [G.authentication], ['tokenreviews']), rule(['create'], [G.authorization], ['subjectaccessreviews'])]),
    clusterRole('system:orch-aggregator', [rule(READ, [CORE], ['services', 'endpoints'])]),
    clusterRole('system:orch-controller-manager', [
      rule(EVENTS_WRITE, [CORE, G.events], ['events']),
      rule(['create'], [G.coordination], ['leases']),
      rule(['get', 'update'], [G.coordination], ['leases'], ['orch-controller-manager']),
      rule(['create'], [CORE], ['secrets', 'serviceaccounts']),
      rule(['delete'], [CORE], ['secrets']),
      rule(['get'], [CORE], ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
      rule(['update'], [CORE], ['secrets', 'serviceaccounts']),
      rule(['create'], [G.authentication], ['tokenreviews']),
      rule(['create'], [G.authorization], ['subjectaccessreviews']),
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], [CORE], ['serviceaccounts/token']),
    ]),
    clusterRole('system:orch-dns', [rule(['list', 'watch'], [CORE], ['endpoints', 'services'])]),
    clusterRole('system:persistent-volume-provisioner', [
      rule(['get', 'list', 'watch', 'create', 'delete'], [CORE], ['persistentvolumes']),
      rule(['get', 'list', 'watch', 'update'], [CORE], ['persistentvolumeclaims']),
      rule(READ, [G.storage], ['storageclasses']),
      rule(['watch'], [CORE], ['events']),
      rule(EVENTS_WRITE, [CORE, G.events], ['events']),
    ]),
    clusterRole('system:certificates.orch.io:certificatesigningrequests:nodeclient', [rule(['create'], [G.certificates], ['certificatesigningrequests/nodeclient'])]),
    clusterRole('system:certificates.orch.io:certificatesigningrequests:selfnodeclient', [rule(['create'], [G.certificates], ['certificatesigningrequests/selfnodeclient'])]),
    clusterRole('system:certificates.orch.io:orch-apiserver-client-approver', [rule(['approve'], [G.certificates], ['signers'], ['orch.io/orch-apiserver-client'])]),
    clusterRole('system:certificates.orch.io:orch-apiserver-client-kubelet-approver', [rule(['approve'], [G.certificates], ['signers'], ['orch.io/orch-apiserver-client-kubelet'])]),
    clusterRole('system:certificates.orch.io:kubelet-serving-approver', [rule(['approve'], [G.certificates], ['signers'], ['orch.io/kubelet-serving'])]),
    clusterRole('system:certificates.orch.io:legacy-unknown-approver', [rule(['approve'], [G.certificates], ['signers'], ['orch.io/legacy-unknown'])]),
    clusterRole('system:service-account-issuer-discovery', [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])]),
    clusterRole('system:node-proxier', [
      rule(['list', 'watch'], [CORE], ['services', 'endpoints']),
      rule(READ, [CORE], ['nodes']),
      rule(EVENTS_WRITE, [CORE, G.events], ['events']),
      rule(['list', 'watch'], [G.discovery], ['endpointslices']),
    ]),
    clusterRole('system:volume-scheduler', [
      rule(['get', 'list', 'watch', 'update', 'patch'], [CORE], ['persistentvolumes']),
      rule(READ, [G.storage], ['storageclasses']),
      rule(['get', 'list', 'watch', 'update', 'patch'], [CORE], ['persistentvolumeclaims']),
    ]),
    clusterRole('system:orch-scheduler', [
      rule(EVENTS_WRITE, [CORE, G.events], ['events']),
      rule(['create'], [G.coordination], ['leases']),
      rule(['get', 'update'], [G.coordination], ['leases'], ['orch-scheduler']),
      rule(READ, [CORE], ['nodes']),
      rule(['get', 'list', 'watch', 'delete'], [CORE], ['pods']),
      rule(['create'], [CORE], ['pods/binding', 'bindings']),
      rule(['patch', 'update'], [CORE], ['pods/status']),
      rule(READ, [CORE], ['replicationcontrollers', 'services']),
      rule(READ, [G.apps, G.extensions], ['replicasets']),
      rule(READ, [G.apps], ['statefulsets']),
      rule(READ, [G.policy], ['poddisruptionbudgets']),
      rule(READ, [CORE], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['create'], [G.authentication], ['tokenreviews']),
      rule(['create'], [G.authorization], ['subjectaccessreviews']),
      rule(READ, [G.storage], ['csinodes']),
      rule(READ, [CORE], ['namespaces']),
      rule(READ, [G.storage], ['csidrivers']),
      rule(READ, [G.storage], ['csistoragecapacities']),
    ]),
  ];
}

/** upstream ClusterRoleBindings(). */
export function bootstrapClusterRoleBindings(): ApiObject[] {
  return [
    clusterRoleBinding('cluster-admin', [group('system:masters')]),
    clusterRoleBinding('system:monitoring', [group('system:monitoring')]),
    clusterRoleBinding('system:discovery', [group('system:authenticated')]),
    clusterRoleBinding('system:basic-user', [group('system:authenticated')]),
    clusterRoleBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterRoleBinding('system:node-proxier', [user('system:orch-proxy')]),
    clusterRoleBinding('system:orch-controller-manager', [user('system:orch-controller-manager')]),
    clusterRoleBinding('system:orch-dns', [serviceAccount('orch-system', 'orch-dns')]),
    clusterRoleBinding('system:orch-scheduler', [user('system:orch-scheduler')]),
    clusterRoleBinding('system:volume-scheduler', [user('system:orch-scheduler')]),
    // Deprecated since the Node authorizer: kept without subjects, as upstream does.
    clusterRoleBinding('system:node', []),
    clusterRoleBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
  ];
}

/** upstream NamespaceRoles(), plus kubeadm's cluster-info reader. */
export function bootstrapRoles(): ApiObject[] {
  const leaderLocking = (component: string) =>
    role('orch-system', `system::leader-locking-${component}`, [
      rule(['watch', 'list', 'get', 'create', 'update'], [G.coordination], ['leases']),
      rule(['watch', 'list', 'get', 'create', 'update'], [G.coordination], ['leasecandidates']),
    ]);
  return [
    role('orch-public', 'system:controller:bootstrap-signer', [
      rule(READ, [CORE], ['configmaps']),
      rule(['update'], [CORE], ['configmaps'], ['cluster-info']),
      rule(EVENTS_WRITE, [CORE, G.events], ['events']),
    ]),
    role('orch-public', 'orchadm:bootstrap-signer-clusterinfo', [rule(['get'], [CORE], ['configmaps'], ['cluster-info'])]),
    role('orch-system', 'extension-apiserver-authentication-reader', [rule(READ, [CORE], ['configmaps'], ['extension-apiserver-authentication'])]),
    leaderLocking('orch-controller-manager'),
    leaderLocking('orch-scheduler'),
    role('orch-system', 'system:controller:bootstrap-signer', [rule(READ, [CORE], ['secrets'])]),
    role('orch-system', 'system:controller:cloud-provider', [rule(['create', 'get', 'list', 'watch'], [CORE], ['configmaps'])]),
    role('orch-system', 'system:controller:token-cleaner', [rule(['delete', 'get', 'list', 'watch'], [CORE], ['secrets']), rule(EVENTS_WRITE, [CORE, G.events], ['events'])]),
  ];
}

/** upstream NamespaceRoleBindings(), plus kubeadm's: anonymous users read cluster-info (SPEC 2.9). */
export function bootstrapRoleBindings(): ApiObject[] {
  return [
    roleBinding('orch-public', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('orch-system', 'bootstrap-signer')]),
    roleBinding('orch-public', 'orchadm:bootstrap-signer-clusterinfo', 'orchadm:bootstrap-signer-clusterinfo', [user('system:anonymous')]),
    roleBinding('orch-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [user('system:orch-controller-manager'), user('system:orch-scheduler')]),
    roleBinding('orch-system', 'system::leader-locking-orch-controller-manager', 'system::leader-locking-orch-controller-manager', [
      user('system:orch-controller-manager'),
      serviceAccount('orch-system', 'orch-controller-manager'),
      serviceAccount('orch-system', 'leader-election-controller'),
    ]),
    roleBinding('orch-system', 'system::leader-locking-orch-scheduler', 'system::leader-locking-orch-scheduler', [user('system:orch-scheduler'), serviceAccount('orch-system', 'orch-scheduler')]),
    roleBinding('orch-system', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('orch-system', 'bootstrap-signer')]),
    roleBinding('orch-system', 'system:controller:cloud-provider', 'system:controller:cloud-provider', [serviceAccount('orch-system', 'cloud-provider')]),
    roleBinding('orch-system', 'system:controller:token-cleaner', 'system:controller:token-cleaner', [serviceAccount('orch-system', 'token-cleaner')]),
  ];
}
