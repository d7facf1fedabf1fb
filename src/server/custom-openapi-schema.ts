/**
 * A custom kind's schema as the OpenAPI documents publish it (SPEC 4.1;
 * upstream apiextensions-apiserver pkg/controller/openapi/builder
 * buildKubeNative, pkg/apiserver/schema Unfold and ToKubeOpenAPI, and
 * pkg/controller/openapi/v2 ToStructuralOpenAPIV2). The definition's schema is
 * structural (its validation saw to that), so the walks below follow its
 * properties, items and additionalProperties, bounded by the schema's depth.
 */
import { isObject, setOwn, type JsonObject } from '../registry/json-value.ts';

/** The schema fields the structural model keeps (upstream Structural.ToKubeOpenAPI writes no others). */
const KEPT = new Set([
  'type', 'nullable', 'description', 'title', 'default', 'externalDocs', 'example',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-validations',
  'format', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties', 'required',
  'allOf', 'anyOf', 'oneOf', 'not', 'items', 'properties', 'additionalProperties',
]);
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;

export const TYPE_META_API_VERSION = {
  description:
    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  type: 'string',
};
export const TYPE_META_KIND = {
  description:
    'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  type: 'string',
};
/** metav1beta1.PartialObjectMetadata's and PartialObjectMetadataList's field documentation. */
export const OBJECT_META_DESCRIPTION = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
export const LIST_META_DESCRIPTION = 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** Drops what Go's omitempty drops (false, "", empty lists) and fields the structural model has no place for. */
function isEmpty(value: unknown): boolean {
  return value === false || value === '' || value === undefined || value === null || (Array.isArray(value) && value.length === 0);
}

/** upstream ToKubeOpenAPI after NewStructural: a faithful copy minus empty and unknown fields. */
function normalized(s: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(s)) {
    const value = s[key];
    if (!KEPT.has(key)) continue;
    if (isEmpty(value) && key !== 'default' && key !== 'example' && key !== 'additionalProperties') continue;
    if (key === 'properties' && isObject(value)) {
      const props: JsonObject = {};
      for (const name of Object.keys(value)) if (isObject(value[name])) setOwn(props, name, normalized(value[name] as JsonObject));
      out.properties = props;
    } else if ((key === 'items' || key === 'not') && isObject(value)) out[key] = normalized(value);
    else if (key === 'additionalProperties') {
      if (isObject(value)) out.additionalProperties = normalized(value);
      else if (typeof value === 'boolean') out.additionalProperties = value;
    } else if ((JUNCTORS as readonly string[]).includes(key) && Array.isArray(value)) out[key] = value.filter(isObject).map(normalized);
    else out[key] = value;
  }
  return out;
}

const intOrStringAnyOf = () => [{ type: 'integer' }, { type: 'string' }];

function isIntOrStringAnyOf(anyOf: unknown): boolean {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false;
  const shapes = anyOf.map((x) => (isObject(x) && Object.keys(x).length === 1 ? x.type : undefined));
  return shapes[0] === 'integer' && shapes[1] === 'string';
}

/** upstream Structural.Unfold: x-kubernetes-int-or-string spelled out as anyOf integer or string. */
function unfold(s: JsonObject): void {
  if (s['x-kubernetes-int-or-string'] === true) {
    const allOf = Array.isArray(s.allOf) ? s.allOf : [];
    const done = isIntOrStringAnyOf(s.anyOf) || (isObject(allOf[0]) && isIntOrStringAnyOf(allOf[0].anyOf));
    if (!done && s.anyOf === undefined) s.anyOf = intOrStringAnyOf();
    else if (!done) s.allOf = [{ anyOf: intOrStringAnyOf() }, ...allOf];
  }
  forEachChild(s, unfold);
}

function forEachChild(s: JsonObject, visit: (child: JsonObject) => void): void {
  if (isObject(s.properties)) for (const name of Object.keys(s.properties)) visit(s.properties[name] as JsonObject);
  if (isObject(s.items)) visit(s.items);
  if (isObject(s.additionalProperties)) visit(s.additionalProperties);
}

/** upstream ToStructuralOpenAPIV2: what Swagger 2 and kubectl's v2 model cannot express is dropped. */
function toV2(s: JsonObject): void {
  for (const junctor of [...JUNCTORS, 'not']) delete s[junctor];
  if (s.nullable === true) {
    delete s.type;
    delete s.nullable;
    delete s.items;
    delete s.properties;
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === true) {
    delete s.items;
    delete s.properties;
  }
  if (s.items === undefined && s.type === 'array') delete s.type;
  if (s['x-kubernetes-preserve-unknown-fields'] === true && s.type === 'object') delete s.type;
  if (isObject(s.properties) && Array.isArray(s.required)) {
    const props = s.properties;
    s.required = s.required.filter((f) => !(isObject(props[f as string]) && (props[f as string] as JsonObject).nullable === true));
  }
  if (isObject(s.additionalProperties) && s.additionalProperties.nullable === true) delete s.required;
  if (Array.isArray(s.required) && s.required.length === 0) delete s.required;
  forEachChild(s, toV2);
}

/** upstream addEmbeddedProperties: an embedded resource shows apiVersion, kind and metadata, and requires the first two. */
function addEmbeddedProperties(s: JsonObject, ref: (name: string) => string, v2: boolean): void {
  forEachChild(s, (child) => addEmbeddedProperties(child, ref, v2));
  if (v2 && s['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (s['x-kubernetes-embedded-resource'] !== true) return;
  const props = isObject(s.properties) ? s.properties : (s.properties = {});
  props.apiVersion = {
    ...TYPE_META_API_VERSION,
    description: 'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  };
  props.kind = { ...TYPE_META_KIND, description: 'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds' };
  props.metadata = { $ref: ref('ObjectMeta'), description: OBJECT_META_DESCRIPTION };
  // A new list: the one copied from the definition is the cached definition's own.
  const required = Array.isArray(s.required) ? [...s.required] : [];
  for (const field of ['kind', 'apiVersion']) if (!required.includes(field)) required.push(field);
  s.required = required;
}

/**
 * The kind's published schema (upstream buildKubeNative) from the version's
 * openAPIV3Schema; `metaRef` spells the reference to a meta.v1 schema in the
 * document's style. Without a schema, or in v2 for a kind whose root keeps
 * unknown fields, only `type: object` is published, so that kubectl does not
 * take the absent properties to mean no field is allowed.
 */
export function publishedKindSchema(schema: unknown, metaRef: (name: string) => string, v2: boolean, preserveUnknownFields: boolean): JsonObject {
  if (!isObject(schema)) return { type: 'object' };
  const s = normalized(schema);
  if (v2 && (s['x-kubernetes-preserve-unknown-fields'] === true || preserveUnknownFields)) return { type: 'object' };
  unfold(s);
  if (v2) toV2(s);
  const props = isObject(s.properties) ? s.properties : {};
  const { apiVersion: _a, kind: _k, metadata: _m, ...fields } = props;
  s.properties = { apiVersion: TYPE_META_API_VERSION, kind: TYPE_META_KIND, metadata: { $ref: metaRef('ObjectMeta'), description: OBJECT_META_DESCRIPTION } };
  for (const name of Object.keys(fields)) setOwn(s.properties as JsonObject, name, fields[name]);
  addEmbeddedProperties(s, metaRef, v2);
  return s;
}
