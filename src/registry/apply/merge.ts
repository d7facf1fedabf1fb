/**
 * Structural merge and pruning for server-side apply (SPEC 4.5 rules 3-5; SMD typed/merge.go,
 * typed/remove.go and merge/update.go `prune`, translated).
 */
import type { StructureNode } from '../structure.ts';
import {
  childSet, fieldPE, isEmpty, difference,
  type FieldSet, type PathElement,
} from './field-set.ts';
import { childNode, indexItems, isLeaf, isPlainObject, resolve, type Structure } from './object-fields.ts';
import { cloneJson as clone, setOwn } from '../json-value.ts';

/**
 * Live merged with the intent (SPEC 4.5): granular structs and maps merge per key, atomic
 * values are replaced, `map` lists merge item by key and `set` lists are unioned (live order
 * kept, new items appended).
 */
export function mergeObjects(live: unknown, intent: unknown, structure: Structure, schemaName: string): unknown {
  const merge = (l: unknown, r: unknown, node: StructureNode): unknown => {
    if (r === undefined) return clone(l);
    if (l === undefined || l === null || r === null || isLeaf(node)) return clone(r);
    if (node.kind === 'list') {
      if (!Array.isArray(r) || !Array.isArray(l)) return clone(r);
      const item = resolve(structure, node.items);
      const li = indexItems(node, l), ri = indexItems(node, r);
      const out: unknown[] = [];
      for (const [pe, lv] of li) out.push(ri.has(pe) ? merge(lv, ri.get(pe), item) : clone(lv));
      for (const [pe, rv] of ri) if (!li.has(pe)) out.push(clone(rv));
      return out;
    }
    if (!isPlainObject(l) || !isPlainObject(r)) return clone(r);
    const out: Record<string, unknown> = { ...clone(l) };
    for (const [k, v] of Object.entries(r)) {
      if (v === undefined) continue;
      setOwn(out, k, merge(Object.hasOwn(l, k) ? l[k] : undefined, v, childNode(structure, node, k)));
    }
    return out;
  };
  return merge(live, intent, resolve(structure, schemaName));
}

/**
 * SMD `EnsureNamedFieldsAreMembers`: every declared struct field on the way to a member
 * becomes a member too (map keys do not), so pruning can drop a struct left empty.
 */
export function ensureNamedFieldsAreMembers(s: FieldSet, structure: Structure, schemaName: string): FieldSet {
  const walk = (set: FieldSet, node: StructureNode): FieldSet => {
    const out: FieldSet = { members: new Set(set.members), children: new Map() };
    for (const [pe, child] of set.children) {
      let sub: StructureNode;
      if (node.kind === 'list') sub = resolve(structure, node.items);
      else if (pe.startsWith('f:')) {
        const name = pe.slice(2);
        sub = childNode(structure, node, name);
        if (node.kind === 'struct' && Object.hasOwn(node.fields, name)) out.members.add(pe);
      } else sub = { kind: 'any' };
      out.children.set(pe, walk(child, sub));
    }
    return out;
  };
  return walk(s, resolve(structure, schemaName));
}

/** Root paths pruning never deletes (the object identity; FACTS 8.1 never-tracked fields). */
const PROTECTED_ROOT = new Set(['f:apiVersion', 'f:kind', 'f:metadata']);
const PROTECTED_META = new Set(['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'generation', 'managedFields', 'resourceVersion'].map(fieldPE));

/**
 * Removes from `obj` every path in `remove`, except where `keep` still owns something
 * below (then only the un-owned descendants listed in `remove` go). Returns a new object.
 */
export function removePaths(obj: unknown, remove: FieldSet, keep: FieldSet, structure: Structure, schemaName: string): unknown {
  const walk = (value: unknown, node: StructureNode, rm: FieldSet, kp: FieldSet, depth: number, parent?: PathElement): unknown => {
    if (isLeaf(node)) return value;
    const protectedHere = depth === 0 ? PROTECTED_ROOT : depth === 1 && parent === 'f:metadata' ? PROTECTED_META : undefined;
    const decide = (pe: PathElement): 'drop' | 'descend' | 'keep' => {
      if (protectedHere?.has(pe)) return rm.children.has(pe) ? 'descend' : 'keep';
      if (rm.members.has(pe)) return isEmpty(childSet(kp, pe)) ? 'drop' : 'descend';
      return rm.children.has(pe) ? 'descend' : 'keep';
    };
    if (node.kind === 'list') {
      if (!Array.isArray(value)) return value;
      const item = resolve(structure, node.items);
      const out: unknown[] = [];
      const items = [...indexItems(node, value)];
      // indexItems drops duplicates; keep positions for lists without duplicate identities.
      for (const [pe, v] of items.length === value.length ? items : value.map((v, i) => [`i:${i}`, v] as const)) {
        const d = decide(pe);
        if (d === 'drop') continue;
        out.push(d === 'descend' ? walk(v, item, childSet(rm, pe), childSet(kp, pe), depth + 1, pe) : v);
      }
      return out;
    }
    if (!isPlainObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const pe = fieldPE(k);
      const d = decide(pe);
      if (d === 'drop') continue;
      setOwn(out, k, d === 'descend' && !isLeaf(childNode(structure, node, k))
        ? walk(v, childNode(structure, node, k), childSet(rm, pe), childSet(kp, pe), depth + 1, pe)
        : v);
    }
    return out;
  };
  return walk(obj, resolve(structure, schemaName), remove, keep, 0);
}

/**
 * SMD merge/update.go `prune`: fields the applier set last time (`lastApplied`) that no
 * manager owns any more (`owned`, including the new applied set) are removed (SPEC 4.5 rule 5).
 */
export function pruneObject(merged: unknown, lastApplied: FieldSet | undefined, owned: FieldSet, structure: Structure, schemaName: string): unknown {
  if (!lastApplied || isEmpty(lastApplied)) return merged;
  const last = ensureNamedFieldsAreMembers(lastApplied, structure, schemaName);
  // Owned sets keep their containers too, so a struct that still has owned fields is never a removal candidate.
  const ownedAll = ensureNamedFieldsAreMembers(owned, structure, schemaName);
  return removePaths(merged, difference(last, ownedAll), ownedAll, structure, schemaName);
}
