/**
 * Protobuf encoding of the few etcd v3 messages the storage uses, field numbers
 * from etcd's api/etcdserverpb/rpc.proto and api/mvccpb/kv.proto. Built on
 * protobufjs/minimal's Reader and Writer; int64 fields are plain numbers
 * (revisions stay far below 2^53) and bytes fields are slices of the received
 * frame, not copies.
 */
import protobuf from 'protobufjs/minimal.js';

const { Writer, Reader } = protobuf;
type Reader = protobuf.Reader;
type Writer = protobuf.Writer;

/** mvccpb.KeyValue (version and lease are read past: the storage never uses them). */
export interface EtcdKeyValue {
  key: Buffer;
  value: Buffer;
  createRevision: number;
  modRevision: number;
}

export interface ResponseHeader {
  revision: number;
}

export interface RangeRequest {
  key: Buffer;
  rangeEnd?: Buffer;
  limit?: number;
  revision?: number;
  keysOnly?: boolean;
  countOnly?: boolean;
}

export interface RangeResponse {
  header: ResponseHeader;
  kvs: EtcdKeyValue[];
  more: boolean;
  count: number;
}

/** etcdserverpb.Compare, for the two comparisons the storage makes. */
export interface Compare {
  key: Buffer;
  target: 'create' | 'mod';
  /** Compared for equality with the key's create or mod revision. */
  revision: number;
}

export type RequestOp = { put: { key: Buffer; value: Buffer } } | { range: RangeRequest } | { deleteKey: Buffer };

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export interface TxnResponse {
  header: ResponseHeader;
  succeeded: boolean;
  /** The range answers among the executed operations' responses, in order (puts and deletes answer nothing the storage reads). */
  ranges: RangeResponse[];
}

export interface WatchCreateRequest {
  key: Buffer;
  rangeEnd: Buffer;
  startRevision: number;
  prevKv: boolean;
}

export interface WatchEvent {
  type: 'put' | 'delete';
  kv: EtcdKeyValue;
  prevKv?: EtcdKeyValue;
}

export interface WatchResponse {
  header: ResponseHeader;
  watchId: number;
  created: boolean;
  canceled: boolean;
  compactRevision: number;
  cancelReason: string;
  events: WatchEvent[];
}

// Wire types (protobuf encoding): 0 varint, 2 length-delimited.
const tag = (field: number, wireType: number) => (field << 3) | wireType;

/** An int64 varint as a number; protobufjs would return a Long object, which costs an allocation and a conversion per field. */
function int64(r: Reader): number {
  let result = 0;
  let scale = 1;
  for (;;) {
    if (r.pos >= r.len) throw new RangeError('etcd message: varint past the end');
    const byte = r.buf[r.pos++];
    result += (byte & 0x7f) * scale;
    if (byte < 0x80) return result;
    scale *= 128;
  }
}

/** A bytes field as a Buffer view of the frame (protobufjs's BufferReader slices without copying). */
function bytes(r: Reader): Buffer {
  return r.bytes() as Buffer;
}

/** Reads a message's fields until `end`, handing each known field to `field`, which returns false for unknown ones. */
function readFields(r: Reader, end: number, field: (number: number, wireType: number) => boolean): void {
  while (r.pos < end) {
    const t = r.uint32();
    if (!field(t >>> 3, t & 7)) r.skipType(t & 7);
  }
}

function messageEnd(r: Reader): number {
  const length = r.uint32();
  const end = r.pos + length;
  if (end > r.len) throw new RangeError('etcd message: field past the end');
  return end;
}

function readHeader(r: Reader, end: number): ResponseHeader {
  const header = { revision: 0 };
  readFields(r, end, (n) => (n === 3 ? ((header.revision = int64(r)), true) : false));
  return header;
}

function readKeyValue(r: Reader, end: number): EtcdKeyValue {
  const kv: EtcdKeyValue = { key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0 };
  readFields(r, end, (n) => {
    if (n === 1) kv.key = bytes(r);
    else if (n === 2) kv.createRevision = int64(r);
    else if (n === 3) kv.modRevision = int64(r);
    else if (n === 5) kv.value = bytes(r);
    else return false;
    return true;
  });
  return kv;
}

const EMPTY = Buffer.alloc(0);

function readRangeResponse(r: Reader, end: number): RangeResponse {
  const res: RangeResponse = { header: { revision: 0 }, kvs: [], more: false, count: 0 };
  readFields(r, end, (n) => {
    if (n === 1) res.header = readHeader(r, messageEnd(r));
    else if (n === 2) res.kvs.push(readKeyValue(r, messageEnd(r)));
    else if (n === 3) res.more = r.bool();
    else if (n === 4) res.count = int64(r);
    else return false;
    return true;
  });
  return res;
}

export function decodeRangeResponse(frame: Buffer): RangeResponse {
  return readRangeResponse(Reader.create(frame), frame.length);
}

