/**
 * The Node columns of a Table (SPEC 2.5, 4.7; translated from upstream
 * kubernetes pkg/printers/internalversion/printers.go printNode, 1.31): Status
 * from the Ready condition and spec.unschedulable, Roles from the node-role
 * labels, the first internal and external address, and `<unknown>` for the
 * node-info fields a node has not reported.
 */
import type { components } from '../../../generated/types/api__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type Node = components['schemas']['io.orch.api.core.v1.Node'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

/** Upstream labelNodeRolePrefix and nodeLabelRole, renamed (FACTS 0). */
const NODE_ROLE_PREFIX = 'node-role.orch.io/';
const NODE_ROLE_LABEL = 'orch.io/role';

/** printNode's status: Ready or NotReady from the Ready condition (the last of that type), else Unknown; SchedulingDisabled when cordoned. */
function nodeStatus(node: any): string {
  let ready: any;
  for (const condition of arr(node?.status?.conditions)) if (condition?.type === 'Ready') ready = condition;
  const status = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (node?.spec?.unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

/** findNodeRoles: `node-role.orch.io/<role>` labels and the value of `orch.io/role`, sorted, comma-joined; `<none>`. */
function nodeRoles(labels: unknown): string {
  const roles = new Set<string>();
  if (labels && typeof labels === 'object') {
    for (const [key, value] of Object.entries(labels as Record<string, unknown>)) {
      if (key.startsWith(NODE_ROLE_PREFIX)) {
        const role = key.slice(NODE_ROLE_PREFIX.length);
        if (role) roles.add(role);
      } else if (key === NODE_ROLE_LABEL && typeof value === 'string' && value !== '') roles.add(value);
    }
  }
  // sets.String.List(): sorted by byte order, as Go compares strings.
  const sorted = [...roles].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted.length ? sorted.join(',') : '<none>';
}

/** getNodeInternalIP / getNodeExternalIP: the first address of that type, or `<none>`. */
function addressOf(addresses: unknown, type: string): string {
  const found = arr(addresses).find((a) => a?.type === type);
  return typeof found?.address === 'string' ? found.address : '<none>';
}

export const cells = {
  nodeStatus: (_v, node) => nodeStatus(node),
  nodeRoles: (labels) => nodeRoles(labels),
  nodeInternalIP: (addresses) => addressOf(addresses, 'InternalIP'),
  nodeExternalIP: (addresses) => addressOf(addresses, 'ExternalIP'),
} satisfies Record<string, Cell<Node>>;
