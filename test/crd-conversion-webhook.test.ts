/**
 * Conversion webhooks of custom resources (SPEC 2.1; upstream
 * apiextensions-apiserver webhook_converter.go), against a real loopback HTTPS
 * webhook: objects stored at v1 are served at v1beta1 as the webhook converts
 * them (get, list, watch), writes through v1beta1 are stored as it converts
 * them, and every malformed answer fails the read with upstream's 500.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { assertFailure, expectWrite } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';
import { createServedCrd, exampleCrd } from './helpers/crd.ts';
import { issue, makeCa } from './helpers/pki.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const BETA = '/apis/example.com/v1beta1/namespaces/default/gizmos';
const V1 = '/apis/example.com/v1/namespaces/default/gizmos';
const GVK = 'example.com/v1, Kind=Gizmo';

type Mode = 'convert' | 'garbage' | 'noResponse' | 'wrongReviewKind' | 'wrongUid' | 'failure' | 'failureNoMessage' | 'twoObjects' | 'rename' | 'wrongVersion' | 'badLabel' | 'http500';
let mode: Mode = 'convert';
const reviews: any[] = [];
/** While set, the webhook answers only once it settles. */
let held: Promise<void> | undefined;

/** The webhook's conversion: v1beta1 spec.size is v1 spec.count; a label tells it converted. */
function convertObject(object: any, desired: string): any {
  const { size, count, ...rest } = object.spec ?? {};
  const spec = desired.endsWith('/v1beta1') ? { ...rest, size: count } : { ...rest, count: size };
  return { ...object, apiVersion: desired, metadata: { ...object.metadata, labels: { ...object.metadata.labels, converted: 'yes' } }, spec };
}

function answer(review: any): { code: number; body: string } {
  const { uid, desiredAPIVersion, objects } = review.request;
  const converted = objects.map((o: any) => convertObject(o, desiredAPIVersion));
  const response = (extra: Record<string, unknown>) => JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid, convertedObjects: converted, result: { status: 'Success' }, ...extra } });
  switch (mode) {
    case 'wrongUid':
      return { code: 200, body: response({ uid: 'nope' }) };
    case 'failure':
      return { code: 200, body: response({ result: { status: 'Failure', message: 'no way' } }) };
    case 'failureNoMessage':
      return { code: 200, body: response({ result: { status: 'Failure' } }) };
    case 'twoObjects':
      return { code: 200, body: response({ convertedObjects: [...converted, ...converted] }) };
    case 'rename':
      return { code: 200, body: response({ convertedObjects: [{ ...converted[0], metadata: { ...converted[0].metadata, name: 'other' } }] }) };
    case 'wrongVersion':
      return { code: 200, body: response({ convertedObjects: [{ ...converted[0], apiVersion: 'example.com/v2' }] }) };
    case 'badLabel':
      return { code: 200, body: response({ convertedObjects: [{ ...converted[0], metadata: { ...converted[0].metadata, labels: { 'bad key!': 'x' } } }] }) };
    case 'http500':
      return { code: 500, body: 'boom' };
    case 'garbage':
      return { code: 200, body: 'not json' };
    case 'noResponse':
      return { code: 200, body: JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview' }) };
    case 'wrongReviewKind':
      return { code: 200, body: JSON.stringify({ apiVersion: 'v1', kind: 'Status', response: {} }) };
    default:
      return { code: 200, body: response({}) };
  }
}

let server: TestServer;
let webhook: Server;
let webhookPort: number;

before(async () => {
  const ca = makeCa('conversion-webhook-ca');
  const serving = issue(ca, { commonName: 'conversion-webhook' }, { usages: ['serverAuth'], hosts: ['127.0.0.1'] });
  webhook = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const review = JSON.parse(Buffer.concat(chunks).toString());
      reviews.push({ url: req.url, review });
      await held;
      const { code, body } = answer(review);
      res.writeHead(code, { 'content-type': code === 200 ? 'application/json' : 'text/plain' });
      res.end(body);
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', () => r()));
  webhookPort = (webhook.address() as AddressInfo).port;

  server = await startTestServer(['--authorization-mode=AlwaysAllow']);
  const crd = exampleCrd('gizmos', 'Gizmo', 'Namespaced', [
    { name: 'v1beta1', served: true, storage: false, schema: schemaWith('size'), selectableFields: [{ jsonPath: '.spec.size' }] },
    { name: 'v1', served: true, storage: true, schema: schemaWith('count'), selectableFields: [{ jsonPath: '.spec.count' }] },
  ]);
  const conversion = {
    strategy: 'Webhook',
    webhook: { clientConfig: { url: `https://127.0.0.1:${webhookPort}/convert`, caBundle: Buffer.from(ca.certPem).toString('base64') }, conversionReviewVersions: ['v1'] },
  };
  await createServedCrd(server, { ...crd, spec: { ...crd.spec, conversion } }, [BETA, V1]);
});
after(async () => {
  await server?.close();
  webhook?.closeAllConnections();
  await new Promise((r) => webhook?.close(r));
});

