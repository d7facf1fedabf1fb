/**
 * JSON Patch (RFC 6902) for `application/json-patch+json` PATCH requests
 * (SPEC §4.5 "Update mechanisms"; FACTS §1.1 patch errors). Pure, no I/O.
 *
 * Behaviour is that of gopkg.in/evanphx/json-patch.v4 v4.12.0 as kube-apiserver
 * 1.31 runs it, quirks included: a patch that is not an array of objects is
 * undecodable (reason `BadRequest`, 400); everything else fails while applying
 * (reason `Invalid`, 422): an unknown or missing `op`, a missing `path`/`from`,
 * a failed `test`, a missing location. Paths split on `/` and ignore whatever
 * precedes the first one; array indices follow Go's strconv.Atoi (signs and
 * leading zeros allowed) and negative ones count from the end; `replace` of an
 * absent object member adds it; `copy` of an absent member copies null; copies
 * together may add at most {@link MAX_COPY_BYTES}. Application is atomic: the
 * input is never mutated and a failing patch leaves it untouched. Nothing
 * recurses on the depth of the document or the values.
 */
import { cloneJson, deepEqual, hasOwn, isObject, setOwn, type JsonObject } from '../json-value.ts';
import { PatchError } from './patch-error.ts';

export { PatchError } from './patch-error.ts';

/** kube-apiserver's `maxJSONPatchOperations`: more operations is a 413. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * kube-apiserver sets json-patch's `AccumulatedCopySizeLimit` to its
 * `JSONPatchMaxCopyBytes`, 3 MiB: the JSON size all `copy` operations of one
 * patch may add together.
 */
export const MAX_COPY_BYTES = 3 * 1024 * 1024;

export interface JsonPatchOptions {
  /**
   * The typed decode upstream runs first under field validation `Warn` and
   * `Strict`: `op`, `path` and `from` of the wrong JSON type are a 400 there,
   * not a failure while applying.
   */
  typed?: boolean;
}

/** One decoded operation: its members are read as upstream reads them, when applied. */
export type Operation = JsonObject;
type Container = JsonObject | unknown[];

const invalid = (message: string) => new PatchError(message, 'Invalid');
const missing = (message: string) => invalid(`${message}: missing value`);

/** Go's name for the JSON type of a value, as in `json: cannot unmarshal X into ...`. */
function goJsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'boolean' ? 'bool' : typeof value === 'object' ? 'object' : typeof value;
}

/** json.Unmarshal into `[]map[string]*json.RawMessage`: an array of objects (or null elements). */
function decodePatch(patch: unknown, options: JsonPatchOptions): Operation[] {
  if (patch === null) return []; // Go decodes `null` into an empty patch.
  if (!Array.isArray(patch)) {
    throw new PatchError(`json: cannot unmarshal ${goJsonType(patch)} into Go value of type jsonpatch.Patch`, 'BadRequest');
  }
  for (const op of patch) {
    if (op !== null && !isObject(op)) {
      throw new PatchError(`json: cannot unmarshal ${goJsonType(op)} into Go value of type jsonpatch.Operation`, 'BadRequest');
    }
    if (!options.typed || op === null) continue;
    for (const field of ['op', 'path', 'from']) {
      const value = hasOwn(op, field) ? op[field] : null;
      if (value !== null && typeof value !== 'string') {
        throw new PatchError(`error decoding patch: json: cannot unmarshal ${goJsonType(value)} into Go struct field jsonPatchOp.${field} of type string`, 'BadRequest');
      }
    }
  }
  return patch.map((op) => (op ?? {}) as Operation);
}

