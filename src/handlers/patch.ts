/**
 * PATCH (SPEC 4.5): the operation is chosen by Content-Type. Every patch is an
 * update whose new object is computed from the current one inside the store's
 * compare-and-swap loop, so concurrent writers only cause a recomputation.
 * Apply (application/apply-patch+yaml) creates what is missing (201).
 */
import * as errors from '../api/status-error.ts';
import { ApplyConflictError, applyIntent, conflictMessage } from '../registry/apply/managed-fields.ts';
import { apiVersionOf } from '../registry/kind.ts';
import { applyJsonPatch } from '../registry/patch/json-patch.ts';
import { applyMergePatch } from '../registry/patch/merge-patch.ts';
import { PatchError } from '../registry/patch/patch-error.ts';
import { applyStrategicMergePatch } from '../registry/patch/strategic-merge-patch.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { writeObject } from '../server/respond.ts';
import type { ResourceRequest } from './context.ts';
import { fieldTracker, managerFor } from './field-manager.ts';
import { invalidOptions, parseBoolean, parseDryRun, parseFieldManager, parseFieldValidation } from './options.ts';
import { bodyMediaType, decodeValue, parseDocument, readBody } from './request-body.ts';

export const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

const APPLY = 'application/apply-patch+yaml';

/** Turns a patch failure into upstream's answer (FACTS 1.1): malformed is 400, inapplicable 422. */
function patchFailure(err: unknown): unknown {
  if (!(err instanceof PatchError)) return err;
  if (err.reason === 'BadRequest') return errors.badRequest(err.message);
  return new errors.StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

function withoutTimes(obj: ApiObject): string {
  const managed = (obj.metadata.managedFields ?? []).map(({ time: _time, ...entry }: Record<string, unknown>) => entry);
  return JSON.stringify({ ...obj, metadata: { ...obj.metadata, resourceVersion: undefined, managedFields: managed } });
}

function sameIgnoringManagedFieldTimes(a: ApiObject, b: ApiObject): boolean {
  return withoutTimes(a) === withoutTimes(b);
}

export async function handlePatch(ctx: ResourceRequest, structure: Record<string, any>): Promise<void> {
  const { store, query } = ctx;
  const kind = store.kind;
  const mediaType = bodyMediaType(ctx.req);
  if (!PATCH_MEDIA_TYPES.includes(mediaType)) throw errors.unsupportedMediaType(mediaType, PATCH_MEDIA_TYPES);
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

  const text = (await readBody(ctx.req)).toString('utf8');
  let patch: unknown;
  try {
    patch = parseDocument(text, mediaType);
  } catch (err) {
    throw errors.badRequest(`error decoding patch: ${(err as Error).message}`);
  }
  const warnings: string[] = [];
  const decode = (value: unknown, defaults = true): ApiObject => {
    const decoded = decodeValue(kind, value, fieldValidation, [], defaults);
    warnings.push(...decoded.warnings.filter((w) => !warnings.includes(w)));
    return decoded.object;
  };
  const apiVersion = apiVersionOf(kind);
  const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const schemaName = kind.schemaName;

  let computeNew: (current: ApiObject | null) => ApiObject;
  if (isApply) {
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw errors.badRequest('error decoding YAML: the apply configuration must be an object');
    // SPEC 4.5 item 2: an intent carries no managedFields.
    if ((patch as any).metadata?.managedFields !== undefined && (patch as any).metadata?.managedFields !== null) {
      throw errors.badRequest('metadata.managedFields must be nil');
    }
    // The intent is type-checked but not defaulted: defaulted fields belong to no applier (FACTS 8.2).
    const intent = decode(structuredClone(patch), false);
    computeNew = (current) => {
      try {
        const applied = applyIntent(current, intent, current?.metadata.managedFields ?? [], manager, apiVersion, !!force, now(), structure, schemaName);
        // Decoded again: defaults fill what the intent left out, in the canonical field order.
        const object = decode(applied.object);
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
      let patched: unknown;
      try {
        if (mediaType === 'application/json-patch+json') patched = applyJsonPatch(current, patch);
        else if (mediaType === 'application/merge-patch+json') patched = applyMergePatch(current, patch);
        else patched = applyStrategicMergePatch(current, patch, structure, schemaName);
      } catch (err) {
        throw patchFailure(err);
      }
      // SPEC 4.5 item 7: a `[{}]` left by the patch resets managedFields (fieldTracker sees it).
      return decode(patched);
    };
  }
  const result = await store.update(ctx.namespace, ctx.info.name, computeNew, {
    dryRun,
    createIfMissing: isApply,
    trackFields: isApply ? undefined : fieldTracker(manager, apiVersion, structure, schemaName),
    signal: ctx.signal,
  });
  ctx.encode.warnings = [...(ctx.encode.warnings ?? []), ...warnings];
  writeObject(ctx.res, result.created ? 201 : 200, result.object, ctx.encode);
}
