/**
 * Strategic merge patch for `application/strategic-merge-patch+json` PATCH
 * requests (SPEC §4.5 "Update mechanisms"; FACTS §6.4 list types), driven by
 * the generated structure model (codegen/structure.ts, src/generated/structure.ts)
 * — never by per-kind code. Pure, no I/O; the input document is never mutated.
 *
 * Semantics follow k8s.io/apimachinery/pkg/util/strategicpatch (patch.go):
 * - objects (structs, maps, unknown fields) merge recursively; `null` deletes;
 * - lists whose patchStrategy includes `merge` with a patchMergeKey merge by
 *   key (matched items merge recursively, new items are appended); merge lists
 *   of primitives are unioned (original order, then new values, no duplicates);
 *   every other list is replaced wholesale;
 * - `x-kubernetes-map-type: atomic` is ignored, as upstream strategic merge
 *   ignores it (it matters to server-side apply, not here);
 * - directives: `$patch: replace|delete` on maps and merge-list items,
 *   `$retainKeys`, `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`.
 * Directive misuse is a {@link PatchError} with reason `BadRequest`.
 */
import { PatchError, cloneJson, deepEqual, hasOwn, isObject, setOwn, show, type JsonObject } from './patch-error.ts';
import type { StructureNode, StructureRef } from '../structure.ts';

export type { StructureNode, StructureRef };

type Structure = Record<string, StructureNode>;
type ListNode = Extract<StructureNode, { kind: 'list' }>;

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';
/** Marks a value removed by `$patch: delete`. */
const DELETED = Symbol('deleted');

const badRequest = (message: string) => new PatchError(message, 'BadRequest');

/** The merge engine bound to one structure model. */
class StrategicMerger {
  constructor(private readonly structure: Structure) {}

  /** Resolves a reference to its node; `any` and unknown names become undefined (merge like maps). */
  resolve(ref: StructureRef | undefined): StructureNode | undefined {
    const node = typeof ref === 'string' ? this.structure[ref] : ref;
    return node && node.kind !== 'any' ? node : undefined;
  }

  /** The node of `key` inside an object node. */
  child(node: StructureNode | undefined, key: string): StructureNode | undefined {
    if (node?.kind === 'struct') return hasOwn(node.fields, key) ? this.resolve(node.fields[key]) : undefined;
    if (node?.kind === 'map') return this.resolve(node.values);
    return undefined;
  }

  /** Merges one patch value onto one original value (which may be mutated: it is a private copy). */
  value(original: unknown, patch: unknown, node: StructureNode | undefined): unknown {
    if (isObject(patch)) {
      if (hasOwn(patch, DIRECTIVE)) {
        const directive = patch[DIRECTIVE];
        if (directive === 'delete') return DELETED;
        if (directive !== 'replace') throw badRequest(`unknown patch type: ${show(directive)} in map: ${show(patch)}`);
        const rest = { ...patch };
        delete rest[DIRECTIVE];
        return this.object({}, rest, node);
      }
      return this.object(isObject(original) ? original : {}, patch, node);
    }
    if (Array.isArray(patch)) {
      if (node?.kind !== 'list') return cloneJson(patch);
      return this.list(Array.isArray(original) ? original : [], patch, node);
    }
    return cloneJson(patch);
  }

  /** Merges a patch object into an original object, honouring map-level directives. */
  object(original: JsonObject, patch: JsonObject, node: StructureNode | undefined): JsonObject {
    const deletes = new Map<string, unknown[]>();
    const orders = new Map<string, unknown[]>();
    const fields: string[] = [];
    for (const [key, value] of Object.entries(patch)) {
      if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        if (!Array.isArray(value)) throw badRequest(`invalid patch: the value of ${key} must be a list, got ${show(value)}`);
        deletes.set(key.slice(DELETE_FROM_PRIMITIVE_LIST.length), value);
      } else if (key.startsWith(SET_ELEMENT_ORDER)) {
        if (!Array.isArray(value)) throw badRequest(`invalid patch: the value of ${key} must be a list, got ${show(value)}`);
        orders.set(key.slice(SET_ELEMENT_ORDER.length), value);
      } else if (key !== RETAIN_KEYS && key !== DIRECTIVE) fields.push(key);
    }
    if (hasOwn(patch, RETAIN_KEYS)) this.retainKeys(original, patch, fields);

