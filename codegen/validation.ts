/**
 * The contract's rules as the server enforces them (issue 31 item 1; DESIGN
 * "one validator for built-in and custom kinds"): every keyword of every
 * schema is classified by who enforces or uses it, and generation fails on a
 * keyword the server does not know; the rules the decoders cannot enforce
 * (value validations, set and map list uniqueness, x-kubernetes-validations)
 * are emitted as a table of the schemas that hold them, or lead to one, for
 * the runtime validator (src/registry/schema/contract-schema.ts).
 */
import { refName, type Schema } from './contract.ts';
import { isSupportedFormat } from '../src/registry/schema/formats.ts';
import type { ContractNode, ContractChild, ContractValidationTable } from '../src/registry/schema/contract-table.ts';
import { isKindRoot, validateRuleSchema } from './validation-rules.ts';

/** Value validations (upstream kube-openapi's), enforced by the validator as for custom resources. */
const VALUE_KEYWORDS = ['required', 'enum', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties'] as const;
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * Every other keyword, and what makes it true (kept in one table so that a new
 * keyword is a decision, not an accident): the generated decoders check types,
 * formats they decode and defaults; apply, strategic merge and managed fields
 * read the list and map semantics; the registry and the protobuf codec read
 * the x-orch- extensions.
 */
const UNDERSTOOD: Record<string, string> = {
  type: 'decoders: Go decoding of the JSON type (400 on a mismatch)',
  properties: 'structure',
  items: 'structure',
  additionalProperties: 'structure',
  $ref: 'structure',
  description: 'documentation',
  title: 'documentation',
  default: 'decoders: the zero value Go decoding gives an absent field',
  nullable: 'decoders: null decodes as absent',
  format: 'decoders (int32, int64, double, float, byte, date-time, int-or-string) or the validator (formats.ts)',
  'x-kubernetes-group-version-kind': 'registry: the kind a schema is',
  'x-kubernetes-list-type': 'apply, strategic merge and managed fields; set and map uniqueness: the validator',
  'x-kubernetes-list-map-keys': 'apply, strategic merge and managed fields; map list uniqueness: the validator',
  'x-kubernetes-map-type': 'apply and managed fields',
  'x-kubernetes-patch-strategy': 'strategic merge patch',
  'x-kubernetes-patch-merge-key': 'strategic merge patch',
  'x-kubernetes-validations': 'the validator (the expression language, its cost budget, ratcheting)',
  'x-kubernetes-int-or-string': 'decoders: an int or a string',
  // Upstream's discriminated-union markers (KEP-1027) on built-in schemas: structured-merge-diff normalizes
  // nothing with them in 1.31 and kube-apiserver enforces them through each kind's validation, in its words;
  // so do the kinds' hooks here (e.g. flowcontrol Subject, PriorityLevelConfiguration, seccomp profiles).
  'x-kubernetes-unions': 'documentation; each union is its kind\'s validation (upstream\'s words)',
  'x-orch-resource': 'registry, discovery, Table',
  'x-orch-default': 'decoders: the server-side default',
  'x-orch-protobuf-message': 'protobuf codec',
  'x-orch-protobuf-field': 'protobuf codec',
  'x-orch-protobuf-inline': 'protobuf codec',
  'x-orch-list-duplicates': 'the validator: a set or map list whose duplicates upstream accepts (merge semantics only)',
};

/** Formats the generated decoders check (codegen/decoders.ts primitive). */
const DECODER_FORMATS = new Set(['int32', 'int64', 'double', 'float', 'byte', 'date-time', 'int-or-string']);

export class ContractRuleError extends Error {}

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A junctor list that only names alternative JSON types the decoder already tells apart (IntOrString). */
function decoderTypeUnion(node: Schema, key: string): boolean {
  const list = node[key];
  if (!Array.isArray(list) || !list.every((x) => isObject(x) && Object.keys(x).length === 1 && typeof x.type === 'string')) return false;
  const types = list.map((x) => x.type).sort().join(',');
  return types === 'integer,string' && (node.format === 'int-or-string' || node['x-kubernetes-int-or-string'] === true);
}

interface Emitter {
  schemas: Record<string, Schema>;
  /** Named schemas whose own tree holds a rule, or that refer to one that does (computed to a fixpoint). */
  relevant: Set<string>;
}

/** Throws unless every keyword of `node` (not descending into named schemas) is one the server enforces or understands. */
function checkKeywords(node: Schema, where: string): void {
  for (const key of Object.keys(node)) {
    if ((VALUE_KEYWORDS as readonly string[]).includes(key) || (JUNCTORS as readonly string[]).includes(key) || key === 'not') continue;
    if (!(key in UNDERSTOOD)) throw new ContractRuleError(`${where}: the contract holds ${JSON.stringify(key)}, which the server neither enforces nor understands`);
  }
  if (typeof node.format === 'string' && node.format !== '' && !DECODER_FORMATS.has(node.format) && !isSupportedFormat(node.format)) {
    throw new ContractRuleError(`${where}: format ${JSON.stringify(node.format)} is not one the server checks`);
  }
  const listType = node['x-kubernetes-list-type'];
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) throw new ContractRuleError(`${where}: x-kubernetes-list-type ${JSON.stringify(listType)}`);
  if (listType === 'map' && !(Array.isArray(node['x-kubernetes-list-map-keys']) && node['x-kubernetes-list-map-keys'].length > 0)) {
    throw new ContractRuleError(`${where}: a list-type map needs x-kubernetes-list-map-keys`);
  }
  if (node['x-orch-list-duplicates'] !== undefined && (node['x-orch-list-duplicates'] !== 'tolerated' || (listType !== 'set' && listType !== 'map'))) {
    throw new ContractRuleError(`${where}: x-orch-list-duplicates is "tolerated", on a set or map list`);
  }
  const ref = refName(node);
  if (ref) {
    for (const key of [...VALUE_KEYWORDS, 'x-kubernetes-validations', 'not', 'anyOf', 'oneOf'] as const) {
      if (node[key] !== undefined) throw new ContractRuleError(`${where}: ${key} beside a reference to ${ref}: put the rule on ${ref}`);
    }
  }
}

