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
 *
 * The merge follows the patch's nesting, which a client chooses up to the
 * decoders' depth limit (10,000): the recursive steps are generators run by a
 * loop with its own stack ({@link run}), so depth costs heap, never call stack.
 */
import { cloneJson, deepEqual, hasOwn, isObject, setOwn, show, type JsonObject } from '../json-value.ts';
import { PatchError } from './patch-error.ts';
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

/** A recursive step: it yields the sub-steps whose results it needs and returns its own. */
type Step<T> = Generator<Step<unknown>, T, unknown>;

/** Runs a step and everything it yields with an explicit stack instead of the call stack. */
function run<T>(root: Step<T>): T {
  const stack: Step<unknown>[] = [root];
  let result: unknown;
  while (stack.length) {
    const next = stack[stack.length - 1].next(result);
    if (next.done) {
      stack.pop();
      result = next.value;
    } else {
      stack.push(next.value);
      result = undefined;
    }
  }
  return result as T;
}

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
  *value(original: unknown, patch: unknown, node: StructureNode | undefined): Step<unknown> {
    if (isObject(patch)) {
      if (hasOwn(patch, DIRECTIVE)) {
        const directive = patch[DIRECTIVE];
        if (directive === 'delete') return DELETED;
        if (directive !== 'replace') throw badRequest(`unknown patch type: ${show(directive)} in map: ${show(patch)}`);
        const rest = { ...patch };
        delete rest[DIRECTIVE];
        return yield this.object({}, rest, node);
      }
      return yield this.object(isObject(original) ? original : {}, patch, node);
    }
    if (Array.isArray(patch)) {
      if (node?.kind !== 'list') return cloneJson(patch);
      return yield this.list(Array.isArray(original) ? original : [], patch, node);
    }
    return cloneJson(patch);
  }

  /** Merges a patch object into an original object, honouring map-level directives. */
  *object(original: JsonObject, patch: JsonObject, node: StructureNode | undefined): Step<JsonObject> {
    const deletes = new Map<string, unknown[]>();
    const orders = new Map<string, unknown[]>();
    const fields = new Set<string>();
    for (const key of Object.keys(patch)) {
      const value = patch[key];
      if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        if (!Array.isArray(value)) throw badRequest(`invalid patch: the value of ${key} must be a list, got ${show(value)}`);
        deletes.set(key.slice(DELETE_FROM_PRIMITIVE_LIST.length), value);
      } else if (key.startsWith(SET_ELEMENT_ORDER)) {
        if (!Array.isArray(value)) throw badRequest(`invalid patch: the value of ${key} must be a list, got ${show(value)}`);
        orders.set(key.slice(SET_ELEMENT_ORDER.length), value);
      } else if (key !== RETAIN_KEYS && key !== DIRECTIVE) fields.add(key);
    }
    if (hasOwn(patch, RETAIN_KEYS)) this.retainKeys(original, patch, fields);

    for (const key of new Set([...deletes.keys(), ...fields, ...orders.keys()])) {
      const childNode = this.child(node, key);
      const drop = deletes.get(key);
      const current = hasOwn(original, key) ? original[key] : undefined;
      if (drop && Array.isArray(current)) {
        const dropped = new ValueSet(drop);
        setOwn(original, key, current.filter((item) => !dropped.has(item)));
      }
      if (fields.has(key)) {
        const patchValue = patch[key];
        if (patchValue === null) delete original[key];
        else {
          const merged = yield this.value(hasOwn(original, key) ? original[key] : undefined, patchValue, childNode);
          if (merged === DELETED) delete original[key];
          else setOwn(original, key, merged);
        }
      }
      const order = orders.get(key);
      const list = hasOwn(original, key) ? original[key] : undefined;
      if (order && Array.isArray(list)) {
        const listNode = childNode?.kind === 'list' ? childNode : undefined;
        setOwn(original, key, reorder(list, order, listNode?.patchMergeKey, key));
      }
    }
    return original;
  }

  /** `$retainKeys`: drops original keys not listed; every non-null patch field must be listed. */
  retainKeys(original: JsonObject, patch: JsonObject, fields: Set<string>): void {
    const retain = patch[RETAIN_KEYS];
    if (!Array.isArray(retain) || !retain.every((k) => typeof k === 'string')) {
      throw badRequest(`invalid patch format of retainKeys: ${show(retain)}`);
    }
    const kept = new Set(retain as string[]);
    for (const key of fields) {
      if (patch[key] !== null && !kept.has(key)) throw badRequest(`invalid patch format of retainKeys: field ${show(key)} is not in ${show(retain)}`);
    }
    for (const key of Object.keys(original)) if (!kept.has(key)) delete original[key];
  }

  /** Merges a patch list into an original list according to the list's patch strategy. */
  *list(original: unknown[], patch: unknown[], node: ListNode): Step<unknown[]> {
    const strategies = (node.patchStrategy ?? '').split(',');
    if (!strategies.includes('merge')) return cloneJson(patch);
    const key = node.patchMergeKey;
    if (!key) {
      const result: unknown[] = [];
      const seen = new ValueSet([]);
      for (const item of [...original, ...patch]) {
        if (isObject(item) && hasOwn(item, DIRECTIVE)) throw badRequest(`cannot merge lists without merge key: ${show(item)}`);
        if (seen.has(item)) continue;
        seen.add(item);
        result.push(cloneJson(item));
      }
      return result;
    }
    const itemNode = this.resolve(node.items);
    const items: JsonObject[] = [];
    const deleted = new ValueSet([]);
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
        deleted.add(item[key]);
      } else if (directive === 'merge') throw badRequest('merging lists cannot yet be specified in the patch');
      else throw badRequest(`unknown patch type: ${show(directive)} in map: ${show(item)}`);
    }
    if (replace) {
      const replaced: unknown[] = [];
      for (const item of items) {
        const merged = yield this.value(undefined, item, itemNode);
        if (merged !== DELETED) replaced.push(merged);
      }
      return replaced;
    }
    const result = original.filter((o) => !(isObject(o) && hasOwn(o, key) && deleted.has(o[key])));
    const byKey = new ValueIndex(result, (o) => (isObject(o) && hasOwn(o, key) ? { value: o[key] } : undefined));
    for (const item of items) {
      const index = byKey.first(item[key]);
      const merged = yield this.value(index >= 0 ? result[index] : undefined, item, itemNode);
      if (index >= 0) result[index] = merged;
      else {
        result.push(merged);
        byKey.add(result.length - 1, item[key]);
      }
    }
    return result;
  }
}

