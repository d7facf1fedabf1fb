/**
 * Validation of a JSON value against a structural schema's value validations
 * (SPEC 9.7; upstream kube-openapi pkg/validation/validate, the SchemaValidator
 * apiextensions-apiserver runs, and pkg/apiserver/validation/validation.go
 * `ValidateCustomResource`, which turns its results into field errors). The
 * messages are kube-openapi's (`spec.replicas in body must be of type
 * integer: "string"`); the error fields are upstream's.
 */
import { child, invalid, notSupported, required, tooLong, tooMany, typeInvalid, type FieldError } from '../validation/field-errors.ts';
import { goQuote } from '../../util/go-print.ts';
import { compileRe2 } from '../../cel/regex.ts';
import { matchesFormat, isSupportedFormat } from './formats.ts';
import type { NestedValueValidation, Structural, ValueValidation } from './structural.ts';
import { Correlation } from './correlation.ts';

/**
 * The parts of a schema node the validator reads: a custom resource's
 * Structural or nested value validation, or a built-in kind's contract node
 * (contract-schema.ts). The graph may be cyclic: validation follows the
 * value, which is finite. An empty `type` checks no type (a built-in kind's
 * decoder has checked them all).
 */
export interface ValueNode {
  type: string[];
  nullable: boolean;
  vv: ValueValidation;
  items?: ValueNode;
  properties?: Record<string, ValueNode>;
  additionalProperties?: { allows: boolean; schema?: ValueNode };
  /** How the node's list items correlate with old ones on an update (correlation.ts). */
  listType?: string;
  listMapKeys?: readonly string[];
  /** The list's type only correlates items: upstream accepts its duplicates (list-sets-and-maps.ts skips it). */
  duplicatesTolerated?: boolean;
  /** false: no value validation at or below the node, which the value validation then skips (undefined: walked). */
  valuesBelow?: boolean;
  /** false: no set or map list to check at or below the node (undefined: walked). */
  listsBelow?: boolean;
}
type Node = ValueNode;

/** Upstream ConvertJSONSchemaPropsWithPostProcess: an int-or-string node is of type integer or string. */
function typesOf(s: Structural): string[] {
  if (s.extensions.xIntOrString) return ['integer', 'string'];
  return s.type ? [s.type] : [];
}

/** Each schema's validator is built once, as upstream builds it with the kind, not per write. */
const validators = new WeakMap<Structural, Node>();

function fromStructural(s: Structural): Node {
  const n: Node = { type: typesOf(s), nullable: s.nullable, vv: s.valueValidation ?? { format: '', exclusiveMaximum: false, exclusiveMinimum: false, pattern: '', uniqueItems: false } };
  if (s.extensions.xListType !== undefined) n.listType = s.extensions.xListType;
  if (s.extensions.xListMapKeys !== undefined) n.listMapKeys = s.extensions.xListMapKeys;
  if (s.items) n.items = fromStructural(s.items);
  if (s.properties) n.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, fromStructural(v)]));
  if (s.additionalProperties) n.additionalProperties = { allows: s.additionalProperties.bool, schema: s.additionalProperties.structural && fromStructural(s.additionalProperties.structural) };
  return n;
}

function fromNested(v: NestedValueValidation): Node {
  const g = v.forbiddenGenerics;
  const n: Node = { type: g.type ? [g.type] : [], nullable: g.nullable, vv: v.valueValidation };
  if (v.items) n.items = fromNested(v.items);
  if (v.properties) n.properties = Object.fromEntries(Object.entries(v.properties).map(([k, x]) => [k, fromNested(x)]));
  if (v.additionalProperties) n.additionalProperties = { allows: true, schema: fromNested(v.additionalProperties) };
  return n;
}

/** One kube-openapi error, before conversion into a field error. */
type Code = 'type' | 'required' | 'enum' | 'tooLong' | 'maxItems' | 'maxProperties' | 'other' | 'composite';
interface OAError {
  code: Code;
  name: string;
  value?: unknown;
  valid?: number;
  values?: unknown[];
  message: string;
}

/** Go `%v` of a decoded JSON value. */
function goV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (typeof v === 'object') return `map[${Object.keys(v).sort().map((k) => `${k}:${goV((v as any)[k])}`).join(' ')}]`;
  return String(v);
}

