/**
 * What the router knows of one served resource (group/version/plural): its
 * kind, its stores, and what serves each of its subresources. Built once per
 * kind (and again when a custom kind changes), never per request.
 */
import type { ComputedCreate } from '../../registry/computed.ts';
import type { BodyKind, KindDefinition } from '../../registry/kind.ts';
import type { GenericStore } from '../../registry/store.ts';
import type { RevisionSpace } from '../../storage/revision-spaces.ts';

/**
 * What serves a subresource (or the resource itself): the object through a
 * store (the resource's, or a subresource's that is the same object under
 * another strategy: status, finalize), the object's Scale, or a function
 * that computes the answer (a review, serviceaccounts/token). A row of the
 * route table (route-table.ts) each.
 */
export type TargetKind = 'object' | 'scale' | 'computed';

/** One subresource's target: what serves it and the verbs it takes (the contract's); every target has this one shape. */
export interface Target {
  readonly kind: TargetKind;
  readonly verbs: readonly string[];
  /** The store of an object or scale target; a computed one has none. */
  readonly store: GenericStore | undefined;
}

/** A create computed by the composition root's function, and the kind its body and answer are. */
export interface Computed {
  kind: BodyKind;
  compute: ComputedCreate;
}

export interface Route {
  kind: KindDefinition;
  /** Absent for a kind that is not stored (a review). */
  store?: GenericStore;
  /** The store and watch cache that hold the kind's objects (the main ones for a kind not stored). */
  space: RevisionSpace;
  /** Stores of the kind's subresources that are the same object under another strategy. */
  subresources: Map<string, GenericStore>;
  /** What a POST computes, for a review or an action subresource ('' = the resource itself). */
  computed: Map<string, Computed>;
  /** What serves each subresource by name ('' = the resource itself); a name without a target is 404. */
  targets: Map<string, Target>;
  /** Clients' reads and watches go to storage, not the watch cache (--watch-cache, --watch-cache-sizes). */
  fromStorage: boolean;
  /** Whether the kind has a protobuf message (the built-in kinds; SPEC 4.7). */
  protobuf: boolean;
}

/**
 * The targets of a kind's stores: the resource's own, then each subresource
 * with a store (scale when the kind has scale paths, else the object under
 * the subresource's strategy). A kind not stored is computed ('' only), and
 * 404 until its computation is served (serveComputed).
 */
export function storeTargets(kind: KindDefinition, store: GenericStore | undefined, subresources: ReadonlyMap<string, GenericStore>): Map<string, Target> {
  const targets = new Map<string, Target>([['', { kind: store ? 'object' : 'computed', verbs: kind.verbs, store }]]);
  for (const sub of kind.subresources) {
    const subStore = subresources.get(sub.name);
    if (subStore) targets.set(sub.name, { kind: sub.name === 'scale' && kind.scale ? 'scale' : 'object', verbs: sub.verbs, store: subStore });
  }
  return targets;
}
