/**
 * Decoding a custom object (SPEC 2.1, 4.9; upstream apiextensions-apiserver
 * pkg/apiserver/schema/pruning and defaulting): the body is any JSON object;
 * fields its structural schema does not name are dropped and reported (unless
 * `x-kubernetes-preserve-unknown-fields`), and schema defaults fill absent
 * fields and nulls of non-nullable ones. `metadata` decodes as every kind's
 * ObjectMeta; an `x-kubernetes-embedded-resource` keeps its apiVersion, kind
 * and metadata. Types and value rules are checked later, by validation, where
 * upstream checks them (422, not a decode error).
 */
import type { DecodeContext, Decoder } from '../kind.ts';
import type { SchemaNode } from '../structure.ts';

const TYPE_META = new Set(['apiVersion', 'kind']);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Defined as data, never assigned: a `__proto__` key stays a key. */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
}

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** A decoder for objects of one served version, from its openAPIV3Schema. */
export function customObjectDecoder(schema: SchemaNode, decodeObjectMeta: Decoder): Decoder {
  return (value, path, context) => {
    if (!isObject(value)) return context.fail(path, value, 'Object', 'map[string]interface {}');
    const out: Record<string, unknown> = {};
    // Upstream reports pruned paths sorted (pruning.PruneWithOptions).
    const unknown: string[] = [];
    const pruning = { ...context, unknown: (field: string) => void unknown.push(field) };
    for (const key of Object.keys(value)) {
      const v = value[key];
      if (TYPE_META.has(key)) setOwn(out, key, v);
      else if (key === 'metadata') setOwn(out, key, v === null ? {} : decodeObjectMeta(v, 'metadata', context, 'Object'));
      else if (schema.properties?.[key] || schema['x-kubernetes-preserve-unknown-fields']) setOwn(out, key, v);
      else unknown.push(key);
    }
    const pruned = pruneFields(out, schema, path, pruning, new Set([...TYPE_META, 'metadata']));
    for (const field of unknown.sort()) context.unknown(field);
    return context.defaults === false ? pruned : applyDefaults(pruned, schema);
  };
}

/** Prunes `value` by `schema` iteratively (a body is at most 10,000 levels deep, but never walked recursively). */
function pruneFields(root: Record<string, unknown>, rootSchema: SchemaNode, rootPath: string, context: DecodeContext, keepAtRoot: Set<string>): Record<string, unknown> {
  const stack: Array<{ value: unknown; schema: SchemaNode | undefined; path: string; keep?: Set<string> }> = [{ value: root, schema: rootSchema, path: rootPath, keep: keepAtRoot }];
  while (stack.length) {
    const { value, schema, path, keep } = stack.pop()!;
    if (!schema) continue;
    if (Array.isArray(value)) {
      if (schema.items) value.forEach((item, i) => stack.push({ value: item, schema: schema.items, path: `${path}[${i}]` }));
      continue;
    }
    if (!isObject(value)) continue;
    const embedded = schema['x-kubernetes-embedded-resource'] === true;
    const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
    const additional = schema.additionalProperties;
    for (const key of Object.keys(value)) {
      if (keep?.has(key)) continue;
      if (embedded && (TYPE_META.has(key) || key === 'metadata')) continue;
      const property = schema.properties?.[key] as SchemaNode | undefined;
      if (property) stack.push({ value: value[key], schema: property, path: child(path, key) });
      else if (isObject(additional)) stack.push({ value: value[key], schema: additional, path: child(path, key) });
      else if (!preserve && additional !== true) {
        delete value[key];
        context.unknown(child(path, key));
      }
    }
  }
  return root;
}

/** Fills defaults top-down, so a defaulted object gets its own fields' defaults (upstream's algorithm). */
function applyDefaults(root: Record<string, unknown>, rootSchema: SchemaNode): Record<string, unknown> {
  const stack: Array<{ value: unknown; schema: SchemaNode | undefined }> = [{ value: root, schema: rootSchema }];
  while (stack.length) {
    const { value, schema } = stack.pop()!;
    if (!schema) continue;
    if (Array.isArray(value)) {
      if (schema.items) for (const item of value) stack.push({ value: item, schema: schema.items });
      continue;
    }
    if (!isObject(value)) continue;
    for (const [key, property] of Object.entries<SchemaNode>(schema.properties ?? {})) {
      if (property.default !== undefined && (!(key in value) || (value[key] === null && !property.nullable))) setOwn(value, key, structuredClone(property.default));
      if (key in value) stack.push({ value: value[key], schema: property });
    }
    if (isObject(schema.additionalProperties)) for (const key of Object.keys(value)) stack.push({ value: value[key], schema: schema.additionalProperties });
  }
  return root;
}
