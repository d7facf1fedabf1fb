/**
 * A structural schema as expression types (SPEC 2.11 "Type mapping"; upstream
 * apiserver pkg/cel/common/schemas.go `SchemaDeclType`, pkg/cel/types.go
 * `DeclType`, `MaybeAssignTypeName`): an object with properties is an object
 * type whose fields are the properties with expressible names and types, one
 * with an additionalProperties schema a map, an array a list, integer int,
 * number double, string string (format byte bytes, date and date-time
 * timestamp, duration duration), int-or-string dyn. A node of no expressible
 * type (no type, unknown fields preserved) has none, and neither has the
 * list, map or field that holds it. The root of a resource, and every
 * embedded resource, always has apiVersion, kind, metadata.name and
 * metadata.generateName.
 *
 * Each type also carries the sizes the cost estimator needs (the largest
 * number of elements, the smallest serialized size), computed as upstream
 * from maxItems, maxProperties, maxLength, and otherwise from the 3 MiB
 * request limit.
 */
import { escapeName } from './cel-escaping.ts';
import { emptyStructural, type Structural } from './structural.ts';

/** Upstream celconfig.MaxRequestSizeBytes. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
const MAX_DURATION_SIZE_JSON = 32;
const MAX_DATETIME_SIZE_JSON = 32;
const MIN_DURATION_SIZE_JSON = 3;
const JSON_DATE_SIZE = 12;
const MIN_DATETIME_SIZE_JSON = 21;
const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;

/** How a JSON value of the node becomes an expression value (cel-values.ts). */
export type Conversion = 'string' | 'bytes' | 'date' | 'date-time' | 'duration' | 'int' | 'double' | 'bool' | 'int-or-string';

interface DeclBase {
  /** The largest number of elements (string length, list items, map entries); 0 where there are none. */
  maxElements: number;
  /** The smallest size of the value serialized as JSON. */
  minSerializedSize: number;
  /** The node's schema (with apiVersion, kind and metadata at a resource root). */
  schema: Structural;
}

export interface SimpleDecl extends DeclBase {
  kind: 'simple';
  /** The type in cel-js notation. */
  celType: string;
  conversion: Conversion;
}

export interface ListDecl extends DeclBase {
  kind: 'list';
  elem: DeclType;
}

export interface MapDecl extends DeclBase {
  kind: 'map';
  elem: DeclType;
}

export interface ObjectField {
  /** The property's name in JSON. */
  property: string;
  type: DeclType;
}

export interface ObjectDecl extends DeclBase {
  kind: 'object';
  /** Fields by escaped (expression) name. */
  fields: Map<string, ObjectField>;
  /** The class of this type's values: one per type, so every environment that names the type knows its values. */
  ctor: new (entries?: Iterable<readonly [string, unknown]>) => Map<string, unknown>;
}

export type DeclType = SimpleDecl | ListDecl | MapDecl | ObjectDecl;

const simple = (celType: string, conversion: Conversion, minSerializedSize: number, maxElements: number, schema: Structural): SimpleDecl => ({
  kind: 'simple',
  celType,
  conversion,
  minSerializedSize,
  maxElements,
  schema,
});

const zeroIfNegative = (n: number) => (n < 0 ? 0 : n);

/** Upstream estimateMaxStringLengthPerRequest. */
function maxStringLengthPerRequest(s: Structural): number {
  if (s.extensions.xIntOrString) return MAX_REQUEST_SIZE_BYTES - 2;
  switch (s.valueValidation?.format) {
    case 'duration':
      return MAX_DURATION_SIZE_JSON;
    case 'date':
      return JSON_DATE_SIZE;
    case 'date-time':
      return MAX_DATETIME_SIZE_JSON;
    default:
      return MAX_REQUEST_SIZE_BYTES - 2;
  }
}

/** Upstream estimateMaxStringEnumLength: the longest enum value (in bytes). */
function maxStringEnumLength(s: Structural): number {
  let max = 0;
  for (const v of s.valueValidation?.enum ?? []) if (typeof v === 'string') max = Math.max(max, Buffer.byteLength(v));
  return max;
}

/** Upstream estimateMaxArrayItemsFromMinSize. */
export const maxArrayItemsFromMinSize = (minSize: number): number => Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize + 1));
/** Upstream estimateMaxAdditionalPropertiesFromMinSize. */
const maxAdditionalPropertiesFromMinSize = (minSize: number): number => Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize + 6));

const stringSchema = (): Structural => ({ ...emptyStructural(), type: 'string' });

/** Upstream WithTypeAndObjectMeta: apiVersion, kind, metadata.name and metadata.generateName, unless the schema has them all. */
export function withTypeAndObjectMeta(s: Structural): Structural {
  const p = s.properties;
  const meta = p?.metadata;
  if (p && p.kind?.type === 'string' && p.apiVersion?.type === 'string' && meta?.type === 'object' && meta.properties?.name?.type === 'string' && meta.properties?.generateName?.type === 'string') return s;
  const properties: Record<string, Structural> = { ...(p ?? {}) };
  properties.kind = stringSchema();
  properties.apiVersion = stringSchema();
  properties.metadata = { ...emptyStructural(), type: 'object', properties: { name: stringSchema(), generateName: stringSchema() } };
  return { ...s, properties };
}

/**
 * Upstream SchemaDeclType: the node's type, or undefined where the node is
 * not exposed to expressions. Recursion follows the schema, so its depth is
 * the schema's, not a client value's.
 */
