/**
 * Emits the structure model the merge code needs (SPEC 4.5; FACTS 6.4, 8): for
 * every schema, what each field is — struct, list (atomic / set / map with
 * keys), map (atomic / granular) or scalar — with the strategic-merge patch
 * strategy and merge key. Server-side apply, strategic merge and managed-field
 * tracking are driven by this data, never by per-kind code.
 */
import { refName, type Schema } from './contract.ts';
import type { StructureNode, StructureRef } from '../src/registry/structure.ts';

export type { StructureNode, StructureRef };

/** Builds the model for every named schema. */
export function emitStructure(schemas: Record<string, Schema>): Record<string, StructureNode> {
  const out: Record<string, StructureNode> = {};
  const nodeFor = (schema: Schema, field?: Schema): StructureRef => {
    const ref = refName(schema);
    if (ref) {
      // A field can narrow a referenced struct to atomic (x-kubernetes-map-type on the property).
      const fieldMapType = field?.['x-kubernetes-map-type'];
      if (fieldMapType === 'atomic' && out[ref]?.kind === 'struct') return { ...(out[ref] as any), mapType: 'atomic' };
      return ref;
    }
    return build(schema);
  };
  const build = (schema: Schema): StructureNode => {
    if (schema.type === 'array') {
      const listType = schema['x-kubernetes-list-type'] ?? (schema['x-kubernetes-patch-merge-key'] ? 'map' : 'atomic');
      const node: StructureNode = { kind: 'list', items: nodeFor(schema.items ?? {}), listType };
      const keys = schema['x-kubernetes-list-map-keys'] ?? (listType === 'map' && schema['x-kubernetes-patch-merge-key'] ? [schema['x-kubernetes-patch-merge-key']] : undefined);
      if (keys) node.mapKeys = keys;
      if (schema['x-kubernetes-patch-strategy']) node.patchStrategy = schema['x-kubernetes-patch-strategy'];
      if (schema['x-kubernetes-patch-merge-key']) node.patchMergeKey = schema['x-kubernetes-patch-merge-key'];
      return node;
    }
    if (schema.type === 'object' && schema.properties) {
      const fields: Record<string, StructureRef> = {};
      for (const [name, prop] of Object.entries<Schema>(schema.properties)) fields[name] = nodeFor(prop, prop);
      return { kind: 'struct', fields, mapType: schema['x-kubernetes-map-type'] === 'atomic' ? 'atomic' : 'granular' };
    }
    if (schema.type === 'object' && schema.additionalProperties) {
      return { kind: 'map', values: nodeFor(schema.additionalProperties), mapType: schema['x-kubernetes-map-type'] === 'atomic' ? 'atomic' : 'granular' };
    }
    if (schema.type === 'object') return { kind: 'any' };
    return { kind: 'scalar' };
  };
  // Two passes: structs first so that field-level atomic narrowing can copy them.
  for (const [name, schema] of Object.entries(schemas)) out[name] = build(schema);
  for (const [name, schema] of Object.entries(schemas)) out[name] = build(schema);
  return out;
}
