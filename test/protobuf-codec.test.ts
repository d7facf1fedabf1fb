/**
 * The protobuf codec against upstream's .proto files (SPEC 4.7): the numbering
 * and wire types codegen emitted from the contract match
 * ../shared/reference/proto/**\/generated.proto, and every field of every
 * built-in kind survives JSON -> protobuf -> JSON, read back both by our
 * decoder and by protobufjs's reflection over upstream's schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { protobuf as table } from '../src/generated/protobuf.ts';
import { kinds } from '../src/generated/kinds.ts';
import { ProtobufBodyError, ProtobufCodec } from '../src/api/protobuf/codec.ts';
import { openEnvelope, PROTOBUF_PREFIX, rawOf, watchFrame } from '../src/api/protobuf/envelope.ts';
import type { ProtoField, ProtoValue } from '../src/api/protobuf/schema.ts';
import { protobufWatchEncoding } from '../src/handlers/protobuf-responses.ts';
import { comparable, comparableName, referenceAvailable, referenceDecode, referenceRoot } from './helpers/reference-proto.ts';

const skip = referenceAvailable() ? false : 'needs ../shared/reference/proto';
const codec = new ProtobufCodec(table);

const SCALAR_TYPES: Record<string, string> = { string: 'string', bool: 'bool', int32: 'int32', int64: 'int64', double: 'double', bytes: 'bytes' };

function checkValue(where: string, value: ProtoValue, field: protobuf.Field): void {
  if (typeof value === 'object') {
    const target = table.schemas[value.ref];
    assert.ok(field.resolvedType instanceof protobuf.Type, `${where}: upstream's field is not a message`);
    assert.equal(field.resolvedType.fullName.slice(1), target.message, `${where}: message`);
  } else if (value === 'stringList') {
    assert.ok(field.resolvedType instanceof protobuf.Type, `${where}: upstream's value is not a message`);
    const items = field.resolvedType.fieldsById[1];
    assert.ok(items?.repeated && items.type === 'string', `${where}: not {repeated string items = 1}`);
  } else assert.equal(field.type, SCALAR_TYPES[value], `${where}: type`);
}

test('every field number and wire type codegen emitted is upstream\'s', { skip }, () => {
  const root = referenceRoot();
  let checked = 0;
  for (const [schemaName, schema] of Object.entries(table.schemas)) {
    const type = root.lookupType(schema.message);
    for (const field of schema.fields ?? []) {
      const where = `${schemaName}.${field.name}`;
      let upstream = type.fieldsById[field.number];
      assert.ok(upstream, `${where}: upstream ${schema.message} has no field ${field.number}`);
      if (field.inline) {
        assert.equal((upstream.resolvedType as protobuf.Type).fullName.slice(1), field.inline.message, `${where}: embedded message`);
        upstream = (upstream.resolvedType as protobuf.Type).fieldsById[field.inline.number];
        assert.ok(upstream, `${where}: ${field.inline.message} has no field ${field.inline.number}`);
      }
      // Proto names equal JSON names but for Go initialisms (uID for uid).
 assert.equal(comparableName(upstream.name), comparableName(field.name), `${where}: upstream names field ${field.number} ${upstream.name}`);
      assert.equal(upstream instanceof protobuf.MapField, !!field.map, `${where}: map`);
      if (field.map) assert.equal((upstream as unknown as protobuf.MapField).keyType, 'string', `${where}: map key`);
      else assert.equal(upstream.repeated, !!field.repeated, `${where}: repeated`);
      checkValue(where, field.value, upstream);
      checked++;
    }
    // Every upstream field is known, but the ones JSON does not carry.
    const numbers = new Set((schema.fields ?? []).map((f) => f.number));
    for (const upstream of type.fieldsArray) assert.ok(numbers.has(upstream.id) || schema.special, `${schemaName}: upstream field ${upstream.name} = ${upstream.id} is missing`);
  }
  assert.ok(checked > 900, `only ${checked} fields checked`);
});

/** A value for every field of a schema, nested `depth` levels (JSONSchemaProps refers to itself). */
function fullValue(schemaName: string, depth: number, seed: { n: number }): any {
  const schema = table.schemas[schemaName];
  const n = seed.n++;
  switch (schema.special) {
    case 'Time':
      return `2024-05-06T07:08:${String(n % 60).padStart(2, '0')}Z`;
    case 'MicroTime':
      return `2024-05-06T07:08:09.${String(123456 + n).padStart(6, '0')}Z`;
    case 'IntOrString':
      return n % 2 ? 'http' : 8080 + n;
    case 'FieldsV1':
      return { 'f:metadata': { 'f:labels': { [`f:l${n}`]: {} } } };
    case 'RawExtension':
    case 'JSON':
      return { a: [n, 'b', { c: null }] };
    case 'Quantity':
      return `${n}m`;
    case 'JSONSchemaPropsOrArray':
      return n % 2 ? [{ type: 'string' }, { type: 'integer' }] : { type: 'object' };
    case 'JSONSchemaPropsOrBool':
      return n % 2 ? false : { type: 'string' };
    case 'JSONSchemaPropsOrStringArray':
      return n % 2 ? ['a', 'b'] : { type: 'string' };
    case 'Empty':
      return {};
  }
  const out: Record<string, unknown> = {};
  for (const field of schema.fields!) {
    const one = oneValue(field, depth, seed);
    if (one === undefined) continue;
    out[field.name] = field.repeated ? [one, oneValue(field, depth, seed)] : field.map ? { k1: one, ['__proto__']: oneValue(field, depth, seed) } : one;
  }
  return out;
}

