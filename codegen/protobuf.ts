/**
 * Emits the protobuf schema table the codec reads (SPEC 4.7; openapi/README.md
 * "Extensions"): for every schema its upstream message, and either the special
 * form its JSON takes (Time, IntOrString, FieldsV1, ...) or its fields with
 * their numbers and wire types, embedded Go structs as one nested message.
 */
import { refName, type Schema } from './contract.ts';
import type { ProtoField, ProtoSchema, ProtoSpecial, ProtoValue } from '../src/api/protobuf/schema.ts';

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const CRD = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.';

/** Messages whose JSON form is not an object of their fields (openapi/README.md, the table under x-orch-protobuf-message). */
const SPECIAL_MESSAGES: Record<string, ProtoSpecial> = {
  [`${META}Time`]: 'Time',
  [`${META}MicroTime`]: 'MicroTime',
  [`${META}FieldsV1`]: 'FieldsV1',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'IntOrString',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'RawExtension',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'Quantity',
  [`${CRD}JSON`]: 'JSON',
  [`${CRD}JSONSchemaPropsOrArray`]: 'JSONSchemaPropsOrArray',
  [`${CRD}JSONSchemaPropsOrBool`]: 'JSONSchemaPropsOrBool',
  [`${CRD}JSONSchemaPropsOrStringArray`]: 'JSONSchemaPropsOrStringArray',
};

/** The wire value of a property's (or an item's, or a map value's) schema. */
function valueOf(node: Schema, where: string): ProtoValue {
  const ref = refName(node);
  if (ref) return { ref };
  switch (node.type) {
    case 'string':
      return node.format === 'byte' ? 'bytes' : 'string';
    case 'boolean':
      return 'bool';
    case 'integer':
      return node.format === 'int64' ? 'int64' : 'int32';
    case 'number':
      return 'double';
    case 'array':
      // A map value that is a list of strings is go-to-protobuf's wrapper message {repeated string items = 1} (ExtraValue).
      if (node.items?.type === 'string') return 'stringList';
  }
  throw new Error(`${where}: no protobuf form for ${JSON.stringify(node)}`);
}

function fieldOf(name: string, property: Schema, where: string): ProtoField {
  const number = property['x-orch-protobuf-field'];
  if (!Number.isInteger(number)) throw new Error(`${where}.${name}: no x-orch-protobuf-field`);
  const field: ProtoField = { name, number, value: 'string' };
  if (property.type === 'array' && !refName(property)) {
    field.repeated = true;
    field.value = valueOf(property.items ?? {}, `${where}.${name}[]`);
  } else if (property.type === 'object' && property.additionalProperties && !refName(property)) {
    field.map = true;
    field.value = valueOf(property.additionalProperties, `${where}.${name}{}`);
  } else field.value = valueOf(property, `${where}.${name}`);
  const inline = property['x-orch-protobuf-inline'];
  if (inline) field.inline = { message: inline.message, number: inline.field };
  return field;
}

/** The table of every schema that names a protobuf message, by schema name. */
export function emitProtobufSchemas(schemas: Record<string, Schema>): Record<string, ProtoSchema> {
  const out: Record<string, ProtoSchema> = {};
  for (const [schemaName, schema] of Object.entries(schemas)) {
    const message = schema['x-orch-protobuf-message'];
    if (typeof message !== 'string') continue;
    const special = SPECIAL_MESSAGES[message];
    if (special) {
      out[schemaName] = { message, special };
      continue;
    }
    // apiVersion and kind travel in the envelope's typeMeta, not in the message.
    const fields = Object.entries<Schema>(schema.properties ?? {})
      .filter(([name, property]) => property['x-orch-protobuf-field'] !== undefined || (name !== 'apiVersion' && name !== 'kind'))
      .map(([name, property]) => fieldOf(name, property, schemaName))
      .sort((a, b) => a.number - b.number || (a.inline?.number ?? 0) - (b.inline?.number ?? 0));
    // A schema without properties (CustomResourceSubresourceStatus, Patch) is the empty message, `{}` in JSON.
    out[schemaName] = fields.length ? { message, fields } : { message, special: 'Empty' };
  }
  for (const [schemaName, entry] of Object.entries(out)) {
    for (const field of entry.fields ?? []) {
      if (typeof field.value === 'object' && !out[field.value.ref]) throw new Error(`${schemaName}.${field.name}: ${field.value.ref} has no protobuf message`);
    }
  }
  return out;
}

/** `apiVersion/Kind` -> schema name, for every kind (and list kind) of the given group-versions. */
export function protobufKinds(groupVersions: Array<{ group: string; version: string; document: { components: { schemas: Record<string, Schema> } } }>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const gv of groupVersions) {
    for (const [schemaName, schema] of Object.entries(gv.document.components.schemas)) {
      if (!schema['x-orch-protobuf-message']) continue;
      for (const gvk of schema['x-kubernetes-group-version-kind'] ?? []) {
        if (gvk.group !== gv.group || gvk.version !== gv.version) continue;
        out[`${gvk.group ? `${gvk.group}/` : ''}${gvk.version}/${gvk.kind}`] = schemaName;
      }
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}
