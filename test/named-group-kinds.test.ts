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
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';
import { openWatch } from './helpers/watch.ts';
import { eventually } from './helpers/eventually.ts';

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

test('update rules per kind: RuntimeClass PUT creates; PodDisruptionBudget and the CSI kinds need a resourceVersion', async () => {
  const rc = await server.request('PUT', `${KINDS.RuntimeClass.path}/put-made`, { body: KINDS.RuntimeClass.object('put-made') });
  assert.equal(rc.status, 201, rc.text);
  const noVersion = await server.request('PUT', `${KINDS.RuntimeClass.path}/put-made`, { body: KINDS.RuntimeClass.object('put-made') });
  assert.equal(noVersion.status, 422, noVersion.text);
  assert.deepEqual(noVersion.body.details.causes.map((c: any) => c.field), ['metadata.resourceVersion']);
  for (const kind of ['PodDisruptionBudget', 'VolumeAttachment', 'CSIDriver', 'CSINode', 'CSIStorageCapacity']) {
    const c = KINDS[kind];
    const created = await server.request('POST', c.path, { body: c.object('conditional') });
    assert.equal(created.status, 201, created.text);
    const name = nameOf(kind, 'conditional');
    const put = await server.request('PUT', `${c.path}/${name}`, { body: { ...c.object('conditional'), metadata: { name } } });
    assert.equal(put.status, 422, `${kind}: ${put.text}`);
    const withVersion = await server.request('PUT', `${c.path}/${name}`, { body: created.body });
    assert.equal(withVersion.status, 200, `${kind}: ${withVersion.text}`);
  }
  const sc = await server.request('POST', KINDS.StorageClass.path, { body: KINDS.StorageClass.object('unconditional') });
  assert.equal((await server.request('PUT', `${KINDS.StorageClass.path}/unconditional`, { body: KINDS.StorageClass.object('unconditional') })).status, 200, sc.text);
  assert.equal((await server.request('PUT', `${KINDS.StorageClass.path}/put-missing`, { body: KINDS.StorageClass.object('put-missing') })).status, 404);
});

