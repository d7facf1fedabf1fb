/**
 * The table of a contract's rules that codegen emits (codegen/validation.ts;
 * src/generated/validation.ts) and the validator reads
 * (contract-schema.ts): data types only, so that the kind registry can name
 * the table without reaching the expression language.
 */
import type { JSONSchemaProps, ValidationRule } from './json-schema-props.ts';

/** One emitted node: its own rules, and the children that hold or lead to rules (by schema name, or inline). */
export interface ContractNode {
  /** The node's JSON type, where its rules name it in their errors (upstream's `sts.Type`). */
  type?: string;
  required?: string[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: ContractNode[];
  anyOf?: ContractNode[];
  oneOf?: ContractNode[];
  not?: ContractNode;
  /** A set or map list whose uniqueness the validator checks. */
  listType?: 'set' | 'map';
  listMapKeys?: string[];
  /** A set or map list whose duplicates upstream accepts: its type only correlates old items. */
  duplicatesTolerated?: boolean;
  rules?: ValidationRule[];
  /** The node's subtree with references resolved: the rules' types (codegen/validation-rules.ts). */
  ruleSchema?: JSONSchemaProps;
  /** The node is a kind's root: its rules see apiVersion, kind and metadata.name/generateName, as a custom resource's root. */
  resourceRoot?: boolean;
  properties?: Record<string, ContractChild>;
  items?: ContractChild;
  additionalProperties?: ContractChild;
}

export type ContractChild = string | ContractNode;

/** What codegen emits: the named schemas with rules or on the way to one. */
export interface ContractValidationTable {
  schemas: Record<string, ContractNode>;
}

