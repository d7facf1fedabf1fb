/**
 * A protobuf message -> the JSON form of its schema (SPEC 4.7), the way back
 * of message-encoder.ts, as gogo-protobuf's generated Unmarshal reads the
 * upstream types: fields in any order, unknown numbers skipped, repeated
 * scalars packed or not, a map entry's missing value its zero value, and its
 * error texts ("unexpected EOF", "proto: wrong wireType = 0 for field Name").
 */
import protobuf from 'protobufjs/minimal.js';
import type { ProtoField, ProtoSchema, ProtoValue } from './schema.ts';
import { BYTES, CRD_PROPS, FIXED64, VARINT } from './message-encoder.ts';

const { Reader } = protobuf;
type Reader = protobuf.Reader;

/** A body that is not a message of its schema; the text is gogo-protobuf's where it has one. */
export class ProtobufDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufDecodeError';
  }
}

/** Reads a message's fields up to `end`; with `into`, an embedded struct's fields go into its parent's object. */
type Decode = (r: Reader, end: number, into?: Record<string, unknown>) => any;
/** Reads one field of wire type `wireType` into `out`. */
type FieldReader = (r: Reader, wireType: number, out: Record<string, any>) => void;

/** Go's field name in gogo's errors: the JSON name with its first letter upper-cased. */
const goName = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** An int64 as a number (protobufjs returns a Long when the long package is present). */
function int64(r: Reader): number {
  const v: any = r.int64();
  return typeof v === 'number' ? v : v.toNumber();
}

/** The end of a length-delimited field that starts at the reader's position. */
function endOf(r: Reader, limit: number): number {
  const length = r.uint32();
  const end = r.pos + length;
  if (end > limit || end > r.len) throw new ProtobufDecodeError('unexpected EOF');
  return end;
}

/** Unix seconds (and the microseconds of the nanos, for MicroTime) -> RFC 3339 in UTC, as metav1 marshals them. */
function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) throw new ProtobufDecodeError(`time out of range: ${seconds} seconds`);
  const whole = date.toISOString().slice(0, -5);
  return micro ? `${whole}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${whole}Z`;
}

function parseJsonBytes(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'));
  } catch (err) {
    throw new ProtobufDecodeError(`${what}: ${(err as Error).message}`);
  }
}

/** Reads every field of a message up to `end`, handing each number to `field` (false: unknown, skipped). */
function readFields(r: Reader, end: number, message: string, field: (number: number, wireType: number) => boolean): void {
  while (r.pos < end) {
    const tag = r.uint32();
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 0) throw new ProtobufDecodeError(`proto: ${message}: illegal tag 0 (wire type ${wireType})`);
    if (!field(number, wireType)) r.skipType(wireType);
  }
  if (r.pos !== end) throw new ProtobufDecodeError('unexpected EOF');
}

/** Compiles the schema table into a decoder per schema, on first use of each. */
export class MessageDecoder {
  private readonly decoders = new Map<string, Decode>();

  constructor(private readonly schemas: Record<string, ProtoSchema>) {}

  /** The JSON form of a message of schema `schemaName`; throws ProtobufDecodeError for what is not one. */
  decode(schemaName: string, bytes: Uint8Array): any {
    const r = Reader.create(bytes);
    try {
      return this.decoder(schemaName)(r, r.len);
    } catch (err) {
      if (err instanceof ProtobufDecodeError) throw err;
      if (err instanceof RangeError && /call stack/i.test(err.message)) throw new ProtobufDecodeError('the object is nested too deeply to decode');
      // protobufjs reads past the end as a RangeError "index out of range": gogo's io.ErrUnexpectedEOF.
      if (err instanceof RangeError) throw new ProtobufDecodeError('unexpected EOF');
      const wireType = /invalid wire type (\d+)/.exec((err as Error)?.message ?? '');
      if (wireType) throw new ProtobufDecodeError(`proto: illegal wireType ${wireType[1]}`);
      throw err;
    }
  }

  private decoder(name: string): Decode {
    let decode = this.decoders.get(name);
    if (!decode) {
      const schema = this.schemas[name];
      if (!schema) throw new Error(`no protobuf message for ${name}`);
      // Placeholder first: self-referencing schemas (JSONSchemaProps) compile to a call through the map.
      this.decoders.set(name, (r, end, into) => this.decoders.get(name)!(r, end, into));
      decode = schema.special ? this.specialDecoder(schema) : this.compileDecoder(schema);
      this.decoders.set(name, decode);
    }
    return decode;
  }

