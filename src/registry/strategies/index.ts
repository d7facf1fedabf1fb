/**
 * The hand-written strategies, keyed by `group/Kind`. A kind without an entry
 * gets the default strategy: ObjectMeta validation and schema decoding only,
 * which is all a kind added through the contract needs.
 */
import role from '../../kinds/rbac.authorization.orch.io/role/index.ts';
import clusterRole from '../../kinds/rbac.authorization.orch.io/cluster-role/index.ts';
import roleBinding from '../../kinds/rbac.authorization.orch.io/role-binding/index.ts';
import clusterRoleBinding from '../../kinds/rbac.authorization.orch.io/cluster-role-binding/index.ts';
import { specGeneration, validatedBy, type Strategy } from '../strategy.ts';
import {
  defaultNamespace,
  defaultNetworkPolicy,
  mergeSecretStringData,
  validateConfigMap,
  validateEvent,
  validateNamespace,
  validateNetworkPolicy,
  validateSecret,
  validateServiceAccount,
} from '../validation/kinds.ts';
import { podStrategy } from './pod.ts';
import { nodeStrategy } from './node.ts';
import { crdDeletion } from './crd-deletion.ts';
import { CRD_GROUP, crdStrategy } from './crd.ts';
import { workloadStrategies } from './workloads.ts';
import { coreKindStrategies } from './core-kinds.ts';
import { namedGroupStrategies } from './named-groups.ts';
import { flowcontrolStrategies } from './flowcontrol.ts';
import { autoscalingStrategies } from './autoscaling.ts';
import { eventStrategies } from './events.ts';

/** SPEC 2.6; FACTS 6: defaults, then every rule; generation follows spec changes. */
const networkPolicy: Strategy = {
  ...specGeneration,
  applyDefaults: defaultNetworkPolicy,
  ...validatedBy(validateNetworkPolicy),
};

/** Namespaces start Active with the `orch` finalizer; spec.finalizers change only through /finalize. */
const namespace: Strategy = {
  prepareForCreate: (obj) => defaultNamespace(obj),
  prepareForUpdate: (obj, old) => defaultNamespace(obj, old),
  ...validatedBy(validateNamespace),
  // The namespace controller empties the namespace, then removes `orch` through /finalize.
  holdsDeletion: (obj) => (obj.spec?.finalizers?.length ?? 0) > 0,
  beginDeletion(obj) {
    obj.status = { ...(obj.status ?? {}), phase: 'Terminating' };
  },
};

const secret: Strategy = {
  applyDefaults: mergeSecretStringData,
  ...validatedBy(validateSecret),
};

const configMap: Strategy = {
  ...validatedBy(validateConfigMap),
};

const serviceAccount: Strategy = {
  ...validatedBy(validateServiceAccount),
};

const event: Strategy = {
  ...validatedBy(validateEvent),
};

const strategies: Record<string, Strategy> = {
  'rbac.authorization.orch.io/Role': role.strategy,
  'rbac.authorization.orch.io/ClusterRole': clusterRole.strategy,
  'rbac.authorization.orch.io/RoleBinding': roleBinding.strategy,
  'rbac.authorization.orch.io/ClusterRoleBinding': clusterRoleBinding.strategy,
  ...workloadStrategies,
  ...coreKindStrategies,
  ...namedGroupStrategies,
  ...flowcontrolStrategies,
  ...autoscalingStrategies,
  ...eventStrategies,
  'networking.orch.io/NetworkPolicy': networkPolicy,
  '/Namespace': namespace,
  '/Secret': secret,
  '/ConfigMap': configMap,
  '/ServiceAccount': serviceAccount,
  '/Event': event,
  '/Pod': podStrategy,
  '/Node': nodeStrategy,
  [`${CRD_GROUP}/CustomResourceDefinition`]: { ...crdStrategy, ...crdDeletion },
};

export function strategyFor(group: string, kind: string): Strategy {
  return strategies[`${group}/${kind}`] ?? {};
}