function jsonType(v: unknown): string {
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as any)[k], (b as any)[k]));
}

const IN = 'body';
const typeError = (name: string, typeName: string, value: string): OAError => ({ code: 'type', name, value, message: `${name} in ${IN} must be of type ${typeName}: ${goQuote(value)}` });

/**
 * One node's violations and its children's, appended to `out` in
 * kube-openapi's order. With `corr` (an update), a node whose value equals its
 * old value drops them all (upstream ratchetingValueValidator: the errors
 * become warnings, which are not reported); its children are ratcheted on
 * their own correlated values. A child whose subtree holds no value
 * validation (`valuesBelow` false) is not visited.
 */
function validateNode(n: Node, data: unknown, path: string, corr: Correlation | undefined, out: OAError[]): void {
  const start = out.length;
  checkType(n, data, path, out);
  if (data === null || data === undefined) checkEnum(n, data, path, out);
  else {
    checkJunctors(n, data, path, out);
    const kind = jsonType(data);
    if (kind === 'string') {
      checkString(n.vv, data as string, path, out);
      if (isSupportedFormat(n.vv.format) && !matchesFormat(n.vv.format, data as string)) out.push(typeError(path, n.vv.format, data as string));
    } else if (kind === 'integer' || kind === 'number') checkNumber(n.vv, data as number, path, out);
    else if (kind === 'array') checkArray(n, data as unknown[], path, corr, out);
    checkEnum(n, data, path, out);
    if (kind === 'object') checkObject(n, data as Record<string, unknown>, path, corr, out);
  }
  if (out.length > start && corr?.unchanged()) out.length = start;
}

/** A node's violations alone, for a junctor's alternative. */
function violations(n: Node, data: unknown, path: string): OAError[] {
  const out: OAError[] = [];
  validateNode(n, data, path, undefined, out);
  return out;
}

const visited = (n: Node | undefined): n is Node => n !== undefined && n.valuesBelow !== false;

function checkType(n: Node, data: unknown, path: string, out: OAError[]): void {
  if (n.type.length === 0 && !n.vv.format) return;
  if (data === null || data === undefined) {
    if (n.type.length > 0 && !n.type.includes('null') && !n.nullable) out.push(typeError(path, n.type.join(','), 'null'));
    return;
  }
  const schType = jsonType(data);
  const format = schType === 'integer' ? 'int64' : schType === 'number' ? 'float64' : '';
  const isIntFloat = schType === 'integer' && n.type.includes('number');
  const scalar = schType !== 'string' && schType !== 'array';
  if (scalar && n.vv.format && !(n.type.includes(schType) || format === n.vv.format || isIntFloat)) return void out.push(typeError(path, n.vv.format, format));
  if (!(n.type.includes('number') || n.type.includes('integer')) && n.vv.format && !scalar) return;
  if (!(n.type.includes(schType) || isIntFloat)) out.push(typeError(path, n.type.join(','), schType));
}

function checkEnum(n: Node, data: unknown, path: string, out: OAError[]): void {
  const values = n.vv.enum;
  if (!values || values.length === 0) return;
  if (values.some((v) => deepEqual(v, data))) return;
  out.push({ code: 'enum', name: path, value: data, values, message: `${path} in ${IN} should be one of ${goV(values)}` });
}

function checkString(vv: ValueValidation, data: string, path: string, out: OAError[]): void {
  if (vv.maxLength !== undefined || vv.minLength !== undefined) {
    const runes = [...data].length;
    if (vv.maxLength !== undefined && runes > vv.maxLength) return void out.push({ code: 'tooLong', name: path, value: data, valid: vv.maxLength, message: `${path} in ${IN} should be at most ${vv.maxLength} chars long` });
    if (vv.minLength !== undefined && runes < vv.minLength) return void out.push({ code: 'other', name: path, value: data, message: `${path} in ${IN} should be at least ${vv.minLength} chars long` });
  }
  if (vv.pattern) {
    let re: RegExp | undefined;
    let why = '';
    try {
      re = compileRe2(vv.pattern);
    } catch (err) {
      why = (err as Error).message;
    }
    if (!re) return void out.push({ code: 'other', name: path, value: data, message: `${path} in ${IN} should match '${vv.pattern}, but pattern is invalid: ${why}'` });
    re.lastIndex = 0;
    if (!re.test(data)) out.push({ code: 'other', name: path, value: data, message: `${path} in ${IN} should match '${vv.pattern}'` });
  }
}

