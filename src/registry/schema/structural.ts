/**
 * The structural schema model (SPEC 9.7; upstream apiextensions-apiserver
 * pkg/apiserver/schema/structural.go and convert.go): the one model of a
 * custom resource's schema. A structural schema says, for every node, its type
 * and which fields and items exist; value validations (enum, bounds, patterns,
 * and the logical junctors allOf/anyOf/oneOf/not) hang off it and may not add
 * structure of their own. Pruning, defaulting, value validation and the CEL
 * type mapping all read this model.
 *
 * `newStructural` converts a v1 JSONSchemaProps (decoded JSON) into it, failing
 * with upstream's messages on fields a structural schema cannot hold.
 */
import {
  additionalPropertiesOf,
  bool,
  dependenciesOf,
  itemsOf,
  num,
  optStr,
  schemaList,
  schemaMap,
  str,
  strList,
  validationRules,
  type JSONSchemaProps,
  type ValidationRule,
} from './json-schema-props.ts';

export type { ValidationRule } from './json-schema-props.ts';

/** Upstream Generic: the fields that may only appear in the structural part. */
export interface Generic {
  /** '' when unset; one of object, array, string, integer, number, boolean. */
  type: string;
  description: string;
  title: string;
  /** The default value; undefined when there is none (a JSON null default is none as well). */
  default?: unknown;
  nullable: boolean;
}

/** Upstream Extensions: the x-kubernetes-* vendor extensions bearing on structure. */
export interface Extensions {
  xPreserveUnknownFields: boolean;
  xEmbeddedResource: boolean;
  xIntOrString: boolean;
  xListMapKeys?: string[];
  xListType?: string;
  xMapType?: string;
}

/** Upstream ValueValidation: constraints on a value that add no structure. */
export interface ValueValidation {
  format: string;
  maximum?: number;
  exclusiveMaximum: boolean;
  minimum?: number;
  exclusiveMinimum: boolean;
  maxLength?: number;
  minLength?: number;
  pattern: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  allOf?: NestedValueValidation[];
  oneOf?: NestedValueValidation[];
  anyOf?: NestedValueValidation[];
  not?: NestedValueValidation;
}

/**
 * Upstream NestedValueValidation: a schema under a logical junctor. Its generic
 * fields and extensions are kept only to be rejected ("must be empty to be
 * structural").
 */
export interface NestedValueValidation {
  valueValidation: ValueValidation;
  xValidations: ValidationRule[];
  items?: NestedValueValidation;
  properties?: Record<string, NestedValueValidation>;
  additionalProperties?: NestedValueValidation;
  forbiddenGenerics: Generic;
  forbiddenExtensions: Extensions;
}

/** Upstream StructuralOrBool: `additionalProperties` as a schema or a plain boolean. */
export interface StructuralOrBool {
  structural?: Structural;
  bool: boolean;
}

/** Upstream Structural: one node of a structural schema. */
export interface Structural extends Generic {
  items?: Structural;
  /** undefined when the schema names no properties (Go: a nil map). */
  properties?: Record<string, Structural>;
  additionalProperties?: StructuralOrBool;
  extensions: Extensions;
  /** x-kubernetes-validations (CEL rules), kept as written. */
  xValidations: ValidationRule[];
  valueValidation?: ValueValidation;
}

/** A schema that cannot be represented structurally; the message is upstream's. */
export class StructuralSchemaError extends Error {}

/** Upstream validateUnsupportedFields. */
function checkUnsupported(s: JSONSchemaProps): void {
  if (str(s.id)) throw new StructuralSchemaError("OpenAPIV3Schema 'id' is not supported");
  if (str(s.$schema)) throw new StructuralSchemaError("OpenAPIV3Schema 'schema' is not supported");
  if (str(s.$ref)) throw new StructuralSchemaError("OpenAPIV3Schema '$ref' is not supported");
  if (schemaMap(s.patternProperties).length > 0) throw new StructuralSchemaError("OpenAPIV3Schema 'patternProperties' is not supported");
  if (Object.keys(dependenciesOf(s) ?? {}).length > 0) throw new StructuralSchemaError("OpenAPIV3Schema 'dependencies' is not supported");
  if (s.additionalItems !== undefined && s.additionalItems !== null) throw new StructuralSchemaError("OpenAPIV3Schema 'additionalItems' is not supported");
  if (schemaMap(s.definitions).length > 0) throw new StructuralSchemaError("OpenAPIV3Schema 'definitions' is not supported");
}

function newGeneric(s: JSONSchemaProps): Generic {
  const g: Generic = { type: str(s.type), description: str(s.description), title: str(s.title), nullable: bool(s.nullable) };
  if (s.default !== undefined && s.default !== null) g.default = structuredClone(s.default);
  return g;
}

