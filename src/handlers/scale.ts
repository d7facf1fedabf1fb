/**
 * get, update and patch of the scale subresource of a custom resource (SPEC 2.1,
 * 4.2, 4.5; upstream apiextensions-apiserver customresource/etcd.go ScaleREST
 * and scaleUpdatedObjectInfo) or of a built-in workload kind (K
 * pkg/registry/apps/deployment/storage ScaleREST and friends): the body is an autoscaling/v1 Scale made from
 * the object; a write changes the object's spec replicas inside the store's
 * compare-and-swap, with the Scale's resourceVersion as its precondition, and
 * answers the Scale of the object written.
 */
import * as errors from '../api/status-error.ts';
import { scaleFromCustomResource, ScaleAccessError, setNestedField } from '../registry/custom-resources/scale.ts';
import { apiVersionOf, readApiVersion, type BodyKind, type KindDefinition, type ScalePaths } from '../registry/kind.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { nonNegative } from '../registry/validation/field-values.ts';
import { mergeFieldErrors, type ContractValidator } from '../registry/contract-validation.ts';
import { writeObject } from '../http/respond.ts';
import type { ResourceRequest } from './context.ts';
import { fieldTracker, managerFor } from './field-manager.ts';
import { parseDryRun, parseFieldManager, parseFieldValidation } from './options.ts';
import { applyPatch, readPatchRequest } from './patch.ts';
import { getCached } from './read.ts';
import { checkName, decodeObject, decodeValue, limitWarnings, readBody, requestMediaType } from './request-body.ts';
import { includeObjectOf, toTable } from './table.ts';
import { partialFor, writeAsAsked } from './partial-metadata.ts';

/** Upstream's mark of a Scale made from an object without spec replicas: smallest int32. */
const INVALID_SPEC_REPLICAS = -2147483648;

/** Where the scale paths are: a served custom kind with subresources.scale. */
function pathsOf(kind: KindDefinition): ScalePaths {
  if (!kind.scale) throw errors.routeNotFound();
  return kind.scale;
}

/** The Scale of an object; a path holding another type is the server's failure (upstream returns the accessor error). */
function scaleOf(cr: ApiObject, paths: ScalePaths): { scale: ApiObject; replicasFound: boolean } {
  try {
    return scaleFromCustomResource(cr, paths);
  } catch (err) {
    if (err instanceof ScaleAccessError) throw errors.internalError(err);
    throw err;
  }
}

/** GET: the Scale of the object as the cache holds it at the asked resourceVersion; a Table has the default columns. */
export async function handleScaleGet(ctx: ResourceRequest, scaleKind: BodyKind): Promise<void> {
  const kind = ctx.store.kind;
  const paths = pathsOf(kind);
  const partial = partialFor(ctx, 'PartialObjectMetadata');
  const cached = await getCached(ctx);
  const { scale, replicasFound } = scaleOf(JSON.parse(cached.json(readApiVersion(kind))), paths);
  if (!replicasFound) throw errors.internalError(`the spec replicas field ${JSON.stringify(paths.specReplicasPath)} does not exist`);
  if (partial) return writeAsAsked(ctx, 200, scale, partial);
  if (ctx.table) {
    // Upstream's Scale storage has no printer: the default Name / Created At Table.
    const printed = { group: scaleKind.group, kind: scaleKind.kind, printerColumns: [] };
    return writeObject(ctx.res, 200, toTable(printed, [scale], { resourceVersion: scale.metadata.resourceVersion }, includeObjectOf(ctx), ctx.table.apiVersion, Date.now()), ctx.encode);
  }
  writeObject(ctx.res, 200, scale, ctx.encode);
}

/**
 * Upstream scaleUpdatedObjectInfo.UpdatedObject: the object with the new
 * Scale's replicas at specReplicasPath and its resourceVersion as the
 * precondition. `newScale` gets the current Scale (replicas marked unset when
 * the object has none) and answers the one to write.
 */
