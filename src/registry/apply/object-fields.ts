/**
 * Typed walks over objects, driven by the generated structure model (codegen/structure.ts):
 * which field paths an object sets, and what changed between two objects
 * (FACTS 8.1; SMD typed/tofieldset.go and typed/compare.go, translated).
 *
 * Leaves are scalars, `any` nodes and atomic structs/maps/lists. Granular structs
 * and maps recurse by field name / key; `set` lists identify items by value
 * (`v:`), `map` lists by their key fields (`k:`), other associative lists by index.
 */
import type { StructureNode, StructureRef } from '../structure.ts';
import { deepEqual } from '../json-value.ts';
import {
  emptySet, fieldPE, indexPE, insertPath, keyPE, union, valuePE, difference, fieldSet, subtractInPlace,
  type FieldPath, type FieldSet, type PathElement,
} from './field-set.ts';

export type Structure = Record<string, StructureNode | any>;

const ANY: StructureNode = { kind: 'any' };


export function resolve(structure: Structure, ref: StructureRef | undefined): StructureNode {
  if (ref === undefined) return ANY;
  return typeof ref === 'string' ? (structure[ref] ?? ANY) : ref;
}

/** Whether the node is a single owned value (FACTS 8.1: atomic lists/maps and scalars are leaves). */
export function isLeaf(node: StructureNode): boolean {
  if (node.kind === 'scalar' || node.kind === 'any') return true;
  if (node.kind === 'list') return node.listType === 'atomic';
  return node.mapType === 'atomic';
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The type of a struct field or map value; undeclared struct fields are treated as atomic leaves. */
export function childNode(structure: Structure, node: StructureNode, key: string): StructureNode {
  if (node.kind === 'struct') return Object.hasOwn(node.fields, key) ? resolve(structure, node.fields[key]) : ANY;
  if (node.kind === 'map') return resolve(structure, node.values);
  return ANY;
}

/** The path element that identifies a list item (FACTS 8.1). */
export function itemPE(node: StructureNode & { kind: 'list' }, item: unknown, index: number): PathElement {
  if (node.listType === 'set') return valuePE(item);
  if (node.listType === 'map' && node.mapKeys?.length && isPlainObject(item)) {
    const key: Record<string, unknown> = {};
    for (const k of node.mapKeys) if (item[k] !== undefined) key[k] = item[k];
    if (Object.keys(key).length) return keyPE(key);
  }
  return indexPE(index);
}

/** Items of a list indexed by path element (first occurrence wins, order kept). */
export function indexItems(node: StructureNode & { kind: 'list' }, list: unknown): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  if (!Array.isArray(list)) return out;
  list.forEach((item, i) => {
    const pe = itemPE(node, item, i);
    if (!out.has(pe)) out.set(pe, item);
  });
  return out;
}

/** Paths never tracked (FACTS 8.1; AM util/managedfields/internal/stripmeta.go). Removed exactly, not recursively. */
let stripped: FieldSet | undefined;

export function strippedPaths(): FieldSet {
  // Built on first use: field-set.ts re-exports this module, so nothing may run at import time.
  // One set serves every call: the set operations never change their operands.
  return (stripped ??= fieldSet([
    [fieldPE('apiVersion')], [fieldPE('kind')], [fieldPE('metadata')],
    ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']
      .map((f) => [fieldPE('metadata'), fieldPE(f)]),
  ]));
}

export const stripMeta = (s: FieldSet): FieldSet => difference(s, strippedPaths());
/** stripMeta on a set the caller owns, changed in place (field-set.ts subtractInPlace). */
export const stripMetaInPlace = (s: FieldSet): FieldSet => subtractInPlace(s, strippedPaths());

export interface FieldSetOptions {
  /** Also include every struct, granular map and keyed/set list present (not only leaves and items). */
  containers?: boolean;
  /** Keep the never-tracked metadata paths (used internally for ownership during pruning). */
  keepMeta?: boolean;
}

/**
 * The paths an object sets (SMD ToFieldSet; FACTS 8.1 "Apply entries"): leaves, map keys,
 * list items, and struct fields whose value is null or `{}`. Declared struct fields that
 * hold content get no membership of their own (no `.` when encoded) unless `containers`.
 */