  /** Reads one value of `value` sent with wire type `wireType`, for the property `name` (errors name it). */
  private valueReader(value: ProtoValue, name: string): (r: Reader, wireType: number) => unknown {
    const expect = (wanted: number, wireType: number) => {
      if (wireType !== wanted) throw new ProtobufDecodeError(`proto: wrong wireType = ${wireType} for field ${goName(name)}`);
    };
    if (typeof value === 'object') {
      let decode: Decode | undefined;
      return (r, wireType) => {
        expect(BYTES, wireType);
        return (decode ??= this.decoder(value.ref))(r, endOf(r, r.len));
      };
    }
    switch (value) {
      case 'string':
        return (r, wireType) => (expect(BYTES, wireType), r.string());
      case 'bytes':
        return (r, wireType) => (expect(BYTES, wireType), Buffer.from(r.bytes()).toString('base64'));
      case 'bool':
        return (r, wireType) => (expect(VARINT, wireType), r.bool());
      case 'int32':
        return (r, wireType) => (expect(VARINT, wireType), r.int32());
      case 'int64':
        return (r, wireType) => (expect(VARINT, wireType), int64(r));
      case 'double':
        return (r, wireType) => (expect(FIXED64, wireType), r.double());
      case 'stringList':
        return (r, wireType) => {
          expect(BYTES, wireType);
          const items: string[] = [];
          const end = endOf(r, r.len);
          readFields(r, end, 'ExtraValue', (n, wt) => n === 1 && (expect(BYTES, wt), items.push(r.string()), true));
          return items;
        };
    }
  }

  private fieldReader(field: ProtoField): FieldReader {
    const { name } = field;
    const one = this.valueReader(field.value, name);
    if (field.map) {
      const key = this.valueReader('string', name);
      const zero = typeof field.value === 'object' ? () => ({}) : field.value === 'stringList' ? () => [] : () => ({ string: '', bytes: '', bool: false, int32: 0, int64: 0, double: 0 })[field.value as string];
      return (r, wireType, out) => {
        if (wireType !== BYTES) throw new ProtobufDecodeError(`proto: wrong wireType = ${wireType} for field ${goName(name)}`);
        const end = endOf(r, r.len);
        let k = '';
        let v: unknown;
        readFields(r, end, `${goName(name)}Entry`, (n, wt) => (n === 1 ? ((k = key(r, wt) as string), true) : n === 2 ? ((v = one(r, wt)), true) : false));
        const map = (out[name] ??= {});
        const value = v === undefined ? zero() : v;
        // A key is data: `map['__proto__'] = v` would set the prototype.
        if (k === '__proto__') Object.defineProperty(map, k, { value, writable: true, enumerable: true, configurable: true });
        else map[k] = value;
      };
    }
    if (field.repeated) {
      const packable = typeof field.value === 'string' && ['bool', 'int32', 'int64', 'double'].includes(field.value);
      return (r, wireType, out) => {
        const list: unknown[] = (out[name] ??= []);
        if (packable && wireType === BYTES) {
          const end = endOf(r, r.len);
          const itemType = field.value === 'double' ? FIXED64 : VARINT;
          while (r.pos < end) list.push(one(r, itemType));
          if (r.pos !== end) throw new ProtobufDecodeError('unexpected EOF');
        } else list.push(one(r, wireType));
      };
    }
    return (r, wireType, out) => {
      const v = one(r, wireType);
      if (v !== undefined) out[name] = v;
    };
  }