/** A Map key for a primitive JSON value; undefined for objects and arrays, which are compared one by one. */
function primitiveKey(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return `s${value}`;
    case 'number':
      return `n${value}`;
    case 'boolean':
      return `b${value}`;
    default:
      return value === null ? 'null' : undefined;
  }
}

/** A set of JSON values by deep equality: primitives hashed, the rare composite values scanned. */
class ValueSet {
  private readonly primitives = new Set<string>();
  private readonly composites: unknown[] = [];

  constructor(values: readonly unknown[]) {
    for (const v of values) this.add(v);
  }

  add(value: unknown): void {
    const key = primitiveKey(value);
    if (key !== undefined) this.primitives.add(key);
    else this.composites.push(value);
  }

  has(value: unknown): boolean {
    const key = primitiveKey(value);
    return key !== undefined ? this.primitives.has(key) : this.composites.some((c) => deepEqual(c, value));
  }
}

/**
 * Positions of list items by an identity (an item's merge key, or the item),
 * in list order, so matching a patch list against a long list is linear.
 */
class ValueIndex {
  private readonly primitives = new Map<string, number[]>();
  private readonly composites: Array<[unknown, number]> = [];

  constructor(list: readonly unknown[], private readonly identity: (item: unknown) => { value: unknown } | undefined) {
    list.forEach((item, i) => {
      const id = identity(item);
      if (id) this.add(i, id.value);
    });
  }

  add(index: number, value: unknown): void {
    const key = primitiveKey(value);
    if (key === undefined) this.composites.push([value, index]);
    else if (this.primitives.has(key)) this.primitives.get(key)!.push(index);
    else this.primitives.set(key, [index]);
  }

  /** The first position of `value` not in `used`, or -1. */
  first(value: unknown, used?: Set<number>): number {
    const key = primitiveKey(value);
    const candidates = key !== undefined
      ? this.primitives.get(key) ?? []
      : this.composites.filter(([c]) => deepEqual(c, value)).map(([, i]) => i);
    for (const i of candidates) if (!used?.has(i)) return i;
    return -1;
  }
}

/**
 * `$setElementOrder`: items named by `order` come first in that order; the
 * others keep their relative position after them. Keyed lists match on `key`.
 */
function reorder(list: unknown[], order: unknown[], key: string | undefined, field: string): unknown[] {
  const index = new ValueIndex(list, (item) => {
    if (key === undefined) return { value: item };
    return isObject(item) && hasOwn(item, key) ? { value: item[key] } : undefined;
  });
  const used = new Set<number>();
  const ordered: unknown[] = [];
  for (const wanted of order) {
    if (key !== undefined && !(isObject(wanted) && hasOwn(wanted, key))) {
      throw badRequest(`invalid patch: ${SET_ELEMENT_ORDER}${field} item ${show(wanted)} does not contain declared merge key: ${key}`);
    }
    const at = index.first(key !== undefined ? (wanted as JsonObject)[key] : wanted, used);
    if (at >= 0) {
      used.add(at);
      ordered.push(list[at]);
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
  const merged = run(merger.value(original, patch, node?.kind === 'struct' ? { ...node, mapType: 'granular' } : node));
  return merged === DELETED ? {} : merged;
}
