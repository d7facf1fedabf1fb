/**
 * The shape of the protobuf schema table codegen emits (codegen/protobuf.ts
 * into src/generated/protobuf.ts) from the contract's `x-orch-protobuf-*`
 * extensions (openapi/README.md "Extensions"; SPEC 4.7).
 */

/**
 * A message whose JSON form is not an object of its fields (apimachinery's
 * hand-written Marshal/Unmarshal of these types):
 * - Time `{int64 seconds = 1; int32 nanos = 2}` <-> RFC 3339 in whole seconds; MicroTime the same with microseconds;
 * - IntOrString `{int64 type = 1; int32 intVal = 2; string strVal = 3}` <-> number or string;
 * - FieldsV1 `{bytes Raw = 1}`, RawExtension and apiextensions JSON `{bytes raw = 1}` <-> the JSON value the bytes encode;
 * - Quantity `{string string = 1}` <-> its string;
 * - JSONSchemaPropsOrArray `{schema = 1; repeated jSONSchemas = 2}` <-> a schema or an array of them;
 * - JSONSchemaPropsOrBool `{bool allows = 1; schema = 2}` <-> a boolean or a schema;
 * - JSONSchemaPropsOrStringArray `{schema = 1; repeated string property = 2}` <-> a schema or an array of strings;
 * - Empty: a message without fields, `{}`.
 */
export type ProtoSpecial =
  | 'Time'
  | 'MicroTime'
  | 'IntOrString'
  | 'FieldsV1'
  | 'RawExtension'
  | 'Quantity'
  | 'JSON'
  | 'JSONSchemaPropsOrArray'
  | 'JSONSchemaPropsOrBool'
  | 'JSONSchemaPropsOrStringArray'
  | 'Empty';

/** A scalar, another schema's message, or `{repeated string items = 1}` (a map value that is a list of strings: ExtraValue). */
export type ProtoValue = 'string' | 'bool' | 'int32' | 'int64' | 'double' | 'bytes' | 'stringList' | { ref: string };

export interface ProtoField {
  /** The JSON property name. */
  name: string;
  /** The field number in the message (for an inlined property: the number of the embedding field). */
  number: number;
  value: ProtoValue;
  /** Repeated, proto2 style: scalars unpacked (packed ones are read too). */
  repeated?: boolean;
  /** A map: repeated `{string key = 1; value = 2}` entries. */
  map?: boolean;
  /** A property of an embedded Go struct: the embedded message and the property's number inside it. */
  inline?: { message: string; number: number };
}

export interface ProtoSchema {
  /** The upstream message's full name (wire-invisible; for checks against upstream's .proto files). */
  message: string;
  special?: ProtoSpecial;
  /** By number (inlined properties by their embedding field, then their own number). */
  fields?: ProtoField[];
}

/** What codegen emits: every schema's message, and the schema of each `apiVersion/Kind`. */
export interface ProtobufTable {
  schemas: Record<string, ProtoSchema>;
  kinds: Record<string, string>;
}
