/**
 * Protobuf through the server (SPEC 4.7; FACTS 14): every stored built-in
 * kind created, replaced and read in protobuf and JSON and read back the
 * same, the wire form checked by a decoder built from upstream's .proto files;
 * lists with limit/continue, a watch's frames, Status errors in protobuf, and
 * the bodies the server refuses.
 */
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, test } from 'node:test';
import { protobuf as table } from '../src/generated/protobuf.ts';
import { ProtobufCodec } from '../src/api/protobuf/codec.ts';
import { openEnvelope, PROTOBUF_PREFIX } from '../src/api/protobuf/envelope.ts';
import { assertFailure, expectWrite } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';
import { FIXTURES, PB_NAMESPACE, type KindFixture } from './helpers/protobuf-fixtures.ts';
import { comparable, referenceAvailable, referenceDecode, referenceRoot } from './helpers/reference-proto.ts';
import { startTestServer, type Response, type TestServer } from './helpers/server.ts';

const PB = 'application/vnd.orch.protobuf';
const codec = new ProtobufCodec(table);
let server: TestServer;

before(async () => {
  server = await startTestServer(['--feature-gates=WatchList=true']);
  await expectWrite(server, 'POST', '/api/v1/namespaces', { metadata: { name: PB_NAMESPACE } });
  await eventually('the default service account', async () => (await server.request('GET', `/api/v1/namespaces/${PB_NAMESPACE}/serviceaccounts/default`)).status === 200 || undefined);
});
after(() => server?.close());

const messageOf = (apiVersion: string, kind: string) => table.schemas[table.kinds[`${apiVersion}/${kind}`]].message;

/** A protobuf answer: its envelope's typeMeta checked, its object in JSON form by our decoder. */
function protobufAnswer(res: Response, apiVersion: string, kind: string): any {
  assert.equal(res.headers['content-type'], PB, `${res.status}: ${res.text}`);
  assert.deepEqual(res.bytes.subarray(0, 4), PROTOBUF_PREFIX);
  const unknown = openEnvelope(res.bytes);
  assert.deepEqual({ apiVersion: unknown.apiVersion, kind: unknown.kind }, { apiVersion, kind });
  return codec.decodeObject(res.bytes, apiVersion, kind);
}

/** Checks the wire form against upstream's schema: the independent decoder reads the same object. */
function assertUpstreamReads(res: Response, apiVersion: string, kind: string, json: any): void {
  const { apiVersion: _a, kind: _k, ...fields } = json;
  assert.deepEqual(comparable(referenceDecode(messageOf(apiVersion, kind), openEnvelope(res.bytes).raw)), comparable(fields));
}

/** Every field `expected` sets has that value in `actual` (the server adds its own). */
function assertSubset(actual: any, expected: any, path = ''): void {
  if (expected === null || typeof expected !== 'object') return assert.deepEqual(actual, expected, path);
  assert.ok(actual !== null && typeof actual === 'object', `${path}: ${JSON.stringify(actual)}`);
  if (Array.isArray(expected)) {
    assert.equal(actual.length, expected.length, path);
    expected.forEach((e, i) => assertSubset(actual[i], e, `${path}[${i}]`));
  } else for (const [k, v] of Object.entries(expected)) assertSubset(actual[k], v, `${path}.${k}`);
}

/**
 * The object (or list) at `path` in JSON and in protobuf at one resourceVersion: a controller may
 * change it in between (a definition's status), then both are read again.
 */
async function readBoth(path: string, apiVersion: string, kind: string): Promise<{ json: any; proto: Response; decoded: any }> {
  for (let attempt = 0; ; attempt++) {
    const proto = await server.request('GET', path, { headers: { accept: PB } });
    assert.equal(proto.status, 200, proto.text);
    const json = (await server.request('GET', path)).body;
    const decoded = protobufAnswer(proto, apiVersion, kind);
    if (decoded.metadata.resourceVersion === json.metadata.resourceVersion || attempt === 20) return { json, proto, decoded };
    await new Promise((r) => setTimeout(r, 100));
  }
}

const nameFor = (f: KindFixture, which: string) => (f.kind === 'CustomResourceDefinition' ? `pb${which}s.example.com` : `pb-${which}`);

describe('every stored built-in kind, in protobuf', { skip: referenceAvailable() ? false : 'needs ../shared/reference/proto' }, () => {
  for (const fixture of FIXTURES) {
    const { apiVersion, kind, collection } = fixture;
    test(`${kind}: created in protobuf, read in JSON; created in JSON, read in protobuf; replaced in protobuf`, async () => {
      // protobuf in, JSON out
      const sent: any = { apiVersion, kind, ...fixture.object(nameFor(fixture, 'alpha')) };
      const created = await server.request('POST', collection, { raw: codec.encodeObject(apiVersion, kind, sent), headers: { 'content-type': PB, accept: 'application/json' } });
      assert.equal(created.status, 201, created.text);
      assertSubset(created.body, sent);
      const path = `${collection}/${sent.metadata.name}`;
      const { json, proto, decoded } = await readBoth(path, apiVersion, kind);
      assert.deepEqual(decoded, json);
      assertUpstreamReads(proto, apiVersion, kind, json);

      // JSON in, protobuf out
      const other: any = { apiVersion, kind, ...fixture.object(nameFor(fixture, 'beta')) };
      const createdJson = await server.request('POST', collection, { body: other, headers: { accept: PB } });
      assert.equal(createdJson.status, 201, createdJson.text);
      const otherJson = (await server.request('GET', `${collection}/${other.metadata.name}`)).body;
      const answered = protobufAnswer(createdJson, apiVersion, kind);
      assertSubset(answered, other);
      assert.equal(answered.metadata.uid, otherJson.metadata.uid);

      // PUT in protobuf: the change lands, as a JSON PUT's would (again when a controller wrote in between).
      let replaced: Response;
      for (let current = json; ; current = (await server.request('GET', path)).body) {
        const changed = { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, changed: 'yes' } } };
        replaced = await server.request('PUT', path, { raw: codec.encodeObject(apiVersion, kind, changed), headers: { 'content-type': PB, accept: PB } });
        if (replaced.status !== 409) break;
      }
      assert.equal(replaced.status, 200, replaced.text);
      const { metadata: sentMeta, ...sentRest } = sent as any;
      assertSubset(protobufAnswer(replaced, apiVersion, kind), { ...sentRest, metadata: { ...sentMeta, labels: { ...sentMeta.labels, changed: 'yes' } } });

      // The list of the kind, in protobuf: the List message with the items as JSON lists them.
      const listKind = `${kind}List`;
      const list = await readBoth(collection, apiVersion, listKind);
      // Items carry no typeMeta in protobuf: the List message's items are the kind's message alone, as upstream's.
      assert.deepEqual(list.decoded.items ?? [], list.json.items.map(({ apiVersion: _a, kind: _k, ...item }: any) => item));
      assertUpstreamReads(list.proto, apiVersion, listKind, list.decoded);
    });
  }
});
