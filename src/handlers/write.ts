/**
 * create, update, delete and deletecollection (SPEC 4.2, 4.8, 4.9; FACTS 3):
 * each decodes its request, hands a function to the generic store and writes
 * the store's answer with upstream's status codes.
 */
import * as errors from '../api/status-error.ts';
import { apiVersionOf } from '../registry/kind.ts';
import { cloneJson, isObject } from '../registry/json-value.ts';
import type { ResourceRequest } from './context.ts';
import { fieldTracker, managerFor } from './field-manager.ts';
import { listMetadata, parseListQuery, readPage } from './read.ts';
import { parseDryRun, parseFieldValidation, parseInt64, parseBoolean, invalidOption, parseFieldManager } from './options.ts';
import { checkName, decodeObject, DocumentError, limitWarnings, OBJECT_MEDIA_TYPES, objectMediaTypes, parseDocument, readBody, requestMediaType } from './request-body.ts';
import { ProtobufBodyError } from '../api/protobuf/codec.ts';
import { PROTOBUF_TYPE } from '../api/protobuf/envelope.ts';
import { writeJsonText, writeObject } from '../http/respond.ts';
import { partialFor, writeAsAsked } from './partial-metadata.ts';
import type { DeleteOptions } from '../registry/store.ts';

/** Upstream's order (AS handlers/create.go, update.go): body, options, media type, decoding. */
async function decodeRequestObject(ctx: ResourceRequest, optionsKind: string, structure: Record<string, any>) {
  const body = await readBody(ctx.req);
  const dryRun = parseDryRun(ctx.query, optionsKind);
  const fieldValidation = parseFieldValidation(ctx.query, optionsKind);
  const manager = managerFor(parseFieldManager(ctx.query, optionsKind), ctx.req);
  const kind = ctx.store.kind;
  const trackFields = fieldTracker(manager, apiVersionOf(kind), structure, kind.schemaName);
  const mediaType = requestMediaType(ctx.req, objectMediaTypes(kind, ctx.encode.protobuf));
  const decoded = await decodeObject(kind, body, mediaType, fieldValidation, ctx.signal, ctx.encode.protobuf);
  ctx.encode.warnings = limitWarnings([...(ctx.encode.warnings ?? []), ...decoded.warnings]);
  const warn = (message: string) => (ctx.encode.warnings = limitWarnings([...(ctx.encode.warnings ?? []), message]));
  return { object: decoded.object, options: { dryRun, trackFields, signal: ctx.signal, user: ctx.user, warn } };
}

/** POST collection: 201 Created with the stored object. */
export async function handleCreate(ctx: ResourceRequest, structure: Record<string, any>): Promise<void> {
  const partial = partialFor(ctx, 'PartialObjectMetadata');
  const { object, options } = await decodeRequestObject(ctx, 'CreateOptions', structure);
  let stored: string | undefined;
  const created = await ctx.store.create(ctx.namespace, object, { ...options, onStored: (json) => (stored = json) });
  if (stored !== undefined && partial === undefined) writeJsonText(ctx.res, 201, stored, ctx.encode);
  else writeAsAsked(ctx, 201, created, partial);
}

/** PUT single: the body replaces the object (200), or creates it where the kind allows (201). */
export async function handleUpdate(ctx: ResourceRequest, structure: Record<string, any>): Promise<void> {
  const partial = partialFor(ctx, 'PartialObjectMetadata');
  const { object, options } = await decodeRequestObject(ctx, 'UpdateOptions', structure);
  checkName(object, ctx.info.name);
  // Each attempt of the store's loop gets its own copy; fieldsV1 may nest deeper than structuredClone copes with.
  const result = await ctx.store.update(ctx.namespace, ctx.info.name, () => cloneJson(object), options);
  writeAsAsked(ctx, result.created ? 201 : 200, result.object, partial);
}

const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];

/** The DeleteOptions of a body, as Go's decoder reads metav1.DeleteOptions. */
interface DeleteOptionsBody {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun?: string[];
}

const DELETE_OPTIONS_KIND = 'DeleteOptions';
/** Upstream registers DeleteOptions as an unversioned kind: any apiVersion may carry it. */
const META_VERSION = 'meta.orch.io/v1';

