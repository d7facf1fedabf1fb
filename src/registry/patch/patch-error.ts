/**
 * Shared pieces of the patch engines (SPEC §4.5 "Update mechanisms"; FACTS §1.1):
 * the error type and small helpers over plain JSON values. Pure, no I/O.
 */

/**
 * A patch could not be applied. `reason` picks the status the handler answers
 * with (FACTS §1.1): `BadRequest` (400) for an undecodable / malformed patch
 * document or misused directive, `Invalid` (422) for a well-formed patch that
 * does not apply to the object (failed `test`, missing path).
 */
export class PatchError extends Error {
  constructor(message: string, readonly reason: 'BadRequest' | 'Invalid') {
    super(message);
    this.name = 'PatchError';
  }
}

/** A JSON object (not null, not an array). */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own-property lookup that is safe for keys such as `__proto__`. */
export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Sets an own data property, also for `__proto__` (never touches the prototype). */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** Structural equality of two JSON values (object key order is irrelevant). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Deep copy of a JSON value (`undefined` stays `undefined`). */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}

/** Compact rendering of a value for error messages. */
export function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
