/**
 * The structure model codegen derives from the contract for every schema
 * (src/generated/structure.ts): what each field is for merging, apply and
 * managed fields (SPEC 4.5; FACTS 6.4, 8).
 */
export type StructureNode =
  | { kind: 'scalar' }
  | { kind: 'struct'; fields: Record<string, StructureRef>; mapType: 'granular' | 'atomic' }
  | { kind: 'map'; values: StructureRef; mapType: 'granular' | 'atomic' }
  | { kind: 'list'; items: StructureRef; listType: 'atomic' | 'set' | 'map'; mapKeys?: string[]; patchStrategy?: string; patchMergeKey?: string }
  | { kind: 'any' };

/** A named schema, or an inline node. */
export type StructureRef = string | StructureNode;
