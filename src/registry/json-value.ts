/**
 * Plain JSON values from request bodies (SPEC 4.5, 4.7): every helper here is
 * safe for whatever a client may send within the body limits. Keys such as
 * `__proto__` are data, never a prototype (issue 7); nothing recurses on the
 * value's depth, so a document nested to the decoders' limit (10,000 levels,
 * upstream's `maxNestingDepth`) cannot overflow the stack.
 */

/** A JSON object (not null, not an array). */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object at `key` (a field name the code gives), made empty when the value there is none: a Go struct field is never absent upstream. */
export function objectAt(holder: Record<string, any>, key: string): Record<string, any> {
  if (!isObject(holder[key])) holder[key] = {};
  return holder[key];
}

/** Own-property lookup that is safe for keys such as `__proto__`. */
export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/**
 * Sets an own data property. Assigning `__proto__` on an object without an own
 * property of that name would replace the object's prototype (or, for a string,
 * silently do nothing); a JSON key is data, so it is defined instead.
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

function emptyLike(value: object): JsonObject | unknown[] {
  return Array.isArray(value) ? new Array(value.length) : {};
}

/** Deep copy of a JSON value, iteratively (structuredClone overflows near 2,000 levels). */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  const root = emptyLike(value);
  const pending: Array<[object, JsonObject | unknown[]]> = [[value, root]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [source, target] = next;
    if (Array.isArray(source)) {
      const out = target as unknown[];
      for (let i = 0; i < source.length; i++) {
        const v = source[i];
        if (v !== null && typeof v === 'object') pending.push([v, (out[i] = emptyLike(v))]);
        else out[i] = v;
      }
    } else {
      const out = target as JsonObject;
      for (const key of Object.keys(source)) {
        const v = (source as JsonObject)[key];
        if (v !== null && typeof v === 'object') {
          const copy = emptyLike(v);
          setOwn(out, key, copy);
          pending.push([v, copy]);
        } else setOwn(out, key, v);
      }
    }
  }
  return root as T;
}

/**
 * Structural equality of two JSON values, iteratively: object key order is
 * irrelevant and a key holding `undefined` counts as absent.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  const pending: Array<[unknown, unknown]> = [[a, b]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [x, y] = next;
    if (x === y) continue;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push([x[i], y[i]]);
      continue;
    }
    if (!isObject(x) || !isObject(y)) return false;
    const keys = Object.keys(x).filter((k) => x[k] !== undefined);
    let count = 0;
    for (const k of Object.keys(y)) if (y[k] !== undefined) count++;
    if (keys.length !== count) return false;
    for (const k of keys) {
      if (!hasOwn(y, k)) return false;
      pending.push([x[k], y[k]]);
    }
  }
  return true;
}

/** Compact rendering of a value for error messages. */
export function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** How deeply objects and arrays nest in `value` (a scalar is 0), found without recursion. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}