function oneValue(field: ProtoField, depth: number, seed: { n: number }): unknown {
  const n = seed.n++;
  const value = field.value;
  if (typeof value === 'object') return depth > 0 ? fullValue(value.ref, depth - 1, seed) : undefined;
  switch (value) {
    case 'string':
      return `${field.name}-${n}`;
    case 'bytes':
      return Buffer.from(`bytes ${n}`).toString('base64');
    case 'bool':
      return n % 2 === 0;
    case 'int32':
      return n % 3 ? n : -n;
    case 'int64':
      return n % 3 ? 1_700_000_000_000 + n : -n;
    case 'double':
      return n + 0.5;
    case 'stringList':
      return ['x', `y${n}`];
  }
}

/** What JSON.parse(JSON.stringify(v)) gives: a '__proto__' key becomes an own property. */
const asJson = (v: unknown) => JSON.parse(JSON.stringify(v));

for (const kind of kinds) {
  const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
  test(`${apiVersion} ${kind.kind}: every field, JSON -> protobuf -> JSON, by our decoder and by upstream's schema`, { skip }, () => {
    const object = asJson({ apiVersion, kind: kind.kind, ...fullValue(kind.schemaName, 6, { n: 1 }) });
    const body = codec.encodeObject(apiVersion, kind.kind, object);
    assert.deepEqual(body.subarray(0, 4), PROTOBUF_PREFIX);
    const unknown = openEnvelope(body);
    assert.equal(unknown.apiVersion, apiVersion);
    assert.equal(unknown.kind, kind.kind);
    assert.deepEqual(asJson(codec.decodeObject(body, apiVersion, kind.kind)), object);
    const { apiVersion: _a, kind: _k, ...fields } = object;
    assert.deepEqual(comparable(asJson(referenceDecode(table.schemas[kind.schemaName].message, unknown.raw))), comparable(fields));
    // The whole envelope as upstream's runtime.Unknown.
    const envelope = referenceRoot().lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').decode(body.subarray(4)) as any;
    assert.deepEqual({ apiVersion: envelope.typeMeta.apiVersion, kind: envelope.typeMeta.kind }, { apiVersion, kind: kind.kind });
    assert.deepEqual(Buffer.from(envelope.raw), Buffer.from(unknown.raw));
    if (kind.listKind) {
      const list = codec.encodeList(apiVersion, kind.listKind, { resourceVersion: '12', continue: 'abc', remainingItemCount: 3 }, [unknown.raw, unknown.raw]);
      const listMessage = table.schemas[table.kinds[`${apiVersion}/${kind.listKind}`]].message;
      const decoded = referenceDecode(listMessage, rawOf(list));
      assert.deepEqual(decoded.metadata, { resourceVersion: '12', continue: 'abc', remainingItemCount: 3 });
      assert.equal(decoded.items.length, 2);
      assert.deepEqual(comparable(asJson(decoded.items[1])), comparable(fields));
    }
  });
}