function schemaWith(field: string) {
  return { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { [field]: { type: 'integer' } } } } } };
}

function storedValue(name: string): any {
  const file = readdirSync(server.dataDir).find((f) => f.endsWith('.db'))!;
  const db = new Database(join(server.dataDir, file), { readonly: true });
  try {
    const row = db.prepare('SELECT value FROM kine WHERE name LIKE ? ORDER BY id DESC LIMIT 1').get(`%/gizmos/default/${name}`) as { value: string };
    return JSON.parse(row.value);
  } finally {
    db.close();
  }
}

test('a write through v1beta1 is stored as the webhook converts it to v1, with a v1 ConversionReview', async () => {
  mode = 'convert';
  const created = await expectWrite(server, 'POST', BETA, { apiVersion: 'example.com/v1beta1', kind: 'Gizmo', metadata: { name: 'g1' }, spec: { size: 3 } });
  assert.deepEqual([created.apiVersion, created.spec], ['example.com/v1beta1', { size: 3 }]);
  const stored = storedValue('g1');
  assert.deepEqual([stored.apiVersion, stored.spec, stored.metadata.labels], ['example.com/v1', { count: 3 }, { converted: 'yes' }]);
  const { url, review } = reviews[reviews.length - 1];
  assert.match(url, /^\/convert\?timeout=30s$/);
  assert.deepEqual([review.apiVersion, review.kind, review.request.desiredAPIVersion], ['apiextensions.orch.io/v1', 'ConversionReview', 'example.com/v1']);
  assert.match(review.request.uid, /^[0-9a-f-]{36}$/);
  assert.deepEqual([review.request.objects.length, review.request.objects[0].apiVersion, review.request.objects[0].spec], [1, 'example.com/v1beta1', { size: 3 }]);
});