/** A string member of an operation; undefined when absent, null or not a string (Go's Path()/From() fail). */
function member(op: Operation, name: 'op' | 'path' | 'from'): string | undefined {
  const value = hasOwn(op, name) ? op[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** The value of an operation: null when absent, as upstream adds a nil node. */
function valueOf(op: Operation): unknown {
  return hasOwn(op, 'value') ? op.value : null;
}

/** RFC 6901 unescaping as Go's strings.NewReplacer("~1", "/", "~0", "~"). */
function unescape(token: string): string {
  return token.includes('~') ? token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~')) : token;
}

/**
 * The tokens of a path as json-patch v4 splits it: on every `/`, dropping what
 * precedes the first; null when there is no `/` at all.
 */
export function pathTokens(path: string): string[] | null {
  const split = path.split('/');
  if (split.length < 2) return null;
  return split.slice(1).map(unescape);
}

const MAX_INT = 2n ** 63n - 1n;
const MIN_INT = -(2n ** 63n);

/** Go's strconv.Atoi on a 64-bit platform: the index, or the error Go would print. */
function atoi(token: string): number | string {
  const quoted = JSON.stringify(token);
  if (!/^[+-]?[0-9]+$/.test(token)) return `strconv.Atoi: parsing ${quoted}: invalid syntax`;
  const n = BigInt(token);
  if (n > MAX_INT || n < MIN_INT) return `strconv.Atoi: parsing ${quoted}: value out of range`;
  return Number(n);
}

const badIndex = (index: number) => `Unable to access invalid index: ${index}: invalid index referenced`;

/** Result of one container operation: undefined on success, else Go's error text. */
type Outcome = string | undefined;

/** `partialArray.get` / `partialDoc.get`: the value (undefined when nil: absent or null) or an error. */
function get(container: Container, key: string): { value?: unknown; error?: string } {
  if (!Array.isArray(container)) {
    const value = hasOwn(container, key) ? container[key] : undefined;
    return { value: value === null ? undefined : value };
  }
  const parsed = atoi(key);
  if (typeof parsed === 'string') return { error: parsed };
  let index = parsed;
  if (index < 0) {
    if (index < -container.length) return { error: badIndex(index) };
    index += container.length;
  }
  if (index >= container.length) return { error: badIndex(index) };
  const value = container[index];
  return { value: value === null ? undefined : value };
}

/** `add`: objects set the member; arrays insert (`-` appends), negative indices counting from the new end. */
function add(container: Container, key: string, value: unknown): Outcome {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return undefined;
  }
  if (key === '-') {
    container.push(value);
    return undefined;
  }
  const parsed = atoi(key);
  if (typeof parsed === 'string') return `value was not a proper array index: '${key}': ${parsed}`;
  const size = container.length + 1;
  let index = parsed;
  if (index >= size) return badIndex(index);
  if (index < 0) {
    if (index < -size) return badIndex(index);
    index += size;
  }
  container.splice(index, 0, value);
  return undefined;
}

/** `replace` after a successful get: arrays overwrite the index, objects set the member. */
function set(container: Container, key: string, value: unknown): Outcome {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return undefined;
  }
  const parsed = atoi(key);
  if (typeof parsed === 'string') return parsed;
  const index = parsed < 0 ? parsed + container.length : parsed;
  if (parsed < -container.length) return badIndex(parsed);
  container[index] = value;
  return undefined;
}

function remove(container: Container, key: string): Outcome {
  if (!Array.isArray(container)) {
    if (!hasOwn(container, key)) return `Unable to remove nonexistent key: ${key}: missing value`;
    delete container[key];
    return undefined;
  }
  const parsed = atoi(key);
  if (typeof parsed === 'string') return parsed;
  let index = parsed;
  if (index >= container.length) return badIndex(index);
  if (index < 0) {
    if (index < -container.length) return badIndex(index);
    index += container.length;
  }
  container.splice(index, 1);
  return undefined;
}

/** The working document: the root may be replaced by `replace ""`. */
interface Doc {
  root: Container;
}

