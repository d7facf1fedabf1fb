/**
 * The route table (SPEC 4.2, 4.11): verb × target → handler, as data. A
 * target is what serves the addressed subresource (route.ts TargetKind); each
 * row makes the context its handlers take, once the router has checked the
 * path and the verb. A verb a row lacks is upstream's 405 for an action the
 * resource does not support.
 */
import * as errors from '../../api/status-error.ts';
import { handleComputedCreate, type ComputedCreateRequest } from '../../handlers/computed.ts';
import { handlePatch } from '../../handlers/patch.ts';
import { handleGet, handleList } from '../../handlers/read.ts';
import { handleScaleGet, handleScalePatch, handleScaleUpdate } from '../../handlers/scale.ts';
import { handleWatch, type WatchSettings } from '../../handlers/watch.ts';
import { handleCreate, handleDelete, handleDeleteCollection, handleUpdate } from '../../handlers/write.ts';
import { SERVED_MEDIA_TYPES, type Negotiated } from '../../http/negotiation.ts';
import type { ComputedCreate } from '../../registry/computed.ts';
import type { BodyKind } from '../../registry/kind.ts';
import type { ApiRequest } from '../filters/api-request.ts';
import { ResourceRequestContext } from './resource-request-context.ts';
import type { Route, Target, TargetKind } from './route.ts';
import type { ContractValidator } from '../../registry/contract-validation.ts';

/** What handlers take of the server beyond the request: shared, never per request. */
export interface RouteServices {
  /** The structure model of every schema, built-in and custom, for apply and strategic merge. */
  readonly structure: Record<string, any>;
  readonly watch: WatchSettings;
  /** autoscaling/v1 Scale, the body of every scale subresource; absent from a contract without it (then scale is 404). */
  readonly scaleKind: BodyKind | undefined;
  /** The rules Scale's contract states, which a Scale written through the subresource must keep (contract-validation.ts). */
  readonly scaleContract: ContractValidator | undefined;
}

type Handler<C> = (context: C, services: RouteServices) => Promise<void>;

export interface Row<C> {
  /** The context this row's handlers take; may refuse the request (a computation not served, a form it cannot answer in). */
  context(request: ApiRequest, route: Route, target: Target, negotiated: Negotiated, namespace: string | undefined): C;
  readonly verbs: { readonly [verb: string]: Handler<C> };
}

function resourceContext(request: ApiRequest, route: Route, target: Target, negotiated: Negotiated, namespace: string | undefined): ResourceRequestContext {
  const { storage, cacher } = route.space;
  const { req, res, encode, deadline } = request;
  return new ResourceRequestContext(req, res, request.info!, request.target!.query, request.user!, target.store!, storage, cacher, namespace, encode, negotiated.table, negotiated.partial, deadline, route.fromStorage);
}

/** The object, through the resource's store or a subresource's (status, finalize): the generic operations. */
const OBJECT: Row<ResourceRequestContext> = {
  context: resourceContext,
  verbs: {
    get: handleGet,
    list: handleList,
    watch: (ctx, { watch }) => handleWatch(ctx, ctx.cacher, watch),
    create: (ctx, { structure }) => handleCreate(ctx, structure),
    update: (ctx, { structure }) => handleUpdate(ctx, structure),
    patch: (ctx, { structure }) => handlePatch(ctx, structure),
    delete: handleDelete,
    deletecollection: handleDeleteCollection,
  },
};

function scaleKindOf({ scaleKind }: RouteServices): BodyKind {
  if (!scaleKind) throw errors.routeNotFound();
  return scaleKind;
}

/** The scale subresource (SPEC 2.1): get, update and patch of the object's autoscaling/v1 Scale. */
const SCALE: Row<ResourceRequestContext> = {
  context: resourceContext,
  verbs: {
    get: (ctx, services) => handleScaleGet(ctx, scaleKindOf(services)),
    update: (ctx, services) => handleScaleUpdate(ctx, services.structure, scaleKindOf(services), services.scaleContract),
    patch: (ctx, services) => handleScalePatch(ctx, services.structure, scaleKindOf(services), services.scaleContract),
  },
};

interface ComputedCall {
  request: ComputedCreateRequest;
  compute: ComputedCreate;
}

/** A create that computes its answer and stores nothing: a review, or an action subresource's (serviceaccounts/token). */
const COMPUTED: Row<ComputedCall> = {
  context(request, route, _target, negotiated, namespace) {
    const { req, res, encode } = request;
    const info = request.info!;
    const computed = route.computed.get(info.subresource);
    if (!computed) throw errors.routeNotFound();
    // A computed answer (a review, a token) is not transformed here: 406 before anything is done.
    if (negotiated.partial) throw errors.notAcceptable(SERVED_MEDIA_TYPES);
    const query = request.target!.query;
    const user = request.user!;
    const signal = request.deadline?.signal;
    const call = info.subresource
      ? { req, res, query, user, encode, kind: computed.kind, namespace, parentName: info.name, signal }
      : { req, res, query, user, encode, kind: computed.kind, namespace, signal };
    return { request: call, compute: computed.compute };
  },
  verbs: {
    create: ({ request, compute }) => handleComputedCreate(request, compute),
  },
};

export const ROUTE_TABLE: { readonly [kind in TargetKind]: Row<any> } = {
  object: OBJECT,
  scale: SCALE,
  computed: COMPUTED,
};
