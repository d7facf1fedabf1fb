/**
 * The named groups' single-version kinds served from the contract (SPEC 9.7,
 * issue 12): discovery.orch.io/v1 EndpointSlice, policy/v1 PodDisruptionBudget,
 * node.orch.io/v1 RuntimeClass, storage.orch.io/v1 StorageClass,
 * VolumeAttachment, CSIDriver, CSINode, CSIStorageCapacity and
 * networking.orch.io/v1 Ingress and IngressClass: writes, reads and watches,
 * defaults, validation, discovery, OpenAPI, Tables and kubectl against one real
 * server on SQLite.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';
import { openWatch } from './helpers/watch.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server?.stop();
});

const TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';
const MERGE = { 'content-type': 'application/merge-patch+json' };

interface KindCase {
  path: string;
  object: (name: string) => Record<string, any>;
  patch: Record<string, any>;
  patched: (obj: any) => unknown;
  expected: unknown;
}

const backend = { service: { name: 'web', port: { number: 80 } } };
const KINDS: Record<string, KindCase> = {
  EndpointSlice: {
    path: '/apis/discovery.orch.io/v1/namespaces/default/endpointslices',
    object: (name) => ({ apiVersion: 'discovery.orch.io/v1', kind: 'EndpointSlice', metadata: { name }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }] }),
    patch: { endpoints: [{ addresses: ['10.0.0.2'] }] },
    patched: (o) => o.endpoints[0].addresses[0],
    expected: '10.0.0.2',
  },
  PodDisruptionBudget: {
    path: '/apis/policy/v1/namespaces/default/poddisruptionbudgets',
    object: (name) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: { app: name } } } }),
    patch: { spec: { minAvailable: '50%' } },
    patched: (o) => o.spec.minAvailable,
    expected: '50%',
  },
  RuntimeClass: {
    path: '/apis/node.orch.io/v1/runtimeclasses',
    object: (name) => ({ apiVersion: 'node.orch.io/v1', kind: 'RuntimeClass', metadata: { name }, handler: 'runc' }),
    patch: { metadata: { labels: { tier: 'gold' } } },
    patched: (o) => o.metadata.labels.tier,
    expected: 'gold',
  },
  StorageClass: {
    path: '/apis/storage.orch.io/v1/storageclasses',
    object: (name) => ({ apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/disk' }),
    patch: { allowVolumeExpansion: true },
    patched: (o) => o.allowVolumeExpansion,
    expected: true,
  },
  VolumeAttachment: {
    path: '/apis/storage.orch.io/v1/volumeattachments',
    object: (name) => ({ apiVersion: 'storage.orch.io/v1', kind: 'VolumeAttachment', metadata: { name }, spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } } }),
    patch: { metadata: { annotations: { note: 'x' } } },
    patched: (o) => o.metadata.annotations.note,
    expected: 'x',
  },
  CSIDriver: {
    path: '/apis/storage.orch.io/v1/csidrivers',
    object: (name) => ({ apiVersion: 'storage.orch.io/v1', kind: 'CSIDriver', metadata: { name: `${name}.csi.example.com` }, spec: {} }),
    patch: { spec: { podInfoOnMount: true } },
    patched: (o) => o.spec.podInfoOnMount,
    expected: true,
  },
  CSINode: {
    path: '/apis/storage.orch.io/v1/csinodes',
    object: (name) => ({ apiVersion: 'storage.orch.io/v1', kind: 'CSINode', metadata: { name }, spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1' }] } }),
    patch: { metadata: { labels: { zone: 'a' } } },
    patched: (o) => o.metadata.labels.zone,
    expected: 'a',
  },
  CSIStorageCapacity: {
    path: '/apis/storage.orch.io/v1/namespaces/default/csistoragecapacities',
    object: (name) => ({ apiVersion: 'storage.orch.io/v1', kind: 'CSIStorageCapacity', metadata: { name }, storageClassName: 'fast', capacity: '10Gi' }),
    patch: { capacity: '20Gi' },
    patched: (o) => o.capacity,
    expected: '20Gi',
  },
  Ingress: {
    path: '/apis/networking.orch.io/v1/namespaces/default/ingresses',
    object: (name) => ({ apiVersion: 'networking.orch.io/v1', kind: 'Ingress', metadata: { name }, spec: { rules: [{ host: 'foo.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }] } }),
    patch: { spec: { ingressClassName: 'nginx' } },
    patched: (o) => o.spec.ingressClassName,
    expected: 'nginx',
  },
  IngressClass: {
    path: '/apis/networking.orch.io/v1/ingressclasses',
    object: (name) => ({ apiVersion: 'networking.orch.io/v1', kind: 'IngressClass', metadata: { name }, spec: { controller: 'example.com/ingress' } }),
    patch: { metadata: { labels: { a: 'b' } } },
    patched: (o) => o.metadata.labels.a,
    expected: 'b',
  },
};

/** The 422's causes as `field: message` lines. */
async function causes(path: string, body: unknown, method = 'POST'): Promise<string[]> {
  const res = await server.request(method, path, { body });
  assert.equal(res.status, 422, res.text);
  assert.equal(res.body.reason, 'Invalid');
  return res.body.details.causes.map((c: any) => `${c.field}: ${c.message}`);
}

const nameOf = (kind: string, base: string) => (kind === 'CSIDriver' ? `${base}.csi.example.com` : base);

for (const [kind, c] of Object.entries(KINDS)) {
  test(`${kind}: create, get, list, watch and merge patch`, async () => {
    const created = await server.request('POST', c.path, { body: c.object('one') });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.kind, kind);
    const name = nameOf(kind, 'one');
    const got = await server.request('GET', `${c.path}/${name}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.metadata.uid, created.body.metadata.uid);
    const list = await server.request('GET', c.path);
    assert.equal(list.body.kind, `${kind}List`);
    assert.ok(list.body.items.some((i: any) => i.metadata.name === name));
    const watch = openWatch(server, `${c.path}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
    try {
      assert.equal(await watch.status, 200);
      const patched = await server.request('PATCH', `${c.path}/${name}`, { body: c.patch, headers: MERGE });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(c.patched(patched.body), c.expected);
      const events = await watch.waitFor(1);
      assert.deepEqual([events[0].type, events[0].object.kind, events[0].object.metadata.name], ['MODIFIED', kind, name]);
    } finally {
      watch.close();
    }
    assert.equal((await server.request('DELETE', `${c.path}/${name}`)).status, 200);
  });
}