export function schemaDeclType(input: Structural | undefined, isResourceRoot: boolean): DeclType | undefined {
  if (!input) return undefined;
  if (input.extensions.xIntOrString) {
    // The smallest serialized int-or-string is `0`.
    return simple('dyn', 'int-or-string', 1, MAX_REQUEST_SIZE_BYTES - 2, input);
  }
  const s = isResourceRoot ? withTypeAndObjectMeta(input) : input;
  const vv = s.valueValidation;
  switch (s.type) {
    case 'array': {
      if (!s.items) return undefined;
      const elem = schemaDeclType(s.items, s.items.extensions.xEmbeddedResource);
      if (!elem) return undefined;
      const maxItems = vv?.maxItems !== undefined ? zeroIfNegative(vv.maxItems) : maxArrayItemsFromMinSize(elem.minSerializedSize);
      // The smallest list is `[]`.
      return { kind: 'list', elem, maxElements: maxItems, minSerializedSize: 2, schema: s };
    }
    case 'object': {
      const ap = s.additionalProperties?.structural;
      if (ap) {
        const elem = schemaDeclType(ap, ap.extensions.xEmbeddedResource);
        if (!elem) return undefined;
        const maxProperties = vv?.maxProperties !== undefined ? zeroIfNegative(vv.maxProperties) : maxAdditionalPropertiesFromMinSize(elem.minSerializedSize);
        return { kind: 'map', elem, maxElements: maxProperties, minSerializedSize: 2, schema: s };
      }
      const required = new Set(vv?.required ?? []);
      const fields = new Map<string, ObjectField>();
      // An object is serialized at least as `{}`, plus each required property without a default.
      let minSerializedSize = 2;
      for (const name of Object.keys(s.properties ?? {}).sort()) {
        const prop = s.properties![name];
        const type = schemaDeclType(prop, prop.extensions.xEmbeddedResource);
        if (!type) continue;
        const escaped = escapeName(name);
        if (escaped !== undefined) fields.set(escaped, { property: name, type });
        if (required.has(name) && prop.default === undefined) minSerializedSize += Buffer.byteLength(name) + type.minSerializedSize + 4;
      }
      return { kind: 'object', fields, ctor: class extends Map<string, unknown> {}, maxElements: 0, minSerializedSize, schema: s };
    }
    case 'string': {
      const maxLength = vv?.maxLength;
      switch (vv?.format) {
        case 'byte':
          return simple('bytes', 'bytes', MIN_STRING_SIZE, maxLength !== undefined ? zeroIfNegative(maxLength) : maxStringLengthPerRequest(s), s);
        case 'duration':
          return simple('google.protobuf.Duration', 'duration', MIN_DURATION_SIZE_JSON, maxStringLengthPerRequest(s), s);
        case 'date':
          return simple('google.protobuf.Timestamp', 'date', JSON_DATE_SIZE, maxStringLengthPerRequest(s), s);
        case 'date-time':
          return simple('google.protobuf.Timestamp', 'date-time', MIN_DATETIME_SIZE_JSON, maxStringLengthPerRequest(s), s);
      }
      // maxLength counts code points, the estimate bytes: up to 4 per code point.
      const max = maxLength !== undefined ? zeroIfNegative(maxLength) * 4 : vv?.enum?.length ? maxStringEnumLength(s) : maxStringLengthPerRequest(s);
      return simple('string', 'string', MIN_STRING_SIZE, max, s);
    }
    case 'boolean':
      return simple('bool', 'bool', MIN_BOOL_SIZE, 0, s);
    case 'number':
      return simple('double', 'double', MIN_NUMBER_SIZE, 0, s);
    case 'integer':
      return simple('int', 'int', MIN_NUMBER_SIZE, 0, s);
  }
  return undefined;
}

/** The declarations one environment needs for a `self` of `root`'s type. */
export interface TypeDeclarations {
  /** `self`'s type in cel-js notation. */
  selfType: string;
  /** Object types by name, each with its fields in cel-js notation and its value class. */
  types: Record<string, { fields: Record<string, string>; ctor: ObjectDecl['ctor'] }>;
}

/**
 * Upstream MaybeAssignTypeName: the object types under `root` named from
 * `rootName` (`selfType1`, `selfType1.spec`, `selfType1.spec.items._idx`,
 * `selfType1.labels._elem`: upstream's `@idx` and `@elem`, which cel-js does
 * not accept in a type name). Nullable list items and map values are dyn, so
 * that their null values pass cel-js's element checks.
 */
export function typeDeclarations(root: DeclType, rootName: string): TypeDeclarations {
  const types: TypeDeclarations['types'] = {};
  const name = (t: DeclType, path: string): string => {
    switch (t.kind) {
      case 'simple':
        return t.celType;
      case 'list':
        return `list<${t.elem.schema.nullable ? 'dyn' : name(t.elem, `${path}._idx`)}>`;
      case 'map':
        return `map<string, ${t.elem.schema.nullable ? 'dyn' : name(t.elem, `${path}._elem`)}>`;
      case 'object': {
        const fields: Record<string, string> = {};
        for (const [field, { type }] of t.fields) fields[field] = name(type, `${path}.${field}`);
        types[path] = { fields, ctor: t.ctor };
        return path;
      }
    }
  };
  return { selfType: name(root, rootName), types };
}
