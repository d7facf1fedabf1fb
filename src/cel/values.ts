/**
 * cel-go's ordering and equality of runtime values (SPEC 2.11), for library
 * functions that compare list elements: `Compare` of the comparable types
 * (int, uint, double, bool, string, bytes, duration, timestamp, numbers across
 * their types) and `Equal` (heterogeneous numeric equality, element-wise
 * lists and maps, a library type's own `equals`). Strings order by code
 * point, as Go's byte-wise order of UTF-8 does, not by UTF-16 unit.
 */
import { cel } from '../util/lazy-packages.ts';

/** A value of a library type that compares as cel-go's `Equal` of that type does. */
export interface CelEquatable {
  equals(other: unknown): boolean;
}

const isEquatable = (v: unknown): v is CelEquatable => !!v && typeof (v as CelEquatable).equals === 'function';

type UintClass = new (value: bigint) => { valueOf(): bigint };
type DurationClass = new (seconds: bigint, nanos: number) => { seconds: bigint; nanos: number };
let uintClass: UintClass | undefined;
let durationClass: DurationClass | undefined;

/** cel-js's uint value (its class is not exported; a literal's constructor is it). */
export function uint(value: bigint): unknown {
  uintClass ??= (cel().evaluate('0u') as object).constructor as UintClass;
  return new uintClass(value);
}

/** cel-js's duration value, from nanoseconds. */
export function duration(nanos: bigint): unknown {
  durationClass ??= (cel().evaluate('duration("0s")') as object).constructor as DurationClass;
  return new durationClass(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
}

export const isUint = (v: unknown): boolean => !!v && typeof v === 'object' && v.constructor === (uint(0n) as object).constructor;
export const isDuration = (v: unknown): v is { seconds: bigint; nanos: number } =>
  !!v && typeof v === 'object' && v.constructor === (duration(0n) as object).constructor;

export const durationNanos = (d: { seconds: bigint; nanos: number }): bigint => d.seconds * 1_000_000_000n + BigInt(d.nanos);

const sign = (x: number | bigint): number => (x < 0 ? -1 : x > 0 ? 1 : 0);

/** A number of any CEL numeric type, for cross-type comparison: bigint when integral. */
function numeric(v: unknown): number | bigint | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (isUint(v)) return (v as { valueOf(): bigint }).valueOf();
  return undefined;
}

function compareNumbers(a: number | bigint, b: number | bigint): number | undefined {
  if (typeof a === 'number' && Number.isNaN(a)) return undefined;
  if (typeof b === 'number' && Number.isNaN(b)) return undefined;
  if (typeof a === typeof b) return sign((a as number) - (b as number));
  // Exact across int and double: compare the double with the integer's exact value.
  const [d, i, flip] = typeof a === 'number' ? [a, b as bigint, 1] : [b as number, a as bigint, -1];
  if (!Number.isFinite(d)) return d > 0 ? flip : -flip;
  const whole = BigInt(Math.trunc(d));
  if (whole !== i) return whole > i ? flip : -flip;
  const fraction = d - Math.trunc(d);
  return fraction === 0 ? 0 : fraction > 0 ? flip : -flip;
}

/** UTF-16 units reordered so that surrogates (astral code points) sort after U+E000..U+FFFF. */
const codePointUnit = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);

export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return sign(codePointUnit(x) - codePointUnit(y));
  }
  return sign(a.length - b.length);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return sign(a[i] - b[i]);
  return sign(a.length - b.length);
}

/** cel-go's Compare: -1, 0, 1, or undefined where it is an error (NaN, values of unrelated types). */
export function compareValues(a: unknown, b: unknown): number | undefined {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return compareNumbers(x, y);
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return sign(Number(a) - Number(b));
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof Date && b instanceof Date) return sign(a.getTime() - b.getTime());
  if (isDuration(a) && isDuration(b)) return sign(durationNanos(a) - durationNanos(b));
  return undefined;
}

/**
 * How a list compares when it is the left operand of `==` (upstream apiserver
 * pkg/cel/common/values.go unstructuredSetList, unstructuredMapList): a set
 * equals a list of the same elements in any order, a map list one whose items
 * with the same key values are equal. Other lists compare element-wise.
 */
