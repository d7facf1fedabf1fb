/**
 * The Node authorizer's graph (upstream plugin/pkg/auth/authorizer/node
 * graph.go and graph_populator.go), kept in memory from the watch cache: every
 * pod bound to a node (spec.nodeName set) links the node to the pod and to the
 * secrets, config maps, persistent volume claims and service account the pod
 * names. A node may reach an object when some pod bound to it names the object.
 *
 * Upstream keeps a directed graph with an index of destinations per vertex;
 * every edge here leads through exactly one pod to exactly one node, so the
 * graph reduces to, per node, a count of the pods through which each object is
 * reached. Adding, moving (a pod recreated under the same name on another
 * node), changing or deleting a pod updates it within the watch-cache event
 * that reports the change; no request reads storage.
 */
import type { ResourceCache } from '../../storage/cacher/resource-cache.ts';
import type { CacheEvent } from '../../storage/cacher/cache-event.ts';
import { podClaimNames, podConfigMapNames, podSecretNames } from './pod-references.ts';

/** upstream vertexTypes, by the names its messages use. */
export type VertexType = 'configmap' | 'secret' | 'serviceAccount' | 'pvc' | 'pod' | 'pv' | 'resourceclaim' | 'volumeattachment' | 'resourceslice';

/** upstream MirrorPodAnnotationKey, renamed (FACTS 0). */
export const MIRROR_POD_ANNOTATION = 'orch.io/config.mirror';

interface PodEdges {
  node: string;
  /** `type/namespace/name` of every object the pod links to its node, the pod itself included. */
  vertices: string[];
}

const vertexKey = (type: VertexType, namespace: string, name: string) => `${type}/${namespace}/${name}`;

/** upstream Graph.AddPod: the edges one pod bound to a node contributes; none for a pod on no node. */
function edgesOf(pod: any): PodEdges | undefined {
  const node = pod?.spec?.nodeName;
  if (typeof node !== 'string' || node === '') return undefined;
  const namespace: string = pod.metadata?.namespace ?? '';
  const vertices = [vertexKey('pod', namespace, pod.metadata?.name ?? '')];
  // A node must never be able to create a pod that grants it other objects: a mirror pod links only itself.
  if (pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] === undefined) {
    const account = pod.spec.serviceAccountName;
    if (typeof account === 'string' && account !== '') vertices.push(vertexKey('serviceAccount', namespace, account));
    for (const name of podSecretNames(pod)) vertices.push(vertexKey('secret', namespace, name));
    for (const name of podConfigMapNames(pod)) vertices.push(vertexKey('configmap', namespace, name));
    for (const name of podClaimNames(pod)) vertices.push(vertexKey('pvc', namespace, name));
  }
  return { node, vertices: [...new Set(vertices)] };
}

const sameEdges = (a: PodEdges | undefined, b: PodEdges | undefined) =>
  a === b || (!!a && !!b && a.node === b.node && a.vertices.length === b.vertices.length && a.vertices.every((v, i) => v === b.vertices[i]));

export class NodeGraph {
  /** The edges of each pod bound to a node, by storage key. */
  private readonly pods = new Map<string, PodEdges>();
  /** node -> object -> how many of the node's pods link it. */
  private readonly reachable = new Map<string, Map<string, number>>();

  /** Starts from what `pods` holds and follows its every change from then on. */
  static fromCache(pods: ResourceCache): NodeGraph {
    const graph = new NodeGraph();
    for (const cached of pods.all()) graph.setPod(cached.key, cached.parsed());
    pods.listeners.add((event: CacheEvent) => graph.setPod(event.object.key, event.type === 'DELETED' ? undefined : event.object.parsed()));
    return graph;
  }

  /** Records the current state of one pod (undefined: it is gone). */
  setPod(key: string, pod: unknown): void {
    const before = this.pods.get(key);
    const after = pod === undefined ? undefined : edgesOf(pod);
    if (sameEdges(before, after)) return;
    if (before) {
      const counts = this.reachable.get(before.node)!;
      for (const vertex of before.vertices) {
        const n = counts.get(vertex)! - 1;
        if (n === 0) counts.delete(vertex);
        else counts.set(vertex, n);
      }
      if (counts.size === 0) this.reachable.delete(before.node);
      this.pods.delete(key);
    }
    if (after) {
      let counts = this.reachable.get(after.node);
      if (!counts) this.reachable.set(after.node, (counts = new Map()));
      for (const vertex of after.vertices) counts.set(vertex, (counts.get(vertex) ?? 0) + 1);
      this.pods.set(key, after);
    }
  }

  /** upstream hasPathFrom: whether an object of `type` reaches the node through one of its pods. */
  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    return this.reachable.get(nodeName)?.has(vertexKey(type, namespace, name)) ?? false;
  }
}
