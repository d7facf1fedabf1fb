/**
 * Emits the structure model the merge code needs (SPEC 4.5; FACTS 6.4, 8): for
 * every schema, what each field is — struct, list (atomic / set / map with
 * keys), map (atomic / granular) or scalar — with the strategic-merge patch
 * strategy and merge key. Server-side apply, strategic merge and managed-field
 * tracking are driven by this data, never by per-kind code.
 */
import { refName, type Schema } from './contract.ts';
import { structureOf, type StructureNode, type StructureRef } from '../src/registry/structure.ts';

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
  const build = (schema: Schema): StructureNode => structureOf(schema, nodeFor);
  // Two passes: structs first so that field-level atomic narrowing can copy them.
  for (const [name, schema] of Object.entries(schemas)) out[name] = build(schema);
  for (const [name, schema] of Object.entries(schemas)) out[name] = build(schema);
  return out;
}