function checkNumber(vv: ValueValidation, data: number, path: string, out: OAError[]): void {
  if (vv.multipleOf !== undefined) {
    if (vv.multipleOf <= 0) out.push({ code: 'other', name: path, value: vv.multipleOf, message: `factor MultipleOf declared for ${path} must be positive: ${vv.multipleOf}` });
    else {
      const mult = vv.multipleOf < 1 ? (1 / vv.multipleOf) * data : data / vv.multipleOf;
      if (!Number.isInteger(mult)) out.push({ code: 'other', name: path, value: data, message: `${path} in ${IN} should be a multiple of ${vv.multipleOf}` });
    }
  }
  if (vv.minimum !== undefined && (vv.exclusiveMinimum ? data <= vv.minimum : data < vv.minimum)) {
    out.push({ code: 'other', name: path, value: data, message: `${path} in ${IN} should be greater than ${vv.exclusiveMinimum ? '' : 'or equal to '}${vv.minimum}` });
  }
  if (vv.maximum !== undefined && (vv.exclusiveMaximum ? data >= vv.maximum : data > vv.maximum)) {
    out.push({ code: 'other', name: path, value: data, message: `${path} in ${IN} should be less than ${vv.exclusiveMaximum ? '' : 'or equal to '}${vv.maximum}` });
  }
}

function checkArray(n: Node, data: unknown[], path: string, corr: Correlation | undefined, out: OAError[]): void {
  if (visited(n.items)) for (let i = 0; i < data.length; i++) validateNode(n.items, data[i], `${path}[${i}]`, corr?.index(i, n), out);
  const vv = n.vv;
  if (vv.minItems !== undefined && data.length < vv.minItems) out.push({ code: 'other', name: path, value: data.length, message: `${path} in ${IN} should have at least ${vv.minItems} items` });
  if (vv.maxItems !== undefined && data.length > vv.maxItems) out.push({ code: 'maxItems', name: path, value: data.length, valid: vv.maxItems, message: `${path} in ${IN} should have at most ${vv.maxItems} items` });
  if (vv.uniqueItems && data.some((v, i) => data.findIndex((u) => deepEqual(u, v)) < i)) out.push({ code: 'other', name: path, message: `${path} in ${IN} shouldn't contain duplicates` });
}

/** Each node's property names in sorted order (kube-openapi validates them so), computed once. */
const sortedProperties = new WeakMap<Node, string[]>();

function propertyNames(n: Node): string[] {
  let names = sortedProperties.get(n);
  if (!names) sortedProperties.set(n, (names = Object.keys(n.properties ?? {}).sort()));
  return names;
}

function checkObject(n: Node, data: Record<string, unknown>, path: string, corr: Correlation | undefined, out: OAError[]): void {
  const vv = n.vv;
  if (vv.minProperties !== undefined || vv.maxProperties !== undefined) {
    const size = Object.keys(data).length;
    if (vv.minProperties !== undefined && size < vv.minProperties) out.push({ code: 'other', name: path, value: size, message: `${path} in ${IN} should have at least ${vv.minProperties} properties` });
    if (vv.maxProperties !== undefined && size > vv.maxProperties) out.push({ code: 'maxProperties', name: path, value: size, valid: vv.maxProperties, message: `${path} in ${IN} should have at most ${vv.maxProperties} properties` });
  }
  const ap = n.additionalProperties;
  if (ap && !ap.allows) {
    for (const k of Object.keys(data).sort()) if (!n.properties?.[k]) out.push({ code: 'other', name: path, value: k, message: `${path}.${k} in ${IN} is a forbidden property` });
  } else if (visited(ap?.schema)) {
    for (const k of Object.keys(data).sort()) if (!n.properties?.[k]) validateNode(ap.schema, data[k], `${path}.${k}`, corr?.key(k), out);
  }
  if (n.properties) {
    for (const k of propertyNames(n)) {
      const sub = n.properties[k];
      if (!visited(sub) || !Object.hasOwn(data, k)) continue;
      // Upstream never ratchets apiVersion and kind at the root: both sides were converted to one version.
      const correlated = path === '' && (k === 'apiVersion' || k === 'kind') ? undefined : corr?.key(k);
      validateNode(sub, data[k], path ? `${path}.${k}` : k, correlated, out);
    }
  }
  for (const k of vv.required ?? []) if (!Object.hasOwn(data, k)) out.push({ code: 'required', name: `${path}.${k}`, message: `${path}.${k} in ${IN} is required` });
}