/** json-patch's findObject: the container that holds the last token, and that token. */
function findObject(doc: Doc, path: string): { container: Container; key: string } | undefined {
  const tokens = pathTokens(path);
  if (!tokens) return undefined;
  let node: Container = doc.root;
  for (let i = 0; i < tokens.length - 1; i++) {
    const next = get(node, tokens[i]);
    if (next.error !== undefined || next.value === undefined) return undefined;
    if (!Array.isArray(next.value) && !isObject(next.value)) return undefined;
    node = next.value;
  }
  return { container: node, key: tokens[tokens.length - 1] };
}

/**
 * The JSON size Go's encoder gives a value (compact, `<`, `>`, `&`, U+2028 and
 * U+2029 escaped, UTF-8 bytes), counted without recursion: copies are charged by it.
 */
function jsonSize(value: unknown): number {
  let size = 0;
  const pending: unknown[] = [value];
  for (let i = pending.length; i > 0; i = pending.length) {
    const v = pending.pop();
    if (typeof v === 'string') {
      size += Buffer.byteLength(JSON.stringify(v)) + 5 * (v.match(/[<>&\u2028\u2029]/g)?.length ?? 0);
    } else if (Array.isArray(v)) {
      size += 2 + Math.max(0, v.length - 1);
      for (const item of v) pending.push(item);
    } else if (isObject(v)) {
      const keys = Object.keys(v);
      size += 2 + Math.max(0, keys.length - 1) + keys.length;
      for (const key of keys) {
        pending.push(key);
        pending.push(v[key]);
      }
    } else size += String(v ?? null).length;
  }
  return size;
}

/** The state one patch application carries between operations. */
interface Run {
  doc: Doc;
  copied: number;
}

function applyAdd(run: Run, op: Operation): void {
  const path = member(op, 'path');
  if (path === undefined) throw missing('add operation failed to decode path');
  const at = findObject(run.doc, path);
  if (!at) throw missing(`add operation does not apply: doc is missing path: "${path}"`);
  const failed = add(at.container, at.key, cloneJson(valueOf(op)));
  if (failed) throw invalid(`error in add for path: '${path}': ${failed}`);
}

function applyRemove(run: Run, op: Operation): void {
  const path = member(op, 'path');
  if (path === undefined) throw missing('remove operation failed to decode path');
  const at = findObject(run.doc, path);
  if (!at) throw missing(`remove operation does not apply: doc is missing path: "${path}"`);
  const failed = remove(at.container, at.key);
  if (failed) throw invalid(`error in remove for path: '${path}': ${failed}`);
}

function applyReplace(run: Run, op: Operation): void {
  const path = member(op, 'path');
  if (path === undefined) throw missing('replace operation failed to decode path: operation missing path field');
  const value = valueOf(op);
  if (path === '') {
    // Upstream wraps a nil error for a scalar here, which is no error: the document stays.
    if (isObject(value) || Array.isArray(value)) run.doc.root = cloneJson(value);
    return;
  }
  const at = findObject(run.doc, path);
  if (!at) throw missing(`replace operation does not apply: doc is missing path: ${path}`);
  if (get(at.container, at.key).error !== undefined) throw missing(`replace operation does not apply: doc is missing key: ${path}`);
  const failed = set(at.container, at.key, cloneJson(value));
  if (failed) throw invalid(`error in remove for path: '${path}': ${failed}`);
}

function applyMove(run: Run, op: Operation): void {
  const from = member(op, 'from');
  if (from === undefined) throw missing('move operation failed to decode from: operation, missing from field');
  const source = findObject(run.doc, from);
  if (!source) throw missing(`move operation does not apply: doc is missing from path: ${from}`);
  const found = get(source.container, source.key);
  if (found.error !== undefined) throw invalid(`error in move for path: '${source.key}': ${found.error}`);
  const removed = remove(source.container, source.key);
  if (removed) throw invalid(`error in move for path: '${source.key}': ${removed}`);
  const path = member(op, 'path');
  if (path === undefined) throw missing('move operation failed to decode path: operation missing path field');
  const target = findObject(run.doc, path);
  if (!target) throw missing(`move operation does not apply: doc is missing destination path: ${path}`);
  const failed = add(target.container, target.key, found.value ?? null);
  if (failed) throw invalid(`error in move for path: '${path}': ${failed}`);
}

