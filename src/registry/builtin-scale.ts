/**
 * The scale subresource of the built-in workload kinds (upstream
 * pkg/registry/apps/{deployment,replicaset,statefulset}/storage and
 * pkg/registry/core/replicationcontroller/storage ScaleREST:
 * scaleFromDeployment and friends read spec.replicas, status.replicas and
 * spec.selector; a Scale write sets spec.replicas). They are served by the same
 * handlers as a custom resource's scale subresource.
 *
 * Their paths are contract data now: each kind's overlay says them under
 * `scale:` (openapi/kinds/apps/Deployment.yaml and the others), and the
 * generated kind carries them as `scale` (src/generated/kinds.ts). The merge
 * refuses a scale subresource without paths, so there is nothing left to add
 * here; the composition root's call stays harmless until it drops it.
 */
import type { KindDefinition } from './kind.ts';

/** The kind as generated: its scale paths, when it has a scale subresource, come from the contract. */
export function withBuiltinScale(kind: KindDefinition): KindDefinition {
  return kind;
}