function withScale(ctx: ResourceRequest, current: ApiObject | null, paths: ScalePaths, newScale: (old: ApiObject) => ApiObject, contract: ContractValidator | undefined): ApiObject {
  if (!current) throw errors.notFound(ctx.store.groupResource, ctx.info.name);
  const { scale: old, replicasFound } = scaleOf(current, paths);
  if (!replicasFound) old.spec.replicas = INVALID_SPEC_REPLICAS;
  const scale = newScale(old);
  checkName(scale, ctx.info.name);
  if (ctx.namespace !== undefined && scale.metadata.namespace && scale.metadata.namespace !== ctx.namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const replicas = scale.spec?.replicas ?? 0;
  // The Scale keeps its contract's rules; a built-in kind's ScaleREST validates it itself first (autoscaling
  // validation ValidateScale), in upstream's words.
  const builtin = paths.selectorObjectPath !== undefined || paths.selectorMapPath !== undefined;
  const scaleErrors = mergeFieldErrors(contract?.validate(scale) ?? [], builtin ? nonNegative(replicas, 'spec.replicas') : [], scale);
  if (scaleErrors.length) throw errors.invalid('Scale', 'autoscaling', ctx.info.name, scaleErrors);
  if (replicas === INVALID_SPEC_REPLICAS) throw errors.badRequest(`the spec replicas field ${JSON.stringify(paths.specReplicasPath)} cannot be empty`);
  try {
    setNestedField(current, paths.specReplicasPath, replicas);
  } catch (err) {
    if (err instanceof ScaleAccessError) throw errors.internalError(err);
    throw err;
  }
  if (scale.metadata.resourceVersion) current.metadata.resourceVersion = scale.metadata.resourceVersion;
  return current;
}

/** Writes the object through the main store and answers its Scale (200, as upstream's ScaleREST.Update). */
async function writeScale(ctx: ResourceRequest, structure: Record<string, any>, manager: string, dryRun: boolean, newScale: (old: ApiObject) => ApiObject, contract: ContractValidator | undefined): Promise<void> {
  const partial = partialFor(ctx, 'PartialObjectMetadata');
  const { store } = ctx;
  const paths = pathsOf(store.kind);
  const warn = (message: string) => (ctx.encode.warnings = limitWarnings([...(ctx.encode.warnings ?? []), message]));
  const result = await store.update(ctx.namespace, ctx.info.name, (current) => withScale(ctx, current, paths, newScale, contract), {
    dryRun,
    // The manager owns the replicas it set through the scale subresource.
    trackFields: fieldTracker(manager, apiVersionOf(store.kind), structure, store.kind.schemaName, 'scale'),
    signal: ctx.signal,
    user: ctx.user,
    warn,
  });
  try {
    writeAsAsked(ctx, 200, scaleFromCustomResource(result.object, paths).scale, partial);
  } catch (err) {
    if (err instanceof ScaleAccessError) throw errors.badRequest(err.message);
    throw err;
  }
}

/** PUT: the body is the Scale to write (decoded as autoscaling/v1 Scale with the request's field validation). */
export async function handleScaleUpdate(ctx: ResourceRequest, structure: Record<string, any>, scaleKind: BodyKind, contract?: ContractValidator): Promise<void> {
  pathsOf(ctx.store.kind);
  const body = await readBody(ctx.req);
  const dryRun = parseDryRun(ctx.query, 'UpdateOptions');
  const fieldValidation = parseFieldValidation(ctx.query, 'UpdateOptions');
  const manager = managerFor(parseFieldManager(ctx.query, 'UpdateOptions'), ctx.req);
  const decoded = await decodeObject(scaleKind, body, requestMediaType(ctx.req), fieldValidation, ctx.signal);
  ctx.encode.warnings = limitWarnings([...(ctx.encode.warnings ?? []), ...decoded.warnings]);
  await writeScale(ctx, structure, manager, dryRun, () => structuredClone(decoded.object), contract);
}

/**
 * PATCH: a patch of the current Scale in the resource's patch types, as
 * upstream's scale scope copies its resource's (a custom kind's: JSON or merge;
 * a built-in kind's: strategic merge too).
 * Server-side apply of a Scale is refused (415): it needs the managed fields
 * of the replicas mapped between the Scale and the object, which this server
 * does not do.
 */
export async function handleScalePatch(ctx: ResourceRequest, structure: Record<string, any>, scaleKind: BodyKind, contract?: ContractValidator): Promise<void> {
  pathsOf(ctx.store.kind);
  const request = await readPatchRequest(ctx, apiVersionOf(scaleKind));
  if (request.isApply) throw errors.unsupportedMediaType(request.mediaType, ['application/json-patch+json', 'application/merge-patch+json']);
  await writeScale(ctx, structure, request.manager, request.dryRun, (old) => {
    const patched = applyPatch(request.mediaType, old, request.patch, request.fieldValidation, structure, scaleKind.schemaName);
    const decoded = decodeValue(scaleKind, patched, request.fieldValidation);
    // Deduplicated: every attempt of the store's loop decodes again.
    ctx.encode.warnings = limitWarnings([...(ctx.encode.warnings ?? []), ...decoded.warnings]);
    return decoded.object;
  }, contract);
}
