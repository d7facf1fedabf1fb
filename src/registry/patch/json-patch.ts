/**
 * JSON Patch (RFC 6902) for `application/json-patch+json` PATCH requests
 * (SPEC §4.5 "Update mechanisms"; FACTS §1.1 patch errors). Pure, no I/O.
 *
 * Behaviour follows evanphx/json-patch v4 as vendored by kube-apiserver 1.31:
 * error wording is upstream's; an undecodable patch document (not an array, an
 * operation that is not an object, missing/unknown `op`, missing `path`/`from`)
 * is reason `BadRequest` (400); an operation that does not apply (failed
 * `test`, missing path) is reason `Invalid` (422). A missing `value` is `null`
 * as upstream. Application is atomic: the input document is never mutated and
 * a failing patch leaves it untouched.
 */
import { PatchError, cloneJson, deepEqual, hasOwn, isObject, setOwn, show, type JsonObject } from './patch-error.ts';

export { PatchError } from './patch-error.ts';

/** One decoded operation. */
interface Operation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value: unknown;
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);
const missing = (message: string) => new PatchError(`${message}: missing value`, 'Invalid');

/** Go's name for the JSON type of a value, as in `json: cannot unmarshal X into ...`. */
function goJsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'boolean' ? 'bool' : typeof value === 'object' ? 'object' : typeof value;
}

/** Decodes and validates the whole patch document before anything is applied. */
function decodePatch(patch: unknown): Operation[] {
  if (patch === null) return []; // Go decodes `null` into an empty patch.
  if (!Array.isArray(patch)) {
    throw new PatchError(`json: cannot unmarshal ${goJsonType(patch)} into Go value of type jsonpatch.Patch`, 'BadRequest');
  }
  return patch.map((raw): Operation => {
    if (!isObject(raw)) {
      throw new PatchError(`json: cannot unmarshal ${goJsonType(raw)} into Go value of type jsonpatch.Operation`, 'BadRequest');
    }
    const op = typeof raw.op === 'string' && OPS.has(raw.op) ? (raw.op as Operation['op']) : undefined;
    if (!op) {
      const kind = typeof raw.op === 'string' ? raw.op : 'unknown';
      throw new PatchError(`Unexpected kind: ${kind}: unknown object type`, 'BadRequest');
    }
    if (typeof raw.path !== 'string') {
      throw new PatchError(`${op} operation failed to decode path: operation missing path field: missing value`, 'BadRequest');
    }
    const decoded: Operation = { op, path: raw.path, value: hasOwn(raw, 'value') ? raw.value : null };
    if (op === 'move' || op === 'copy') {
      if (typeof raw.from !== 'string') {
        throw new PatchError(`${op} operation failed to decode from: operation missing from field: missing value`, 'BadRequest');
      }
      decoded.from = raw.from;
    }
    return decoded;
  });
}

/** Splits a JSON Pointer into unescaped tokens (`~1` → `/`, then `~0` → `~`); null when not a pointer. */
export function parsePointer(pointer: string): string[] | null {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return null;
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A valid array index token (no sign, no leading zeros) or -1. */
function arrayIndex(token: string): number {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : -1;
}

/** The mutable document plus the parent container of a pointer. */
interface Doc { root: unknown }
type Container = JsonObject | unknown[];
interface Location { parent: Container; key: string }

/** Resolves the parent container of `pointer`; undefined when it does not exist. */
function locate(doc: Doc, pointer: string): Location | undefined {
  const tokens = parsePointer(pointer);
  if (!tokens || tokens.length === 0) return undefined;
  let node: unknown = doc.root;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) {
      const i = arrayIndex(token);
      if (i < 0 || i >= node.length) return undefined;
      node = node[i];
    } else if (isObject(node)) {
      if (!hasOwn(node, token)) return undefined;
      node = node[token];
    } else return undefined;
  }
  if (!Array.isArray(node) && !isObject(node)) return undefined;
  return { parent: node, key: tokens[tokens.length - 1] };
}

/** Reads the value at `pointer`; `found` is false when absent. Undefined result when the parent is absent. */
function read(doc: Doc, pointer: string): { found: boolean; value: unknown } | undefined {
  if (pointer === '') return { found: true, value: doc.root };
  const loc = locate(doc, pointer);
  if (!loc) return undefined;
  if (Array.isArray(loc.parent)) {
    const i = arrayIndex(loc.key);
    return i >= 0 && i < loc.parent.length ? { found: true, value: loc.parent[i] } : { found: false, value: undefined };
  }
  return hasOwn(loc.parent, loc.key) ? { found: true, value: loc.parent[loc.key] } : { found: false, value: undefined };
}

