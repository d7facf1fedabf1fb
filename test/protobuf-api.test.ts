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
import { envelope, openEnvelope, PROTOBUF_PREFIX } from '../src/api/protobuf/envelope.ts';
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

const CMS = `/api/v1/namespaces/${PB_NAMESPACE}/configmaps`;
const configMap = (name: string, data: Record<string, string> = { k: 'v' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: PB_NAMESPACE, labels: { set: 'paged' } }, data });

/** A protobuf watch: its Content-Type and its frames read as upstream's WatchEvent, each object's envelope opened. */
function openProtobufWatch(path: string, accept = PB) {
  const events: Array<{ type: string; apiVersion: string; kind: string; object: any }> = [];
  let buffered = Buffer.alloc(0);
  let contentType: string | undefined;
  const watchEvent = referenceRoot().lookupType('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent');
  const req = httpsRequest(new URL(path, server.url), { ca: server.ca, headers: { authorization: `Bearer ${server.token}`, accept }, agent: false }, (res) => {
    contentType = res.headers['content-type'];
    res.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
        const length = buffered.readUInt32BE(0);
        const event = watchEvent.decode(buffered.subarray(4, 4 + length)) as any;
        buffered = buffered.subarray(4 + length);
        const envelope = openEnvelope(Buffer.from(event.object.raw));
        events.push({ type: event.type, apiVersion: envelope.apiVersion, kind: envelope.kind, object: codec.decodeMessage(envelope.apiVersion, envelope.kind, envelope.raw) });
      }
    });
  });
  req.end();
  return {
    events,
    contentType: () => contentType,
    async waitFor(count: number) {
      await eventually(`${count} watch events`, async () => events.length >= count || undefined);
      return events;
    },
    close: () => req.destroy(),
  };
}

