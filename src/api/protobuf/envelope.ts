/**
 * The protobuf envelope and stream framing (SPEC 4.7; FACTS 14; apimachinery
 * pkg/runtime/serializer/protobuf): `6b 38 73 00` then runtime.Unknown
 * {typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3,
 * contentType = 4}; a watch stream is frames of a 4-byte big-endian length and
 * a meta/v1 WatchEvent {type = 1, object = 2 (RawExtension {raw = 1})} without
 * envelope (the RawSerializer and LengthDelimitedFramer of the codec
 * factory), whose raw holds the object in its own envelope.
 */
import protobuf from 'protobufjs/minimal.js';
import { ProtobufDecodeError } from './message-decoder.ts';

/** SPEC 4.7's protobuf media type (upstream's `application/vnd.kubernetes.protobuf`, renamed). */
export const PROTOBUF_TYPE = 'application/vnd.orch.protobuf';
/** The Content-Type of a protobuf watch (upstream's `;stream=watch` media type). */
export const PROTOBUF_WATCH_TYPE = `${PROTOBUF_TYPE};stream=watch`;
/** SPEC 4.7: the 4 bytes before every envelope (upstream protobuf.go's protoEncodingPrefix); a body without them is refused. */
export const PROTOBUF_PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

function varintLength(n: number): number {
  let length = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    length++;
  }
  return length;
}

function writeVarint(out: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at++] = n;
  return at;
}

/** A length-delimited field's tag and length: `tag varint(length)`. */
function fieldHead(tag: number, length: number): Buffer {
  const head = Buffer.allocUnsafe(1 + varintLength(length));
  head[0] = tag;
  writeVarint(head, 1, length);
  return head;
}

function stringField(tag: number, text: string): Buffer {
  const bytes = Buffer.from(text);
  return Buffer.concat([fieldHead(tag, bytes.length), bytes]);
}

/** The encoded typeMeta field of each apiVersion/kind, made once. */
const typeMetas = new Map<string, Buffer>();

function typeMetaField(apiVersion: string, kind: string): Buffer {
  const key = `${apiVersion}\0${kind}`;
  let field = typeMetas.get(key);
  if (!field) {
    const body = Buffer.concat([stringField(0x0a, apiVersion), stringField(0x12, kind)]);
    field = Buffer.concat([fieldHead(0x0a, body.length), body]);
    typeMetas.set(key, field);
  }
  return field;
}

/** upstream writes the empty contentEncoding and contentType fields too (gogo marshals non-pointer strings always). */
const UNKNOWN_TRAILER = Buffer.from([0x1a, 0x00, 0x22, 0x00]);

/** The whole body of one object: prefix, then Unknown with `raw` (the object's message, given in parts). */
export function envelope(apiVersion: string, kind: string, raw: readonly Uint8Array[]): Buffer {
  return Buffer.concat([...headParts(apiVersion, kind, raw.reduce((n, part) => n + part.length, 0)), ...raw, UNKNOWN_TRAILER]);
}

/** The envelope's bytes before and after a raw message of `rawLength` bytes, for a raw part written as it is (a list's shared items). */
export function envelopeFrame(apiVersion: string, kind: string, rawLength: number): { head: Buffer; tail: Buffer } {
  return { head: Buffer.concat(headParts(apiVersion, kind, rawLength)), tail: UNKNOWN_TRAILER };
}

/** The prefix, Unknown's typeMeta and the head of its raw field. */
function headParts(apiVersion: string, kind: string, rawLength: number): Buffer[] {
  return [PROTOBUF_PREFIX, typeMetaField(apiVersion, kind), fieldHead(0x12, rawLength)];
}

/** The object's message inside an envelope this module made (a view, not a copy). */
export function rawOf(body: Buffer): Buffer {
  const r = protobuf.Reader.create(body);
  r.pos = PROTOBUF_PREFIX.length;
  r.uint32();
  const typeMetaLength = r.uint32();
  r.pos += typeMetaLength;
  r.uint32();
  const length = r.uint32();
  return body.subarray(r.pos, r.pos + length);
}

