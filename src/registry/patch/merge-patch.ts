/**
 * JSON Merge Patch (RFC 7386) for `application/merge-patch+json` PATCH
 * requests (SPEC §4.5 "Update mechanisms"). Pure, no I/O.
 *
 * A `null` member removes the key, object members merge recursively, every
 * other value (arrays included) replaces; a patch that is not an object
 * replaces the whole document. The input document is never mutated.
 */
import { cloneJson, isObject, setOwn, type JsonObject } from './patch-error.ts';

/** RFC 7386 MergePatch(Target, Patch) on private copies. */
function merge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJson(patch);
  const result: JsonObject = isObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, merge(Object.prototype.hasOwnProperty.call(result, key) ? result[key] : undefined, value));
  }
  return result;
}

/** Applies an RFC 7386 merge patch to `doc` and returns the merged copy; `doc` is not mutated. */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  return merge(cloneJson(doc), patch);
}
