/**
 * Field sets: the sets of paths that managedFields records (SPEC 2.2, 4.5; FACTS 8.1).
 *
 * Modelled on structured-merge-diff's fieldpath package: a set is a tree whose
 * edges are path elements; `members` are the paths owned at this level,
 * `children` the subtrees below. A path element is kept in its fieldsV1 spelling
 * (`f:name`, `k:{"port":80}`, `v:"x"`, `i:0`), so encoding and decoding are tree
 * copies. The set operations are the non-recursive ones of SMD (`Difference`
 * removes exactly the listed paths, not their descendants).
 *
 * The typed walks (which paths an object sets, what changed between two objects)
 * live in ./object-fields.ts, which builds on these sets.
 */

/** One path element in fieldsV1 spelling: `f:<field>`, `k:<json>`, `v:<json>` or `i:<n>`. */
export type PathElement = string;
/** A path from the object root. */
export type FieldPath = readonly PathElement[];

/** A set of field paths (FACTS 8.1). Treat as immutable outside this module's helpers. */
export interface FieldSet {
  members: Set<PathElement>;
  children: Map<PathElement, FieldSet>;
}

/** Go's encoding/json escapes these; SMD writes path-element JSON the same way. */
function goJson(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON with object keys sorted (key elements are written with sorted field names, FACTS 8.1). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${goJson(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return goJson(v ?? null);
}

export const fieldPE = (name: string): PathElement => `f:${name}`;
export const keyPE = (key: Record<string, unknown>): PathElement => `k:${canonicalJson(key)}`;
export const valuePE = (value: unknown): PathElement => `v:${canonicalJson(value)}`;
export const indexPE = (index: number): PathElement => `i:${index}`;

export function emptySet(): FieldSet {
  return { members: new Set(), children: new Map() };
}

export function isEmpty(s: FieldSet): boolean {
  if (s.members.size) return false;
  for (const c of s.children.values()) if (!isEmpty(c)) return false;
  return true;
}

/** Adds a path (in place) and returns the set. */
export function insertPath(s: FieldSet, path: FieldPath): FieldSet {
  if (path.length === 0) return s;
  let node = s;
  for (let i = 0; i < path.length - 1; i++) {
    let next = node.children.get(path[i]);
    if (!next) node.children.set(path[i], (next = emptySet()));
    node = next;
  }
  node.members.add(path[path.length - 1]);
  return s;
}

export function hasPath(s: FieldSet, path: FieldPath): boolean {
  let node: FieldSet | undefined = s;
  for (let i = 0; i < path.length - 1 && node; i++) node = node.children.get(path[i]);
  return !!node && path.length > 0 && node.members.has(path[path.length - 1]);
}

/** The subtree below a path (empty when absent). */
export function childSet(s: FieldSet, pe: PathElement): FieldSet {
  return s.children.get(pe) ?? emptySet();
}

export function fieldSet(paths: FieldPath[]): FieldSet {
  const s = emptySet();
  for (const p of paths) insertPath(s, p);
  return s;
}

function combine(a: FieldSet, b: FieldSet, op: 'union' | 'intersection' | 'difference'): FieldSet {
  const out = emptySet();
  for (const m of a.members) if (op === 'union' || (op === 'intersection') === b.members.has(m)) out.members.add(m);
  if (op === 'union') for (const m of b.members) out.members.add(m);
  for (const [pe, ac] of a.children) {
    const bc = b.children.get(pe);
    const c = bc ? combine(ac, bc, op) : op === 'intersection' ? emptySet() : combine(ac, emptySet(), 'union');
    if (!isEmpty(c)) out.children.set(pe, c);
  }
  if (op === 'union') {
    for (const [pe, bc] of b.children) if (!a.children.has(pe) && !isEmpty(bc)) out.children.set(pe, combine(bc, emptySet(), 'union'));
  }
  return out;
}

/**
 * `difference(a, b)` computed in a instead of a copy: for a set its caller has
 * just built and nobody else holds (a create's recorded fields lose the
 * never-tracked metadata this way without copying the whole tree).
 */
export function subtractInPlace(a: FieldSet, b: FieldSet): FieldSet {
  for (const m of b.members) a.members.delete(m);
  for (const [pe, bc] of b.children) {
    const ac = a.children.get(pe);
    if (!ac) continue;
    subtractInPlace(ac, bc);
    if (isEmpty(ac)) a.children.delete(pe);
  }
  return a;
}

export const union = (a: FieldSet, b: FieldSet): FieldSet => combine(a, b, 'union');
export const intersection = (a: FieldSet, b: FieldSet): FieldSet => combine(a, b, 'intersection');
/** a minus b, path by path (SMD `Difference`, not `RecursiveDifference`). */
export const difference = (a: FieldSet, b: FieldSet): FieldSet => combine(a, b, 'difference');

export function equals(a: FieldSet, b: FieldSet): boolean {
  return isEmpty(difference(a, b)) && isEmpty(difference(b, a));
}

const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };
const F = 'f'.charCodeAt(0);

/** SMD value.Compare's total order: numbers, strings, booleans, lists, maps, null. */
function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown) =>
    typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : typeof v === 'boolean' ? 2 : Array.isArray(v) ? 3 : v === null ? 5 : 4;
  const ra = rank(a), rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0 || ra === 2) return Number(a) - Number(b);
  if (ra === 1) return a === b ? 0 : (a as string) < (b as string) ? -1 : 1;
  const sa = canonicalJson(a), sb = canonicalJson(b);
  return sa === sb ? 0 : sa < sb ? -1 : 1;
}

