/**
 * Schema defaults (SPEC 2.1; upstream apiextensions-apiserver
 * pkg/apiserver/schema/defaulting/algorithm.go): top-down, a property with a
 * default is set when absent, or when null and not nullable; then its own
 * properties, additionalProperties and items are defaulted in turn. Values
 * are copies, so objects never share a default.
 */
import type { Structural } from './structural.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Defined as data, never assigned: a `__proto__` key stays a key. */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Upstream structuraldefaulting.Default, in place. The walk follows the schema, so its depth is the schema's. */
export function applyDefaults(x: unknown, s: Structural | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (const item of x) applyDefaults(item, s.items);
    return;
  }
  if (!isObject(x)) return;
  for (const [key, property] of Object.entries(s.properties ?? {})) {
    if (property.default === undefined) continue;
    if (!Object.hasOwn(x, key) || (x[key] === null && !property.nullable)) setOwn(x, key, structuredClone(property.default));
  }
  for (const key of Object.keys(x)) {
    const property = s.properties?.[key] ?? s.additionalProperties?.structural;
    applyDefaults(x[key], property);
  }
}
