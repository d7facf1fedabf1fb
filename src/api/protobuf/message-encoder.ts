/**
 * The JSON form of an object -> its protobuf message, driven by the schema table codegen
 * emits from the contract (SPEC 4.7; openapi/README.md "Extensions"): the
 * encoding go-to-protobuf generates for the upstream types (proto2, fields by
 * number, repeated scalars unpacked, maps as sorted `{key = 1; value = 2}`
 * entries, embedded structs as one nested message) and apimachinery's
 * hand-written forms of Time, MicroTime, IntOrString, FieldsV1, RawExtension
 * and Quantity. Built on protobufjs/minimal's Writer; each schema is compiled once
 * into closures (message-decoder.ts is the way back).
 */
import protobuf from 'protobufjs/minimal.js';
import type { ProtoField, ProtoSchema, ProtoValue } from './schema.ts';

const { Writer } = protobuf;
type Writer = protobuf.Writer;

type Encode = (w: Writer, value: any) => void;

/** Protobuf wire types (varint, 64-bit, length-delimited) and a field's tag, as the decoder checks them too. */
export const VARINT = 0;
export const FIXED64 = 1;
export const BYTES = 2;
export const tagOf = (number: number, wireType: number) => ((number << 3) | wireType) >>> 0;

/** The schema the JSONSchemaPropsOr* forms hold. */
export const CRD_PROPS = 'io.orch.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

function writeInt64(w: Writer, v: number): void {
  if (v >= 0 && v <= 0x7fffffff) w.uint32(v);
  else w.int64(v);
}

/** RFC 3339 -> Unix seconds and the nanoseconds of its fraction. */
export function parseTime(text: string): { seconds: number; nanos: number } {
  const match = /^(.*?:\d\d)(?:\.(\d+))?([Zz]|[+-]\d\d:\d\d)$/.exec(text);
  const ms = match ? Date.parse(match[1] + match[3]) : NaN;
  if (Number.isNaN(ms)) throw new TypeError(`not an RFC 3339 time: ${JSON.stringify(text)}`);
  return { seconds: Math.floor(ms / 1000), nanos: match![2] ? Number(match![2].slice(0, 9).padEnd(9, '0')) : 0 };
}

/** Compiles the schema table into an encoder per schema, on first use of each. */
export class MessageEncoder {
  private readonly encoders = new Map<string, Encode>();

  constructor(private readonly schemas: Record<string, ProtoSchema>) {}

  /** The message bytes of `value`, the JSON form of schema `schemaName`. */
  encode(schemaName: string, value: unknown): Uint8Array {
    const w = Writer.create();
    this.encoder(schemaName)(w, value);
    return w.finish();
  }

  private schema(name: string): ProtoSchema {
    const schema = this.schemas[name];
    if (!schema) throw new Error(`no protobuf message for ${name}`);
    return schema;
  }

  private encoder(name: string): Encode {
    let encode = this.encoders.get(name);
    if (!encode) {
      // Placeholder first: self-referencing schemas (JSONSchemaProps) compile to a call through the map.
      this.encoders.set(name, (w, v) => this.encoders.get(name)!(w, v));
      encode = this.compileEncoder(this.schema(name));
      this.encoders.set(name, encode);
    }
    return encode;
  }

  /** Writes one value of `value` as field `number` (tag included). */
  private valueWriter(value: ProtoValue, number: number): (w: Writer, v: any) => void {
    if (typeof value === 'object') {
      const tag = tagOf(number, BYTES);
      const ref = value.ref;
      let encode: Encode | undefined;
      return (w, v) => {
        w.uint32(tag).fork();
        (encode ??= this.encoder(ref))(w, v);
        w.ldelim();
      };
    }
    switch (value) {
      case 'string': {
        const tag = tagOf(number, BYTES);
        return (w, v) => w.uint32(tag).string(String(v));
      }
      case 'bytes': {
        const tag = tagOf(number, BYTES);
        return (w, v) => w.uint32(tag).bytes(Buffer.from(String(v), 'base64'));
      }
      case 'bool': {
        const tag = tagOf(number, VARINT);
        return (w, v) => w.uint32(tag).bool(!!v);
      }
      case 'int32': {
        const tag = tagOf(number, VARINT);
        return (w, v) => w.uint32(tag).int32(v);
      }
      case 'int64': {
        const tag = tagOf(number, VARINT);
        return (w, v) => writeInt64(w.uint32(tag), v);
      }
      case 'double': {
        const tag = tagOf(number, FIXED64);
        return (w, v) => w.uint32(tag).double(v);
      }
      case 'stringList': {
        const tag = tagOf(number, BYTES);
        const item = tagOf(1, BYTES);
        return (w, v: string[]) => {
          w.uint32(tag).fork();
          for (const s of v ?? []) w.uint32(item).string(s);
          w.ldelim();
        };
      }
    }
  }

