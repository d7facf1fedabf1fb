/**
 * PATCH (SPEC 4.5): the operation is chosen by Content-Type. Every patch is an
 * update whose new object is computed from the current one inside the store's
 * compare-and-swap loop, so concurrent writers only cause a recomputation.
 * Apply (application/apply-patch+yaml) creates what is missing (201).
 */
import * as errors from '../api/status-error.ts';
import { ApplyConflictError, applyIntent, conflictMessage } from '../registry/apply/managed-fields.ts';
import { isObject } from '../registry/json-value.ts';
import { apiVersionOf } from '../registry/kind.ts';
import { applyJsonPatch, checkJsonPatch } from '../registry/patch/json-patch.ts';
import { applyMergePatch } from '../registry/patch/merge-patch.ts';
import { PatchError } from '../registry/patch/patch-error.ts';
import { applyStrategicMergePatch } from '../registry/patch/strategic-merge-patch.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { stableJson } from '../util/stable-json.ts';
import { partialFor, writeAsAsked } from './partial-metadata.ts';
import type { ResourceRequest } from './context.ts';
import { fieldTracker, managerFor } from './field-manager.ts';
import { invalidOptions, parseBoolean, parseDryRun, parseFieldManager, parseFieldValidation } from './options.ts';
import { checkName, decodeValue, DocumentError, limitWarnings, parseDocument, readBody, type FieldValidation } from './request-body.ts';

export const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