export function fieldSetOf(obj: unknown, structure: Structure, schemaName: string, opts: FieldSetOptions = {}): FieldSet {
  const set = emptySet();
  const walk = (value: unknown, node: StructureNode, path: PathElement[]): void => {
    if (isLeaf(node)) {
      if (path.length) insertPath(set, path);
      return;
    }
    if (opts.containers && path.length && value !== null && value !== undefined) insertPath(set, path);
    if (node.kind === 'list') {
      if (!Array.isArray(value)) return;
      const item = resolve(structure, node.items);
      for (const [pe, v] of indexItems(node, value)) {
        walk(v, item, [...path, pe]);
        insertPath(set, [...path, pe]);
      }
      return;
    }
    if (!isPlainObject(value)) return;
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const child = [...path, fieldPE(k)];
      walk(v, childNode(structure, node, k), child);
      const declared = node.kind === 'struct' && Object.hasOwn(node.fields, k);
      if (!declared || v === null || (isPlainObject(v) && Object.keys(v).length === 0)) insertPath(set, child);
    }
  };
  walk(obj, resolve(structure, schemaName), []);
  return opts.keepMeta ? set : stripMetaInPlace(set);
}

/** Result of comparing two objects (SMD typed.Comparison). */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * What changed from `oldObj` to `newObj` (SMD typed/compare.go): leaves added, removed or with
 * a different value; granular containers (structs, maps, keyed/set lists, their items) that
 * appear or disappear are themselves added/removed. Nothing is stripped here.
 */
export function compareObjects(oldObj: unknown, newObj: unknown, structure: Structure, schemaName: string): Comparison {
  const res: Comparison = { added: emptySet(), modified: emptySet(), removed: emptySet() };
  const cmp = (l: unknown, r: unknown, node: StructureNode, path: PathElement[]): void => {
    if (l === undefined && r === undefined) return;
    if (isLeaf(node)) {
      if (!path.length) return;
      if (l === undefined) insertPath(res.added, path);
      else if (r === undefined) insertPath(res.removed, path);
      else if (!deepEqual(l, r)) insertPath(res.modified, path);
      return;
    }
    // `path` is one array, extended and cut back around each child: insertPath copies what it keeps.
    if (node.kind === 'list') {
      const item = resolve(structure, node.items);
      const li = indexItems(node, l), ri = indexItems(node, r);
      for (const [pe, rv] of ri) cmpChild(li.get(pe), rv, item, path, pe);
      for (const [pe, lv] of li) if (!ri.has(pe)) cmpChild(lv, undefined, item, path, pe);
    } else {
      const lo = isPlainObject(l) ? l : undefined, ro = isPlainObject(r) ? r : undefined;
      // The keys of the old object, then the new object's own: the order of a Set of both.
      if (lo) for (const k of Object.keys(lo)) cmpChild(lo[k], ro && Object.hasOwn(ro, k) ? ro[k] : undefined, childNode(structure, node, k), path, fieldPE(k));
      if (ro) for (const k of Object.keys(ro)) if (!lo || !Object.hasOwn(lo, k)) cmpChild(undefined, ro[k], childNode(structure, node, k), path, fieldPE(k));
    }
    if (path.length && l === undefined) insertPath(res.added, path);
    else if (path.length && r === undefined) insertPath(res.removed, path);
  };
  const cmpChild = (l: unknown, r: unknown, node: StructureNode, path: PathElement[], pe: PathElement): void => {
    path.push(pe);
    cmp(l, r, node, path);
    path.pop();
  };
  cmp(oldObj, newObj, resolve(structure, schemaName), []);
  return res;
}

/**
 * The object a create is compared against: Go's zero value of the kind serializes its
 * top-level structs (`metadata`, `spec`, `status`) as `{}`, so those never count as added
 * (FACTS 8.2: `"f:spec":{...}` has no `.`, `"f:labels"` does).
 */
export function zeroObject(structure: Structure, schemaName: string): Record<string, unknown> {
  const node = resolve(structure, schemaName);
  const out: Record<string, unknown> = {};
  if (node.kind !== 'struct') return out;
  for (const [k, ref] of Object.entries(node.fields)) {
    const n = resolve(structure, ref);
    if (n.kind === 'struct' && n.mapType === 'granular') out[k] = {};
  }
  return out;
}

/** Removes `metadata.managedFields` (compared objects never include it; FACTS 8.1). */
export function withoutManagedFields(obj: unknown): unknown {
  if (!isPlainObject(obj) || !isPlainObject(obj.metadata) || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _drop, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/**
 * The fields an Update writes (FACTS 8.1 "Update entries"): added ∪ modified from old to new,
 * metadata bookkeeping stripped. `oldObj` null means a create (compared with the zero object).
 */
export function diffFieldSet(oldObj: unknown, newObj: unknown, structure: Structure, schemaName: string): FieldSet {
  const old = oldObj === null || oldObj === undefined ? zeroObject(structure, schemaName) : withoutManagedFields(oldObj);
  const c = compareObjects(old, withoutManagedFields(newObj), structure, schemaName);
  return stripMetaInPlace(union(c.added, c.modified));
}

export type { FieldPath };
export { deepEqual };