function writeRange(w: Writer, req: RangeRequest): Writer {
  w.uint32(tag(1, 2)).bytes(req.key);
  if (req.rangeEnd) w.uint32(tag(2, 2)).bytes(req.rangeEnd);
  if (req.limit) w.uint32(tag(3, 0)).int64(req.limit);
  if (req.revision) w.uint32(tag(4, 0)).int64(req.revision);
  if (req.keysOnly) w.uint32(tag(8, 0)).bool(true);
  if (req.countOnly) w.uint32(tag(9, 0)).bool(true);
  return w;
}

export function encodeRangeRequest(req: RangeRequest): Uint8Array {
  return writeRange(Writer.create(), req).finish();
}

export function encodePutRequest(key: Buffer, value: Buffer): Uint8Array {
  return Writer.create().uint32(tag(1, 2)).bytes(key).uint32(tag(2, 2)).bytes(value).finish();
}

/** A PutResponse or a Compaction/Status answer: only the header's revision is read. */
export function decodeHeaderOnly(frame: Buffer): ResponseHeader {
  const r = Reader.create(frame);
  let header: ResponseHeader = { revision: 0 };
  readFields(r, frame.length, (n) => (n === 1 ? ((header = readHeader(r, messageEnd(r))), true) : false));
  return header;
}

function writeRequestOp(w: Writer, field: number, op: RequestOp): void {
  w.uint32(tag(field, 2)).fork();
  if ('put' in op) w.uint32(tag(2, 2)).fork().uint32(tag(1, 2)).bytes(op.put.key).uint32(tag(2, 2)).bytes(op.put.value).ldelim();
  else if ('range' in op) writeRange(w.uint32(tag(1, 2)).fork(), op.range).ldelim();
  else w.uint32(tag(3, 2)).fork().uint32(tag(1, 2)).bytes(op.deleteKey).ldelim();
  w.ldelim();
}

export function encodeTxnRequest(req: TxnRequest): Uint8Array {
  const w = Writer.create();
  for (const c of req.compare) {
    // result Equal (0) is the default and left out; target Create = 1, Mod = 2.
    w.uint32(tag(1, 2)).fork().uint32(tag(2, 0)).int32(c.target === 'create' ? 1 : 2).uint32(tag(3, 2)).bytes(c.key);
    // The revision sits in a oneof, so a zero is written too: it selects the field.
    w.uint32(tag(c.target === 'create' ? 5 : 6, 0)).int64(c.revision).ldelim();
  }
  for (const op of req.success) writeRequestOp(w, 2, op);
  for (const op of req.failure) writeRequestOp(w, 3, op);
  return w.finish();
}

export function decodeTxnResponse(frame: Buffer): TxnResponse {
  const r = Reader.create(frame);
  const res: TxnResponse = { header: { revision: 0 }, succeeded: false, ranges: [] };
  readFields(r, frame.length, (n) => {
    if (n === 1) res.header = readHeader(r, messageEnd(r));
    else if (n === 2) res.succeeded = r.bool();
    else if (n === 3) {
      const end = messageEnd(r);
      readFields(r, end, (op) => (op === 1 ? (res.ranges.push(readRangeResponse(r, messageEnd(r))), true) : false));
    } else return false;
    return true;
  });
  return res;
}

export function encodeCompactionRequest(revision: number): Uint8Array {
  return Writer.create().uint32(tag(1, 0)).int64(revision).finish();
}

export function encodeWatchCreate(req: WatchCreateRequest): Uint8Array {
  const w = Writer.create().uint32(tag(1, 2)).fork();
  w.uint32(tag(1, 2)).bytes(req.key).uint32(tag(2, 2)).bytes(req.rangeEnd);
  if (req.startRevision) w.uint32(tag(3, 0)).int64(req.startRevision);
  if (req.prevKv) w.uint32(tag(6, 0)).bool(true);
  return w.ldelim().finish();
}

export function encodeWatchCancel(watchId: number): Uint8Array {
  return Writer.create().uint32(tag(2, 2)).fork().uint32(tag(1, 0)).int64(watchId).ldelim().finish();
}

function readEvent(r: Reader, end: number): WatchEvent {
  const event: WatchEvent = { type: 'put', kv: { key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0 } };
  readFields(r, end, (n) => {
    if (n === 1) event.type = r.int32() === 1 ? 'delete' : 'put';
    else if (n === 2) event.kv = readKeyValue(r, messageEnd(r));
    else if (n === 3) event.prevKv = readKeyValue(r, messageEnd(r));
    else return false;
    return true;
  });
  return event;
}

export function decodeWatchResponse(frame: Buffer): WatchResponse {
  const r = Reader.create(frame);
  const res: WatchResponse = { header: { revision: 0 }, watchId: 0, created: false, canceled: false, compactRevision: 0, cancelReason: '', events: [] };
  readFields(r, frame.length, (n) => {
    if (n === 1) res.header = readHeader(r, messageEnd(r));
    else if (n === 2) res.watchId = int64(r);
    else if (n === 3) res.created = r.bool();
    else if (n === 4) res.canceled = r.bool();
    else if (n === 5) res.compactRevision = int64(r);
    else if (n === 6) res.cancelReason = r.string();
    else if (n === 11) res.events.push(readEvent(r, messageEnd(r)));
    else return false;
    return true;
  });
  return res;
}