test('defaults: StorageClass, CSIDriver, EndpointSlice ports, IngressClass parameters; status and generation', async () => {
  const sc = await server.request('POST', KINDS.StorageClass.path, { body: KINDS.StorageClass.object('defaulted') });
  assert.equal(sc.body.reclaimPolicy, 'Delete');
  assert.equal(sc.body.volumeBindingMode, 'Immediate');
  const driver = await server.request('POST', KINDS.CSIDriver.path, { body: { ...KINDS.CSIDriver.object('defaulted'), spec: { volumeLifecycleModes: [] } } });
  assert.deepEqual(driver.body.spec, {
    attachRequired: true,
    podInfoOnMount: false,
    volumeLifecycleModes: ['Persistent'],
    storageCapacity: false,
    fsGroupPolicy: 'ReadWriteOnceWithFSType',
    requiresRepublish: false,
    seLinuxMount: false,
  });
  assert.equal(driver.body.metadata.generation, undefined);
  const driverPatched = await server.request('PATCH', `${KINDS.CSIDriver.path}/defaulted.csi.example.com`, { body: { spec: { podInfoOnMount: true } }, headers: MERGE });
  assert.equal(driverPatched.body.metadata.generation, 1, driverPatched.text);
  const slice = await server.request('POST', KINDS.EndpointSlice.path, { body: KINDS.EndpointSlice.object('defaulted') });
  assert.deepEqual(slice.body.ports, [{ name: '', protocol: 'TCP', port: 80 }]);
  assert.equal(slice.body.metadata.generation, 1);
  // The v1 API drops deprecatedTopology writes; a label change bumps generation.
  const topology = await server.request('PATCH', `${KINDS.EndpointSlice.path}/defaulted`, {
    body: { metadata: { labels: { a: 'b' } }, endpoints: [{ addresses: ['10.0.0.9'], deprecatedTopology: { 'orch.io/hostname': 'node-1' } }] },
    headers: MERGE,
  });
  assert.deepEqual([topology.body.endpoints, topology.body.metadata.generation], [[{ addresses: ['10.0.0.9'], conditions: {} }], 2]);
  const relabelled = await server.request('PATCH', `${KINDS.EndpointSlice.path}/defaulted`, { body: { metadata: { labels: { a: 'c' } } }, headers: MERGE });
  assert.equal(relabelled.body.metadata.generation, 3);
  const ic = await server.request('POST', KINDS.IngressClass.path, { body: { ...KINDS.IngressClass.object('defaulted'), spec: { controller: 'example.com/ingress', parameters: { kind: 'Config', name: 'c' } } } });
  assert.equal(ic.body.spec.parameters.scope, 'Cluster');
  assert.equal(ic.body.metadata.generation, 1);
  const icPatched = await server.request('PATCH', `${KINDS.IngressClass.path}/defaulted`, { body: { spec: { parameters: { name: 'd' } } }, headers: MERGE });
  assert.equal(icPatched.body.metadata.generation, 2, icPatched.text);
  const pdb = await server.request('POST', KINDS.PodDisruptionBudget.path, { body: { ...KINDS.PodDisruptionBudget.object('defaulted'), status: { disruptionsAllowed: 5 } } });
  // The counts are plain int32s upstream: an empty status prints them as 0.
  assert.deepEqual([pdb.body.status, pdb.body.metadata.generation], [{ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }, 1]);
  const va = await server.request('POST', KINDS.VolumeAttachment.path, { body: { ...KINDS.VolumeAttachment.object('defaulted'), status: { attached: true } } });
  assert.deepEqual(va.body.status, { attached: false });
  // A write to the main resource keeps status; /status changes it; a spec change bumps generation.
  const path = `${KINDS.PodDisruptionBudget.path}/defaulted`;
  const status = await server.request('PATCH', `${path}/status`, { body: { status: { disruptionsAllowed: 2 } }, headers: MERGE });
  assert.equal(status.body.status.disruptionsAllowed, 2, status.text);
  const spec = await server.request('PATCH', path, { body: { spec: { minAvailable: 2 }, status: { disruptionsAllowed: 9 } }, headers: MERGE });
  assert.deepEqual([spec.body.status.disruptionsAllowed, spec.body.metadata.generation], [2, 2]);
  const negative = await server.request('PATCH', `${path}/status`, { body: { status: { disruptionsAllowed: -1 } }, headers: MERGE });
  assert.equal(negative.status, 422);
  assert.equal(negative.body.details.causes[0].field, 'status.disruptionsAllowed');
  const conditions = await server.request('PATCH', `${path}/status`, { body: { status: { conditions: [{ type: 'DisruptionAllowed', status: 'Maybe', reason: '1bad', lastTransitionTime: '2024-01-01T00:00:00Z', message: '' }] } }, headers: MERGE });
  assert.deepEqual(conditions.body.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
    'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
    "status.conditions[0].reason: Invalid value: \"1bad\": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
  ]);
});

