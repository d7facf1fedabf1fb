/**
 * Schema patches: how an overlay changes the schemas it owns (openapi/README.md
 * "Patching a schema"). A patch is a JSON merge patch (RFC 7396) of the
 * schema: a mapping merges key by key, any other value (a string, a number, a
 * list) replaces what is there, `null` removes the key. Two overlays that set
 * the same key of the same schema (or one a key inside the other's) are an
 * error: which one wins would depend on file order.
 */
import { isObject, type Json, type JsonObject } from './canonical-json.ts';

/** One overlay's patch of one schema. */
export interface SchemaPatch {
  /** The overlay file, for messages. */
  overlay: string;
  /** The schema's name as the overlay spells it (an upstream `io.k8s.` name or an inline schema's). */
  schema: string;
  patch: JsonObject;
}

/**
 * Adds keys next to a schema node; a bare `$ref` is wrapped in `allOf: [{$ref}]` first, because
 * OpenAPI 3.0 ignores the siblings of a `$ref` (upstream's own documents wrap the same way).
 */
export function annotate(node: JsonObject, keys: JsonObject): void {
  wrapRef(node);
  Object.assign(node, keys);
}

function wrapRef(node: JsonObject): void {
  if (typeof node.$ref !== 'string') return;
  node.allOf = [{ $ref: node.$ref }];
  delete node.$ref;
}

/** Applies `patch` to `target` in place (RFC 7396); `where` names the target in messages. */
export function applyMergePatch(target: JsonObject, patch: JsonObject, where: string): void {
  if (Object.keys(patch).some((k) => k !== '$ref')) wrapRef(target);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      if (!(key in target)) throw new Error(`${where}: patch removes ${key}, which is not there`);
      delete target[key];
    } else if (isObject(value)) {
      if (!isObject(target[key])) target[key] = {};
      applyMergePatch(target[key] as JsonObject, value, `${where}.${key}`);
    } else target[key] = structuredClone(value);
  }
}

/** The keys a patch sets or removes, as dotted paths: its leaves (a mapping is not a leaf, `{}` is). */
function leafPaths(patch: Json, prefix: string): string[] {
  if (!isObject(patch) || Object.keys(patch).length === 0) return [prefix];
  return Object.entries(patch).flatMap(([k, v]) => leafPaths(v, `${prefix}.${k}`));
}

/** Throws when two overlays set the same key of the same schema, or one a key inside the other's. */
export function checkPatchConflicts(patches: SchemaPatch[]): void {
  const owners = new Map<string, string>();
  for (const { overlay, schema, patch } of patches) {
    for (const path of leafPaths(patch, schema)) {
      for (const [other, by] of owners) {
        if (by === overlay) continue;
        if (other === path || other.startsWith(path + '.') || path.startsWith(other + '.')) {
          throw new Error(`${overlay} and ${by} both patch ${path === other ? path : `${path} / ${other}`}: one overlay must own it`);
        }
      }
      owners.set(path, overlay);
    }
  }
}