/** Inserts `value` at `path`; `missingParent` builds the error for an absent parent. */
function add(doc: Doc, path: string, value: unknown, missingParent: () => PatchError): void {
  if (path === '') {
    doc.root = value;
    return;
  }
  const loc = locate(doc, path);
  if (!loc) throw missingParent();
  if (!Array.isArray(loc.parent)) {
    setOwn(loc.parent, loc.key, value);
    return;
  }
  if (loc.key === '-') {
    loc.parent.push(value);
    return;
  }
  const i = arrayIndex(loc.key);
  if (i < 0 && !/^-?[0-9]+$/.test(loc.key)) {
    throw new PatchError(`error in add for path: '${path}': strconv.Atoi: parsing ${show(loc.key)}: invalid syntax`, 'Invalid');
  }
  if (i < 0 || i > loc.parent.length) {
    throw new PatchError(`error in add for path: '${path}': Unable to access invalid index: ${loc.key}: invalid index referenced`, 'Invalid');
  }
  loc.parent.splice(i, 0, value);
}

/** Removes and returns the value at `path`. */
function remove(doc: Doc, path: string, missingPath: () => PatchError): unknown {
  const loc = locate(doc, path);
  if (!loc) throw missingPath();
  if (Array.isArray(loc.parent)) {
    const i = arrayIndex(loc.key);
    if (i < 0 || i >= loc.parent.length) {
      throw new PatchError(`error in remove for path: '${path}': Unable to access invalid index: ${loc.key}: invalid index referenced`, 'Invalid');
    }
    return loc.parent.splice(i, 1)[0];
  }
  if (!hasOwn(loc.parent, loc.key)) {
    throw missing(`error in remove for path: '${path}': Unable to remove nonexistent key: ${loc.key}`);
  }
  const value = loc.parent[loc.key];
  delete loc.parent[loc.key];
  return value;
}

/** Applies one decoded operation to the working copy. */
function applyOperation(doc: Doc, op: Operation): void {
  const { path } = op;
  switch (op.op) {
    case 'add':
      add(doc, path, cloneJson(op.value), () => missing(`add operation does not apply: doc is missing path: "${path}"`));
      return;
    case 'remove':
      remove(doc, path, () => missing(`remove operation does not apply: doc is missing path: "${path}"`));
      return;
    case 'replace': {
      if (path === '') {
        doc.root = cloneJson(op.value);
        return;
      }
      const loc = locate(doc, path);
      if (!loc) throw missing(`replace operation does not apply: doc is missing path: ${path}`);
      const current = read(doc, path);
      if (!current?.found) throw missing(`replace operation does not apply: doc is missing key: ${path}`);
      if (Array.isArray(loc.parent)) loc.parent[arrayIndex(loc.key)] = cloneJson(op.value);
      else setOwn(loc.parent, loc.key, cloneJson(op.value));
      return;
    }
    case 'move': {
      const from = op.from!;
      if (from === path) return;
      const source = read(doc, from);
      if (!source?.found) throw missing(`move operation does not apply: doc is missing from path: ${from}`);
      if (path.startsWith(`${from}/`)) {
        throw new PatchError(`move operation does not apply: from path ${from} is a prefix of destination path ${path}`, 'Invalid');
      }
      const value = remove(doc, from, () => missing(`move operation does not apply: doc is missing from path: ${from}`));
      add(doc, path, value, () => missing(`move operation does not apply: doc is missing destination path: ${path}`));
      return;
    }
    case 'copy': {
      const from = op.from!;
      const source = read(doc, from);
      if (!source?.found) throw missing(`copy operation does not apply: doc is missing from path: ${from}`);
      add(doc, path, cloneJson(source.value), () => missing(`copy operation does not apply: doc is missing destination path: ${path}`));
      return;
    }
    case 'test': {
      const current = read(doc, path);
      if (!current) throw missing(`test operation does not apply: is missing path: ${path}`);
      // Upstream: an absent value passes a test for null.
      const ok = current.found ? deepEqual(current.value, op.value) : op.value === null;
      if (!ok) throw new PatchError(`testing value ${path} failed: test failed`, 'Invalid');
      return;
    }
  }
}

/**
 * Applies an RFC 6902 patch document to `doc` and returns the patched copy.
 * `doc` is never mutated; any failure throws {@link PatchError} and nothing is applied.
 */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  const ops = decodePatch(patch);
  const work: Doc = { root: cloneJson(doc) };
  for (const op of ops) applyOperation(work, op);
  return work.root;
}