/** The rules `node` itself holds for the validator (not its children's), or undefined. */
function ownRules(node: Schema, where: string): ContractNode | undefined {
  const out: ContractNode = {};
  for (const key of VALUE_KEYWORDS) if (node[key] !== undefined) (out as any)[key] = structuredClone(node[key]);
  // A required property with a default is never absent to Go: decoding gives it its zero value (upstream's
  // `required` on a built-in schema marks a field without omitempty). Only one without a default can be missing.
  if (out.required) {
    const properties: Record<string, Schema> = isObject(node.properties) ? node.properties : {};
    const missable = out.required.filter((p) => properties[p]?.default === undefined && properties[p]?.['x-orch-default'] === undefined);
    if (missable.length > 0) out.required = missable;
    else delete out.required;
  }
  if (typeof node.format === 'string' && node.format !== '' && !DECODER_FORMATS.has(node.format)) out.format = node.format;
  if (node['x-orch-list-duplicates'] !== 'tolerated') Object.assign(out, listShape(node));
  for (const key of JUNCTORS) {
    if (!Array.isArray(node[key]) || (key === 'allOf' && refName(node)) || decoderTypeUnion(node, key)) continue;
    out[key] = node[key].map((alternative: Schema, i: number) => nested(alternative, `${where}.${key}[${i}]`));
  }
  if (isObject(node.not)) out.not = nested(node.not, `${where}.not`);
  if (Array.isArray(node['x-kubernetes-validations']) && node['x-kubernetes-validations'].length > 0) out.rules = structuredClone(node['x-kubernetes-validations']);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A set or map list's type and keys: its uniqueness, and how old items correlate with new ones on an update. */
function listShape(node: Schema): Pick<ContractNode, 'listType' | 'listMapKeys'> {
  const listType = node['x-kubernetes-list-type'];
  if (listType === 'set') return { listType };
  if (listType === 'map') return { listType, listMapKeys: [...node['x-kubernetes-list-map-keys']] };
  return {};
}

/** A junctor's alternative: value validations and their structure only, as upstream's NestedValueValidation. */
function nested(node: Schema, where: string): ContractNode {
  if (!isObject(node)) throw new ContractRuleError(`${where}: not a schema`);
  checkKeywords(node, where);
  if (refName(node)) throw new ContractRuleError(`${where}: a reference inside a junctor`);
  const out: ContractNode = ownRules(node, where) ?? {};
  if (typeof node.type === 'string') out.type = node.type;
  if (isObject(node.properties)) out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, nested(v, `${where}.${k}`)]));
  if (isObject(node.items)) out.items = nested(node.items, `${where}.items`);
  return out;
}

