/**
 * NodeRestriction admission (upstream plugin/pkg/admission/noderestriction,
 * 1.31), over the kinds this server serves. The Node authorizer lets every
 * node create and update nodes, write pods/status, create and delete pods and
 * write leases; this plugin limits each node (`system:node:<name>` in
 * `system:nodes`) to its own:
 *
 *  - pods: create only mirror pods bound to itself, owned by its Node and
 *    naming no service account, secret, config map, cluster trust bundle or
 *    claim; delete only pods bound to itself; no other write;
 *  - pods/status: only of pods bound to itself, labels unchanged;
 *  - nodes: only its own Node; on create no configSource and no restricted
 *    labels; on update no new configSource, no taint change, no restricted label change;
 *  - serviceaccounts/token: only bound to a pod (by name and uid) bound to itself;
 *  - leases: only in orch-node-lease, only its own.
 *
 * Upstream's plugin mutates (Admit), so it runs in the mutating phase, after
 * ServiceAccount's, and its refusals come before validation's. The objects it
 * looks up (a node, a pod) come from the watch cache, as upstream's come from
 * informers.
 */
import * as errors from '../api/status-error.ts';
import { nodeIdentity } from '../auth/node/node-identity.ts';
import { MIRROR_POD_ANNOTATION } from '../auth/node/node-graph.ts';
import { NODE_LEASE_NAMESPACE } from '../auth/node/node-authorizer.ts';
import { podConfigMapNames, podSecretNames } from '../auth/node/pod-references.ts';
import type { AdmissionAttributes, AdmissionHook } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { goQuote } from '../util/go-print.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Objects the plugin reads (upstream's listers). */
export interface NodeRestrictionLookup {
  node(name: string): ApiObject | undefined;
  pod(namespace: string, name: string): ApiObject | undefined;
}

/** upstream v1.LabelNamespaceNodeRestriction, renamed (FACTS 0). */
export const NODE_RESTRICTION_LABEL_NAMESPACE = 'node-restriction.orch.io';

/**
 * upstream k8s.io/kubelet/pkg/apis IsKubeletLabel: the labels a kubelet sets on
 * its own Node (kubeletLabels) and the namespaces it may use
 * (kubeletLabelNamespaces), renamed.
 */
const KUBELET_LABELS = new Set([
  'orch.io/hostname',
  'topology.orch.io/zone',
  'topology.orch.io/region',
  'failure-domain.beta.orch.io/zone',
  'failure-domain.beta.orch.io/region',
  'beta.orch.io/instance-type',
  'node.orch.io/instance-type',
  'orch.io/os',
  'orch.io/arch',
  'beta.orch.io/os',
  'beta.orch.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.orch.io', 'node.orch.io'];

const labelNamespace = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (namespace: string, of: string) => namespace === of || namespace.endsWith(`.${of}`);

function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  const namespace = labelNamespace(key);
  return KUBELET_LABEL_NAMESPACES.some((allowed) => inNamespace(namespace, allowed));
}

/** upstream isKubernetesLabel: `kubernetes.io` and `k8s.io` namespaces, both `orch.io` here. */
const isOrchLabel = (key: string) => inNamespace(labelNamespace(key), 'orch.io');

/** upstream getModifiedLabels: keys added, removed or changed. */
function modifiedLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): string[] {
  const modified = new Set<string>();
  for (const [k, v] of Object.entries(a ?? {})) if (!Object.hasOwn(b ?? {}, k) || b![k] !== v) modified.add(k);
  for (const [k, v] of Object.entries(b ?? {})) if (!Object.hasOwn(a ?? {}, k) || a![k] !== v) modified.add(k);
  return [...modified];
}

/** upstream getForbiddenLabels, sorted as sets.String.List(). */
function forbiddenLabels(modified: string[]): string[] {
  const forbidden = modified.filter((key) => inNamespace(labelNamespace(key), NODE_RESTRICTION_LABEL_NAMESPACE) || (isOrchLabel(key) && !isKubeletLabel(key)));
  return forbidden.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

/** Semantic equality of JSON values: absent, null, empty list and empty object alike (apiequality.Semantic). */
function semanticallyEqual(x: unknown, y: unknown): boolean {
  const empty = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && Object.keys(v).length === 0);
  if (empty(x) && empty(y)) return true;
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => semanticallyEqual(v, y[i]));
  if (x && y && typeof x === 'object' && typeof y === 'object' && !Array.isArray(x) && !Array.isArray(y)) {
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    return [...keys].every((k) => semanticallyEqual((x as any)[k], (y as any)[k]));
  }
  return x === y;
}