  private compileDecoder(schema: ProtoSchema): Decode {
    const byNumber = new Map<number, FieldReader>();
    const message = schema.message.slice(schema.message.lastIndexOf('.') + 1);
    const inlined = new Map<number, Map<number, FieldReader>>();
    for (const field of schema.fields!) {
      if (!field.inline) {
        byNumber.set(field.number, this.fieldReader(field));
        continue;
      }
      let inner = inlined.get(field.number);
      if (!inner) inlined.set(field.number, (inner = new Map()));
      inner.set(field.inline.number, this.fieldReader(field));
    }
    // An embedded struct is one nested message whose fields land in the embedding object (JSON inlines them).
    for (const [number, inner] of inlined) {
      const embedded = message + 'Embedded';
      byNumber.set(number, (r, wireType, out) => {
        if (wireType !== BYTES) throw new ProtobufDecodeError(`proto: wrong wireType = ${wireType} for field ${embedded}`);
        const end = endOf(r, r.len);
        readFields(r, end, embedded, (n, wt) => {
          const read = inner.get(n);
          return read ? (read(r, wt, out), true) : false;
        });
      });
    }
    // The loop of readFields, inlined: this runs once per message of every body.
    const readers: Array<FieldReader | undefined> = [];
    for (const [number, read] of byNumber) readers[number] = read;
    return (r, end) => {
      const out: Record<string, unknown> = {};
      while (r.pos < end) {
        const tag = r.uint32();
        const number = tag >>> 3;
        if (number === 0) throw new ProtobufDecodeError(`proto: ${message}: illegal tag 0 (wire type ${tag & 7})`);
        const read = readers[number];
        if (read) read(r, tag & 7, out);
        else r.skipType(tag & 7);
      }
      if (r.pos !== end) throw new ProtobufDecodeError('unexpected EOF');
      return out;
    };
  }

  /** The special forms (schema.ts ProtoSpecial), read field by field as their hand-written Unmarshal does. */
  private specialDecoder(schema: ProtoSchema): Decode {
    const special = schema.special!;
    const message = schema.message.slice(schema.message.lastIndexOf('.') + 1);
    const fieldsOf = (readers: Record<number, FieldReader>): ((r: Reader, end: number) => Record<string, any>) => (r, end) => {
      const out: Record<string, any> = {};
      readFields(r, end, message, (n, wt) => (readers[n] ? (readers[n](r, wt, out), true) : false));
      return out;
    };
    const field = (name: string, value: ProtoValue, more: Partial<ProtoField> = {}) => this.fieldReader({ name, number: 0, value, ...more });
    switch (special) {
      case 'Time':
      case 'MicroTime': {
        const read = fieldsOf({ 1: field('seconds', 'int64'), 2: field('nanos', 'int32') });
        return (r, end) => {
          const { seconds = 0, nanos = 0 } = read(r, end);
          return formatTime(seconds, nanos, special === 'MicroTime');
        };
      }
      case 'IntOrString': {
        const read = fieldsOf({ 1: field('type', 'int64'), 2: field('intVal', 'int32'), 3: field('strVal', 'string') });
        return (r, end) => {
          const v = read(r, end);
          return v.type === 1 ? (v.strVal ?? '') : (v.intVal ?? 0);
        };
      }
      case 'FieldsV1':
      case 'RawExtension':
      case 'JSON':
        // The bytes are JSON: read as they are, not through base64 as a bytes property is.
        return (r, end) => {
          let raw: Uint8Array | undefined;
          readFields(r, end, message, (n, wt) => {
            if (n !== 1) return false;
            if (wt !== BYTES) throw new ProtobufDecodeError(`proto: wrong wireType = ${wt} for field Raw`);
            raw = r.bytes();
            return true;
          });
          return raw === undefined || raw.length === 0 ? undefined : parseJsonBytes(raw, message);
        };
      case 'Quantity': {
        const read = fieldsOf({ 1: field('string', 'string') });
        return (r, end) => read(r, end).string ?? '';
      }
      case 'JSONSchemaPropsOrArray': {
        const read = fieldsOf({ 1: field('schema', { ref: CRD_PROPS }), 2: field('jSONSchemas', { ref: CRD_PROPS }, { repeated: true }) });
        return (r, end) => {
          const v = read(r, end);
          return v.jSONSchemas ?? v.schema ?? {};
        };
      }
      case 'JSONSchemaPropsOrBool': {
        const read = fieldsOf({ 1: field('allows', 'bool'), 2: field('schema', { ref: CRD_PROPS }) });
        return (r, end) => {
          const v = read(r, end);
          return v.schema ?? v.allows ?? false;
        };
      }
      case 'JSONSchemaPropsOrStringArray': {
        const read = fieldsOf({ 1: field('schema', { ref: CRD_PROPS }), 2: field('property', 'string', { repeated: true }) });
        return (r, end) => {
          const v = read(r, end);
          return v.schema ?? v.property ?? [];
        };
      }
      case 'Empty': {
        const read = fieldsOf({});
        return (r, end) => (read(r, end), {});
      }
    }
  }
}