/** Every schema node of a named schema's own tree (not into other named schemas), with where it is. */
function* ownNodes(node: Schema, where: string): Iterable<[Schema, string]> {
  if (!isObject(node)) return;
  yield [node, where];
  if (refName(node)) return;
  for (const [k, v] of Object.entries<Schema>(node.properties ?? {})) yield* ownNodes(v, `${where}.${k}`);
  if (isObject(node.items)) yield* ownNodes(node.items, `${where}[]`);
  if (isObject(node.additionalProperties)) yield* ownNodes(node.additionalProperties, `${where}{}`);
}

/** The named schemas a schema's own tree refers to. */
function referencesOf(schema: Schema): string[] {
  const out: string[] = [];
  for (const [node] of ownNodes(schema, '')) {
    const ref = refName(node);
    if (ref) out.push(ref);
  }
  return out;
}

/** The child of a node in the table: a relevant named schema by name, an inline node with rules, or nothing. */
function childOf(node: Schema, where: string, emitter: Emitter): ContractChild | undefined {
  const ref = refName(node);
  if (ref) return emitter.relevant.has(ref) ? ref : undefined;
  return inline(node, where, emitter);
}

function inline(node: Schema, where: string, emitter: Emitter): ContractNode | undefined {
  const out: ContractNode = ownRules(node, where) ?? {};
  const properties: Record<string, ContractChild> = {};
  for (const [k, v] of Object.entries<Schema>(node.properties ?? {})) {
    const c = childOf(v, `${where}.${k}`, emitter);
    if (c !== undefined) properties[k] = c;
  }
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (isObject(node.items)) {
    const c = childOf(node.items, `${where}[]`, emitter);
    if (c !== undefined) out.items = c;
  }
  if (isObject(node.additionalProperties)) {
    const c = childOf(node.additionalProperties, `${where}{}`, emitter);
    if (c !== undefined) out.additionalProperties = c;
  }
  // A list whose duplicates are tolerated still correlates its items by key when it leads to a rule.
  if (Object.keys(out).length > 0 && out.listType === undefined && node['x-orch-list-duplicates'] === 'tolerated') Object.assign(out, listShape(node), { duplicatesTolerated: true });
  if (out.rules) {
    out.type = typeof node.type === 'string' ? node.type : '';
    out.ruleSchema = validateRuleSchema(node, where, emitter.schemas);
    if (isKindRoot(node)) out.resourceRoot = true;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Checks every keyword of every schema and returns the table of the schemas
 * that hold a rule for the validator or lead to one. Throws ContractRuleError.
 */
export function emitValidation(schemas: Record<string, Schema>): ContractValidationTable {
  const direct = new Set<string>();
  for (const [name, schema] of Object.entries(schemas)) {
    for (const [node, where] of ownNodes(schema, name)) {
      checkKeywords(node, where);
      if (ownRules(node, where)) direct.add(name);
    }
  }
  // A schema leads to a rule when one it refers to does: propagate to a fixpoint (the graph has cycles: JSONSchemaProps).
  const relevant = new Set(direct);
  const referrers = new Map<string, string[]>();
  for (const [name, schema] of Object.entries(schemas)) {
    for (const ref of referencesOf(schema)) {
      if (!schemas[ref]) throw new ContractRuleError(`${name}: unresolved reference ${ref}`);
      referrers.set(ref, [...(referrers.get(ref) ?? []), name]);
    }
  }
  const pending = [...relevant];
  while (pending.length) {
    for (const referrer of referrers.get(pending.pop()!) ?? []) {
      if (!relevant.has(referrer)) {
        relevant.add(referrer);
        pending.push(referrer);
      }
    }
  }
  const emitter: Emitter = { schemas, relevant };
  const table: ContractValidationTable = { schemas: {} };
  for (const name of [...relevant].sort()) table.schemas[name] = inline(schemas[name], name, emitter) ?? {};
  return table;
}
