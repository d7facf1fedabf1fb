/**
 * The structure model of a schema: what each field is for merging, apply and
 * managed fields (SPEC 4.5; FACTS 6.4, 8). One model, two ways to get it:
 * codegen derives it from the contract for every built-in schema
 * (src/generated/structure.ts), and a CustomResourceDefinition's schema gives
 * it at run time, both through `structureOf`.
 */
export type StructureNode =
  | { kind: 'scalar' }
  | { kind: 'struct'; fields: Record<string, StructureRef>; mapType: 'granular' | 'atomic' }
  | { kind: 'map'; values: StructureRef; mapType: 'granular' | 'atomic' }
  | { kind: 'list'; items: StructureRef; listType: 'atomic' | 'set' | 'map'; mapKeys?: string[]; patchStrategy?: string; patchMergeKey?: string }
  | { kind: 'any' };

/** A named schema, or an inline node. */
export type StructureRef = string | StructureNode;

/** An OpenAPI v3 schema node, as the contract and a CRD's openAPIV3Schema spell it. */
export type SchemaNode = Record<string, any>;

/**
 * The structure of a schema node. `nodeFor` resolves a property or item
 * schema (a `$ref` to a named schema in the contract); without it, nodes are
 * built inline, as a CRD's schema has no references.
 */
export function structureOf(schema: SchemaNode, nodeFor: (schema: SchemaNode, field?: SchemaNode) => StructureRef = (s) => structureOf(s)): StructureNode {
  if (schema.type === 'array') {
    const listType = schema['x-kubernetes-list-type'] ?? (schema['x-kubernetes-patch-merge-key'] ? 'map' : 'atomic');
    const node: StructureNode = { kind: 'list', items: nodeFor(schema.items ?? {}), listType };
    const keys = schema['x-kubernetes-list-map-keys'] ?? (listType === 'map' && schema['x-kubernetes-patch-merge-key'] ? [schema['x-kubernetes-patch-merge-key']] : undefined);
    if (keys) node.mapKeys = keys;
    if (schema['x-kubernetes-patch-strategy']) node.patchStrategy = schema['x-kubernetes-patch-strategy'];
    if (schema['x-kubernetes-patch-merge-key']) node.patchMergeKey = schema['x-kubernetes-patch-merge-key'];
    return node;
  }
  const mapType = schema['x-kubernetes-map-type'] === 'atomic' ? 'atomic' : 'granular';
  if (schema.type === 'object' && schema.properties) {
    const fields: Record<string, StructureRef> = {};
    for (const [name, prop] of Object.entries<SchemaNode>(schema.properties)) fields[name] = nodeFor(prop, prop);
    return { kind: 'struct', fields, mapType };
  }
  // A CRD's additionalProperties may be `true` (any value) as well as a schema.
  if (schema.type === 'object' && schema.additionalProperties) {
    const values = typeof schema.additionalProperties === 'object' ? nodeFor(schema.additionalProperties) : { kind: 'any' as const };
    return { kind: 'map', values, mapType };
  }
  if (schema.type === 'object' || schema['x-kubernetes-preserve-unknown-fields']) return { kind: 'any' };
  return { kind: 'scalar' };
}