/** Ordering of path elements (SMD PathElement.Compare): fields by name, then keys, values, indexes (FACTS 8.1). */
export function comparePathElements(a: PathElement, b: PathElement): number {
  // Fields, nearly every element sorted, compare as whole strings: both share the `f:` prefix.
  if (a.charCodeAt(0) === F && b.charCodeAt(0) === F) return a === b ? 0 : a < b ? -1 : 1;
  const ta = a.slice(0, 1), tb = b.slice(0, 1);
  if (ta !== tb) return (RANK[ta] ?? 9) - (RANK[tb] ?? 9);
  const ra = a.slice(2), rb = b.slice(2);
  if (ta === 'i') return Number(ra) - Number(rb);
  if (ta === 'v') return compareValues(JSON.parse(ra), JSON.parse(rb));
  const ka = JSON.parse(ra) as Record<string, unknown>, kb = JSON.parse(rb) as Record<string, unknown>;
  const na = Object.keys(ka).sort(), nb = Object.keys(kb).sort();
  if (na.length !== nb.length) return na.length - nb.length;
  for (let i = 0; i < na.length; i++) {
    if (na[i] !== nb[i]) return na[i] < nb[i] ? -1 : 1;
    const c = compareValues(ka[na[i]], kb[nb[i]]);
    if (c) return c;
  }
  return 0;
}

/**
 * Sorts path elements in place by comparePathElements. Field names alone, as
 * most levels of an object hold, sort as plain strings without a comparator:
 * the order of code units that `<` gives them too (every create sorts each
 * level of its managedFields).
 */
function sortPathElements(elements: PathElement[]): PathElement[] {
  for (const pe of elements) if (pe.charCodeAt(0) !== F) return elements.sort(comparePathElements);
  return elements.sort();
}

/** All paths, in SMD `Set.Iterate` order: this level's members, then each child subtree (sorted). */
export function paths(s: FieldSet, prefix: FieldPath = []): PathElement[][] {
  const out: PathElement[][] = sortPathElements([...s.members]).map((m) => [...prefix, m]);
  for (const pe of sortPathElements([...s.children.keys()])) out.push(...paths(s.children.get(pe)!, [...prefix, pe]));
  return out;
}

/** A path in SMD's printed form (FACTS 8.3): `.spec.podSelector`, `[uid="x"]`, `[="v"]`, `[0]`. */
export function pathString(path: FieldPath): string {
  return path
    .map((pe) => {
      const rest = pe.slice(2);
      switch (pe[0]) {
        case 'f': return `.${rest}`;
        case 'i': return `[${rest}]`;
        case 'v': return `[=${toGoString(JSON.parse(rest))}]`;
        case 'k': {
          const key = JSON.parse(rest) as Record<string, unknown>;
          return `[${Object.keys(key).sort().map((k) => `${k}=${toGoString(key[k])}`).join(',')}]`;
        }
        default: return '{{invalid path element}}';
      }
    })
    .join('');
}

/** SMD value.ToString: strings quoted (Go %q), everything else plain. */
function toGoString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'object') return canonicalJson(v);
  return String(v);
}

/** Encodes as fieldsV1 (FACTS 8.1): `{}` leaves, `.` for a node that is owned and has owned children. */
export function toFieldsV1(s: FieldSet): Record<string, unknown> {
  return writeFieldsV1(s, {});
}

function writeFieldsV1(s: FieldSet, out: Record<string, unknown>): Record<string, unknown> {
  const keys = [...s.members];
  for (const [pe, child] of s.children) if (!s.members.has(pe) && !isEmpty(child)) keys.push(pe);
  for (const pe of sortPathElements(keys)) {
    const child = s.children.get(pe);
    if (child && !isEmpty(child)) out[pe] = writeFieldsV1(child, s.members.has(pe) ? { '.': {} } : {});
    else out[pe] = {};
  }
  return out;
}

/** Decodes fieldsV1; key elements are re-spelled canonically. Throws on a malformed document. */
export function fromFieldsV1(obj: unknown): FieldSet {
  const s = emptySet();
  if (obj === null || obj === undefined) return s;
  if (typeof obj !== 'object' || Array.isArray(obj)) throw new Error('fieldsV1 must be an object');
  for (const [raw, sub] of Object.entries(obj as Record<string, unknown>)) {
    if (raw === '.') continue;
    const pe = canonicalPE(raw);
    const child = fromFieldsV1(sub);
    const isMember = sub !== null && typeof sub === 'object' && (Object.keys(sub).length === 0 || '.' in (sub as object));
    if (isMember) s.members.add(pe);
    if (!isEmpty(child)) s.children.set(pe, child);
  }
  return s;
}

function canonicalPE(raw: string): PathElement {
  const kind = raw.slice(0, 2);
  const rest = raw.slice(2);
  switch (kind) {
    case 'f:': return raw;
    case 'i:':
      if (!/^\d+$/.test(rest)) throw new Error(`invalid index path element ${JSON.stringify(raw)}`);
      return indexPE(Number(rest));
    case 'v:': return valuePE(JSON.parse(rest));
    case 'k:': {
      const key = JSON.parse(rest);
      if (key === null || typeof key !== 'object' || Array.isArray(key)) throw new Error(`invalid key path element ${JSON.stringify(raw)}`);
      return keyPE(key);
    }
    default: throw new Error(`unknown path element ${JSON.stringify(raw)}`);
  }
}