describe('lists, watches and errors in protobuf', { skip: referenceAvailable() ? false : 'needs ../shared/reference/proto' }, () => {
  test('a list with limit and continue: chunks in protobuf carry the continue token and the remaining count', async () => {
    for (const name of ['page-a', 'page-b', 'page-c']) await expectWrite(server, 'POST', CMS, configMap(name));
    const first = await server.request('GET', `${CMS}?labelSelector=set%3Dpaged&limit=2`, { headers: { accept: PB } });
    const chunk = protobufAnswer(first, 'v1', 'ConfigMapList');
    assert.deepEqual(chunk.items.map((i: any) => i.metadata.name), ['page-a', 'page-b']);
    assert.ok(chunk.metadata.continue);
    const unfiltered = protobufAnswer(await server.request('GET', `${CMS}?limit=1`, { headers: { accept: PB } }), 'v1', 'ConfigMapList');
    const jsonChunk = (await server.request('GET', `${CMS}?limit=1`)).body;
    assert.deepEqual(unfiltered.metadata, jsonChunk.metadata);
    assert.ok(unfiltered.metadata.remainingItemCount > 0);
    const rest = await server.request('GET', `${CMS}?labelSelector=set%3Dpaged&limit=2&continue=${encodeURIComponent(chunk.metadata.continue)}`, { headers: { accept: PB } });
    const last = protobufAnswer(rest, 'v1', 'ConfigMapList');
    assert.deepEqual(last.items.map((i: any) => i.metadata.name), ['page-c']);
    assert.equal(last.metadata.continue, undefined);
    assertUpstreamReads(rest, 'v1', 'ConfigMapList', last);
  });

  test('a watch streams length-prefixed WatchEvent frames: the initial state, ADDED, MODIFIED, DELETED and BOOKMARK', async () => {
    await expectWrite(server, 'POST', CMS, configMap('watched-0'));
    const watch = openProtobufWatch(`${CMS}?watch=true&fieldSelector=metadata.name%3Dwatched-0&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    try {
      await watch.waitFor(2);
      assert.equal(watch.contentType(), 'application/vnd.orch.protobuf;stream=watch');
      assert.deepEqual(watch.events.map((e) => e.type), ['ADDED', 'BOOKMARK']);
      assert.equal(watch.events[0].object.metadata.name, 'watched-0');
      assert.deepEqual([watch.events[1].apiVersion, watch.events[1].kind], ['v1', 'ConfigMap']);
      assert.deepEqual(watch.events[1].object.metadata.annotations, { 'orch.io/initial-events-end': 'true' });
      const changed = await expectWrite(server, 'PUT', `${CMS}/watched-0`, { ...configMap('watched-0', { k: 'changed' }) });
      const deleted = await server.request('DELETE', `${CMS}/watched-0`);
      assert.equal(deleted.status, 200);
      await watch.waitFor(4);
      assert.deepEqual(watch.events.map((e) => e.type), ['ADDED', 'BOOKMARK', 'MODIFIED', 'DELETED']);
      const { apiVersion: _a, kind: _k, ...changedFields } = changed;
      assert.deepEqual(watch.events[2].object, changedFields);
      assert.equal(watch.events[2].object.data.k, 'changed');
      assert.ok(Number(watch.events[3].object.metadata.resourceVersion) > Number(changed.metadata.resourceVersion));
    } finally {
      watch.close();
    }
  });

  test('a watch the store serves (events: no watch cache for clients, as upstream) frames the same way', async () => {
    const events = `/api/v1/namespaces/${PB_NAMESPACE}/events`;
    const event = (name: string) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: PB_NAMESPACE }, involvedObject: { kind: 'Pod', name: 'p', namespace: PB_NAMESPACE }, reason: 'Started', message: 'm', type: 'Normal' });
    await expectWrite(server, 'POST', events, event('stored-0'));
    const watch = openProtobufWatch(`${events}?watch=true&fieldSelector=reason%3DStarted`);
    try {
      await watch.waitFor(1);
      assert.equal(watch.contentType(), 'application/vnd.orch.protobuf;stream=watch');
      await expectWrite(server, 'POST', events, event('stored-1'));
      await watch.waitFor(2);
      assert.deepEqual(watch.events.map((e) => [e.type, e.kind, e.object.metadata.name]), [
        ['ADDED', 'Event', 'stored-0'],
        ['ADDED', 'Event', 'stored-1'],
      ]);
      assert.equal(watch.events[1].object.message, 'm');
    } finally {
      watch.close();
    }
  });

  test('kinds added through the contract speak protobuf with no code of their own: a Deployment and a CronJob', async () => {
    const template = { metadata: { labels: { app: 'pb-web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } };
    const cases = [
      { path: `/apis/apps/v1/namespaces/${PB_NAMESPACE}/deployments`, apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 2, selector: { matchLabels: { app: 'pb-web' } }, template } },
      { path: `/apis/batch/v1/namespaces/${PB_NAMESPACE}/cronjobs`, apiVersion: 'batch/v1', kind: 'CronJob', spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { ...template.spec, restartPolicy: 'OnFailure' } } } } } },
    ];
    for (const { path, apiVersion, kind, spec } of cases) {
      const created = codec.encodeObject(apiVersion, kind, { apiVersion, kind, metadata: { name: 'pb-workload' }, spec });
      const answer = await server.request('POST', path, { raw: created, headers: { 'content-type': PB, accept: PB } });
      assert.equal(answer.status, 201, answer.text);
      const decoded = protobufAnswer(answer, apiVersion, kind);
      const json = (await server.request('GET', `${path}/pb-workload`)).body;
      assert.deepEqual(decoded, json);
      assertUpstreamReads(answer, apiVersion, kind, json);
      assert.equal(json.spec.template?.spec?.containers?.[0]?.image ?? json.spec.jobTemplate.spec.template.spec.containers[0].image, 'nginx:1.27');
      const list = await server.request('GET', path, { headers: { accept: PB } });
      assert.deepEqual(protobufAnswer(list, apiVersion, `${kind}List`).items.map((i: any) => i.metadata.name), ['pb-workload']);
    }
  });

  test("the named groups' kinds speak protobuf from the generated table: Ingress, PodDisruptionBudget, StorageClass, CSIStorageCapacity", async () => {
    const backend = { service: { name: 'web', port: { number: 80 } } };
    const cases = [
      { path: `/apis/networking.orch.io/v1/namespaces/${PB_NAMESPACE}/ingresses`, apiVersion: 'networking.orch.io/v1', kind: 'Ingress', body: { spec: { rules: [{ host: 'pb.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }] } } },
      { path: `/apis/policy/v1/namespaces/${PB_NAMESPACE}/poddisruptionbudgets`, apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', body: { spec: { maxUnavailable: '25%', selector: { matchLabels: { app: 'pb' } } } } },
      { path: '/apis/storage.orch.io/v1/storageclasses', apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', body: { provisioner: 'example.com/pb', parameters: { type: 'ssd' } } },
      { path: `/apis/storage.orch.io/v1/namespaces/${PB_NAMESPACE}/csistoragecapacities`, apiVersion: 'storage.orch.io/v1', kind: 'CSIStorageCapacity', body: { storageClassName: 'pb', capacity: '1Gi' } },
    ];
    for (const { path, apiVersion, kind, body } of cases) {
      const created = codec.encodeObject(apiVersion, kind, { apiVersion, kind, metadata: { name: 'pb-group-kind' }, ...body });
      const answer = await server.request('POST', path, { raw: created, headers: { 'content-type': PB, accept: PB } });
      assert.equal(answer.status, 201, answer.text);
      const decoded = protobufAnswer(answer, apiVersion, kind);
      const json = (await server.request('GET', `${path}/pb-group-kind`)).body;
      assert.deepEqual(decoded, json);
      assertUpstreamReads(answer, apiVersion, kind, json);
      const list = await server.request('GET', path, { headers: { accept: PB } });
      assert.ok(protobufAnswer(list, apiVersion, `${kind}List`).items.some((i: any) => i.metadata.name === 'pb-group-kind'));
    }
  });

  test('an error is a Status in protobuf when protobuf was negotiated', async () => {
    const res = await server.request('GET', `${CMS}/missing`, { headers: { accept: PB } });
    assert.equal(res.status, 404);
    const status = protobufAnswer(res, 'v1', 'Status');
    assert.deepEqual(status, { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'configmaps "missing" not found', reason: 'NotFound', details: { name: 'missing', kind: 'configmaps' }, code: 404 });
    assertUpstreamReads(res, 'v1', 'Status', status);
  });

  test('401 and 403 are negotiated too: a protobuf Status for a client asking for protobuf', async () => {
    const unauthorized = await server.request('GET', CMS, { headers: { accept: PB }, token: 'not-a-token' });
    assert.equal(unauthorized.status, 401);
    assert.deepEqual(protobufAnswer(unauthorized, 'v1', 'Status'), { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    const json = await server.request('GET', CMS, { headers: { accept: 'application/json' }, token: 'not-a-token' });
    assert.equal(json.headers['content-type'], 'application/json');
  });

  test('PartialObjectMetadata(List) in protobuf for every kind, custom ones too; Table only in JSON (upstream AllowsMediaTypeTransform)', async () => {
    const asked = (as: string, g = 'meta.k8s.io') => ({ accept: `${PB};as=${as};g=${g};v=v1` });
    const POM = 'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata';
    await expectWrite(server, 'POST', CMS, configMap('pom-a'));
    const full = (await server.request('GET', `${CMS}/pom-a`)).body;
    const one = await server.request('GET', `${CMS}/pom-a`, { headers: asked('PartialObjectMetadata') });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.headers['content-type'], PB);
    assert.deepEqual(openEnvelope(one.bytes).apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(openEnvelope(one.bytes).kind, 'PartialObjectMetadata');
    assert.deepEqual(comparable(referenceDecode(POM, openEnvelope(one.bytes).raw)), comparable({ metadata: full.metadata }));

    const list = await server.request('GET', `${CMS}?labelSelector=set%3Dpaged`, { headers: asked('PartialObjectMetadataList', 'meta.orch.io') });
    assert.equal(list.status, 200, list.text);
    const listEnvelope = openEnvelope(list.bytes);
    assert.deepEqual([listEnvelope.apiVersion, listEnvelope.kind], ['meta.orch.io/v1', 'PartialObjectMetadataList']);
    const decodedList = comparable(referenceDecode(`${POM}List`, listEnvelope.raw));
    const jsonList = (await server.request('GET', `${CMS}?labelSelector=set%3Dpaged`)).body;
    assert.deepEqual(decodedList, comparable({ metadata: jsonList.metadata, items: jsonList.items.map((i: any) => ({ metadata: i.metadata })) }));

    const made = await server.request('POST', CMS, { body: configMap('pom-written'), headers: asked('PartialObjectMetadata') });
    assert.equal(made.status, 201, made.text);
    assert.equal(openEnvelope(made.bytes).kind, 'PartialObjectMetadata');
    assert.equal(comparable(referenceDecode(POM, openEnvelope(made.bytes).raw)).metadata.name, 'pom-written');

    const watch = openProtobufWatch(`${CMS}?watch=true&resourceVersion=${jsonList.metadata.resourceVersion}&labelSelector=set%3Dpaged`, asked('PartialObjectMetadata').accept);
    try {
      await expectWrite(server, 'PUT', `${CMS}/pom-a`, configMap('pom-a', { k: 'changed' }));
      await watch.waitFor(2);
      assert.equal(watch.contentType(), `${PB};stream=watch`);
      assert.deepEqual(watch.events.map((e) => [e.type, e.apiVersion, e.kind, e.object.metadata.name]), [
        ['ADDED', 'meta.k8s.io/v1', 'PartialObjectMetadata', 'pom-written'],
        ['MODIFIED', 'meta.k8s.io/v1', 'PartialObjectMetadata', 'pom-a'],
      ]);
      assert.equal(watch.events[1].object.data, undefined, 'metadata alone');
    } finally {
      watch.close();
    }

    const crds = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
    const keepAll = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    await expectWrite(server, 'POST', crds, {
      apiVersion: 'apiextensions.orch.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'pomgadgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'pomgadgets', kind: 'PomGadget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: keepAll } } } }] },
    });
    const gadgets = `/apis/example.com/v1/namespaces/${PB_NAMESPACE}/pomgadgets`;
    const gadget = await eventually('the custom resource served', async () => {
      const res = await server.request('POST', gadgets, { body: { apiVersion: 'example.com/v1', kind: 'PomGadget', metadata: { name: 'g1' }, spec: { n: 1 } } });
      return res.status === 201 ? res.body : undefined;
    });
    assert.equal((await server.request('GET', `${gadgets}/g1`, { headers: { accept: PB } })).status, 406, 'a custom kind has no protobuf of its own');
    const metadataOnly = await server.request('GET', `${gadgets}/g1`, { headers: asked('PartialObjectMetadata') });
    assert.equal(metadataOnly.status, 200, metadataOnly.text);
    assert.deepEqual(comparable(referenceDecode(POM, openEnvelope(metadataOnly.bytes).raw)), comparable({ metadata: gadget.metadata }));

    const table = await server.request('GET', CMS, { headers: asked('Table') });
    assert.equal(table.status, 406, 'Table has no protobuf message');
  });

  test('custom resources, discovery and OpenAPI stay JSON', async () => {
    for (const path of ['/api/v1', '/apis', '/openapi/v3/api/v1']) {
      const res = await server.request('GET', path, { headers: { accept: `${PB}, application/json` } });
      assert.equal(res.status, 200, path);
      assert.match(String(res.headers['content-type']), /^application\/json/, path);
    }
  });

  test('bodies that are not protobuf objects of the kind are 400, with upstream\'s words', async () => {
    const post = (raw: Buffer | string, query = '') => server.request('POST', `${CMS}${query}`, { raw, headers: { 'content-type': PB } });
    const json = JSON.stringify(configMap('not-protobuf'));
    assertFailure(await post(json), 400, 'BadRequest', `the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (${json.slice(0, 30)} ...)`);
    assertFailure(await post(Buffer.alloc(0)), 400, 'BadRequest', 'the object provided is unrecognized (must be of type ConfigMap): empty data (<empty>)');
    const body = codec.encodeObject('v1', 'ConfigMap', configMap('truncated'));
    assertFailure(await post(body.subarray(0, body.length - 9)), 400, 'BadRequest', /^the object provided is unrecognized \(must be of type ConfigMap\): unexpected EOF \(6b387300/);
    // A whole envelope whose raw message is cut: the envelope names the kind.
    const raw = openEnvelope(body).raw;
    const cut = envelope('v1', 'ConfigMap', [raw.subarray(0, raw.length - 3)]);
    assertFailure(await post(cut), 400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF');
    assertFailure(await post(codec.encodeObject('v1', 'Secret', { ...configMap('wrong-kind'), kind: 'Secret' })), 400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: the kind in the data (Secret) does not match the expected kind (ConfigMap)');
    assertFailure(await post(envelope('v2', 'ConfigMap', [codec.message('v1', 'ConfigMap', configMap('wrong-version'))])), 400, 'BadRequest', 'the API version in the data (v2) does not match the expected API version (v1)');
    assert.equal((await server.request('GET', `${CMS}/wrong-kind`)).status, 404);
  });

  test('fieldValidation=Strict takes a protobuf body with fields the schema does not know: protobuf has no strict decoding upstream', async () => {
    const raw = Buffer.from(openEnvelope(codec.encodeObject('v1', 'ConfigMap', configMap('strict'))).raw);
    // Field 99 (a varint) is no field of ConfigMap.
    const extended = Buffer.concat([raw, Buffer.from([0x98, 0x06, 0x01])]);
    const body = envelope('v1', 'ConfigMap', [extended]);
    const res = await server.request('POST', `${CMS}?fieldValidation=Strict`, { raw: body, headers: { 'content-type': PB } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.warning, undefined);
    assert.deepEqual(res.body.data, { k: 'v' });
  });

  test('delete, deletecollection and a merge patch answer in protobuf', async () => {
    await expectWrite(server, 'POST', CMS, configMap('gone-1'));
    await expectWrite(server, 'POST', CMS, { ...configMap('gone-2'), metadata: { ...configMap('gone-2').metadata, labels: { set: 'gone' } } });
    const patched = await server.request('PATCH', `${CMS}/gone-1`, { raw: JSON.stringify({ data: { k: 'patched' } }), headers: { 'content-type': 'application/merge-patch+json', accept: PB } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(protobufAnswer(patched, 'v1', 'ConfigMap').data.k, 'patched');
    // A protobuf DeleteOptions body: its precondition is read (a wrong uid is a 409).
    const options = (uid: string) => codec.encodeObject('v1', 'DeleteOptions', { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid } });
    const refused = await server.request('DELETE', `${CMS}/gone-1`, { raw: options('not-the-uid'), headers: { 'content-type': PB, accept: PB } });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(protobufAnswer(refused, 'v1', 'Status').reason, 'Conflict');
    const deleted = await server.request('DELETE', `${CMS}/gone-1`, { raw: options(protobufAnswer(patched, 'v1', 'ConfigMap').metadata.uid), headers: { 'content-type': PB, accept: PB } });
    assert.equal(deleted.status, 200, deleted.text);
    const status = protobufAnswer(deleted, 'v1', 'Status');
    assert.equal(status.status, 'Success');
    assert.equal(status.details.name, 'gone-1');
    const collection = await server.request('DELETE', `${CMS}?labelSelector=set%3Dgone`, { headers: { accept: PB } });
    assert.equal(collection.status, 200, collection.text);
    assert.deepEqual(protobufAnswer(collection, 'v1', 'ConfigMapList').items.map((i: any) => i.metadata.name), ['gone-2']);
  });

  test('reviews: a protobuf SelfSubjectReview and SelfSubjectAccessReview in, protobuf out', async () => {
    const ssr = await server.request('POST', '/apis/authentication.orch.io/v1/selfsubjectreviews', {
      raw: codec.encodeObject('authentication.orch.io/v1', 'SelfSubjectReview', { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview', metadata: {} }),
      headers: { 'content-type': PB, accept: PB },
    });
    assert.equal(ssr.status, 201, ssr.text);
    const review = protobufAnswer(ssr, 'authentication.orch.io/v1', 'SelfSubjectReview');
    assert.ok(review.status.userInfo.username);
    assertUpstreamReads(ssr, 'authentication.orch.io/v1', 'SelfSubjectReview', review);
    const sar = { apiVersion: 'authorization.orch.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: PB_NAMESPACE, verb: 'get', resource: 'configmaps' } } };
    const ssar = await server.request('POST', '/apis/authorization.orch.io/v1/selfsubjectaccessreviews', { raw: codec.encodeObject(sar.apiVersion, sar.kind, sar), headers: { 'content-type': PB, accept: PB } });
    assert.equal(ssar.status, 201, ssar.text);
    assert.equal(protobufAnswer(ssar, sar.apiVersion, sar.kind).status.allowed, true);
    // An action subresource whose body is another group's kind: serviceaccounts/token takes a TokenRequest.
    const tr = { apiVersion: 'authentication.orch.io/v1', kind: 'TokenRequest', spec: { audiences: ['pb'], expirationSeconds: 3600 } };
    const token = await server.request('POST', `/api/v1/namespaces/${PB_NAMESPACE}/serviceaccounts/default/token`, { raw: codec.encodeObject(tr.apiVersion, tr.kind, tr), headers: { 'content-type': PB, accept: PB } });
    assert.equal(token.status, 201, token.text);
    const issued = protobufAnswer(token, tr.apiVersion, tr.kind);
    assert.deepEqual(issued.spec.audiences, ['pb']);
    assert.match(issued.status.token, /^ey/);
    assertUpstreamReads(token, tr.apiVersion, tr.kind, issued);
  });

  test('PATCH takes no protobuf: 415 naming the patch types', async () => {
    await expectWrite(server, 'POST', CMS, configMap('patched'));
    const res = await server.request('PATCH', `${CMS}/patched`, { raw: codec.encodeObject('v1', 'ConfigMap', configMap('patched')), headers: { 'content-type': PB } });
    assertFailure(res, 415, 'UnsupportedMediaType', /^the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, /);
    assert.doesNotMatch(res.body.message, /protobuf/);
  });
});

test('protobuf lists of an unchanged collection, listed after another resource changed: the same items under the new resourceVersion and continue token', async () => {
  // The items are shared whatever the revision; the envelope's length and the list metadata are each answer's.
  // One process, so that every read finds what the one before it shared.
  const solo = await startTestServer(['--workers=1']);
  try {
    const path = '/api/v1/namespaces/default/configmaps';
    for (let i = 0; i < 4; i++) await expectWrite(solo, 'POST', path, { metadata: { name: `pb-shared-${i}` }, data: { i: String(i) } });
    const metadataOnly = `${PB};as=PartialObjectMetadataList;g=meta.orch.io;v=v1`;
    const read = async (query: string, accept: string) => {
      const res = await solo.request('GET', `${path}${query}`, { headers: { accept } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['content-length'], String(res.bytes.length));
      if (accept === PB) return protobufAnswer(res, 'v1', 'ConfigMapList');
      return protobufAnswer(res, 'meta.orch.io/v1', 'PartialObjectMetadataList');
    };
    const forms: Array<[string, string]> = [['', PB], ['?limit=2', PB], ['', metadataOnly], ['?limit=2', metadataOnly]];
    const names = (list: any) => list.items.map((i: any) => i.metadata.name).filter((n: string) => n.startsWith('pb-shared-'));
    const before = await Promise.all(forms.map(([q, a]) => read(q, a)));
    const moved = Number((await expectWrite(solo, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'pb-elsewhere' } })).metadata.resourceVersion);
    for (const [i, [query, accept]] of forms.entries()) {
      const now = await read(query, accept);
      assert.ok(Number(before[i].metadata.resourceVersion) < moved, `${query} ${accept}: ${JSON.stringify(before[i].metadata)} before ${moved}`);
      assert.ok(Number(now.metadata.resourceVersion) >= moved, `${query} ${accept}: at the new revision, not ${now.metadata.resourceVersion}`);
      assert.deepEqual(now.items, before[i].items, `${query} ${accept}: the same items`);
      if (query) {
        const rest = await read(`?limit=10&continue=${encodeURIComponent(now.metadata.continue)}`, accept);
        assert.deepEqual([...names(now), ...names(rest)], ['pb-shared-0', 'pb-shared-1', 'pb-shared-2', 'pb-shared-3']);
      }
    }
    await expectWrite(solo, 'DELETE', `${path}/pb-shared-0`);
    for (const [query, accept] of forms) assert.ok(!names(await read(query, accept)).includes('pb-shared-0'), `${query} ${accept}: the deletion is seen`);
  } finally {
    await solo.close();
  }
});