/**
 * upstream admission.NewForbidden: the request's name (or the object's name,
 * or its generateName, or "Unknown") and the resource without subresource.
 */
function forbidden(a: AdmissionAttributes, message: string): errors.StatusError {
  const name = a.name || str(a.object?.metadata?.name) || str(a.object?.metadata?.generateName) || 'Unknown';
  return errors.forbidden({ group: a.kind.group, resource: a.kind.plural }, name, message);
}

const op = (a: AdmissionAttributes) => goQuote(a.operation);

export function nodeRestriction(lookup: NodeRestrictionLookup): AdmissionHook {
  function admitPodCreate(nodeName: string, a: AdmissionAttributes): void {
    const pod = a.object!;
    const node = goQuote(nodeName);
    if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] === undefined) {
      throw forbidden(a, `pod does not have ${goQuote(MIRROR_POD_ANNOTATION)} annotation, node ${node} can only create mirror pods`);
    }
    if (str(pod.spec?.nodeName) !== nodeName) throw forbidden(a, `node ${node} can only create pods with spec.nodeName set to itself`);
    const owners = arr(pod.metadata.ownerReferences);
    if (owners.length > 1) throw forbidden(a, `node ${node} can only create pods with a single owner reference set to itself`);
    if (owners.length === 0) throw forbidden(a, `node ${node} can only create pods with an owner reference set to itself`);
    const owner = owners[0] ?? {};
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName) throw forbidden(a, `node ${node} can only create pods with an owner reference set to itself`);
    if (owner.controller !== true) throw forbidden(a, `node ${node} can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw forbidden(a, `node ${node} must not set blockOwnerDeletion on an owner reference`);
    const self = lookup.node(nodeName);
    // upstream's lister answers NotFound for the resource "node"
    if (!self) throw errors.notFound({ group: '', resource: 'node' }, nodeName);
    if (str(owner.uid) !== str(self.metadata.uid)) throw forbidden(a, `node ${nodeName} UID mismatch: expected ${str(owner.uid)} got ${str(self.metadata.uid)}`);
    // A node may not create a pod that references any other API object.
    if (str(pod.spec?.serviceAccountName)) throw forbidden(a, `node ${node} can not create pods that reference a service account`);
    if (podSecretNames(pod).length) throw forbidden(a, `node ${node} can not create pods that reference secrets`);
    if (podConfigMapNames(pod).length) throw forbidden(a, `node ${node} can not create pods that reference configmaps`);
    for (const volume of arr(pod.spec?.volumes)) {
      for (const source of arr(volume?.projected?.sources)) {
        if (source?.clusterTrustBundle) throw forbidden(a, `node ${node} can not create pods that reference clustertrustbundles`);
      }
    }
    for (const volume of arr(pod.spec?.volumes)) {
      if (volume?.persistentVolumeClaim) throw forbidden(a, `node ${node} can not create pods that reference persistentvolumeclaims`);
    }
  }

  function admitPod(nodeName: string, a: AdmissionAttributes): void {
    switch (a.operation) {
      case 'CREATE':
        return admitPodCreate(nodeName, a);
      case 'DELETE':
        // the pod being deleted, as the store read it
        if (str(a.object?.spec?.nodeName) !== nodeName) throw forbidden(a, `node ${goQuote(nodeName)} can only delete pods with spec.nodeName set to itself`);
        return;
      default:
        throw forbidden(a, `unexpected operation ${op(a)}, node ${goQuote(nodeName)} can only create and delete mirror pods`);
    }
  }

  function admitPodStatus(nodeName: string, a: AdmissionAttributes): void {
    if (a.operation !== 'UPDATE') throw forbidden(a, `unexpected operation ${op(a)}`);
    const old = a.oldObject!;
    const pod = a.object!;
    if (str(old.spec?.nodeName) !== nodeName) throw forbidden(a, `node ${goQuote(nodeName)} can only update pod status for pods with spec.nodeName set to itself`);
    if (modifiedLabels(pod.metadata.labels, old.metadata.labels).length) throw forbidden(a, `node ${goQuote(nodeName)} cannot update labels through pod status`);
    const claims = (p: ApiObject) => arr(p.status?.resourceClaimStatuses).map((s) => [str(s?.name), s?.resourceClaimName ?? null]);
    if (JSON.stringify(claims(pod)) !== JSON.stringify(claims(old))) throw forbidden(a, `node ${goQuote(nodeName)} cannot update resource claim statues`);
  }

  function admitNode(nodeName: string, a: AdmissionAttributes): void {
    if (a.name !== nodeName) throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to modify node ${goQuote(a.name)}`);
    if (a.operation === 'CREATE') {
      const node = a.object!;
      // A node's access follows what its spec names: a configSource would widen it.
      if (node.spec?.configSource) throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to create pods with a non-nil configSource`);
      const labels = forbiddenLabels(modifiedLabels(node.metadata.labels, undefined));
      if (labels.length) throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to set the following labels: ${labels.join(', ')}`);
    }
    if (a.operation === 'UPDATE') {
      const node = a.object!;
      const old = a.oldObject!;
      if (node.spec?.configSource && !semanticallyEqual(node.spec.configSource, old.spec?.configSource)) {
        throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to update configSource to a new non-nil configSource`);
      }
      // Its own taints would let a node steer workloads it should not run to itself.
      if (!semanticallyEqual(node.spec?.taints, old.spec?.taints)) throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to modify taints`);
      const labels = forbiddenLabels(modifiedLabels(node.metadata.labels, old.metadata.labels));
      // upstream's message names no node here
      if (labels.length) throw forbidden(a, `is not allowed to modify labels: ${labels.join(', ')}`);
    }
  }

  function admitServiceAccount(nodeName: string, a: AdmissionAttributes): void {
    if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
    // Tokens a node asks for must be bound to a pod scheduled on the node.
    const ref = a.object?.spec?.boundObjectRef;
    if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !str(ref.name)) throw forbidden(a, 'node requested token not bound to a pod');
    if (!str(ref.uid)) throw forbidden(a, 'node requested token with a pod binding without a uid');
    const pod = lookup.pod(a.namespace ?? '', ref.name);
    if (!pod) throw errors.notFound({ group: '', resource: 'pod' }, ref.name);
    if (ref.uid !== pod.metadata.uid) {
      throw forbidden(a, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (str(pod.spec?.nodeName) !== nodeName) throw forbidden(a, 'node requested token bound to a pod scheduled on a different node');
  }

  function admitLease(nodeName: string, a: AdmissionAttributes): void {
    if (a.namespace !== NODE_LEASE_NAMESPACE) throw forbidden(a, `can only access leases in the ${goQuote(NODE_LEASE_NAMESPACE)} system namespace`);
    const name = a.operation === 'CREATE' ? str(a.object?.metadata?.name) : a.name;
    if (name !== nodeName) throw forbidden(a, 'can only access node lease with the same name as the requesting node');
  }

  return async (a) => {
    const { isNode, nodeName } = nodeIdentity(a.user);
    if (!isNode) return;
    if (!nodeName) throw forbidden(a, `could not determine node from user ${goQuote(a.user!.name)}`);
    switch (`${a.kind.group}/${a.kind.plural}`) {
      case '/pods':
        if (a.subresource === '') return admitPod(nodeName, a);
        if (a.subresource === 'status') return admitPodStatus(nodeName, a);
        throw forbidden(a, `unexpected pod subresource ${goQuote(a.subresource)}, only 'status' and 'eviction' are allowed`);
      case '/nodes':
        return admitNode(nodeName, a);
      case '/serviceaccounts':
        return admitServiceAccount(nodeName, a);
      case 'coordination.orch.io/leases':
        return admitLease(nodeName, a);
      default:
        return;
    }
  };
}
