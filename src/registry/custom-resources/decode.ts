/**
 * Decoding a custom object (SPEC 2.1, 4.9; upstream apiextensions-apiserver
 * customresource_handler.go unstructuredSchemaCoercer): the body is any JSON
 * object; `metadata` decodes as every kind's ObjectMeta; fields the version's
 * structural schema does not name are pruned and reported, sorted (unless
 * `x-kubernetes-preserve-unknown-fields`; an embedded resource keeps its
 * apiVersion, kind and metadata); then schema defaults apply. Types and value
 * rules are validation's (422), as upstream checks them after decoding.
 */
import type { Decoder } from '../kind.ts';
import { applyDefaults } from '../schema/defaults.ts';
import { prune } from '../schema/prune.ts';
import type { Structural } from '../schema/structural.ts';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Defined as data, never assigned: a `__proto__` key stays a key. */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
}

/** A decoder for objects of one served version, from its structural schema. */
export function customObjectDecoder(schema: Structural, decodeObjectMeta: Decoder): Decoder {
  return (value, path, context) => {
    if (!isObject(value)) return context.fail(path, value, 'Object', 'map[string]interface {}');
    // A copy: pruning and defaulting work in place, and the caller's value (a stored object being canonicalized) stays as it was.
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const v = value[key];
      setOwn(out, key, key === 'metadata' ? (v === null ? {} : decodeObjectMeta(v, 'metadata', context, 'Object')) : structuredClone(v));
    }
    for (const field of prune(out, schema, true)) context.unknown(field);
    if (context.defaults !== false) applyDefaults(out, schema);
    return out;
  };
}
