/**
 * JSON Merge Patch (RFC 7386) for `application/merge-patch+json` PATCH
 * requests (SPEC §4.5 "Update mechanisms"). Pure, no I/O.
 *
 * A `null` member removes the key, object members merge recursively, every
 * other value (arrays included) replaces; a patch that is not an object
 * replaces the whole document. The input document is never mutated, keys such
 * as `__proto__` are plain members, and the merge walks the patch with an
 * explicit stack, so patches nested to the decoders' depth limit are safe.
 */
import { cloneJson, hasOwn, isObject, setOwn, type JsonObject } from '../json-value.ts';

/** Applies an RFC 7386 merge patch to `doc` and returns the merged copy; `doc` is not mutated. */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJson(patch);
  const root: JsonObject = isObject(doc) ? cloneJson(doc) : {};
  const pending: Array<[JsonObject, JsonObject]> = [[root, patch]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [target, changes] = next;
    for (const key of Object.keys(changes)) {
      const value = changes[key];
      if (value === null) {
        delete target[key];
      } else if (isObject(value)) {
        // MergePatch(Target[key], value) with a non-object target starts from {}, which drops the nulls inside.
        const current = hasOwn(target, key) ? target[key] : undefined;
        const child: JsonObject = isObject(current) ? current : {};
        setOwn(target, key, child);
        pending.push([child, value]);
      } else {
        setOwn(target, key, cloneJson(value));
      }
    }
  }
  return root;
}