test('reads through v1beta1 are converted by the webhook, once per object version; reads through v1 call nothing', async () => {
  mode = 'convert';
  const calls = reviews.length;
  const viaBeta = await server.request('GET', `${BETA}/g1`);
  assert.equal(viaBeta.status, 200, viaBeta.text);
  assert.deepEqual([viaBeta.body.apiVersion, viaBeta.body.spec], ['example.com/v1beta1', { size: 3 }]);
  assert.equal(reviews.length, calls + 1);
  assert.equal(reviews[reviews.length - 1].review.request.desiredAPIVersion, 'example.com/v1beta1');
  const list = await server.request('GET', BETA);
  assert.deepEqual(list.body.items.map((i: any) => [i.apiVersion, i.spec]), [['example.com/v1beta1', { size: 3 }]]);
  const table = await server.request('GET', BETA, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' } });
  assert.equal(table.body.rows[0].cells[0], 'g1');
  const viaV1 = await server.request('GET', `${V1}/g1`);
  assert.deepEqual([viaV1.body.apiVersion, viaV1.body.spec], ['example.com/v1', { count: 3 }]);
  // Every process of the pool converts once; then the converted form kept with the object version serves.
  for (let i = 0; i < 6; i++) await server.request('GET', `${BETA}/g1`);
  const warmed = reviews.length;
  for (let i = 0; i < 6; i++) {
    assert.equal((await server.request('GET', `${BETA}/g1`)).body.spec.size, 3);
    assert.equal((await server.request('GET', BETA)).body.items.length, 1);
    await server.request('GET', `${V1}/g1`);
  }
  assert.equal(reviews.length, warmed, 'no webhook call once each process holds the converted form');
});

test('selectors read the objects as the version serves them: labels and selectable fields of the converted objects', async () => {
  mode = 'convert';
  await expectWrite(server, 'POST', V1, { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g5' }, spec: { count: 7 } });
  const names = async (path: string) => {
    const res = await server.request('GET', path);
    assert.equal(res.status, 200, res.text);
    return res.body.items.map((i: any) => i.metadata.name);
  };
  // The webhook labels what it converts: g5 is stored without the label, and served at v1beta1 with it.
  assert.deepEqual(await names(`${BETA}?labelSelector=converted%3Dyes`), ['g1', 'g5']);
  assert.deepEqual(await names(`${V1}?labelSelector=converted%3Dyes`), ['g1']);
  assert.deepEqual(await names(`${BETA}?fieldSelector=spec.size%3D7`), ['g5']);
  assert.deepEqual(await names(`${BETA}?fieldSelector=spec.size%3D7&limit=1`), ['g5']);
  assert.deepEqual(await names(`${V1}?fieldSelector=spec.count%3D7`), ['g5']);
  const watch = openWatch(server, `${BETA}?watch=1&fieldSelector=spec.size%3D7`);
  const [added] = await watch.waitFor(1);
  assert.deepEqual([added.type, added.object.metadata.name, added.object.spec], ['ADDED', 'g5', { size: 7 }]);
  await expectWrite(server, 'DELETE', `${V1}/g5`);
  const [, deleted] = await watch.waitFor(2);
  assert.deepEqual([deleted.type, deleted.object.metadata.name], ['DELETED', 'g5']);
  assert.equal(watch.events.length, 2, 'g1 never matched');
  watch.close();
});

test('a v1beta1 watch sees changes made through v1 as the webhook converts them', async () => {
  mode = 'convert';
  const watch = openWatch(server, `${BETA}?watch=1`);
  assert.equal(await watch.status, 200);
  const [added] = await watch.waitFor(1);
  assert.deepEqual([added.type, added.object.apiVersion, added.object.spec], ['ADDED', 'example.com/v1beta1', { size: 3 }]);
  const got = (await server.request('GET', `${V1}/g1`)).body;
  await expectWrite(server, 'PUT', `${V1}/g1`, { ...got, spec: { count: 5 } });
  const [, modified] = await watch.waitFor(2);
  assert.deepEqual([modified.type, modified.object.apiVersion, modified.object.spec], ['MODIFIED', 'example.com/v1beta1', { size: 5 }]);
  // A webhook failing on a later change ends the watch with the conversion's 500.
  mode = 'failure';
  await expectWrite(server, 'PUT', `${V1}/g1`, { ...got, metadata: { ...got.metadata, resourceVersion: modified.object.metadata.resourceVersion }, spec: { count: 6 } });
  const [, , error] = await watch.waitFor(3);
  assert.deepEqual([error.type, error.object.code, error.object.reason], ['ERROR', 500, 'InternalError']);
  assert.equal(error.object.message, `Internal error occurred: conversion webhook for ${GVK} failed: no way`);
  await watch.ended;
  mode = 'convert';
});

test('a malformed answer fails the read with a 500 in upstream words', async () => {
  mode = 'convert';
  await expectWrite(server, 'POST', V1, { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g2' }, spec: { count: 1 } });
  const cases: Array<[Mode, string | RegExp]> = [
    ['wrongUid', new RegExp(`^Internal error occurred: conversion webhook for ${GVK} failed: expected response.uid="[0-9a-f-]{36}", got "nope"$`)],
    ['failure', `Internal error occurred: conversion webhook for ${GVK} failed: no way`],
    ['failureNoMessage', `Internal error occurred: conversion webhook for ${GVK} failed: response.result.status was 'Failure', not 'Success'`],
    ['twoObjects', `Internal error occurred: conversion webhook for ${GVK} returned 2 objects, expected 1`],
    ['rename', `Internal error occurred: conversion webhook for ${GVK} returned invalid object: must have the same name: g2 != other`],
    ['wrongVersion', `Internal error occurred: conversion webhook for ${GVK} returned invalid object at index 0: invalid groupVersion (expected example.com/v1beta1, received example.com/v2)`],
    ['badLabel', new RegExp(`^Internal error occurred: conversion webhook for ${GVK} returned invalid metadata: metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters`)],
    ['http500', `Internal error occurred: conversion webhook for ${GVK} failed: an error on the server ("boom") has prevented the request from succeeding`],
    ['garbage', `Internal error occurred: conversion webhook for ${GVK} failed: couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')`],
    ['noResponse', `Internal error occurred: conversion webhook for ${GVK} failed: no response provided`],
    ['wrongReviewKind', `Internal error occurred: conversion webhook for ${GVK} failed: expected webhook response of apiextensions.orch.io/v1, Kind=ConversionReview, got /v1, Kind=Status`],
  ];
  for (const [failing, message] of cases) {
    mode = failing;
    assertFailure(await server.request('GET', `${BETA}/g2`), 500, 'InternalError', message);
    // A list fails as a whole (g1 may be the object that failed it).
    assertFailure(await server.request('GET', BETA), 500, 'InternalError', new RegExp(`^Internal error occurred: conversion webhook for ${GVK} `));
  }
  mode = 'convert';
  const healed = await server.request('GET', `${BETA}/g2`);
  assert.deepEqual([healed.status, healed.body.spec], [200, { size: 1 }]);
});

test('a write the webhook cannot convert stores nothing', async () => {
  mode = 'failure';
  const res = await server.request('POST', BETA, { body: { apiVersion: 'example.com/v1beta1', kind: 'Gizmo', metadata: { name: 'g3' }, spec: { size: 1 } } });
  assertFailure(res, 500, 'InternalError', `Internal error occurred: conversion webhook for example.com/v1beta1, Kind=Gizmo failed: no way`);
  mode = 'convert';
  assert.equal((await server.request('GET', `${V1}/g3`)).status, 404);
});

test('a chunk converted while its collection changed is not served as the new state', async () => {
  // The chunk's items are taken, then the webhook converts them; meanwhile an object changes. What the first
  // read encodes is of the old state, and a read after the change must not be answered with it.
  mode = 'convert';
  const solo = await startTestServer(['--authorization-mode=AlwaysAllow', '--workers=1']);
  try {
    const crd = exampleCrd('widgets', 'Widget', 'Namespaced', [
      { name: 'v1beta1', served: true, storage: false, schema: schemaWith('size') },
      { name: 'v1', served: true, storage: true, schema: schemaWith('count') },
    ]);
    const url = `https://127.0.0.1:${webhookPort}/convert`;
    const caBundle = (await server.request('GET', '/apis/apiextensions.orch.io/v1/customresourcedefinitions/gizmos.example.com')).body.spec.conversion.webhook.clientConfig.caBundle;
    const WIDGETS_V1 = '/apis/example.com/v1/namespaces/default/widgets';
    const WIDGETS_BETA = '/apis/example.com/v1beta1/namespaces/default/widgets';
    await createServedCrd(solo, { ...crd, spec: { ...crd.spec, conversion: { strategy: 'Webhook', webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ['v1'] } } } }, [WIDGETS_V1, WIDGETS_BETA]);
    const first = await expectWrite(solo, 'POST', WIDGETS_V1, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { count: 1 } });
    let release!: () => void;
    held = new Promise<void>((r) => (release = r));
    const calls = reviews.length;
    const during = solo.request('GET', `${WIDGETS_BETA}?limit=10`);
    await eventually('the first read at the webhook', async () => reviews.length > calls || undefined);
    await expectWrite(solo, 'PUT', `${WIDGETS_V1}/w1`, { ...first, spec: { count: 2 } });
    held = undefined;
    release();
    const old = await during;
    assert.equal(old.status, 200, old.text);
    assert.deepEqual(old.body.items.map((i: any) => i.spec), [{ size: 1 }], 'the first read answers the state it read');
    const after = await solo.request('GET', `${WIDGETS_BETA}?limit=10`);
    assert.equal(after.status, 200, after.text);
    assert.deepEqual(after.body.items.map((i: any) => i.spec), [{ size: 2 }], 'a read after the change answers the change');
  } finally {
    held = undefined;
    await solo.close();
  }
});

test('an unreachable webhook fails reads with the transport error', async () => {
  mode = 'convert';
  await expectWrite(server, 'POST', V1, { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g4' }, spec: { count: 1 } });
  webhook.closeAllConnections();
  await new Promise((r) => webhook.close(r));
  const res = await server.request('GET', `${BETA}/g4`);
  assertFailure(res, 500, 'InternalError', `Internal error occurred: conversion webhook for ${GVK} failed: Post "https://127.0.0.1:${webhookPort}/convert?timeout=30s": dial tcp 127.0.0.1:${webhookPort}: connect: connection refused`);
});

test('a webhook named by a Service reference cannot be reached: this server runs no Services', async () => {
  const REMOTE_V1 = '/apis/example.com/v1/remotes';
  const REMOTE_BETA = '/apis/example.com/v1beta1/remotes';
  const crd = exampleCrd('remotes', 'Remote', 'Cluster', [
    { name: 'v1beta1', served: true, storage: false, schema: schemaWith('size') },
    { name: 'v1', served: true, storage: true, schema: schemaWith('count') },
  ]);
  const conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'orch-system', name: 'converter', path: '/convert' } }, conversionReviewVersions: ['v1'] } };
  await createServedCrd(server, { ...crd, spec: { ...crd.spec, conversion } }, [REMOTE_V1, REMOTE_BETA]);
  await expectWrite(server, 'POST', REMOTE_V1, { apiVersion: 'example.com/v1', kind: 'Remote', metadata: { name: 'r' }, spec: { count: 1 } });
  const res = await server.request('GET', `${REMOTE_BETA}/r`);
  assertFailure(res, 500, 'InternalError', 'Internal error occurred: conversion webhook for example.com/v1, Kind=Remote failed: service orch-system/converter cannot be reached: this server resolves no Services');
  assert.equal((await server.request('GET', `${REMOTE_V1}/r`)).status, 200, 'the storage version needs no conversion');
});
