/**
 * The one serialisation of the contract's JSON: 2-space indent, object keys
 * sorted by code unit, arrays in their order, a final newline. The vendored
 * upstream input is written this way (byte-for-byte reproducible), and the
 * merged contract is put in this key order before codegen reads it, so that
 * nothing downstream depends on the order in which overlays or upstream
 * documents happened to list keys.
 */

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A deep copy with every object's keys in sorted order. */
export function sortedDeep<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortedDeep) as T;
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedDeep(value[key]);
  return out as T;
}

/**
 * Deterministic text of a JSON value (see the module comment). Written by hand rather than with
 * JSON.stringify: that would put integer-like keys ("10", "9") first, whatever order they were added in.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const write = (v: unknown, indent: string): void => {
    const entries: Array<[string | undefined, unknown]> | undefined = Array.isArray(v)
      ? v.map((item) => [undefined, item])
      : isObject(v)
        ? Object.keys(v).sort().map((k) => [k, v[k]])
        : undefined;
    if (!entries) return void out.push(JSON.stringify(v));
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return void out.push(open + close);
    const inner = indent + '  ';
    out.push(open + '\n');
    entries.forEach(([key, item], i) => {
      out.push(inner + (key === undefined ? '' : JSON.stringify(key) + ': '));
      write(item, inner);
      out.push(i < entries.length - 1 ? ',\n' : '\n');
    });
    out.push(indent + close);
  };
  write(value, '');
  return out.join('') + '\n';
}
