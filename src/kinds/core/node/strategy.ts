/**
 * The Node strategy (K pkg/registry/core/node/strategy.go at 1.31): v1
 * defaults and the podCIDR/podCIDRs conversion on every write, the fields of
 * disabled features dropped, ValidateNode on create and update of the
 * resource, ValidateNodeUpdate alone through `nodes/status`. A create may set
 * status (upstream: "Nodes allow *all* fields, including status, to be set on
 * create"); an update of the resource keeps the stored status and an update
 * of `nodes/status` the stored spec (the generic withStatusReset and status
 * subresource strategy).
 */
import type { components } from '../../../generated/types/api__v1.ts';
import type { ApiObject, Strategy } from '../../../registry/strategy.ts';
import { validateNode, validateNodeUpdate } from './validate.ts';
import { canonicalResourceList } from '../../../registry/validation/resource-list.ts';

type Node = components['schemas']['io.orch.api.core.v1.Node'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * K pkg/apis/core/v1 defaults and conversion: every ResourceList rounded to
 * milli units (SetDefaults_ResourceList), allocatable copied from capacity
 * when unset (SetDefaults_NodeStatus); podCIDR authoritative over podCIDRs
 * and their first entry (Convert_v1_NodeSpec_To_core_NodeSpec and back).
 */
export function defaultNode(node: ApiObject): void {
  if (isObj(node.status)) {
    canonicalResourceList(node.status.capacity, 'Node');
    canonicalResourceList(node.status.allocatable, 'Node');
    if (node.status.allocatable === undefined && isObj(node.status.capacity)) node.status.allocatable = { ...node.status.capacity };
  }
  const spec = node.spec;
  if (!isObj(spec)) return;
  const cidrs = arr(spec.podCIDRs);
  if (spec.podCIDR) {
    if (cidrs.length === 0 || cidrs[0] !== spec.podCIDR) spec.podCIDRs = [spec.podCIDR];
  } else if (cidrs.length > 0 && cidrs[0]) {
    spec.podCIDR = cidrs[0];
  }
}

/**
 * Upstream dropDisabledFields with 1.31's default gates: configSource (and
 * status.config) only where the stored node already had them, which no node
 * can since a create drops them; status.features (SupplementalGroupsPolicy,
 * alpha) and runtimeHandlers[].features.userNamespaces (UserNamespacesSupport,
 * off) never.
 */
function dropDisabledFields(node: ApiObject, old: ApiObject | null): void {
  if (!old) {
    if (isObj(node.spec)) delete node.spec.configSource;
    if (isObj(node.status)) delete node.status.config;
  } else if (!old.spec?.configSource && isObj(node.spec)) {
    delete node.spec.configSource;
  }
  dropDisabledStatusFields(node.status);
}

function dropDisabledStatusFields(status: unknown): void {
  if (!isObj(status)) return;
  delete status.features;
  for (const handler of arr(status.runtimeHandlers)) if (isObj(handler?.features)) delete handler.features.userNamespaces;
}

/** Upstream fieldIsDeprecatedWarnings. */
function warnings(node: ApiObject): string[] {
  const out: string[] = [];
  if (node.spec?.configSource) out.push('spec.configSource: the feature is removed');
  if (node.spec?.externalID) out.push('spec.externalID: this field is deprecated, and is unused by Kubernetes');
  return out;
}

export const strategy: Strategy<Node> = {
  applyDefaults: defaultNode,
  prepareForCreate: (node) => dropDisabledFields(node, null),
  prepareForUpdate: (node, old) => dropDisabledFields(node, old),
  validate: (node) => validateNode(node),
  validateUpdate: (node, old) => [...validateNode(node), ...validateNodeUpdate(node, old)],
  warningsOnCreate: warnings,
  validateStatusUpdate: (node, old) => validateNodeUpdate(node, old),
  prepareForStatusUpdate(node, old) {
    defaultNode(node);
    if (!old.status?.config && isObj(node.status)) delete node.status.config;
    dropDisabledStatusFields(node.status);
  },
};
