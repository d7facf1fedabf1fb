/**
 * The hand-written strategies, keyed by `group/Kind`. A kind without an entry
 * gets the default strategy: ObjectMeta validation and schema decoding only,
 * which is all a kind added through the contract needs.
 */
import role from '../../kinds/rbac.authorization.orch.io/role/index.ts';
import clusterRole from '../../kinds/rbac.authorization.orch.io/cluster-role/index.ts';
import roleBinding from '../../kinds/rbac.authorization.orch.io/role-binding/index.ts';
import clusterRoleBinding from '../../kinds/rbac.authorization.orch.io/cluster-role-binding/index.ts';
import type { Strategy } from '../strategy.ts';
import networkPolicy from '../../kinds/networking.orch.io/network-policy/index.ts';
import namespace from '../../kinds/core/namespace/index.ts';
import secret from '../../kinds/core/secret/index.ts';
import configMap from '../../kinds/core/config-map/index.ts';
import serviceAccount from '../../kinds/core/service-account/index.ts';
import coreEvent from '../../kinds/core/event/index.ts';
import event from '../../kinds/events.orch.io/event/index.ts';
import pod from '../../kinds/core/pod/index.ts';
import node from '../../kinds/core/node/index.ts';
import customResourceDefinition from '../../kinds/apiextensions.orch.io/custom-resource-definition/index.ts';
import deployment from '../../kinds/apps/deployment/index.ts';
import replicaSet from '../../kinds/apps/replica-set/index.ts';
import daemonSet from '../../kinds/apps/daemon-set/index.ts';
import statefulSet from '../../kinds/apps/stateful-set/index.ts';
import controllerRevision from '../../kinds/apps/controller-revision/index.ts';
import job from '../../kinds/batch/job/index.ts';
import cronJob from '../../kinds/batch/cron-job/index.ts';
import limitRange from '../../kinds/core/limit-range/index.ts';
import resourceQuota from '../../kinds/core/resource-quota/index.ts';
import persistentVolume from '../../kinds/core/persistent-volume/index.ts';
import persistentVolumeClaim from '../../kinds/core/persistent-volume-claim/index.ts';
import replicationController from '../../kinds/core/replication-controller/index.ts';
import endpoints from '../../kinds/core/endpoints/index.ts';
import podTemplate from '../../kinds/core/pod-template/index.ts';
import endpointSlice from '../../kinds/discovery.orch.io/endpoint-slice/index.ts';
import podDisruptionBudget from '../../kinds/policy/pod-disruption-budget/index.ts';
import runtimeClass from '../../kinds/node.orch.io/runtime-class/index.ts';
import storageClass from '../../kinds/storage.orch.io/storage-class/index.ts';
import volumeAttachment from '../../kinds/storage.orch.io/volume-attachment/index.ts';
import csiDriver from '../../kinds/storage.orch.io/csi-driver/index.ts';
import csiNode from '../../kinds/storage.orch.io/csi-node/index.ts';
import csiStorageCapacity from '../../kinds/storage.orch.io/csi-storage-capacity/index.ts';
import ingress from '../../kinds/networking.orch.io/ingress/index.ts';
import ingressClass from '../../kinds/networking.orch.io/ingress-class/index.ts';
import flowSchema from '../../kinds/flowcontrol.orch.io/flow-schema/index.ts';
import priorityLevelConfiguration from '../../kinds/flowcontrol.orch.io/priority-level-configuration/index.ts';
import horizontalPodAutoscaler from '../../kinds/autoscaling/horizontal-pod-autoscaler/index.ts';

const strategies: Record<string, Strategy> = {
  'rbac.authorization.orch.io/Role': role.strategy,
  'rbac.authorization.orch.io/ClusterRole': clusterRole.strategy,
  'rbac.authorization.orch.io/RoleBinding': roleBinding.strategy,
  'rbac.authorization.orch.io/ClusterRoleBinding': clusterRoleBinding.strategy,
  'apps/Deployment': deployment.strategy,
  'apps/ReplicaSet': replicaSet.strategy,
  'apps/DaemonSet': daemonSet.strategy,
  'apps/StatefulSet': statefulSet.strategy,
  'apps/ControllerRevision': controllerRevision.strategy,
  'batch/Job': job.strategy,
  'batch/CronJob': cronJob.strategy,
  '/LimitRange': limitRange.strategy,
  '/ResourceQuota': resourceQuota.strategy,
  '/PersistentVolume': persistentVolume.strategy,
  '/PersistentVolumeClaim': persistentVolumeClaim.strategy,
  '/ReplicationController': replicationController.strategy,
  '/Endpoints': endpoints.strategy,
  '/PodTemplate': podTemplate.strategy,
  'discovery.orch.io/EndpointSlice': endpointSlice.strategy,
  'policy/PodDisruptionBudget': podDisruptionBudget.strategy,
  'node.orch.io/RuntimeClass': runtimeClass.strategy,
  'storage.orch.io/StorageClass': storageClass.strategy,
  'storage.orch.io/VolumeAttachment': volumeAttachment.strategy,
  'storage.orch.io/CSIDriver': csiDriver.strategy,
  'storage.orch.io/CSINode': csiNode.strategy,
  'storage.orch.io/CSIStorageCapacity': csiStorageCapacity.strategy,
  'networking.orch.io/Ingress': ingress.strategy,
  'networking.orch.io/IngressClass': ingressClass.strategy,
  'flowcontrol.orch.io/FlowSchema': flowSchema.strategy,
  'flowcontrol.orch.io/PriorityLevelConfiguration': priorityLevelConfiguration.strategy,
  'autoscaling/HorizontalPodAutoscaler': horizontalPodAutoscaler.strategy,
  'events.orch.io/Event': event.strategy,
  'networking.orch.io/NetworkPolicy': networkPolicy.strategy,
  '/Namespace': namespace.strategy,
  '/Secret': secret.strategy,
  '/ConfigMap': configMap.strategy,
  '/ServiceAccount': serviceAccount.strategy,
  '/Event': coreEvent.strategy,
  '/Pod': pod.strategy,
  '/Node': node.strategy,
  'apiextensions.orch.io/CustomResourceDefinition': customResourceDefinition.strategy,
};

export function strategyFor(group: string, kind: string): Strategy {
  return strategies[`${group}/${kind}`] ?? {};
}