/** Turns a patch failure into upstream's answer (FACTS 1.1): malformed is 400, too many operations 413, inapplicable 422. */
function patchFailure(err: unknown): unknown {
  if (!(err instanceof PatchError)) return err;
  if (err.reason === 'BadRequest') return errors.badRequest(err.message);
  if (err.reason === 'RequestEntityTooLarge') return new errors.StatusError(413, 'RequestEntityTooLarge', err.message);
  return new errors.StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

/** Compared whatever the key order, as upstream compares decoded values: an apply's own managedFields entry is built in another order than the stored one. */
function withoutTimes(obj: ApiObject): string {
  const managed = (obj.metadata.managedFields ?? []).map(({ time: _time, ...entry }: Record<string, unknown>) => entry);
  return stableJson({ ...obj, metadata: { ...obj.metadata, resourceVersion: undefined, managedFields: managed } });
}

function sameIgnoringManagedFieldTimes(a: ApiObject, b: ApiObject): boolean {
  return withoutTimes(a) === withoutTimes(b);
}

/**
 * The patch type as upstream's PatchResource reads Content-Type: everything
 * before the first `;` (when not at the start), compared exactly, so neither
 * case nor spaces are forgiven; anything else is 415.
 */
function patchMediaType(header: string | undefined, accepted: readonly string[]): string {
  let type = header ?? '';
  const semicolon = type.indexOf(';');
  if (semicolon > 0) type = type.slice(0, semicolon);
  if (!accepted.includes(type)) throw errors.unsupportedMediaType(header ?? '', [...accepted]);
  return type;
}

function goJsonType(value: unknown): string {
  return Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
}

/**
 * What upstream refuses of a patch document before reading the object: the
 * JSON patch decode and its operation limit; a merge or strategic patch that is
 * not an object (a null merge patch is `Invalid JSON Patch`, a null strategic
 * one changes nothing); an apply configuration that is not an object, names
 * another version, or carries managedFields (AM managedfields structuredmerge.go).
 */
function checkPatch(mediaType: string, patch: unknown, fieldValidation: FieldValidation, apiVersion: string): unknown {
  if (mediaType === JSON_PATCH) {
    try {
      checkJsonPatch(patch, { typed: fieldValidation !== 'Ignore' });
    } catch (err) {
      throw patchFailure(err);
    }
    return patch;
  }
  if (mediaType === MERGE_PATCH) {
    if (patch === null) throw errors.badRequest('Invalid JSON Patch');
    if (isObject(patch)) return patch;
    if (fieldValidation !== 'Ignore') {
      throw errors.badRequest(`error decoding patch: json: cannot unmarshal ${goJsonType(patch)} into Go value of type map[string]interface {}`);
    }
    if (!Array.isArray(patch)) throw errors.badRequest('Invalid JSON Patch');
    return patch;
  }
  if (mediaType !== APPLY) return patch ?? {};
  if (patch !== null && !isObject(patch)) {
    throw errors.badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJsonType(patch)} into Go value of type map[string]interface {}`);
  }
  const intent = patch ?? {};
  const version = typeof intent.apiVersion === 'string' && intent.apiVersion.split('/').length <= 2 ? intent.apiVersion : '';
  if (version !== apiVersion) {
    throw errors.badRequest(`Incorrect version specified in apply patch. Specified patch version: ${version}, expected: ${apiVersion}`);
  }
  // SPEC 4.5 item 2: an intent carries no managedFields.
  const metadata = intent.metadata;
  if (isObject(metadata) && metadata.managedFields !== undefined && metadata.managedFields !== null) {
    throw errors.badRequest('metadata.managedFields must be nil');
  }
  return intent;
}

/**
 * A PATCH request's options and document, checked in upstream's order (AS
 * handlers/patch.go): media type (among those the kind takes: custom kinds
 * take no strategic merge, SPEC 4.5), body, options, then the document against
 * the patch type (`apiVersion`: what an apply configuration must name).
 */
export async function readPatchRequest(ctx: ResourceRequest, apiVersion: string) {
  const { query } = ctx;
  const mediaType = patchMediaType(ctx.req.headers['content-type'], ctx.store.kind.patchTypes ?? PATCH_MEDIA_TYPES);
  const body = await readBody(ctx.req);
  const isApply = mediaType === APPLY;
  const dryRun = parseDryRun(query, 'PatchOptions');
  const fieldValidation = parseFieldValidation(query, 'PatchOptions');
  const requestedManager = parseFieldManager(query, 'PatchOptions');
  const force = parseBoolean(query, 'force');
  const problems: string[] = [];
  if (isApply && !requestedManager) problems.push('fieldManager: Required value: is required for apply patch');
  if (!isApply && force !== undefined) problems.push('force: Forbidden: may not be specified for non-apply patch');
  const invalid = invalidOptions('PatchOptions', problems);
  if (invalid) throw invalid;
  const manager = managerFor(requestedManager, ctx.req);
  let parsed: unknown;
  try {
    parsed = await parseDocument(body, mediaType, ctx.signal);
  } catch (err) {
    if (err instanceof DocumentError) throw errors.badRequest(`${isApply ? 'error decoding YAML' : 'error decoding patch'}: ${err.message}`);
    throw err;
  }
  const patch = checkPatch(mediaType, parsed, fieldValidation, apiVersion);
  return { mediaType, isApply, dryRun, fieldValidation, manager, force, patch };
}

/** A JSON, merge or strategic merge patch applied to an object's JSON form; failures are upstream's Status errors. */
export function applyPatch(mediaType: string, current: unknown, patch: unknown, fieldValidation: FieldValidation, structure: Record<string, any>, schemaName: string): unknown {
  try {
    if (mediaType === JSON_PATCH) return applyJsonPatch(current, patch, { typed: fieldValidation !== 'Ignore' });
    if (mediaType === MERGE_PATCH) return applyMergePatch(current, patch);
    return applyStrategicMergePatch(current, patch, structure, schemaName);
  } catch (err) {
    throw patchFailure(err);
  }
}

export async function handlePatch(ctx: ResourceRequest, structure: Record<string, any>): Promise<void> {
  const partial = partialFor(ctx, 'PartialObjectMetadata');
  const { store } = ctx;
  const kind = store.kind;
  const apiVersion = apiVersionOf(kind);
  const { mediaType, isApply, dryRun, fieldValidation, manager, force, patch } = await readPatchRequest(ctx, apiVersion);
  // Every attempt of the store's loop decodes again; each warning is kept once.
  const warnings = new Set<string>();
  const decode = (value: unknown, defaults = true): ApiObject => {
    const decoded = decodeValue(kind, value, fieldValidation, [], defaults);
    for (const w of decoded.warnings) warnings.add(w);
    return decoded.object;
  };
  const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const schemaName = kind.schemaName;

  let computeNew: (current: ApiObject | null) => ApiObject;
  if (isApply) {
    // The intent is type-checked but not defaulted: defaulted fields belong to no applier (FACTS 8.2).
    const intent = decode(patch, false);
    computeNew = (current) => {
      try {
        const applied = applyIntent(current, intent, current?.metadata.managedFields ?? [], manager, apiVersion, !!force, now(), structure, schemaName);
        // Decoded again: defaults fill what the intent left out, in the canonical field order.
        const object = decode(applied.object);
        checkName(object, ctx.info.name);
        if (applied.managedFields.length) object.metadata.managedFields = applied.managedFields;
        else delete object.metadata.managedFields;
        // An apply that changes nothing but its entry's timestamp is a no-op (nothing is written).
        if (current && sameIgnoringManagedFieldTimes(object, current)) return current;
        if (current) object.metadata.resourceVersion = intent.metadata?.resourceVersion ?? current.metadata.resourceVersion;
        return object;
      } catch (err) {
        if (err instanceof ApplyConflictError) {
          const { message, causes } = conflictMessage(err.conflicts);
          throw new errors.StatusError(409, 'Conflict', message, { causes });
        }
        throw err;
      }
    };
  } else {
    computeNew = (current) => {
      if (!current) throw errors.notFound(store.groupResource, ctx.info.name);
      const patched = applyPatch(mediaType, current, patch, fieldValidation, structure, schemaName);
      // SPEC 4.5 item 7: a `[{}]` left by the patch resets managedFields (fieldTracker sees it).
      const object = decode(patched);
      checkName(object, ctx.info.name);
      return object;
    };
  }
  const result = await store.update(ctx.namespace, ctx.info.name, computeNew, {
    dryRun,
    createIfMissing: isApply,
    trackFields: isApply ? undefined : fieldTracker(manager, apiVersion, structure, schemaName),
    signal: ctx.signal,
    user: ctx.user,
    warn: (message) => warnings.add(message),
  });
  ctx.encode.warnings = limitWarnings([...(ctx.encode.warnings ?? []), ...warnings]);
  writeAsAsked(ctx, result.created ? 201 : 200, result.object, partial);
}