export type ListSemantics = { type: 'set' } | { type: 'map'; keys: readonly string[] };

const LIST_SEMANTICS = Symbol('listSemantics');

/** Marks `list` (a fresh array) with its list type; it stays an ordinary array to every library function. */
export function withListSemantics<T extends unknown[]>(list: T, semantics: ListSemantics): T {
  Object.defineProperty(list, LIST_SEMANTICS, { value: semantics });
  return list;
}

const listSemantics = (list: unknown[]): ListSemantics | undefined => (list as unknown as Record<symbol, ListSemantics | undefined>)[LIST_SEMANTICS];

/** A scalar's identity for hashing (type-tagged, so `1` and `"1"` differ); undefined for anything else. */
function scalarKey(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return `s${v}`;
    case 'bigint':
      return `i${v}`;
    case 'number':
      return `d${v}`;
    case 'boolean':
      return `b${v}`;
    default:
      return v === undefined ? 'u' : v === null ? 'n' : undefined;
  }
}

/**
 * Where an item of `b` is in `a` by key: through hashed keys where the keys
 * are scalars (linear), by search otherwise; -1 when it is not.
 */
function keyedIndex(a: readonly unknown[], keyOf: (item: unknown) => unknown[]): (item: unknown) => number {
  const index = new Map<string, number>();
  let hashable = true;
  a.forEach((item, i) => {
    const parts = keyOf(item).map(scalarKey);
    if (parts.some((p) => p === undefined)) hashable = false;
    else if (!index.has(parts.join('\0'))) index.set(parts.join('\0'), i);
  });
  return (item) => {
    const parts = keyOf(item).map(scalarKey);
    if (hashable && parts.every((p) => p !== undefined)) return index.get(parts.join('\0')) ?? -1;
    const key = keyOf(item);
    return a.findIndex((u) => keyOf(u).every((v, i) => celEquals(v, key[i])));
  };
}

/** How a list's items are identified: the item itself in a set, its key fields in a map list. */
function itemKey(semantics: ListSemantics): (item: unknown) => unknown[] {
  if (semantics.type === 'set') return (item) => [item];
  const keys = semantics.keys;
  return (item) => keys.map((k) => (item instanceof Map ? item.get(k) : undefined));
}

function listEquals(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  const semantics = listSemantics(a);
  if (!semantics) return a.every((v, i) => celEquals(v, b[i]));
  const find = keyedIndex(a, itemKey(semantics));
  return b.every((item) => {
    const at = find(item);
    return at >= 0 && celEquals(a[at], item);
  });
}

/**
 * `a + b` where `a` is a set or map list (upstream unstructuredSetList.Add,
 * unstructuredMapList.Add): a set gains the items it lacks, a map list has
 * items of known keys replaced and the others appended; the result keeps its
 * list type. Undefined when `a` is an ordinary list.
 */
export function concatWithSemantics(a: unknown[], b: unknown[]): unknown[] | undefined {
  const semantics = listSemantics(a);
  if (!semantics) return undefined;
  const out = [...a];
  const find = keyedIndex(a, itemKey(semantics));
  // A set adds each new item once (upstream keeps its set of seen values up to date).
  const appended = new Set<string>();
  for (const item of b) {
    const at = find(item);
    if (at >= 0) {
      if (semantics.type === 'map') out[at] = item;
      continue;
    }
    if (semantics.type === 'set') {
      const key = scalarKey(item);
      if (key !== undefined ? appended.has(key) : out.slice(a.length).some((x) => celEquals(x, item))) continue;
      if (key !== undefined) appended.add(key);
    }
    out.push(item);
  }
  return withListSemantics(out, semantics);
}

/** cel-go's Equal. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return compareNumbers(x, y) === 0;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (isEquatable(a)) return a.constructor === b.constructor && a.equals(b);
  if (Array.isArray(a) && Array.isArray(b)) return listEquals(a, b);
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celEquals(v, b.get(k))) return false;
    return true;
  }
  const order = compareValues(a, b);
  if (order !== undefined) return order === 0;
  if (Object.getPrototypeOf(a) === Object.prototype && Object.getPrototypeOf(b) === Object.prototype) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && celEquals((a as any)[k], (b as any)[k]));
  }
  return false;
}
