/**
 * The uniqueness of x-kubernetes-list-type `set` and `map` lists (SPEC 2.2
 * list semantics; upstream apiextensions-apiserver
 * pkg/apiserver/schema/listtype/validation.go `ValidateListSetsAndMaps`): a
 * set's items, and a map list's key fields, appear once. Run over the same
 * node graph as the value validation (value-validation.ts ValueNode), for
 * custom and built-in kinds alike.
 */
import { duplicate, goRepr, index, invalid, child, type FieldError } from '../validation/field-errors.ts';
import type { ValueNode } from './value-validation.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const key = (path: string, k: string) => `${path}[${k}]`;

/** Go's `%#v` of a decoded JSON value, as upstream prints a duplicate's compound value. */
export function goSyntax(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  const entries = Object.keys(value as object)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${goSyntax((value as Record<string, unknown>)[k])}`);
  return `map[string]interface {}{${entries.join(', ')}}`;
}

/** Go's json.Marshal of a compound value: map keys sorted, so equal values marshal alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** An absent key field, told apart from a null one (upstream unspecifiedKeyValue). */
const UNSPECIFIED = Symbol('unspecified key');

/** Upstream validateListSet: the indices of each value's second appearance. */
function nonUniqueIndices(values: readonly unknown[]): number[] {
  if (values.length <= 1) return [];
  const seen = new Map<unknown, number>();
  const out: number[] = [];
  values.forEach((x, i) => {
    const id = typeof x === 'object' && x !== null ? `compound:${canonical(x)}` : x;
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

function validateListMap(path: string, node: ValueNode, list: unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isObject(x)) return [invalid(index(path, i), x, 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keys = node.listMapKeys ?? [];
  if (keys.length === 1) {
    const field = keys[0];
    const values = list.map((x) => (isObject(x) && Object.hasOwn(x, field) ? x[field] : UNSPECIFIED));
    return nonUniqueIndices(values).map((i) =>
      duplicate(index(path, i), goRepr(goSyntax(values[i] === UNSPECIFIED ? {} : { [field]: values[i] }))),
    );
  }
  const values = list.map((x) => {
    const identity: Record<string, unknown> = {};
    if (isObject(x)) for (const field of keys) if (Object.hasOwn(x, field)) identity[field] = x[field];
    return identity;
  });
  return nonUniqueIndices(values).map((i) => duplicate(index(path, i), goRepr(goSyntax(values[i]))));
}

function validateArray(path: string, node: ValueNode, list: unknown[], errs: FieldError[]): void {
  if (node.duplicatesTolerated) {
    // upstream accepts duplicates here: the list type is its merge semantics alone.
  } else if (node.listType === 'set') {
    for (const i of nonUniqueIndices(list)) {
      const x = list[i];
      errs.push(duplicate(index(path, i), typeof x === 'object' && x !== null ? goRepr(goSyntax(x)) : x));
    }
  } else if (node.listType === 'map') errs.push(...validateListMap(path, node, list));
  if (node.items) list.forEach((x, i) => validateValue(index(path, i), node.items!, x, errs));
}

function validateObject(path: string, node: ValueNode, obj: Record<string, unknown>, errs: FieldError[]): void {
  const ap = node.additionalProperties?.schema;
  for (const k of Object.keys(obj)) {
    const sub = node.properties?.[k];
    if (sub) validateValue(child(path, k), sub, obj[k], errs);
    else if (ap) validateValue(key(path, k), ap, obj[k], errs);
  }
}

function validateValue(path: string, node: ValueNode, value: unknown, errs: FieldError[]): void {
  if (node.listsBelow === false) return;
  if (Array.isArray(value)) validateArray(path, node, value, errs);
  else if (isObject(value)) validateObject(path, node, value, errs);
}

/** Upstream ValidateListSetsAndMaps: every set and map list under an object, by the node graph. */
export function validateListSetsAndMaps(path: string, node: ValueNode, obj: unknown): FieldError[] {
  const errs: FieldError[] = [];
  if (isObject(obj)) validateObject(path, node, obj, errs);
  return errs;
}
