/**
 * Custom resources in /openapi/v3 and /openapi/v2 (issue 11; SPEC 4.1; upstream
 * apiextensions-apiserver pkg/controller/openapi/builder, openapiv3 controller,
 * kube-openapi handler3): each served group/version of an Established
 * definition gets its own document, checked field by field against what
 * upstream builds for the same definition; the index hash follows the
 * document, a stale hash is redirected, v2 merges every definition, and a
 * version no longer served or a deleted definition leaves both documents.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { expectWrite } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
const META = 'io.orch.apimachinery.pkg.apis.meta.v1.';
const GV = 'apis/stable.example.com/v1';
const CRONTAB = 'com.example.stable.v1.CronTab';

const cronTabSchema = {
  type: 'object',
  description: 'CronTab runs a command on a schedule.',
  properties: {
    spec: {
      type: 'object',
      description: 'The desired schedule.',
      required: ['cronSpec', 'note'],
      properties: {
        cronSpec: { type: 'string', description: 'When to run, in cron syntax.', pattern: '^\\S+ \\S+ \\S+ \\S+ \\S+$' },
        replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
        port: { 'x-kubernetes-int-or-string': true, nullable: false },
        note: { type: 'string', nullable: true },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, number: { type: 'integer' } } },
        },
        mode: { type: 'string', anyOf: [{ enum: ['a'] }, { enum: ['b'] }] },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { kept: { type: 'string' } } },
        // A client's field name, never a prototype.
        ['__proto__']: { type: 'string', description: 'a key like any other' },
      },
      'x-kubernetes-validations': [{ rule: 'self.replicas <= 10', message: 'too many' }],
    },
    status: { type: 'object', properties: { lastRun: { type: 'string', format: 'date-time' } } },
  },
};

function cronTabCrd(versions: any[] = [cronTabVersion('v1')]) {
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'] },
      versions,
    },
  };
}

function cronTabVersion(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    served: true,
    storage: name === 'v1',
    schema: { openAPIV3Schema: cronTabSchema },
    subresources: { status: {} },
    selectableFields: [{ jsonPath: '.spec.cronSpec' }],
    ...extra,
  };
}

async function index(): Promise<Record<string, string>> {
  const res = await server.request('GET', '/openapi/v3');
  assert.equal(res.status, 200);
  return Object.fromEntries(Object.entries<any>(res.body.paths).map(([gv, p]) => [gv, p.serverRelativeURL]));
}

/** Waits until the index's address for `gv` satisfies `ready`, and returns the document there. */
async function documentOf(gv: string, ready: (url: string | undefined) => boolean = (u) => u !== undefined, timeoutMs = 5_000): Promise<{ url: string; doc: any }> {
  const url = await eventually(`${gv} in /openapi/v3`, async () => {
    const found = (await index())[gv];
    return ready(found) && found ? found : undefined;
  }, timeoutMs, 50);
  // Each process of the pool publishes on its own watch event: another may still hold the previous hash for a moment.
  const doc = await eventually(`${url} served`, async () => {
    const res = await server.request('GET', url);
    if (res.status === 301) return undefined;
    assert.equal(res.status, 200, res.text);
    return res.body;
  }, 2_000, 50);
  return { url, doc };
}

async function replaceCrd(change: (crd: any) => void): Promise<void> {
  for (;;) {
    const current = (await server.request('GET', `${CRDS}/crontabs.stable.example.com`)).body;
    change(current);
    const res = await server.request('PUT', `${CRDS}/crontabs.stable.example.com`, { body: current });
    if (res.status === 200) return;
    assert.equal(res.status, 409, res.text);
  }
}

before(async () => {
  server = await startTestServer(['--authorization-mode=AlwaysAllow']);
});
after(() => server?.close());

let firstUrl = '';
let v2Before = '';