test('validation answers 422 with upstream paths and words', async () => {
  const { path: slices, object: slice } = KINDS.EndpointSlice;
  assert.deepEqual(await causes(slices, { ...slice('badtype'), addressType: 'IP' }), ['addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"']);
  assert.deepEqual(await causes(slices, { ...slice('badaddr'), endpoints: [{ addresses: ['2001:db8::1'] }] }), ['endpoints[0].addresses[0]: Invalid value: "2001:db8::1": must be a valid IPv4 address']);
  assert.deepEqual(await causes(slices, { ...slice('loop'), endpoints: [{ addresses: ['127.0.0.1'] }] }), ['endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)']);
  assert.deepEqual(await causes(slices, { ...slice('fqdn'), addressType: 'FQDN', endpoints: [{ addresses: ['host'] }] }), ['endpoints[0].addresses[0]: Invalid value: "host": should be a domain with at least two segments separated by dots']);
  assert.deepEqual(await causes(slices, { ...slice('many'), endpoints: Array.from({ length: 1001 }, () => ({ addresses: ['10.0.0.1'] })) }), ['endpoints: Too many: 1001: must have at most 1000 items']);
  assert.deepEqual(await causes(slices, { ...slice('ports'), ports: Array.from({ length: 20001 }, () => ({ port: 1 })) }), ['ports: Too many: 20001: must have at most 20000 items']);
  assert.deepEqual(await causes(slices, { ...slice('dup'), ports: [{ port: 1 }, { port: 2 }] }), ['ports[1].name: Duplicate value: ""']);
  await server.request('POST', slices, { body: slice('fixed') });
  assert.deepEqual(await causes(`${slices}/fixed`, { ...slice('fixed'), addressType: 'IPv6', endpoints: [{ addresses: ['2001:db8::1'] }] }, 'PUT'), ['addressType: Invalid value: "IPv6": field is immutable']);

  const { path: pdbs, object: pdb } = KINDS.PodDisruptionBudget;
  assert.deepEqual(await causes(pdbs, { ...pdb('both'), spec: { minAvailable: 1, maxUnavailable: 1 } }), [
    'spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000000000), Selector:(*v1.LabelSelector)(nil), MaxUnavailable:(*intstr.IntOrString)(0xc000000000), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable cannot be both set',
  ]);
  assert.deepEqual(await causes(pdbs, { ...pdb('pct'), spec: { maxUnavailable: '150%' } }), ['spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%']);
  assert.deepEqual(await causes(pdbs, { ...pdb('neg'), spec: { minAvailable: -1 } }), ['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0']);
  assert.deepEqual(await causes(pdbs, { ...pdb('sel'), spec: { selector: { matchLabels: { 'a b': 'x' } } } }), [
    "spec.selector.matchLabels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);

  const { path: rcs, object: rc } = KINDS.RuntimeClass;
  assert.match((await causes(rcs, { ...rc('badhandler'), handler: 'Run_C' }))[0], /^handler: Invalid value: "Run_C": a lowercase RFC 1123 label/);
  assert.deepEqual(await causes(rcs, { ...rc('overhead'), overhead: { podFixed: { cpu: '-1', gpu: '1' } } }), [
    'overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    'overhead.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
  ]);
  await server.request('POST', rcs, { body: rc('fixed') });
  const rcPatch = await server.request('PATCH', `${rcs}/fixed`, { body: { handler: 'crun' }, headers: MERGE });
  assert.deepEqual(rcPatch.body.details.causes.map((c: any) => `${c.field}: ${c.message}`), ['handler: Invalid value: "crun": field is immutable']);

  const { path: scs, object: sc } = KINDS.StorageClass;
  assert.deepEqual(await causes(scs, { ...sc('noprov'), provisioner: '' }), ['provisioner: Required value']);
  assert.deepEqual(await causes(scs, { ...sc('mode'), volumeBindingMode: 'Later' }), ['volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"']);
  await server.request('POST', scs, { body: { ...sc('fixed'), parameters: { type: 'ssd' } } });
  const scPatch = await server.request('PATCH', `${scs}/fixed`, { body: { provisioner: 'other.com/x', parameters: { type: 'hdd' } }, headers: MERGE });
  assert.deepEqual(scPatch.body.details.causes.map((c: any) => `${c.field}: ${c.message}`), ['parameters: Forbidden: updates to parameters are forbidden.', 'provisioner: Forbidden: updates to provisioner are forbidden.']);

  const { path: vas, object: va } = KINDS.VolumeAttachment;
  assert.deepEqual(await causes(vas, { ...va('nosource'), spec: { attacher: 'csi.example.com', nodeName: 'n', source: {} } }), ['spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName']);
  assert.deepEqual(await causes(vas, { ...va('twosources'), spec: { attacher: 'csi.example.com', nodeName: 'n', source: { persistentVolumeName: 'pv', inlineVolumeSpec: {} } } }), [
    'spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
  ]);
  assert.match((await causes(vas, { ...va('nonode'), spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv' } } }))[0], /^spec\.nodeName: Invalid value: "": a lowercase RFC 1123 subdomain/);
  await server.request('POST', vas, { body: va('fixed') });
  const vaPatch = await server.request('PATCH', `${vas}/fixed`, { body: { spec: { nodeName: 'node-2' } }, headers: MERGE });
  assert.deepEqual(vaPatch.body.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
    'spec: Invalid value: storage.VolumeAttachmentSpec{Attacher:"csi.example.com", Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)(0xc000000000), InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"node-2"}: field is immutable',
  ]);

  const { path: drivers, object: driver } = KINDS.CSIDriver;
  assert.deepEqual(await causes(drivers, { ...driver('modes'), spec: { volumeLifecycleModes: ['Forever'] } }), ['spec.volumeLifecycleModes: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"']);
  await server.request('POST', drivers, { body: driver('fixed') });
  const driverPatch = await server.request('PATCH', `${drivers}/fixed.csi.example.com`, { body: { spec: { attachRequired: false } }, headers: MERGE });
  assert.deepEqual(driverPatch.body.details.causes.map((c: any) => `${c.field}: ${c.message}`), ['spec.attachedRequired: Invalid value: false: field is immutable']);

  const { path: nodes, object: node } = KINDS.CSINode;
  assert.deepEqual(await causes(nodes, { ...node('dup'), spec: { drivers: [{ name: 'a.example.com', nodeID: '1' }, { name: 'a.example.com', nodeID: '' }] } }), [
    'spec.drivers[1].nodeID: Required value',
    'spec.drivers[1].name: Duplicate value: "a.example.com"',
  ]);
  await server.request('POST', nodes, { body: node('fixed') });
  const nodePatch = await server.request('PATCH', `${nodes}/fixed`, { body: { spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n2' }] } }, headers: MERGE });
  assert.deepEqual(nodePatch.body.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
    'spec.drivers: Invalid value: storage.CSINodeDriver{Name:"csi.example.com", NodeID:"n2", TopologyKeys:[]string(nil), Allocatable:(*storage.VolumeNodeResources)(nil)}: field is immutable',
  ]);
  const topology = (values: string[]) => ({ matchLabelExpressions: [{ key: 'zone', values }] });
  assert.deepEqual(await causes(scs, { ...sc('topology'), allowedTopologies: [topology([]), topology(['a', 'a'])] }), [
    'allowedTopologies[0].matchLabelExpressions[0].values: Required value',
    'allowedTopologies[1].matchLabelExpressions[0].values[1]: Duplicate value: "a"',
  ]);
  assert.deepEqual(await causes(scs, { ...sc('sametopology'), allowedTopologies: [topology(['a', 'b']), topology(['b', 'a'])] }), ['allowedTopologies[1].matchLabelExpressions: Duplicate value: ""']);
  const { path: capacities, object: capacity } = KINDS.CSIStorageCapacity;
  assert.deepEqual(await causes(capacities, { ...capacity('neg'), capacity: '-1Gi' }), ['capacity: Invalid value: "-1Gi": must be greater than or equal to 0']);

  const { path: ingresses, object: ingress } = KINDS.Ingress;
  const withPath = (name: string, p: Record<string, any>) => ({ ...ingress(name), spec: { rules: [{ host: 'foo.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend, ...p }] } }] } });
  assert.deepEqual(await causes(ingresses, { ...ingress('empty'), spec: {} }), ['spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified']);
  assert.deepEqual(await causes(ingresses, withPath('notype', { pathType: undefined })), ['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified']);
  assert.deepEqual(await causes(ingresses, withPath('badtype', { pathType: 'Regex' })), ['spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"']);
  assert.deepEqual(await causes(ingresses, withPath('relative', { path: 'foo' })), ['spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path']);
  assert.deepEqual(await causes(ingresses, withPath('both', { backend: { ...backend, resource: { kind: 'Bucket', name: 'b' } } })), [
    'spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both resource and service backends',
  ]);
  assert.deepEqual(await causes(ingresses, withPath('noport', { backend: { service: { name: 'web', port: {} } } })), ['spec.rules[0].http.paths[0].backend: Required value: port name or number is required']);
  const wildcard = await causes(ingresses, { ...ingress('wild'), spec: { rules: [{ host: 'foo.*.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }] } });
  assert.match(wildcard[0], /^spec\.rules\[0\]\.host: Invalid value: "foo\.\*\.com": a wildcard DNS-1123 subdomain must start with '\*\.'/);
  assert.deepEqual(await causes(ingresses, { ...ingress('ip'), spec: { rules: [{ host: '10.0.0.1' }] } }), ['spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address']);
  assert.deepEqual(await causes(ingresses, { ...withPath('both-class', {}), metadata: { name: 'both-class', annotations: { 'orch.io/ingress.class': 'a' } }, spec: { ...withPath('x', {}).spec, ingressClassName: 'b' } }), [
    'annotations.orch.io/ingress.class: Invalid value: "a": can not be set when the class field is also set',
  ]);
  await server.request('POST', ingresses, { body: withPath('lb', {}) });
  const badStatus = await server.request('PATCH', `${ingresses}/lb/status`, { body: { status: { loadBalancer: { ingress: [{ ip: 'not-an-ip' }, { hostname: '10.0.0.1' }] } } }, headers: MERGE });
  assert.deepEqual(badStatus.body.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
    'status.loadBalancer.ingress[0].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'status.loadBalancer.ingress[1].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
  ]);
  const wildOk = await server.request('POST', ingresses, { body: { ...ingress('wildok'), spec: { rules: [{ host: '*.foo.com', http: { paths: [{ path: '/', pathType: 'Exact', backend }] } }] } } });
  assert.equal(wildOk.status, 201, wildOk.text);

  const { path: classes, object: cls } = KINDS.IngressClass;
  assert.deepEqual(await causes(classes, { ...cls('nocontroller'), spec: {} }), ['spec.controller: Required value']);
  assert.deepEqual(await causes(classes, { ...cls('scope'), spec: { controller: 'example.com/x', parameters: { kind: 'K', name: 'n', scope: 'Namespace' } } }), [
    "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
  ]);
  assert.deepEqual(await causes(classes, { ...cls('clusterns'), spec: { controller: 'example.com/x', parameters: { kind: 'K', name: 'n', namespace: 'default' } } }), [
    "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'",
  ]);
  await server.request('POST', classes, { body: cls('fixed') });
  const classPatch = await server.request('PATCH', `${classes}/fixed`, { body: { spec: { controller: 'example.com/other' } }, headers: MERGE });
  assert.deepEqual(classPatch.body.details.causes.map((c: any) => `${c.field}: ${c.message}`), ['spec.controller: Invalid value: "example.com/other": field is immutable']);
});

test('discovery lists the groups with their versions and short names; OpenAPI v3 has their documents', async () => {
  const groups = await server.request('GET', '/apis');
  for (const [group, version] of [['discovery.orch.io', 'discovery.orch.io/v1'], ['policy', 'policy/v1'], ['node.orch.io', 'node.orch.io/v1'], ['storage.orch.io', 'storage.orch.io/v1']]) {
    const entry = groups.body.groups.find((g: any) => g.name === group);
    assert.deepEqual(entry?.versions, [{ groupVersion: version, version: 'v1' }], group);
  }
  const storage = await server.request('GET', '/apis/storage.orch.io/v1');
  assert.deepEqual(
    storage.body.resources.map((r: any) => [r.name, r.namespaced, r.shortNames ?? []]),
    [
      ['csidrivers', false, []],
      ['csinodes', false, []],
      ['csistoragecapacities', true, []],
      ['storageclasses', false, ['sc']],
      ['volumeattachments', false, []],
      ['volumeattachments/status', false, []],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  );
  const policy = await server.request('GET', '/apis/policy/v1');
  assert.deepEqual(policy.body.resources.find((r: any) => r.name === 'poddisruptionbudgets').shortNames, ['pdb']);
  const networking = await server.request('GET', '/apis/networking.orch.io/v1');
  assert.deepEqual(networking.body.resources.find((r: any) => r.name === 'ingresses').shortNames, ['ing']);
  const index = await server.request('GET', '/openapi/v3');
  for (const gv of ['apis/discovery.orch.io/v1', 'apis/policy/v1', 'apis/node.orch.io/v1', 'apis/storage.orch.io/v1']) assert.ok(index.body.paths[gv], gv);
  const doc = await server.request('GET', '/openapi/v3/apis/storage.orch.io/v1');
  assert.deepEqual(doc.body.components.schemas['io.orch.api.storage.v1.StorageClass']['x-kubernetes-group-version-kind'], [{ group: 'storage.orch.io', kind: 'StorageClass', version: 'v1' }]);
  assert.ok(doc.body.paths['/apis/storage.orch.io/v1/storageclasses/{name}']);
});

test('Tables print upstream columns and cells', async () => {
  const cells = async (path: string) => {
    const res = await server.request('GET', path, { headers: { accept: TABLE } });
    assert.equal(res.status, 200, res.text);
    return { columns: res.body.columnDefinitions.map((c: any) => c.name), rows: res.body.rows.map((r: any) => r.cells.slice(0, -1)) };
  };
  await server.request('POST', KINDS.StorageClass.path, { body: { ...KINDS.StorageClass.object('gold'), metadata: { name: 'gold', annotations: { 'storageclass.orch.io/is-default-class': 'true' } } } });
  const sc = await cells(`${KINDS.StorageClass.path}?fieldSelector=metadata.name=gold`);
  assert.deepEqual(sc.columns, ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
  assert.deepEqual(sc.rows, [['gold (default)', 'example.com/disk', 'Delete', 'Immediate', false]]);
  await server.request('POST', KINDS.EndpointSlice.path, {
    body: { ...KINDS.EndpointSlice.object('wide'), endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4'] }], ports: [{ name: 'a', port: 80 }, { name: 'b' }] },
  });
  const slice = await cells(`${KINDS.EndpointSlice.path}?fieldSelector=metadata.name=wide`);
  assert.deepEqual(slice.columns, ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
  assert.deepEqual(slice.rows, [['wide', 'IPv4', '80,b', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...']]);
  await server.request('POST', KINDS.Ingress.path, { body: { ...KINDS.Ingress.object('tls'), spec: { ...KINDS.Ingress.object('tls').spec, tls: [{ hosts: ['foo.com'] }] } } });
  await server.request('PATCH', `${KINDS.Ingress.path}/tls/status`, { body: { status: { loadBalancer: { ingress: [{ ip: '192.0.2.9' }, { hostname: 'lb.example.com' }] } } }, headers: MERGE });
  const ing = await cells(`${KINDS.Ingress.path}?fieldSelector=metadata.name=tls`);
  assert.deepEqual(ing.columns, ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
  assert.deepEqual(ing.rows, [['tls', '<none>', 'foo.com', '192.0.2.9,lb.example.com', '80, 443']]);
  await server.request('POST', KINDS.PodDisruptionBudget.path, { body: KINDS.PodDisruptionBudget.object('table') });
  const pdb = await cells(`${KINDS.PodDisruptionBudget.path}?fieldSelector=metadata.name=table`);
  assert.deepEqual(pdb.columns, ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']);
  assert.deepEqual(pdb.rows, [['table', '1', 'N/A', 0]]);
  await server.request('POST', KINDS.CSIDriver.path, { body: { ...KINDS.CSIDriver.object('table'), spec: { tokenRequests: [{ audience: 'a' }, { audience: 'b' }] } } });
  const driver = await cells(`${KINDS.CSIDriver.path}?fieldSelector=metadata.name=table.csi.example.com`);
  assert.deepEqual(driver.rows, [['table.csi.example.com', true, false, false, 'a,b', false, 'Persistent']]);
  await server.request('POST', KINDS.CSIStorageCapacity.path, { body: KINDS.CSIStorageCapacity.object('table') });
  const capacity = await server.request('GET', `${KINDS.CSIStorageCapacity.path}?fieldSelector=metadata.name=table`, { headers: { accept: TABLE } });
  assert.deepEqual(capacity.body.rows.map((r: any) => r.cells), [['table', 'fast', '10Gi']], 'no Age column, as upstream');
});

test('kubectl gets the kinds with upstream columns, creates an ingress and explains it', { skip: !hasKubectl() && 'kubectl is not on PATH' }, async () => {
  const home = mkdtempSync(join(tmpdir(), 'orch-kubectl-groups-'));
  const kubectl = (...args: string[]) => runKubectl(server.orchconfig, home, args);
  try {
    // kubectl's typed client posts `create ingress` to networking.k8s.io; its generated object, moved to
    // networking.orch.io, is what the server takes.
    const generated = await kubectl('create', 'ingress', 'x', '--rule=foo.com/bar=svc:80', '--dry-run=client', '-o', 'json');
    assert.equal(generated.code, 0, generated.stderr);
    const file = join(home, 'ingress.json');
    writeFileSync(file, generated.stdout.replace('"networking.k8s.io/v1"', '"networking.orch.io/v1"'));
    const created = await kubectl('create', '-f', file);
    assert.equal(created.code, 0, created.stderr);
    const got = await kubectl('get', 'ing', 'x', '-o', 'jsonpath={.spec.rules[0].http.paths[0].pathType}/{.spec.rules[0].http.paths[0].backend.service.port.number}');
    assert.equal(got.stdout, 'Exact/80');
    const list = await kubectl('get', 'endpointslices,pdb,runtimeclass,sc,ing,ingressclass');
    assert.equal(list.code, 0, list.stderr);
    for (const header of [
      /NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE/,
      /NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE/,
      /NAME\s+HANDLER\s+AGE/,
      /NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE/,
      /NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE/,
      /NAME\s+CONTROLLER\s+PARAMETERS\s+AGE/,
    ]) {
      assert.match(list.stdout, header);
    }
    assert.match(list.stdout, /ingress\.networking\.orch\.io\/x\s+<none>\s+foo\.com\s+80\s/);
    const explained = await kubectl('explain', 'ingress.spec.rules');
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /GROUP:\s+networking\.orch\.io/);
    assert.match(explained.stdout, /FIELD: rules <\[\]IngressRule>/);
    assert.match(explained.stdout, /host\s+<string>/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('DefaultIngressClass admission gives a classless Ingress the newest default class', async () => {
  const classes = KINDS.IngressClass.path;
  const annotated = (name: string) => ({ ...KINDS.IngressClass.object(name), metadata: { name, annotations: { 'ingressclass.orch.io/is-default-class': 'true' } } });
  const first = await server.request('POST', classes, { body: annotated('zz-default') });
  const second = await server.request('POST', classes, { body: annotated('aa-default') });
  assert.equal(second.status, 201, second.text);
  const [a, b] = [first.body.metadata, second.body.metadata];
  // The newest wins; of two created in the same second, the first name.
  const expected = a.creationTimestamp === b.creationTimestamp ? 'aa-default' : a.creationTimestamp > b.creationTimestamp ? a.name : b.name;
  // Admission reads the classes from each process's watch cache, as upstream reads its informer: a class
  // just created applies once the cache that serves the request has it.
  await eventually('an Ingress defaulted to the newest default class', async () => {
    const created = await server.request('POST', KINDS.Ingress.path, { body: { ...KINDS.Ingress.object(''), metadata: { generateName: 'defaulted-' } } });
    assert.equal(created.status, 201, created.text);
    if (created.body.spec.ingressClassName === expected) return true;
    assert.equal(created.body.spec.ingressClassName, undefined);
    await server.request('DELETE', `${KINDS.Ingress.path}/${created.body.metadata.name}`);
    return undefined;
  });
  const named = await server.request('POST', KINDS.Ingress.path, { body: { ...KINDS.Ingress.object('named-class'), spec: { ...KINDS.Ingress.object('x').spec, ingressClassName: 'mine' } } });
  assert.equal(named.body.spec.ingressClassName, 'mine');
  const legacy = await server.request('POST', KINDS.Ingress.path, { body: { ...KINDS.Ingress.object('legacy'), metadata: { name: 'legacy', annotations: { 'orch.io/ingress.class': 'old' } } } });
  assert.equal(legacy.status, 201);
  assert.equal(legacy.body.spec.ingressClassName, undefined);
  assert.deepEqual(legacy.headers.warning, `299 - "annotation \\"orch.io/ingress.class\\" is deprecated, please use 'spec.ingressClassName' instead"`);
});

test('server-side apply creates and updates the kinds with their upstream list semantics', async () => {
  const APPLY = { 'content-type': 'application/apply-patch+yaml' };
  const ingress = (paths: string[]) => ({
    apiVersion: 'networking.orch.io/v1',
    kind: 'Ingress',
    metadata: { name: 'applied' },
    spec: { rules: [{ host: 'a.example.com', http: { paths: paths.map((path) => ({ path, pathType: 'Prefix', backend })) } }] },
  });
  const path = `${KINDS.Ingress.path}/applied?fieldManager=tester`;
  const created = await server.request('PATCH', path, { body: ingress(['/a', '/b']), headers: APPLY });
  assert.equal(created.status, 201, created.text);
  // rules and paths are atomic lists upstream: the applied list replaces the old one.
  const updated = await server.request('PATCH', path, { body: ingress(['/c']), headers: APPLY });
  assert.equal(updated.status, 200, updated.text);
  assert.deepEqual(updated.body.spec.rules[0].http.paths.map((p: any) => p.path), ['/c']);
  assert.equal(updated.body.metadata.managedFields[0].manager, 'tester');
  const conflict = await server.request('PATCH', `${KINDS.Ingress.path}/applied?fieldManager=other`, { body: ingress(['/d']), headers: APPLY });
  assert.equal(conflict.status, 409, conflict.text);
});