/**
 * Decodes a DeleteOptions body strictly as Go's decoder does (wrong JSON types
 * are 400 `json: cannot unmarshal ...`, unknown fields are ignored, null is the
 * zero value); a kind other than DeleteOptions is not registered (AS
 * handlers/delete.go answers 400 for every decode error since 1.33).
 */
function decodeDeleteOptions(value: unknown): DeleteOptionsBody {
  const typeError = (v: unknown, field: string, goType: string, struct = 'DeleteOptions') => {
    const json = Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' && goType === 'int64' ? `number ${v}` : typeof v;
    return errors.badRequest(`json: cannot unmarshal ${json} into Go struct field ${struct}.${field} of type ${goType}`);
  };
  if (!isObject(value)) {
    if (value === null) return {};
    const json = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
    throw errors.badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${json} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const field = (name: string) => (Object.hasOwn(value, name) && value[name] !== null ? value[name] : undefined);
  const apiVersion = field('apiVersion');
  const kind = field('kind');
  if (apiVersion !== undefined && typeof apiVersion !== 'string') throw typeError(apiVersion, 'apiVersion', 'string');
  if (kind !== undefined && typeof kind !== 'string') throw typeError(kind, 'kind', 'string');
  if (kind && kind !== DELETE_OPTIONS_KIND) {
    throw errors.badRequest(`no kind "${kind}" is registered for version "${apiVersion || META_VERSION}" in scheme "orch.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:28"`);
  }
  const out: DeleteOptionsBody = {};
  const grace = field('gracePeriodSeconds');
  if (grace !== undefined) {
    if (typeof grace !== 'number' || !Number.isInteger(grace) || grace >= 2 ** 63 || grace < -(2 ** 63)) throw typeError(grace, 'gracePeriodSeconds', 'int64');
    out.gracePeriodSeconds = grace;
  }
  const preconditions = field('preconditions');
  if (preconditions !== undefined) {
    if (!isObject(preconditions)) throw typeError(preconditions, 'preconditions', 'v1.Preconditions');
    out.preconditions = {};
    for (const [name, goType] of [['uid', 'types.UID'], ['resourceVersion', 'string']] as const) {
      const v = Object.hasOwn(preconditions, name) ? preconditions[name] : null;
      if (v === null) continue;
      if (typeof v !== 'string') throw typeError(v, `preconditions.${name}`, goType, 'Preconditions');
      out.preconditions[name] = v;
    }
  }
  const orphan = field('orphanDependents');
  if (orphan !== undefined) {
    if (typeof orphan !== 'boolean') throw typeError(orphan, 'orphanDependents', 'bool');
    out.orphanDependents = orphan;
  }
  const policy = field('propagationPolicy');
  if (policy !== undefined) {
    if (typeof policy !== 'string') throw typeError(policy, 'propagationPolicy', 'v1.DeletionPropagation');
    out.propagationPolicy = policy;
  }
  const dryRun = field('dryRun');
  if (dryRun !== undefined) {
    if (!Array.isArray(dryRun)) throw typeError(dryRun, 'dryRun', '[]string');
    out.dryRun = dryRun.map((v) => {
      if (v !== null && typeof v !== 'string') throw typeError(v, 'dryRun', 'string');
      return v ?? '';
    });
  }
  return out;
}

/** DeleteOptions from the optional body and the query (FACTS 3). */
async function parseDeleteOptions(ctx: ResourceRequest): Promise<DeleteOptions & { orphanDependents?: boolean }> {
  const body = await readBody(ctx.req);
  let fromBody: DeleteOptionsBody = {};
  if (body.length) {
    const apiVersion = apiVersionOf(ctx.store.kind);
    // Custom resources' DELETE decodes JSON and YAML only, as apiextensions' codecs.
    const protobuf = ctx.encode.protobuf?.supports(apiVersion, 'DeleteOptions') ? ctx.encode.protobuf : undefined;
    const mediaType = requestMediaType(ctx.req, protobuf ? [...OBJECT_MEDIA_TYPES, PROTOBUF_TYPE] : OBJECT_MEDIA_TYPES);
    let value: unknown;
    try {
      // A protobuf DeleteOptions, as upstream's DELETE decodes with the built-in codecs (every group registers meta/v1's).
      value = mediaType === PROTOBUF_TYPE ? protobuf!.decodeObject(body, apiVersion, 'DeleteOptions') : await parseDocument(body, mediaType, ctx.signal);
    } catch (err) {
      if (err instanceof DocumentError || err instanceof ProtobufBodyError) throw errors.badRequest(err.message);
      throw err;
    }
    fromBody = decodeDeleteOptions(value);
  }
  const queryDryRun = parseDryRun(ctx.query, 'DeleteOptions');
  const bodyDryRun = fromBody.dryRun ?? [];
  bodyDryRun.forEach((value, i) => {
    if (value !== 'All') throw invalidOption('DeleteOptions', `dryRun[${i}]`, `Unsupported value: ${JSON.stringify(value)}: supported values: "All"`);
  });
  const propagationPolicy = ctx.query.get('propagationPolicy') ?? fromBody.propagationPolicy;
  if (propagationPolicy !== undefined && !PROPAGATION_POLICIES.includes(propagationPolicy)) {
    throw invalidOption('DeleteOptions', 'propagationPolicy', `Unsupported value: ${JSON.stringify(propagationPolicy)}: supported values: "Foreground", "Background", "Orphan"`);
  }
  const orphanDependents = parseBoolean(ctx.query, 'orphanDependents') ?? fromBody.orphanDependents;
  if (orphanDependents !== undefined && propagationPolicy) {
    throw invalidOption('DeleteOptions', 'propagationPolicy', 'Invalid value: "' + propagationPolicy + '": orphanDependents and deletionPropagation cannot be both set');
  }
  // The query's value replaces the body's, as upstream decodes parameters over the body.
  const gracePeriodSeconds = parseInt64(ctx.query, 'gracePeriodSeconds') ?? fromBody.gracePeriodSeconds;
  const policy = propagationPolicy ?? (orphanDependents === true ? 'Orphan' : orphanDependents === false ? 'Background' : undefined);
  const { defaultPolicyWarning } = ctx.store.strategy;
  if (policy === undefined && defaultPolicyWarning) ctx.encode.warnings = limitWarnings([...(ctx.encode.warnings ?? []), defaultPolicyWarning]);
  return {
    dryRun: queryDryRun || bodyDryRun.length > 0,
    preconditions: fromBody.preconditions,
    gracePeriodSeconds,
    orphanDependents,
    propagationPolicy: policy as DeleteOptions['propagationPolicy'],
    signal: ctx.signal,
    user: ctx.user,
  };
}

/**
 * DELETE single: a Status when removed, the object when finalizers keep it
 * (SPEC 3; FACTS 3), and always the object for kinds that return what they
 * delete (pods, as upstream's ReturnDeletedObject).
 */
export async function handleDelete(ctx: ResourceRequest): Promise<void> {
  const partial = partialFor(ctx, 'PartialObjectMetadata');
  const options = await parseDeleteOptions(ctx);
  const { store } = ctx;
  const { object, deleted } = await store.delete(ctx.namespace, ctx.info.name, options);
  if (!deleted || store.strategy.returnDeletedObject) {
    writeAsAsked(ctx, !deleted && options.orphanDependents === false ? 202 : 200, object, partial);
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
  const partial = partialFor(ctx, 'PartialObjectMetadataList');
  const options = await parseDeleteOptions(ctx);
  const list = parseListQuery(ctx);
  const page = await readPage(ctx, list);
  const items = await ctx.store.deleteListed(page.items, options);
  const kind = ctx.store.kind;
  if (partial) {
    const partials = items.map((item: any) => ({ kind: 'PartialObjectMetadata', apiVersion: partial, metadata: item.metadata }));
    return writeObject(ctx.res, 200, { kind: 'PartialObjectMetadataList', apiVersion: partial, metadata: listMetadata(page, list), items: partials }, ctx.encode);
  }
  writeObject(ctx.res, 200, { kind: kind.listKind, apiVersion: apiVersionOf(kind), metadata: listMetadata(page, list), items }, ctx.encode);
}
