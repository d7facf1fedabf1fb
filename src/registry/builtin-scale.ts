/**
 * The scale subresource of the built-in workload kinds (upstream
 * pkg/registry/apps/{deployment,replicaset,statefulset}/storage and
 * pkg/registry/core/replicationcontroller/storage ScaleREST:
 * scaleFromDeployment and friends read spec.replicas, status.replicas and
 * spec.selector; a Scale write sets spec.replicas). They are served by the same
 * handlers as a custom resource's scale subresource, with these paths.
 */
import type { KindDefinition, ScalePaths } from './kind.ts';

const WORKLOAD_SCALE: ScalePaths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', selectorObjectPath: '.spec.selector' };

const BUILTIN_SCALE: Record<string, ScalePaths> = {
  'apps/Deployment': WORKLOAD_SCALE,
  'apps/ReplicaSet': WORKLOAD_SCALE,
  'apps/StatefulSet': WORKLOAD_SCALE,
  // K pkg/registry/core/replicationcontroller/storage scaleFromRC: the selector is a plain label map
  '/ReplicationController': { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', selectorMapPath: '.spec.selector' },
};

/** The kind with its scale paths when it is a built-in kind with a scale subresource in the contract. */
export function withBuiltinScale(kind: KindDefinition): KindDefinition {
  const paths = BUILTIN_SCALE[`${kind.group}/${kind.kind}`];
  if (!paths || kind.scale || !kind.subresources.some((s) => s.name === 'scale')) return kind;
  return { ...kind, scale: paths };
}