    for (const key of new Set([...deletes.keys(), ...fields, ...orders.keys()])) {
      const childNode = this.child(node, key);
      const drop = deletes.get(key);
      if (drop && Array.isArray(original[key])) {
        setOwn(original, key, (original[key] as unknown[]).filter((item) => !drop.some((d) => deepEqual(d, item))));
      }
      if (fields.includes(key)) {
        const patchValue = patch[key];
        if (patchValue === null) delete original[key];
        else {
          const merged = this.value(hasOwn(original, key) ? original[key] : undefined, patchValue, childNode);
          if (merged === DELETED) delete original[key];
          else setOwn(original, key, merged);
        }
      }
      const order = orders.get(key);
      if (order && Array.isArray(original[key])) {
        const listNode = childNode?.kind === 'list' ? childNode : undefined;
        setOwn(original, key, reorder(original[key] as unknown[], order, listNode?.patchMergeKey, key));
      }
    }
    return original;
  }

  /** `$retainKeys`: drops original keys not listed; every non-null patch field must be listed. */
  retainKeys(original: JsonObject, patch: JsonObject, fields: string[]): void {
    const retain = patch[RETAIN_KEYS];
    if (!Array.isArray(retain) || !retain.every((k) => typeof k === 'string')) {
      throw badRequest(`invalid patch format of retainKeys: ${show(retain)}`);
    }
    for (const key of fields) {
      if (patch[key] !== null && !retain.includes(key)) throw badRequest(`invalid patch format of retainKeys: field ${show(key)} is not in ${show(retain)}`);
    }
    for (const key of Object.keys(original)) if (!retain.includes(key)) delete original[key];
  }

  /** Merges a patch list into an original list according to the list's patch strategy. */
  list(original: unknown[], patch: unknown[], node: ListNode): unknown[] {
    const strategies = (node.patchStrategy ?? '').split(',');
    if (!strategies.includes('merge')) return cloneJson(patch);
    const key = node.patchMergeKey;
    if (!key) {
      const result: unknown[] = [];
      for (const item of [...original, ...patch]) {
        if (isObject(item) && hasOwn(item, DIRECTIVE)) throw badRequest(`cannot merge lists without merge key: ${show(item)}`);
        if (!result.some((r) => deepEqual(r, item))) result.push(cloneJson(item));
      }
      return result;
    }
    const itemNode = this.resolve(node.items);
    let result = original;
    const items: JsonObject[] = [];
    let replace = false;
    for (const item of patch) {
      if (!isObject(item)) throw badRequest(`map: ${show(item)} does not contain declared merge key: ${key}`);
      if (!hasOwn(item, DIRECTIVE)) {
        if (!hasOwn(item, key)) throw badRequest(`map: ${show(item)} does not contain declared merge key: ${key}`);
        items.push(item);
        continue;
      }
      const directive = item[DIRECTIVE];
      if (directive === 'replace') replace = true;
      else if (directive === 'delete') {
        if (!hasOwn(item, key)) throw badRequest(`map: ${show(item)} does not contain declared merge key: ${key}`);
        result = result.filter((o) => !(isObject(o) && deepEqual(o[key], item[key])));
      } else if (directive === 'merge') throw badRequest('merging lists cannot yet be specified in the patch');
      else throw badRequest(`unknown patch type: ${show(directive)} in map: ${show(item)}`);
    }
    if (replace) return items.map((item) => this.value(undefined, item, itemNode)).filter((v) => v !== DELETED);
    for (const item of items) {
      const index = result.findIndex((o) => isObject(o) && deepEqual(o[key], item[key]));
      const merged = this.value(index >= 0 ? result[index] : undefined, item, itemNode);
      if (index >= 0) result[index] = merged;
      else result.push(merged);
    }
    return result;
  }
}

/**
 * `$setElementOrder`: items named by `order` come first in that order; the
 * others keep their relative position after them. Keyed lists match on `key`.
 */
function reorder(list: unknown[], order: unknown[], key: string | undefined, field: string): unknown[] {
  const used = new Set<number>();
  const ordered: unknown[] = [];
  for (const wanted of order) {
    if (key !== undefined && !(isObject(wanted) && hasOwn(wanted, key))) {
      throw badRequest(`invalid patch: ${SET_ELEMENT_ORDER}${field} item ${show(wanted)} does not contain declared merge key: ${key}`);
    }
    const matches = (item: unknown) =>
      key !== undefined ? isObject(item) && deepEqual(item[key], (wanted as JsonObject)[key]) : deepEqual(item, wanted);
    const index = list.findIndex((item, i) => !used.has(i) && matches(item));
    if (index >= 0) {
      used.add(index);
      ordered.push(list[index]);
    }
  }
  return [...ordered, ...list.filter((_, i) => !used.has(i))];
}

/**
 * Applies a strategic merge patch to `doc` (an object of schema `schemaName`
 * in `structure`) and returns the merged copy. `doc` is never mutated. A
 * top-level `$patch: delete` yields `{}` as upstream.
 */
export function applyStrategicMergePatch(
  doc: unknown,
  patch: unknown,
  structure: Record<string, StructureNode>,
  schemaName: string,
): unknown {
  if (!isObject(patch)) {
    const type = Array.isArray(patch) ? 'array' : patch === null ? 'null' : typeof patch === 'boolean' ? 'bool' : typeof patch;
    throw badRequest(`json: cannot unmarshal ${type} into Go value of type map[string]interface {}`);
  }
  const merger = new StrategicMerger(structure);
  const node = merger.resolve(schemaName);
  const original = isObject(doc) ? cloneJson(doc) : {};
  const merged = merger.value(original, patch, node?.kind === 'struct' ? { ...node, mapType: 'granular' } : node);
  return merged === DELETED ? {} : merged;
}
