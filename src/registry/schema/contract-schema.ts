/**
 * A built-in kind's contract as the one validator reads it (issue 31 item 1):
 * codegen/validation.ts emits the schemas that hold a rule the decoders cannot
 * enforce, or lead to one; here they are linked into the node graph the value
 * validation and the list-type check walk for custom resources too
 * (value-validation.ts ValueNode), each node made once per process on first
 * use. Nodes that hold x-kubernetes-validations carry their subtree's schema,
 * compiled into a rule validator (cel-validate.ts) on first use.
 */
import { emptyExtensions, emptyValueValidation, newStructural, type NestedValueValidation, type ValueValidation } from './structural.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import type { ContractChild, ContractNode, ContractValidationTable } from './contract-table.ts';
import type { ValueNode } from './value-validation.ts';
import { isEmptyValueValidation } from './structural-validation.ts';
import { newRuleValidator, type RuleValidator } from './cel-validate.ts';

export type { ContractChild, ContractNode, ContractValidationTable } from './contract-table.ts';

/** A linked node: a value-validation node with what the expression rules need. */
export interface ContractGraphNode extends ValueNode {
  items?: ContractGraphNode;
  properties?: Record<string, ContractGraphNode>;
  additionalProperties?: { allows: boolean; schema?: ContractGraphNode };
  /** Rules at this node (its subtree's schema compiled on first use); the walk hands the subtree to them. */
  rules?: { schema: JSONSchemaProps; isResourceRoot: boolean; compiled?: RuleValidator | null };
  /** Whether this node or one below it has rules. */
  rulesBelow: boolean;
}

function valueValidation(c: ContractNode): ValueValidation {
  const vv: ValueValidation = emptyValueValidation();
  if (c.format) vv.format = c.format;
  if (c.pattern) vv.pattern = c.pattern;
  if (c.exclusiveMaximum) vv.exclusiveMaximum = true;
  if (c.exclusiveMinimum) vv.exclusiveMinimum = true;
  if (c.uniqueItems) vv.uniqueItems = true;
  for (const key of ['maximum', 'minimum', 'maxLength', 'minLength', 'maxItems', 'minItems', 'multipleOf', 'maxProperties', 'minProperties'] as const) {
    if (c[key] !== undefined) vv[key] = c[key];
  }
  if (c.enum) vv.enum = c.enum;
  if (c.required) vv.required = c.required;
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) if (c[key]) vv[key] = c[key]!.map(nestedOf);
  if (c.not) vv.not = nestedOf(c.not);
  return vv;
}

/** A junctor's alternative as upstream's NestedValueValidation (its type checked, its structure walked). */
function nestedOf(c: ContractNode): NestedValueValidation {
  const n: NestedValueValidation = {
    valueValidation: valueValidation(c),
    xValidations: [],
    forbiddenGenerics: { type: c.type ?? '', description: '', title: '', nullable: false },
    forbiddenExtensions: emptyExtensions(),
  };
  if (c.items && typeof c.items !== 'string') n.items = nestedOf(c.items);
  if (c.properties) n.properties = Object.fromEntries(Object.entries(c.properties).flatMap(([k, v]) => (typeof v === 'string' ? [] : [[k, nestedOf(v)]])));
  return n;
}

/** The table linked into nodes, each named schema once. */
export class ContractSchemas {
  private readonly named = new Map<string, ContractGraphNode>();

  constructor(private readonly table: ContractValidationTable) {}

  /** The node of a named schema; undefined when the schema holds no rule the validator enforces. */
  node(name: string): ContractGraphNode | undefined {
    const existing = this.named.get(name);
    if (existing) return existing;
    const data = this.table.schemas[name];
    if (!data) return undefined;
    // Registered before its children are linked: the schema graph has cycles (JSONSchemaProps).
    const node = {} as ContractGraphNode;
    this.named.set(name, node);
    this.fill(node, data);
    return node;
  }

  private child(c: ContractChild): ContractGraphNode {
    if (typeof c === 'string') {
      const node = this.node(c);
      if (!node) throw new Error(`contract validation table: no schema ${c}`);
      return node;
    }
    const node = {} as ContractGraphNode;
    this.fill(node, c);
    return node;
  }

  private fill(node: ContractGraphNode, c: ContractNode): void {
    // Types are the decoders' to check (a mismatch never reaches validation); the validator checks the rest.
    node.type = [];
    node.nullable = false;
    node.vv = valueValidation(c);
    node.rulesBelow = false;
    node.valuesBelow = false;
    node.listsBelow = false;
    if (c.listType) node.listType = c.listType;
    if (c.listMapKeys) node.listMapKeys = c.listMapKeys;
    if (c.duplicatesTolerated) node.duplicatesTolerated = true;
    if (c.properties) node.properties = Object.fromEntries(Object.entries(c.properties).map(([k, v]) => [k, this.child(v)]));
    if (c.items !== undefined) node.items = this.child(c.items);
    if (c.additionalProperties !== undefined) node.additionalProperties = { allows: true, schema: this.child(c.additionalProperties) };
    if (c.rules && c.ruleSchema) node.rules = { schema: c.ruleSchema, isResourceRoot: c.resourceRoot === true };
  }

  /**
   * Marks what each node reachable from `root` holds at or below it: value
   * validations, set and map lists to check, rules; each walk then skips the
   * subtrees that hold none of its own. A cycle contributes what its other
   * paths do.
   */
  markBelow(root: ContractGraphNode): void {
    const state = new Map<ContractGraphNode, boolean>();
    const visit = (n: ContractGraphNode): void => {
      if (state.has(n)) return;
      state.set(n, true);
      n.valuesBelow = !isEmptyValueValidation(n.vv);
      n.listsBelow = n.listType !== undefined && !n.duplicatesTolerated;
      n.rulesBelow = n.rules !== undefined;
      for (const c of childrenOf(n)) {
        visit(c);
        if (c.valuesBelow) n.valuesBelow = true;
        if (c.listsBelow) n.listsBelow = true;
        if (c.rulesBelow) n.rulesBelow = true;
      }
    };
    visit(root);
  }
}

export function childrenOf(n: ContractGraphNode): ContractGraphNode[] {
  const out = Object.values(n.properties ?? {});
  if (n.items) out.push(n.items);
  if (n.additionalProperties?.schema) out.push(n.additionalProperties.schema);
  return out;
}

/** The node's rule validator, compiled on first use (undefined when its schema has no rules after all). */
export function ruleValidatorOf(node: ContractGraphNode): RuleValidator | undefined {
  const rules = node.rules;
  if (!rules) return undefined;
  if (rules.compiled === undefined) rules.compiled = newRuleValidator(newStructural(rules.schema), rules.isResourceRoot) ?? null;
  return rules.compiled ?? undefined;
}
