/**
 * create, update, delete and deletecollection (SPEC 4.2, 4.8, 4.9; FACTS 3):
 * each decodes its request, hands a function to the generic store and writes
 * the store's answer with upstream's status codes.
 */
import * as errors from '../api/status-error.ts';
import { apiVersionOf } from '../registry/kind.ts';
import type { ResourceRequest } from './context.ts';
import { fieldTracker, managerFor } from './field-manager.ts';
import { listMetadata, parseListQuery, readPage } from './read.ts';
import { parseDryRun, parseFieldValidation, parseInt64, parseBoolean, invalidOption, parseFieldManager } from './options.ts';
import { bodyMediaType, decodeObject, parseDocument, readBody } from './request-body.ts';
import { writeObject } from '../server/respond.ts';
import type { DeleteOptions } from '../registry/store.ts';

async function decodeRequestObject(ctx: ResourceRequest, optionsKind: string, structure: Record<string, any>) {
  const dryRun = parseDryRun(ctx.query, optionsKind);
  const fieldValidation = parseFieldValidation(ctx.query, optionsKind);
  const manager = managerFor(parseFieldManager(ctx.query, optionsKind), ctx.req);
  const kind = ctx.store.kind;
  const trackFields = fieldTracker(manager, apiVersionOf(kind), structure, kind.schemaName);
  const body = await readBody(ctx.req);
  const decoded = decodeObject(ctx.store.kind, body, bodyMediaType(ctx.req), fieldValidation);
  ctx.encode.warnings = [...(ctx.encode.warnings ?? []), ...decoded.warnings];
  return { object: decoded.object, options: { dryRun, trackFields, signal: ctx.signal } };
}

/** POST collection: 201 Created with the stored object. */
export async function handleCreate(ctx: ResourceRequest, structure: Record<string, any>): Promise<void> {
  const { object, options } = await decodeRequestObject(ctx, 'CreateOptions', structure);
  const created = await ctx.store.create(ctx.namespace, object, options);
  writeObject(ctx.res, 201, created, ctx.encode);
}

/** PUT single: the body replaces the object (200), or creates it where the kind allows (201). */
export async function handleUpdate(ctx: ResourceRequest, structure: Record<string, any>): Promise<void> {
  const { object, options } = await decodeRequestObject(ctx, 'UpdateOptions', structure);
  const result = await ctx.store.update(ctx.namespace, ctx.info.name, () => structuredClone(object), options);
  writeObject(ctx.res, result.created ? 201 : 200, result.object, ctx.encode);
}

const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];

/** DeleteOptions from the optional body and the query (FACTS 3). */
async function parseDeleteOptions(ctx: ResourceRequest): Promise<DeleteOptions & { orphanDependents?: boolean }> {
  const body = await readBody(ctx.req);
  let fromBody: any = {};
  if (body.length) {
    try {
      fromBody = parseDocument(body.toString('utf8'), bodyMediaType(ctx.req) === 'application/yaml' ? 'application/yaml' : 'application/json') ?? {};
    } catch (err) {
      throw errors.badRequest(`DeleteOptions in version "v1" cannot be handled as a DeleteOptions: ${(err as Error).message}`);
    }
    if (typeof fromBody !== 'object' || Array.isArray(fromBody)) {
      throw errors.badRequest('DeleteOptions in version "v1" cannot be handled as a DeleteOptions: json: cannot unmarshal into Go value of type v1.DeleteOptions');
    }
  }
  const queryDryRun = parseDryRun(ctx.query, 'DeleteOptions');
  const bodyDryRun: unknown[] = Array.isArray(fromBody.dryRun) ? fromBody.dryRun : [];
  bodyDryRun.forEach((value, i) => {
    if (value !== 'All') throw invalidOption('DeleteOptions', `dryRun[${i}]`, `Unsupported value: ${JSON.stringify(value)}: supported values: "All"`);
  });
  const propagationPolicy = ctx.query.get('propagationPolicy') ?? fromBody.propagationPolicy;
  if (propagationPolicy !== undefined && propagationPolicy !== null && !PROPAGATION_POLICIES.includes(propagationPolicy)) {
    throw invalidOption('DeleteOptions', 'propagationPolicy', `Unsupported value: ${JSON.stringify(propagationPolicy)}: supported values: "Foreground", "Background", "Orphan"`);
  }
  const orphanDependents = parseBoolean(ctx.query, 'orphanDependents') ?? fromBody.orphanDependents;
  if (orphanDependents !== undefined && orphanDependents !== null && propagationPolicy) {
    throw invalidOption('DeleteOptions', 'propagationPolicy', 'Invalid value: "' + propagationPolicy + '": orphanDependents and deletionPropagation cannot be both set');
  }
  const grace = parseInt64(ctx.query, 'gracePeriodSeconds') ?? fromBody.gracePeriodSeconds;
  if (grace !== undefined && grace !== null && !Number.isInteger(grace)) {
    throw errors.badRequest(`DeleteOptions in version "v1" cannot be handled as a DeleteOptions: json: cannot unmarshal ${typeof grace === 'number' ? 'number ' + grace : typeof grace} into Go struct field DeleteOptions.gracePeriodSeconds of type int64`);
  }
  // A negative grace period counts as 1 second (upstream rest.BeforeDelete); deletion here is immediate either way.
  const preconditions = fromBody.preconditions ?? undefined;
  const policy = propagationPolicy ?? (orphanDependents === true ? 'Orphan' : orphanDependents === false ? 'Background' : undefined);
  return { dryRun: queryDryRun || bodyDryRun.length > 0, preconditions, orphanDependents, propagationPolicy: policy ?? undefined, signal: ctx.signal };
}

/** DELETE single: a Status when removed, the object when finalizers keep it (SPEC 3; FACTS 3). */
export async function handleDelete(ctx: ResourceRequest): Promise<void> {
  const options = await parseDeleteOptions(ctx);
  const { store } = ctx;
  const { object, deleted } = await store.delete(ctx.namespace, ctx.info.name, options);
  if (!deleted) {
    writeObject(ctx.res, options.orphanDependents === false ? 202 : 200, object, ctx.encode);
    return;
  }
  const details: errors.StatusDetails = { name: object.metadata.name };
  if (store.kind.group) details.group = store.kind.group;
  details.kind = store.kind.plural;
  details.uid = object.metadata.uid;
  writeObject(ctx.res, 200, errors.successStatus(details), ctx.encode);
}

/** DELETE collection: the list of what was deleted, chunked by limit/continue like a list (FACTS 3). */
export async function handleDeleteCollection(ctx: ResourceRequest): Promise<void> {
  const options = await parseDeleteOptions(ctx);
  const list = parseListQuery(ctx);
  const page = await readPage(ctx, list);
  const items = await ctx.store.deleteListed(page.items, options);
  const kind = ctx.store.kind;
  writeObject(ctx.res, 200, { kind: kind.listKind, apiVersion: apiVersionOf(kind), metadata: listMetadata(page, list), items }, ctx.encode);
}