/** Each junctor alternative's node, built once. */
const nestedNodes = new WeakMap<NestedValueValidation, Node>();

function nestedNode(v: NestedValueValidation): Node {
  let node = nestedNodes.get(v);
  if (!node) nestedNodes.set(v, (node = fromNested(v)));
  return node;
}

function checkJunctors(n: Node, data: unknown, path: string, out: OAError[]): void {
  const vv = n.vv;
  if (!vv.anyOf?.length && !vv.oneOf?.length && !vv.allOf?.length && !vv.not) return;
  const composite = (message: string): OAError => ({ code: 'composite', name: path, message });
  if (vv.anyOf?.length) {
    const results = vv.anyOf.map((x) => violations(nestedNode(x), data, path));
    if (!results.some((r) => r.length === 0)) out.push(composite(`${goQuote(path)} must validate at least one schema (anyOf)`), ...results[0]);
  }
  if (vv.oneOf?.length) {
    const results = vv.oneOf.map((x) => violations(nestedNode(x), data, path));
    const valid = results.filter((r) => r.length === 0).length;
    if (valid !== 1) {
      out.push(composite(`${goQuote(path)} must validate one and only one schema (oneOf). ${valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`}`));
      if (valid === 0) out.push(...results[0]);
    }
  }
  if (vv.allOf?.length) {
    const results = vv.allOf.map((x) => violations(nestedNode(x), data, path));
    results.forEach((r) => out.push(...r));
    const valid = results.filter((r) => r.length === 0).length;
    if (valid !== results.length) out.push(composite(`${goQuote(path)} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`));
  }
  if (vv.not && violations(nestedNode(vv.not), data, path).length === 0) out.push(composite(`${goQuote(path)} must not validate the schema (not)`));
}

/** Upstream kubeOpenAPIResultToFieldErrors. */
function toFieldError(fldPath: string, e: OAError): FieldError {
  if (e.code === 'composite') return invalid(fldPath, '', e.message);
  const name = e.name.replace(/^\./, '');
  const errPath = e.name && e.name !== '.' ? child(fldPath, name) : fldPath;
  const value = e.value === undefined ? '' : e.value;
  switch (e.code) {
    case 'required':
      return required(errPath);
    case 'enum':
      return notSupported(errPath, e.value ?? null, (e.values ?? []).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))));
    case 'tooLong':
      return tooLong(errPath, value, e.valid ?? -1);
    case 'maxItems':
    case 'maxProperties':
      return tooMany(errPath, typeof e.value === 'number' ? e.value : -1, e.valid ?? -1);
    case 'type':
      return typeInvalid(errPath, value, e.message);
    default:
      return invalid(errPath, value, e.message);
  }
}

/**
 * Upstream ValidateCustomResource with a validator built from the structural
 * schema (Structural.ToKubeOpenAPI): the value's violations as field errors under `fldPath`.
 */
export function validateValue(fldPath: string, value: unknown, s: Structural): FieldError[] {
  return validateValueNode(fldPath, value, valueNodeOf(s));
}

/** The validator's node of a structural schema, built once per schema. */
export function valueNodeOf(s: Structural): ValueNode {
  let node = validators.get(s);
  if (!node) validators.set(s, (node = fromStructural(s)));
  return node;
}

/**
 * The violations of `value` against a node, as field errors under `fldPath`;
 * on an update (`old` given: upstream ValidateCustomResourceUpdate with
 * ratcheting) the unchanged parts of the value keep passing.
 */
export function validateValueNode(fldPath: string, value: unknown, node: ValueNode, old?: { value: unknown }): FieldError[] {
  if (node.valuesBelow === false) return [];
  const out: OAError[] = [];
  validateNode(node, value, '', old && new Correlation(value, old.value), out);
  return out.length === 0 ? [] : out.map((e) => toFieldError(fldPath, e));
}