function newExtensions(s: JSONSchemaProps): Extensions {
  const x: Extensions = {
    xPreserveUnknownFields: false,
    xEmbeddedResource: bool(s['x-kubernetes-embedded-resource']),
    xIntOrString: bool(s['x-kubernetes-int-or-string']),
  };
  const keys = strList(s['x-kubernetes-list-map-keys']);
  if (keys) x.xListMapKeys = keys;
  const listType = optStr(s['x-kubernetes-list-type']);
  if (listType !== undefined) x.xListType = listType;
  const mapType = optStr(s['x-kubernetes-map-type']);
  if (mapType !== undefined) x.xMapType = mapType;
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  if (typeof preserve === 'boolean') {
    if (!preserve) throw new StructuralSchemaError("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined");
    x.xPreserveUnknownFields = true;
  }
  return x;
}

function newValueValidation(s: JSONSchemaProps): ValueValidation {
  const v: ValueValidation = {
    format: str(s.format),
    exclusiveMaximum: bool(s.exclusiveMaximum),
    exclusiveMinimum: bool(s.exclusiveMinimum),
    pattern: str(s.pattern),
    uniqueItems: bool(s.uniqueItems),
  };
  for (const key of ['maximum', 'minimum', 'maxLength', 'minLength', 'maxItems', 'minItems', 'multipleOf', 'maxProperties', 'minProperties'] as const) {
    const n = num(s[key]);
    if (n !== undefined) v[key] = n;
  }
  if (Array.isArray(s.enum) && s.enum.length > 0) v.enum = structuredClone(s.enum);
  const required = strList(s.required);
  if (required) v.required = required;
  if (s.not && typeof s.not === 'object') v.not = newNested(s.not);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schemaList(s[key]);
    if (list.length > 0) v[key] = list.map(newNested);
  }
  return v;
}

function newNested(s: JSONSchemaProps): NestedValueValidation {
  checkUnsupported(s);
  const v: NestedValueValidation = {
    valueValidation: newValueValidation(s),
    xValidations: validationRules(s['x-kubernetes-validations']),
    forbiddenGenerics: newGeneric(s),
    forbiddenExtensions: newExtensions(s),
  };
  const items = itemsOf(s);
  if (items) {
    if ((items.schemas?.length ?? 0) > 0) throw new StructuralSchemaError("OpenAPIV3Schema 'items' must be a schema, but is an array");
    if (items.schema) v.items = newNested(items.schema);
  }
  if (s.properties && typeof s.properties === 'object') {
    v.properties = {};
    for (const [k, x] of schemaMap(s.properties)) v.properties[k] = newNested(x);
  }
  const ap = additionalPropertiesOf(s);
  if (ap?.schema) v.additionalProperties = newNested(ap.schema);
  else if (ap?.allows) v.additionalProperties = emptyNested();
  return v;
}

/** Upstream NewStructural. Throws StructuralSchemaError. */
export function newStructural(s: JSONSchemaProps): Structural {
  checkUnsupported(s);
  const vv = newValueValidation(s);
  const ss: Structural = { ...newGeneric(s), extensions: newExtensions(s), xValidations: validationRules(s['x-kubernetes-validations']), valueValidation: vv };
  const items = itemsOf(s);
  if (items) {
    if ((items.schemas?.length ?? 0) > 0) throw new StructuralSchemaError("OpenAPIV3Schema 'items' must be a schema, but is an array");
    if (items.schema) ss.items = newStructural(items.schema);
  }
  const props = schemaMap(s.properties);
  if (props.length > 0) {
    ss.properties = {};
    for (const [k, x] of props) ss.properties[k] = newStructural(x);
  }
  const ap = additionalPropertiesOf(s);
  if (ap) ss.additionalProperties = ap.schema ? { structural: newStructural(ap.schema), bool: true } : { bool: ap.allows };
  return ss;
}

export function emptyGeneric(): Generic {
  return { type: '', description: '', title: '', nullable: false };
}

export function emptyExtensions(): Extensions {
  return { xPreserveUnknownFields: false, xEmbeddedResource: false, xIntOrString: false };
}

export function emptyValueValidation(): ValueValidation {
  return { format: '', exclusiveMaximum: false, exclusiveMinimum: false, pattern: '', uniqueItems: false };
}

export function emptyNested(): NestedValueValidation {
  return { valueValidation: emptyValueValidation(), xValidations: [], forbiddenGenerics: emptyGeneric(), forbiddenExtensions: emptyExtensions() };
}

/** An empty Structural (`&Structural{}` upstream). */
export function emptyStructural(): Structural {
  return { ...emptyGeneric(), extensions: emptyExtensions(), xValidations: [] };
}

/** A shallow copy with x-kubernetes-embedded-resource set, as upstream treats a resource root. */
export function asResourceRoot(s: Structural | undefined): Structural {
  const base = s ?? emptyStructural();
  return base.extensions.xEmbeddedResource ? base : { ...base, extensions: { ...base.extensions, xEmbeddedResource: true } };
}