  /** Writes a property: one value, each item of a repeated one, or each entry of a map (sorted by key, as gogo marshals). */
  private fieldWriter(field: ProtoField, number: number): (w: Writer, v: any) => void {
    if (field.repeated) {
      const one = this.valueWriter(field.value, number);
      return (w, v: unknown[]) => {
        for (const item of v) if (item !== null) one(w, item);
      };
    }
    if (field.map) {
      const tag = tagOf(number, BYTES);
      const key = tagOf(1, BYTES);
      const value = this.valueWriter(field.value, 2);
      return (w, v: Record<string, unknown>) => {
        for (const k of Object.keys(v).sort()) {
          w.uint32(tag).fork().uint32(key).string(k);
          if (v[k] !== null) value(w, v[k]);
          w.ldelim();
        }
      };
    }
    return this.valueWriter(field.value, number);
  }

  private compileEncoder(schema: ProtoSchema): Encode {
    if (schema.special) return this.specialEncoder(schema);
    type Step = (w: Writer, v: any) => void;
    const steps: Step[] = [];
    const fields = schema.fields!;
    for (let i = 0; i < fields.length; ) {
      const field = fields[i];
      if (!field.inline) {
        const name = field.name;
        const write = this.fieldWriter(field, field.number);
        steps.push((w, v) => {
          const x = v[name];
          if (x !== undefined && x !== null) write(w, x);
        });
        i++;
        continue;
      }
      // An embedded struct: its properties, inlined in JSON, are one nested message at the embedding field.
      const group: Array<{ name: string; write: Step }> = [];
      for (; i < fields.length && fields[i].inline && fields[i].number === field.number; i++) {
        group.push({ name: fields[i].name, write: this.fieldWriter(fields[i], fields[i].inline!.number) });
      }
      const tag = tagOf(field.number, BYTES);
      steps.push((w, v) => {
        if (!group.some((g) => v[g.name] !== undefined && v[g.name] !== null)) return;
        w.uint32(tag).fork();
        for (const g of group) {
          const x = v[g.name];
          if (x !== undefined && x !== null) g.write(w, x);
        }
        w.ldelim();
      });
    }
    return (w, v) => {
      for (let i = 0; i < steps.length; i++) steps[i](w, v);
    };
  }

  private specialEncoder(schema: ProtoSchema): Encode {
    const props = this.valueWriter({ ref: CRD_PROPS }, 1);
    const rawBytes = (w: Writer, v: unknown) => w.uint32(tagOf(1, BYTES)).bytes(Buffer.from(JSON.stringify(v)));
    switch (schema.special!) {
      case 'Time':
      case 'MicroTime': {
        const micro = schema.special === 'MicroTime';
        return (w, v: string) => {
          const { seconds, nanos } = parseTime(v);
          writeInt64(w.uint32(tagOf(1, VARINT)), seconds);
          // metav1.Time's JSON has whole seconds only; MicroTime keeps microseconds.
          const sent = micro ? nanos - (nanos % 1000) : 0;
          if (sent) w.uint32(tagOf(2, VARINT)).int32(sent);
        };
      }
      case 'IntOrString':
        return (w, v: number | string) => {
          if (typeof v === 'string') w.uint32(tagOf(1, VARINT)).uint32(1).uint32(tagOf(3, BYTES)).string(v);
          else w.uint32(tagOf(1, VARINT)).uint32(0).uint32(tagOf(2, VARINT)).int32(v);
        };
      case 'FieldsV1':
      case 'RawExtension':
      case 'JSON':
        return rawBytes;
      case 'Quantity':
        return (w, v) => w.uint32(tagOf(1, BYTES)).string(String(v));
      case 'JSONSchemaPropsOrArray': {
        const item = this.valueWriter({ ref: CRD_PROPS }, 2);
        return (w, v) => (Array.isArray(v) ? v.forEach((s) => item(w, s)) : props(w, v));
      }
      case 'JSONSchemaPropsOrBool': {
        const schemaField = this.valueWriter({ ref: CRD_PROPS }, 2);
        // An object means "allowed, with this schema" (JSONSchemaPropsOrBool.UnmarshalJSON).
        return (w, v) => {
          w.uint32(tagOf(1, VARINT)).bool(typeof v === 'boolean' ? v : true);
          if (typeof v !== 'boolean') schemaField(w, v);
        };
      }
      case 'JSONSchemaPropsOrStringArray':
        return (w, v) => (Array.isArray(v) ? v.forEach((s) => w.uint32(tagOf(2, BYTES)).string(String(s))) : props(w, v));
      case 'Empty':
        return () => {};
    }
  }
}