function applyTest(run: Run, op: Operation): void {
  const path = member(op, 'path');
  if (path === undefined) throw missing('test operation failed to decode path: operation missing path field');
  const expected = valueOf(op);
  if (path === '') {
    if (!deepEqual(run.doc.root, expected)) throw invalid(`testing value ${path} failed: test failed`);
    return;
  }
  const at = findObject(run.doc, path);
  if (!at) throw missing(`test operation does not apply: is missing path: ${path}`);
  const found = get(at.container, at.key);
  if (found.error !== undefined) throw invalid(`error in test for path: '${path}': ${found.error}`);
  // An absent or null member passes a test for null only.
  const ok = found.value === undefined ? expected === null : deepEqual(found.value, expected);
  if (!ok) throw invalid(`testing value ${path} failed: test failed`);
}

function applyCopy(run: Run, op: Operation): void {
  const from = member(op, 'from');
  if (from === undefined) throw missing('copy operation failed to decode from: operation, missing from field');
  const source = findObject(run.doc, from);
  if (!source) throw missing(`copy operation does not apply: doc is missing from path: ${from}`);
  const found = get(source.container, source.key);
  if (found.error !== undefined) throw invalid(`error in copy for from: '${from}': ${found.error}`);
  const path = member(op, 'path');
  if (path === undefined) throw missing('copy operation failed to decode path');
  const target = findObject(run.doc, path);
  if (!target) throw missing(`copy operation does not apply: doc is missing destination path: ${path}`);
  // An absent member copies as null and adds nothing to the accumulated size.
  if (found.value !== undefined) {
    run.copied += jsonSize(found.value);
    if (run.copied > MAX_COPY_BYTES) {
      throw invalid(`Unable to complete the copy, the accumulated size increase of copy is ${run.copied}, exceeding the limit ${MAX_COPY_BYTES}`);
    }
  }
  const failed = add(target.container, target.key, cloneJson(found.value ?? null));
  if (failed) throw invalid(`error while adding value during copy: ${failed}`);
}

const OPERATIONS: Record<string, (run: Run, op: Operation) => void> = {
  add: applyAdd,
  remove: applyRemove,
  replace: applyReplace,
  move: applyMove,
  test: applyTest,
  copy: applyCopy,
};

/**
 * Decodes a patch as upstream does before applying anything: undecodable is a
 * {@link PatchError} `BadRequest`, more than {@link MAX_JSON_PATCH_OPERATIONS}
 * operations one with reason `RequestEntityTooLarge` (413).
 */
export function checkJsonPatch(patch: unknown, options: JsonPatchOptions = {}): Operation[] {
  const ops = decodePatch(patch, options);
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new PatchError(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`, 'RequestEntityTooLarge');
  }
  return ops;
}

/**
 * Applies an RFC 6902 patch document to `doc` (an object) and returns the
 * patched copy. `doc` is never mutated; any failure throws {@link PatchError}
 * and nothing is applied.
 */
export function applyJsonPatch(doc: unknown, patch: unknown, options: JsonPatchOptions = {}): unknown {
  const ops = checkJsonPatch(patch, options);
  const run: Run = { doc: { root: isObject(doc) || Array.isArray(doc) ? cloneJson(doc) : {} }, copied: 0 };
  for (const op of ops) {
    const kind = member(op, 'op') ?? 'unknown';
    const apply = hasOwn(OPERATIONS, kind) ? OPERATIONS[kind] : undefined;
    if (!apply) throw invalid(`Unexpected kind: ${kind}`);
    apply(run, op);
  }
  return run.doc.root;
}