test('a watch frame is a length and a WatchEvent whose object is the envelope', { skip }, () => {
  const object = codec.encodeObject('v1', 'ConfigMap', { metadata: { name: 'a', resourceVersion: '3' }, data: { k: 'v' } });
  const frame = watchFrame('ADDED', object);
  assert.equal(frame.readUInt32BE(0), frame.length - 4);
  const event = referenceRoot().lookupType('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent').decode(frame.subarray(4)) as any;
  assert.equal(event.type, 'ADDED');
  assert.deepEqual(Buffer.from(event.object.raw), object);
});

test('a watch\'s ERROR frame holds the Status in its envelope, a BOOKMARK the kind with only its resourceVersion', { skip }, () => {
  const configMaps = kinds.find((k) => k.kind === 'ConfigMap')!;
  const encoding = protobufWatchEncoding(codec, configMaps as any);
  const watchEvent = referenceRoot().lookupType('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent');
  const read = (frame: Buffer) => {
    const event = watchEvent.decode(frame.subarray(4)) as any;
    const unknown = openEnvelope(Buffer.from(event.object.raw));
    return { type: event.type, typeMeta: [unknown.apiVersion, unknown.kind], object: codec.decodeMessage(unknown.apiVersion, unknown.kind, unknown.raw) };
  };
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (5)', reason: 'Expired', code: 410 };
  assert.deepEqual(read(encoding.error(status)), { type: 'ERROR', typeMeta: ['v1', 'Status'], object: { metadata: {}, status: 'Failure', message: 'too old resource version: 1 (5)', reason: 'Expired', code: 410 } });
  assert.deepEqual(read(encoding.bookmark(42, false)), { type: 'BOOKMARK', typeMeta: ['v1', 'ConfigMap'], object: { metadata: { resourceVersion: '42' } } });
});

test('malformed messages are refused with gogo-protobuf\'s words', () => {
  const body = codec.encodeObject('v1', 'ConfigMap', { metadata: { name: 'a' }, data: { k: 'v' } });
  const decode = (b: Buffer) => () => codec.decodeObject(b, 'v1', 'ConfigMap');
  assert.throws(decode(Buffer.alloc(0)), /empty data/);
  assert.throws(decode(Buffer.from('{"kind":"ConfigMap"}')), /provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/);
  assert.throws(decode(body.subarray(0, 4)), /empty body/);
  assert.throws(decode(body.subarray(0, body.length - 8)), /unexpected EOF/);
  // metadata (field 1) sent as a varint.
  const raw = Buffer.from([0x08, 0x01]);
  const wrong = Buffer.concat([PROTOBUF_PREFIX, Buffer.from([0x12, raw.length]), raw]);
  assert.throws(decode(wrong), /proto: wrong wireType = 0 for field Metadata/);
  // Unknown field numbers are skipped, as gogo's Unmarshal skips them.
  const extra = Buffer.from([0xf8, 0x3e, 0x05]);
  assert.deepEqual(codec.decodeObject(Buffer.concat([PROTOBUF_PREFIX, Buffer.from([0x12, extra.length]), extra]), 'v1', 'ConfigMap'), {});
});

test('mutated and cut bodies are read or refused as bodies, never a crash of another kind', () => {
  const pod = {
    metadata: { name: 'a', labels: { a: 'b' }, creationTimestamp: '2024-01-01T00:00:00Z', managedFields: [{ manager: 'x', fieldsV1: { 'f:a': {} }, time: '2024-01-01T00:00:00Z' }] },
    spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } }, readinessProbe: { httpGet: { port: 'http' } } }], volumes: [{ name: 'v', configMap: { name: 'cm' } }] },
  };
  const body = codec.encodeObject('v1', 'Pod', pod);
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  let refused = 0;
  for (let i = 0; i < 5000; i++) {
    const mutated = Buffer.from(body);
    for (let j = 0; j < 1 + Math.floor(random() * 4); j++) mutated[4 + Math.floor(random() * (mutated.length - 4))] = Math.floor(random() * 256);
    const sent = random() < 0.2 ? mutated.subarray(0, Math.floor(random() * mutated.length)) : mutated;
    try {
      codec.decodeObject(sent, 'v1', 'Pod');
    } catch (err) {
      assert.ok(err instanceof ProtobufBodyError, `${(err as Error).stack}`);
      refused++;
    }
  }
  assert.ok(refused > 1000, `${refused} refused`);
});