test('an Established definition gets its group/version document within a second, with upstream paths and operations', async () => {
  const v2 = await server.request('GET', '/openapi/v2');
  v2Before = String(v2.headers.etag);
  const builtIn = await index();
  assert.equal(builtIn[GV], undefined);
  await expectWrite(server, 'POST', CRDS, cronTabCrd());
  await eventually('Established', async () => {
    const crd = (await server.request('GET', `${CRDS}/crontabs.stable.example.com`)).body;
    return crd.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  }, 10_000, 20);
  // Published within a second of the definition's change, by the reconcile that routes it.
  const { url, doc } = await documentOf(GV, undefined, 1_000);
  firstUrl = url;
  assert.match(url, /^\/openapi\/v3\/apis\/stable\.example\.com\/v1\?hash=[0-9A-F]{128}$/);
  assert.equal(doc.openapi, '3.0.0');
  assert.deepEqual(doc.info, { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' });
  const root = '/apis/stable.example.com/v1';
  const ns = `${root}/namespaces/{namespace}/crontabs`;
  assert.deepEqual(Object.keys(doc.paths), [`${root}/crontabs`, ns, `${ns}/{name}`, `${ns}/{name}/status`]);

  const operations = (path: string) =>
    Object.entries<any>(doc.paths[path])
      .filter(([method]) => method !== 'parameters')
      .map(([method, op]) => [method, op.operationId, op.description, op['x-kubernetes-action']]);
  assert.deepEqual(operations(`${root}/crontabs`), [['get', 'listStableExampleComV1CronTabForAllNamespaces', 'list objects of kind CronTab', 'list']]);
  assert.deepEqual(operations(ns), [
    ['get', 'listStableExampleComV1NamespacedCronTab', 'list objects of kind CronTab', 'list'],
    ['post', 'createStableExampleComV1NamespacedCronTab', 'create a CronTab', 'post'],
    ['delete', 'deleteStableExampleComV1CollectionNamespacedCronTab', 'delete collection of CronTab', 'deletecollection'],
  ]);
  assert.deepEqual(operations(`${ns}/{name}`), [
    ['get', 'readStableExampleComV1NamespacedCronTab', 'read the specified CronTab', 'get'],
    ['put', 'replaceStableExampleComV1NamespacedCronTab', 'replace the specified CronTab', 'put'],
    ['delete', 'deleteStableExampleComV1NamespacedCronTab', 'delete a CronTab', 'delete'],
    ['patch', 'patchStableExampleComV1NamespacedCronTab', 'partially update the specified CronTab', 'patch'],
  ]);
  assert.deepEqual(operations(`${ns}/{name}/status`), [
    ['get', 'readStableExampleComV1NamespacedCronTabStatus', 'read status of the specified CronTab', 'get'],
    ['put', 'replaceStableExampleComV1NamespacedCronTabStatus', 'replace status of the specified CronTab', 'put'],
    ['patch', 'patchStableExampleComV1NamespacedCronTabStatus', 'partially update status of the specified CronTab', 'patch'],
  ]);

  // Parameters every operation of a path takes sit on the path (kube-openapi findCommonParameters), sorted by name.
  const names = (params: any[] | undefined) => (params ?? []).map((p) => `${p.in}:${p.name}`);
  assert.deepEqual(names(doc.paths[`${root}/crontabs`].parameters), [
    'query:allowWatchBookmarks', 'query:continue', 'query:fieldSelector', 'query:labelSelector', 'query:limit', 'query:pretty',
    'query:resourceVersion', 'query:resourceVersionMatch', 'query:sendInitialEvents', 'query:timeoutSeconds', 'query:watch',
  ]);
  assert.equal(doc.paths[`${root}/crontabs`].get.parameters, undefined);
  assert.deepEqual(names(doc.paths[ns].parameters), ['path:namespace', 'query:pretty']);
  assert.deepEqual(names(doc.paths[ns].post.parameters), ['query:dryRun', 'query:fieldManager', 'query:fieldValidation']);
  assert.deepEqual(names(doc.paths[`${ns}/{name}`].parameters), ['path:name', 'path:namespace', 'query:pretty']);
  assert.deepEqual(names(doc.paths[`${ns}/{name}`].get.parameters), ['query:resourceVersion']);
  assert.deepEqual(names(doc.paths[`${ns}/{name}`].patch.parameters), ['query:dryRun', 'query:fieldManager', 'query:fieldValidation', 'query:force']);
  assert.deepEqual(names(doc.paths[`${ns}/{name}`].delete.parameters), ['query:dryRun', 'query:gracePeriodSeconds', 'query:orphanDependents', 'query:propagationPolicy']);
  const nameParam = doc.paths[`${ns}/{name}`].parameters[0];
  assert.deepEqual(nameParam, { description: 'name of the CronTab', in: 'path', name: 'name', required: true, schema: { type: 'string', uniqueItems: true } });

  const item = doc.paths[`${ns}/{name}`];
  const ref = (name: string) => ({ schema: { $ref: `#/components/schemas/${name}` } });
  // No strategic merge patch for custom resources (SPEC 4.5).
  assert.deepEqual(item.patch.requestBody, {
    content: { 'application/json-patch+json': ref(`${META}Patch`), 'application/merge-patch+json': ref(`${META}Patch`), 'application/apply-patch+yaml': ref(`${META}Patch`) },
    required: true,
  });
  assert.deepEqual(item.put.requestBody, { content: { 'application/json': ref(CRONTAB), 'application/yaml': ref(CRONTAB) }, required: true });
  assert.deepEqual(item.delete.requestBody, { content: { 'application/json': ref(`${META}DeleteOptions`), 'application/yaml': ref(`${META}DeleteOptions`) } });
  assert.deepEqual(Object.keys(doc.paths[ns].post.responses), ['200', '201', '202', '401']);
  assert.deepEqual(doc.paths[ns].post.responses['201'], { description: 'Created', content: { 'application/json': ref(CRONTAB), 'application/yaml': ref(CRONTAB) } });
  assert.deepEqual(doc.paths[ns].get.responses['200'].content['application/json'], ref(`${CRONTAB}List`));
  assert.deepEqual(doc.paths[ns].delete.responses['200'].content['application/yaml'], ref(`${META}Status`));
  assert.deepEqual(Object.keys(item.delete.responses), ['200', '202', '401']);
  assert.deepEqual(item.put.responses['401'], { description: 'Unauthorized' });
  assert.deepEqual(item.get.tags, ['stableExampleCom_v1']);
  assert.deepEqual(item.get['x-kubernetes-group-version-kind'], { group: 'stable.example.com', version: 'v1', kind: 'CronTab' });
});

test('the document holds the kind (its schema, unfolded), its list and the meta schemas they reference', async () => {
  const { doc } = await documentOf(GV);
  assert.deepEqual(Object.keys(doc.components.schemas), [
    CRONTAB,
    `${CRONTAB}List`,
    ...['DeleteOptions', 'FieldsV1', 'ListMeta', 'ManagedFieldsEntry', 'ObjectMeta', 'OwnerReference', 'Patch', 'Preconditions', 'Status', 'StatusCause', 'StatusDetails', 'Time'].map((n) => META + n),
  ]);
  const kind = doc.components.schemas[CRONTAB];
  assert.equal(kind.type, 'object');
  assert.equal(kind.description, 'CronTab runs a command on a schedule.');
  assert.deepEqual(Object.keys(kind.properties), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  assert.equal(kind.properties.apiVersion.type, 'string');
  assert.match(kind.properties.kind.description, /^Kind is a string value representing the REST resource/);
  assert.deepEqual(kind.properties.metadata, {
    $ref: `#/components/schemas/${META}ObjectMeta`,
    description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  });
  assert.deepEqual(kind['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }]);
  assert.deepEqual(kind['x-kubernetes-selectable-fields'], [{ fieldPath: 'spec.cronSpec' }]);
  const spec = kind.properties.spec;
  assert.deepEqual(spec.properties.cronSpec, { type: 'string', description: 'When to run, in cron syntax.', pattern: '^\\S+ \\S+ \\S+ \\S+ \\S+$' });
  assert.deepEqual(spec.properties.replicas, { type: 'integer', minimum: 1, maximum: 10, default: 1 });
  // Unfolded int-or-string; `nullable: false` is not written (upstream's omitempty).
  assert.deepEqual(spec.properties.port, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
  assert.deepEqual(spec.properties.note, { type: 'string', nullable: true });
  assert.deepEqual(spec.properties.mode.anyOf, [{ enum: ['a'] }, { enum: ['b'] }]);
  assert.equal(spec.properties.ports['x-kubernetes-list-type'], 'map');
  assert.deepEqual(spec.properties.ports['x-kubernetes-list-map-keys'], ['name']);
  assert.deepEqual(spec['x-kubernetes-validations'], [{ rule: 'self.replicas <= 10', message: 'too many' }]);
  assert.ok(Object.hasOwn(spec.properties, '__proto__'));
  assert.deepEqual(spec.properties['__proto__'], { type: 'string', description: 'a key like any other' });
  // An embedded resource shows apiVersion, kind and metadata, and requires the first two.
  const template = spec.properties.template;
  assert.deepEqual(Object.keys(template.properties), ['apiVersion', 'kind', 'metadata']);
  assert.deepEqual(template.required, ['kind', 'apiVersion']);
  assert.equal(template.properties.metadata.$ref, `#/components/schemas/${META}ObjectMeta`);

  const list = doc.components.schemas[`${CRONTAB}List`];
  assert.equal(list.description, 'CronTabList is a list of CronTab');
  assert.deepEqual(list.required, ['items']);
  assert.deepEqual(list.properties.items, {
    description: 'List of crontabs. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md',
    type: 'array',
    items: { $ref: `#/components/schemas/${CRONTAB}` },
  });
  assert.equal(list.properties.metadata.$ref, `#/components/schemas/${META}ListMeta`);
  assert.deepEqual(list['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'CronTabList', version: 'v1' }]);
  // The meta schemas are the built-in documents' own.
  const builtIn = (await server.request('GET', (await index())['apis/apiextensions.orch.io/v1'])).body;
  assert.deepEqual(doc.components.schemas[`${META}ObjectMeta`], builtIn.components.schemas[`${META}ObjectMeta`]);
});

test('/openapi/v2 merges the definition: its paths and a v2 schema, with a new ETag', async () => {
  const res = await eventually('v2 with crontabs', async () => {
    const r = await server.request('GET', '/openapi/v2');
    return r.body.definitions[CRONTAB] ? r : undefined;
  });
  assert.notEqual(res.headers.etag, v2Before);
  assert.match(String(res.headers.etag), /^"[0-9A-F]{128}"$/);
  const v2 = res.body;
  assert.equal(v2.swagger, '2.0');
  assert.ok(v2.paths['/apis/networking.orch.io/v1/namespaces/{namespace}/networkpolicies'], 'built-in paths stay');
  assert.ok(v2.definitions[`${META}ObjectMeta`]);
  const item = v2.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}'];
  assert.deepEqual(item.parameters.map((p: any) => p.name), ['name', 'namespace', 'pretty']);
  assert.deepEqual(item.parameters[0], { description: 'name of the CronTab', in: 'path', name: 'name', required: true, type: 'string', uniqueItems: true });
  assert.deepEqual(item.patch.consumes, ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  assert.deepEqual(item.patch.produces, ['application/json', 'application/yaml']);
  assert.deepEqual(item.get.consumes, ['application/json', 'application/yaml']);
  assert.deepEqual(item.patch.schemes, ['https']);
  assert.equal(item.patch.operationId, 'patchStableExampleComV1NamespacedCronTab');
  assert.deepEqual(item.patch.parameters.find((p: any) => p.in === 'body'), { in: 'body', name: 'body', required: true, schema: { $ref: `#/definitions/${META}Patch` } });
  assert.deepEqual(item.delete.parameters.find((p: any) => p.in === 'body'), { in: 'body', name: 'body', schema: { $ref: `#/definitions/${META}DeleteOptions` } });
  assert.deepEqual(item.get.responses['200'], { description: 'OK', schema: { $ref: `#/definitions/${CRONTAB}` } });

  const kind = v2.definitions[CRONTAB];
  assert.deepEqual(kind.properties.metadata, { $ref: `#/definitions/${META}ObjectMeta`, description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata" });
  const spec = kind.properties.spec;
  // v2 conversion (upstream ToStructuralOpenAPIV2): no junctors, nullable fields lose their type and are not required.
  assert.deepEqual(spec.properties.port, { 'x-kubernetes-int-or-string': true });
  assert.deepEqual(spec.properties.note, {});
  assert.deepEqual(spec.required, ['cronSpec']);
  assert.deepEqual(spec.properties.mode, { type: 'string' });
  assert.ok(Object.hasOwn(spec.properties, '__proto__'));
  // A field that keeps unknown fields has no properties and no type in v2; nor gets embedded metadata.
  assert.deepEqual(spec.properties.extra, { 'x-kubernetes-preserve-unknown-fields': true });
  assert.deepEqual(spec.properties.template, { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true });
  assert.equal(v2.definitions[`${CRONTAB}List`].properties.items.items.$ref, `#/definitions/${CRONTAB}`);
});

test('a change of the definition changes the hash; the old address is redirected to the new one', async () => {
  await replaceCrd((crd) => {
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.cronSpec.description = 'When to run.';
  });
  const { url, doc } = await documentOf(GV, (u) => u !== undefined && u !== firstUrl);
  assert.equal(doc.components.schemas[CRONTAB].properties.spec.properties.cronSpec.description, 'When to run.');
  const stale = await server.request('GET', firstUrl);
  assert.equal(stale.status, 301);
  assert.equal(stale.headers.location, url);
  const fresh = await server.request('GET', url);
  assert.equal(fresh.status, 200);
  assert.equal(fresh.headers['cache-control'], 'public, immutable');
  assert.equal(fresh.headers.etag, `"${url.split('hash=')[1]}"`);
  // Only JSON is offered, as for the built-in documents.
  const protobuf = await server.request('GET', url, { headers: { accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' } });
  assert.equal(protobuf.status, 406);
  assert.equal(protobuf.body.reason, 'NotAcceptable');
  // Without a hash the document is served as is, not cached forever.
  const plain = await server.request('GET', `/openapi/v3/${GV}`);
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['cache-control'], undefined);
  assert.deepEqual(plain.body, doc);
});

test('several definitions of one group/version share one document', async () => {
  await expectWrite(server, 'POST', CRDS, {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'clocks.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Cluster',
      names: { plural: 'clocks', kind: 'Clock' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  });
  const settled = await eventually('both kinds', async () => {
    const current = (await server.request('GET', (await index())[GV])).body;
    return current?.components?.schemas['com.example.stable.v1.Clock'] ? current : undefined;
  });
  const root = '/apis/stable.example.com/v1';
  assert.ok(settled.paths[`${root}/namespaces/{namespace}/crontabs`]);
  assert.deepEqual(Object.keys(settled.paths).filter((p) => p.includes('clocks')), [`${root}/clocks`, `${root}/clocks/{name}`]);
  assert.equal(settled.paths[`${root}/clocks`].get.operationId, 'listStableExampleComV1Clock');
  assert.equal(settled.paths[`${root}/clocks`].delete.operationId, 'deleteStableExampleComV1CollectionClock');
  assert.deepEqual(settled.paths[`${root}/clocks`].parameters.map((p: any) => p.name), ['pretty']);
  const clock = settled.components.schemas['com.example.stable.v1.Clock'];
  assert.equal(clock['x-kubernetes-preserve-unknown-fields'], true);
  assert.deepEqual(Object.keys(clock.properties), ['apiVersion', 'kind', 'metadata']);
  assert.equal(settled.components.schemas['com.example.stable.v1.ClockList'].description, 'ClockList is a list of Clock');
  // In v2 a kind whose root keeps unknown fields is only an object (upstream buildKubeNative).
  const v2 = await eventually('clock in v2', async () => (await server.request('GET', '/openapi/v2')).body.definitions['com.example.stable.v1.Clock']);
  assert.deepEqual(v2, { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'stable.example.com', kind: 'Clock', version: 'v1' }] });
  const deleted = await server.request('DELETE', `${CRDS}/clocks.stable.example.com`);
  assert.equal(deleted.status, 200, deleted.text);
  await eventually('clocks gone', async () => {
    const current = (await server.request('GET', (await index())[GV])).body;
    return current?.components && !current.components.schemas['com.example.stable.v1.Clock'] ? true : undefined;
  });
});

test('a definition in a built-in group/version joins its document; one naming a built-in resource is not published', async () => {
  const NETWORKING = 'apis/networking.orch.io/v1';
  const builtIn = await documentOf(NETWORKING);
  const crd = (plural: string, kind: string) => ({
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.networking.orch.io`, annotations: { 'api-approved.orch.io': 'https://example.com/approvals/1' } },
    spec: {
      group: 'networking.orch.io',
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }],
    },
  });
  // The built-in resource stays the built-in's (upstream delegates to custom resources last): nothing of this one is published.
  await expectWrite(server, 'POST', CRDS, crd('networkpolicies', 'NetworkPolicy'));
  await expectWrite(server, 'POST', CRDS, crd('gizmos', 'Gizmo'));
  const { url, doc } = await documentOf(NETWORKING, (u) => u !== undefined && u !== builtIn.url);
  const root = '/apis/networking.orch.io/v1/namespaces/{namespace}';
  assert.ok(doc.paths[`${root}/gizmos/{name}`]);
  assert.equal(doc.paths[`${root}/gizmos/{name}`].get.operationId, 'readNetworkingV1NamespacedGizmo');
  assert.ok(doc.paths[`${root}/networkpolicies/{name}`], 'the built-in paths stay');
  assert.deepEqual(doc.paths[`${root}/networkpolicies/{name}`], builtIn.doc.paths[`${root}/networkpolicies/{name}`]);
  assert.ok(doc.components.schemas['io.orch.networking.v1.Gizmo']);
  assert.ok(doc.components.schemas['io.orch.api.networking.v1.NetworkPolicy']);
  assert.equal(doc.components.schemas['io.orch.networking.v1.NetworkPolicy'], undefined);
  assert.equal((await server.request('GET', '/apis/networking.orch.io/v1/namespaces/default/networkpolicies')).body.kind, 'NetworkPolicyList');

  for (const plural of ['networkpolicies', 'gizmos']) assert.equal((await server.request('DELETE', `${CRDS}/${plural}.networking.orch.io`)).status, 200);
  const restored = await documentOf(NETWORKING, (u) => u === builtIn.url);
  assert.notEqual(restored.url, url);
  assert.deepEqual(restored.doc, builtIn.doc);
});

test('a version no longer served leaves the index; a deleted definition leaves both documents', async () => {
  await replaceCrd((crd) => {
    // Same schema and fields as v1 (upstream then hoists them to the spec, so selectableFields validate).
    crd.spec.versions = [{ ...crd.spec.versions[0], served: false }, { ...crd.spec.versions[0], name: 'v2', storage: false }];
  });
  const { doc } = await documentOf('apis/stable.example.com/v2');
  assert.ok(doc.components.schemas['com.example.stable.v2.CronTab']);
  assert.ok(doc.paths['/apis/stable.example.com/v2/namespaces/{namespace}/crontabs/{name}/status']);
  await eventually('v1 gone from the index', async () => ((await index())[GV] === undefined ? true : undefined), 5_000, 50);
  assert.equal((await server.request('GET', `/openapi/v3/${GV}`)).status, 404);
  const v2Doc = (await server.request('GET', '/openapi/v2')).body;
  assert.equal(v2Doc.definitions[CRONTAB], undefined);
  assert.ok(v2Doc.definitions['com.example.stable.v2.CronTab']);

  const deleted = await server.request('DELETE', `${CRDS}/crontabs.stable.example.com`);
  assert.equal(deleted.status, 200, deleted.text);
  await eventually('v2 gone from the index', async () => ((await index())['apis/stable.example.com/v2'] === undefined ? true : undefined), 5_000, 50);
  assert.equal((await server.request('GET', '/openapi/v3/apis/stable.example.com/v2')).status, 404);
  const after = await server.request('GET', '/openapi/v2');
  assert.equal(after.body.definitions['com.example.stable.v2.CronTab'], undefined);
  assert.equal(Object.keys(after.body.paths).some((p) => p.includes('stable.example.com')), false);
  assert.equal(after.headers.etag, v2Before, 'the built-in document again');
});