/** A repeated message field's item: `tag varint(length) bytes`, as parts. */
export function messageField(tag: number, bytes: Uint8Array): Uint8Array[] {
  return [fieldHead(tag, bytes.length), bytes];
}

/** runtime.Unknown as read from a body (apimachinery pkg/runtime/types_proto.go). */
export interface Unknown {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** Reads an envelope (protobuf.Serializer.Decode): the prefix, then Unknown; errors in upstream's words. */
export function openEnvelope(body: Buffer): Unknown {
  if (body.length === 0) throw new ProtobufDecodeError('empty data');
  if (body.length < PROTOBUF_PREFIX.length || !body.subarray(0, PROTOBUF_PREFIX.length).equals(PROTOBUF_PREFIX)) {
    throw new ProtobufDecodeError(`provided data does not appear to be a protobuf message, expected prefix [${[...PROTOBUF_PREFIX].join(' ')}]`);
  }
  if (body.length === PROTOBUF_PREFIX.length) throw new ProtobufDecodeError('empty body');
  const unknown: Unknown = { apiVersion: '', kind: '', raw: new Uint8Array(), contentEncoding: '', contentType: '' };
  const r = protobuf.Reader.create(body.subarray(PROTOBUF_PREFIX.length));
  const wrongType = (wireType: number, field: string) => new ProtobufDecodeError(`proto: wrong wireType = ${wireType} for field ${field}`);
  try {
    while (r.pos < r.len) {
      const tag = r.uint32();
      const number = tag >>> 3;
      const wireType = tag & 7;
      if (number === 0) throw new ProtobufDecodeError(`proto: Unknown: illegal tag 0 (wire type ${wireType})`);
      if (number > 4) {
        r.skipType(wireType);
        continue;
      }
      if (wireType !== 2) throw wrongType(wireType, ['TypeMeta', 'Raw', 'ContentEncoding', 'ContentType'][number - 1]);
      if (number === 1) {
        const end = r.uint32() + r.pos;
        if (end > r.len) throw new ProtobufDecodeError('unexpected EOF');
        while (r.pos < end) {
          const t = r.uint32();
          if ((t & 7) !== 2 || (t >>> 3 !== 1 && t >>> 3 !== 2)) {
            r.skipType(t & 7);
            continue;
          }
          if (t >>> 3 === 1) unknown.apiVersion = r.string();
          else unknown.kind = r.string();
        }
        if (r.pos !== end) throw new ProtobufDecodeError('unexpected EOF');
      } else if (number === 2) unknown.raw = r.bytes();
      else if (number === 3) unknown.contentEncoding = r.string();
      else unknown.contentType = r.string();
    }
  } catch (err) {
    if (err instanceof ProtobufDecodeError) throw err;
    if (err instanceof RangeError) throw new ProtobufDecodeError('unexpected EOF');
    throw new ProtobufDecodeError(`proto: ${(err as Error).message}`);
  }
  return unknown;
}

/** One frame of a protobuf watch: length, then WatchEvent{type, object: RawExtension{raw: the object's envelope}}. */
export function watchFrame(type: string, objectEnvelope: Buffer): Buffer {
  const typeField = stringField(0x0a, type);
  const rawField = fieldHead(0x0a, objectEnvelope.length);
  const objectHead = fieldHead(0x12, rawField.length + objectEnvelope.length);
  const length = typeField.length + objectHead.length + rawField.length + objectEnvelope.length;
  const size = Buffer.allocUnsafe(4);
  size.writeUInt32BE(length);
  return Buffer.concat([size, typeField, objectHead, rawField, objectEnvelope], 4 + length);
}

/** upstream summarizeData: what a client sent, for an error about a body nothing could be made of. */
export function summarizeData(data: Buffer, maxLength = 30): string {
  if (data.length === 0) return '<empty>';
  if (data[0] === 0x7b) return data.length > maxLength ? `${data.subarray(0, maxLength).toString()} ...` : data.toString();
  return data.length > maxLength ? `${data.subarray(0, maxLength).toString('hex')} ...` : data.toString('hex');
}
