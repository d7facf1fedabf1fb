/**
 * core/v1 LimitRange, ResourceQuota, PersistentVolume, PersistentVolumeClaim,
 * ReplicationController, Endpoints and PodTemplate served from the contract
 * (SPEC 9.7, issue 12): defaults, validation, the RC scale subresource,
 * Tables, discovery, watch and kubectl against a real server on SQLite.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

const NS = '/api/v1/namespaces/default';
const TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const container = { name: 'web', image: 'nginx:1.27' };
const rc = (name: string, spec: Record<string, any> = {}) => ({
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name },
  spec: { template: { metadata: { labels: { app: name } }, spec: { containers: [container] } }, ...spec },
});
const pv = (name: string, spec: Record<string, any> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' }, ...spec },
});
const pvc = (name: string, spec: Record<string, any> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const endpoints = (name: string, subsets: unknown[]) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets });
const limitRange = (name: string, limits: unknown[]) => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name }, spec: { limits } });
const quota = (name: string, spec: Record<string, any>) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec });

/** The 422's causes as `field: message` lines. */
function causes(res: { status: number; body: any; text: string }): string[] {
  assert.equal(res.status, 422, res.text);
  assert.equal(res.body.reason, 'Invalid');
  return res.body.details.causes.map((c: any) => `${c.field}: ${c.message}`);
}

async function created(path: string, body: unknown): Promise<any> {
  const res = await server.request('POST', path, { body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

test('a ReplicationController gets its selector, labels and replicas from upstream defaults, its template the Pod defaults', async () => {
  const body = await created(`${NS}/replicationcontrollers`, rc('web'));
  assert.equal(body.spec.replicas, 1);
  assert.deepEqual(body.spec.selector, { app: 'web' });
  assert.deepEqual(body.metadata.labels, { app: 'web' });
  assert.equal(body.spec.template.spec.restartPolicy, 'Always');
  assert.equal(body.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
  assert.deepEqual(body.status, { replicas: 0 });
  assert.equal(body.metadata.generation, 1);
  const patched = await server.request('PATCH', `${NS}/replicationcontrollers/web`, { body: { spec: { replicas: 2 }, status: { replicas: 7 } }, headers: MERGE });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.body.metadata.generation, 2);
  assert.deepEqual(patched.body.status, { replicas: 0 }, 'status changes only through /status');
  const byField = await server.request('GET', `${NS}/replicationcontrollers?fieldSelector=status.replicas=0`);
  assert.deepEqual(byField.body.items.map((i: any) => i.metadata.name), ['web']);
});

test('ReplicationController validation answers 422 with upstream paths and words', async () => {
  const path = `${NS}/replicationcontrollers`;
  const mismatch = rc('mismatch', { selector: { app: 'other' } });
  assert.ok(causes(await server.request('POST', path, { body: mismatch })).includes('spec.template.metadata.labels: Invalid value: map[string]string{"app":"mismatch"}: `selector` does not match template `labels`'));
  const negative = await server.request('POST', path, { body: rc('negative', { replicas: -1 }) });
  assert.deepEqual(causes(negative), ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
  const never = rc('never');
  never.spec.template.spec = { ...never.spec.template.spec, restartPolicy: 'Never' } as any;
  assert.deepEqual(causes(await server.request('POST', path, { body: never })), ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']);
  const noSelector = await server.request('POST', path, { body: { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'bare' }, spec: {} } });
  assert.deepEqual(causes(noSelector), ['spec.selector: Required value', 'spec.template: Required value']);
  const noImage = rc('noimage');
  noImage.spec.template.spec.containers = [{ name: 'c' } as any];
  assert.ok(causes(await server.request('POST', path, { body: noImage })).some((c) => c.startsWith('spec.template.spec.containers[0].image: Required value')));
});

test('a ReplicationController scales through autoscaling/v1 Scale, its selector in string form', async () => {
  await created(`${NS}/replicationcontrollers`, rc('scaled', { selector: { app: 'scaled' } }));
  const scale = await server.request('GET', `${NS}/replicationcontrollers/scaled/scale`);
  assert.equal(scale.status, 200, scale.text);
  assert.equal(scale.body.apiVersion, 'autoscaling/v1');
  assert.deepEqual([scale.body.spec.replicas, scale.body.status.replicas, scale.body.status.selector], [1, 0, 'app=scaled']);
  const put = await server.request('PUT', `${NS}/replicationcontrollers/scaled/scale`, { body: { ...scale.body, spec: { replicas: 4 } } });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.body.spec.replicas, 4);
  assert.equal((await server.request('GET', `${NS}/replicationcontrollers/scaled`)).body.spec.replicas, 4);
  const negative = await server.request('PUT', `${NS}/replicationcontrollers/scaled/scale`, { body: { ...scale.body, metadata: { name: 'scaled' }, spec: { replicas: -2 } } });
  assert.deepEqual(causes(negative), ['spec.replicas: Invalid value: -2: must be greater than or equal to 0']);
  const status = await server.request('PUT', `${NS}/replicationcontrollers/scaled/status`, { body: { ...(await server.request('GET', `${NS}/replicationcontrollers/scaled`)).body, status: { replicas: 1, readyReplicas: 3 } } });
  assert.deepEqual(causes(status), ['status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas']);
});

test('deleting a core/v1 ReplicationController without a policy orphans its pods', async () => {
  await created(`${NS}/replicationcontrollers`, rc('orphaned'));
  const res = await server.request('DELETE', `${NS}/replicationcontrollers/orphaned`);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.metadata.finalizers, ['orphan']);
  assert.equal(res.headers.warning, undefined);
});

test('a PersistentVolume gets Retain, Filesystem, a Pending phase and canonical capacity; its source is immutable', async () => {
  const body = await created('/api/v1/persistentvolumes', pv('pv1', { capacity: { storage: '1024Mi' } }));
  assert.equal(body.spec.persistentVolumeReclaimPolicy, 'Retain');
  assert.equal(body.spec.volumeMode, 'Filesystem');
  assert.equal(body.spec.capacity.storage, '1Gi');
  assert.equal(body.status.phase, 'Pending');
  assert.match(body.status.lastPhaseTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const moved = await server.request('PATCH', '/api/v1/persistentvolumes/pv1', { body: { spec: { hostPath: { path: '/other' } } }, headers: MERGE });
  assert.deepEqual(causes(moved), ['spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation']);
  const mode = await server.request('PATCH', '/api/v1/persistentvolumes/pv1', { body: { spec: { volumeMode: 'Block' } }, headers: MERGE });
  assert.deepEqual(causes(mode), ['volumeMode: Invalid value: "Block": field is immutable']);
  const current = (await server.request('GET', '/api/v1/persistentvolumes/pv1')).body;
  const bound = await server.request('PUT', '/api/v1/persistentvolumes/pv1/status', { body: { ...current, status: { phase: 'Available' } } });
  assert.equal(bound.status, 200, bound.text);
  assert.equal(bound.body.status.phase, 'Available');
  assert.notEqual(bound.body.status.lastPhaseTransitionTime, undefined);
  const cleared = await server.request('PUT', '/api/v1/persistentvolumes/pv1/status', { body: { ...bound.body, status: {} } });
  assert.equal(cleared.status, 200, cleared.text);
  assert.equal(cleared.body.status.phase, 'Pending', 'a status without a phase is Pending, as upstream defaults it');
});

test('PersistentVolume validation answers 422 with upstream paths and words', async () => {
  const path = '/api/v1/persistentvolumes';
  const none = await server.request('POST', path, { body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'empty' }, spec: {} } });
  assert.deepEqual(causes(none), ['spec.accessModes: Required value', 'spec.capacity: Required value', 'spec.capacity: Unsupported value: null: supported values: "storage"', 'spec: Required value: must specify a volume type']);
  const two = await server.request('POST', path, { body: pv('two', { nfs: { server: 'nfs.example', path: '/x' } }) });
  assert.deepEqual(causes(two), ['spec.nfs: Forbidden: may not specify more than 1 volume type']);
  const incomplete = await server.request('POST', path, { body: pv('incomplete', { hostPath: undefined, csi: { volumeAttributes: { a: 'b' } } }) });
  assert.deepEqual(causes(incomplete), ['spec.csi.driver: Required value', 'spec.csi.volumeHandle: Required value']);
  const local = await server.request('POST', path, { body: pv('local', { hostPath: undefined, local: { path: '/mnt/../etc' } }) });
  assert.deepEqual(causes(local), ["spec.local.path: Invalid value: \"/mnt/../etc\": must not contain '..'", 'spec.nodeAffinity: Required value: Local volume requires node affinity']);
  const zero = await server.request('POST', path, { body: pv('zero', { capacity: { storage: '0' } }) });
  assert.deepEqual(causes(zero), ['spec.capacity[storage]: Invalid value: "0": must be greater than zero']);
  const modes = await server.request('POST', path, { body: pv('modes', { accessModes: ['ReadWriteOncePod', 'ReadOnlyMany', 'Sometimes'] }) });
  assert.deepEqual(causes(modes), ['spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"', 'spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes']);
  const policy = await server.request('POST', path, { body: pv('policy', { persistentVolumeReclaimPolicy: 'Keep' }) });
  assert.deepEqual(causes(policy), ['spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"']);
  const badQuantity = await server.request('POST', path, { body: pv('bad', { capacity: { storage: '1Gx' } }) });
  assert.equal(badQuantity.status, 400, badQuantity.text);
});

test('a PersistentVolumeClaim is Pending with Filesystem; its spec is immutable except a growing request once bound', async () => {
  const path = `${NS}/persistentvolumeclaims`;
  const body = await created(path, pvc('data'));
  assert.equal(body.spec.volumeMode, 'Filesystem');
  assert.deepEqual(body.status, { phase: 'Pending' });
  const modes = await server.request('PATCH', `${path}/data`, { body: { spec: { accessModes: ['ReadWriteMany'] } }, headers: MERGE });
  assert.deepEqual(causes(modes), ['spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims']);
  const volume = await server.request('PATCH', `${path}/data`, { body: { spec: { volumeName: 'pv1' } }, headers: MERGE });
  assert.equal(volume.status, 200, volume.text);
  const unbound = await server.request('PATCH', `${path}/data`, { body: { spec: { resources: { requests: { storage: '2Gi' } } } }, headers: MERGE });
  assert.deepEqual(causes(unbound), ['spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims']);
  const current = (await server.request('GET', `${path}/data`)).body;
  const bind = await server.request('PUT', `${path}/data/status`, { body: { ...current, status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } } });
  assert.equal(bind.status, 200, bind.text);
  const grown = await server.request('PATCH', `${path}/data`, { body: { spec: { resources: { requests: { storage: '2Gi' } } } }, headers: MERGE });
  assert.equal(grown.status, 200, grown.text);
  assert.equal(grown.body.spec.resources.requests.storage, '2Gi');
  const shrunk = await server.request('PATCH', `${path}/data`, { body: { spec: { resources: { requests: { storage: '1Gi' } } } }, headers: MERGE });
  assert.deepEqual(causes(shrunk), ['spec.resources.requests.storage: Forbidden: field can not be less than previous value']);
  const missing = await server.request('POST', path, { body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'bare' }, spec: {} } });
  assert.deepEqual(causes(missing), ['spec.accessModes: Required value: at least 1 access mode is required', 'spec.resources[storage]: Required value']);
  const annotated = await created(path, { ...pvc('gold'), metadata: { name: 'gold', annotations: { 'volume.beta.orch.io/storage-class': 'gold' } } });
  assert.equal(annotated.spec.storageClassName, undefined);
  const upgraded = await server.request('PATCH', `${path}/gold`, { body: { spec: { storageClassName: 'gold' } }, headers: MERGE });
  assert.equal(upgraded.status, 200, 'the class may move from the beta annotation to the field');
  const reclassed = await server.request('PATCH', `${path}/gold`, { body: { metadata: { annotations: { 'volume.beta.orch.io/storage-class': 'silver' } } }, headers: MERGE });
  assert.ok(causes(reclassed).includes('metadata.annotations.volume.beta.orch.io/storage-class: Invalid value: "silver": field is immutable'), reclassed.text);
  const block = await server.request('POST', path, { body: pvc('weird', { volumeMode: 'Tape' }) });
  assert.deepEqual(causes(block), ['spec.volumeMode: Unsupported value: "Tape": supported values: "Block", "Filesystem"']);
});

test('Endpoints default their port protocol and refuse special addresses and unnamed ports', async () => {
  const path = `${NS}/endpoints`;
  const body = await created(path, endpoints('svc', [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }] }]));
  assert.equal(body.subsets[0].ports[0].protocol, 'TCP');
  const put = await server.request('PUT', `${path}/created-by-put`, { body: endpoints('created-by-put', []) });
  assert.equal(put.status, 201, 'Endpoints are created on update, as upstream');
  const bad = await server.request('POST', path, {
    body: endpoints('bad', [
      { addresses: [{ ip: '127.0.0.1' }, { ip: '169.254.1.1' }, { ip: 'not-an-ip' }], ports: [{ port: 80 }, { port: 0, name: 'b', protocol: 'ICMP' }] },
      { ports: [{ port: 1 }] },
    ]),
  });
  assert.deepEqual(causes(bad), [
    'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    'subsets[0].addresses[1].ip: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    'subsets[0].addresses[2].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'subsets[0].addresses[2].ip: Invalid value: "not-an-ip": must be a valid IP address',
    'subsets[0].ports[0].name: Required value',
    'subsets[0].ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    'subsets[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    'subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`',
  ]);
});

test('a LimitRange fills a Container limit\'s default and defaultRequest from max and min, and checks their order', async () => {
  const path = `${NS}/limitranges`;
  const body = await created(path, limitRange('limits', [{ type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m' } }]));
  assert.deepEqual(body.spec.limits[0].default, { cpu: '2', memory: '1Gi' });
  assert.deepEqual(body.spec.limits[0].defaultRequest, { cpu: '2', memory: '1Gi' });
  const fromMin = await created(path, limitRange('frommin', [{ type: 'Container', min: { cpu: '100m' } }]));
  assert.deepEqual(fromMin.spec.limits[0].defaultRequest, { cpu: '100m' });
  assert.equal(fromMin.spec.limits[0].default, undefined);
  const order = await server.request('POST', path, { body: limitRange('order', [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' }, maxLimitRequestRatio: { memory: '500m' } }]) });
  assert.deepEqual(causes(order), [
    'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
    'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1',
    // upstream reports the min as the default's bad value
    'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1',
    'spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: "500m": ratio 500m is less than 1',
  ]);
  const ratio = await server.request('POST', path, { body: limitRange('ratio', [{ type: 'Pod', min: { cpu: '1' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '3' }, default: { cpu: '1' } }]) });
  assert.deepEqual(causes(ratio), ["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'", 'spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "3": ratio 3 is greater than max/min = 2.000000']);
  const pvcLimit = await server.request('POST', path, { body: limitRange('claims', [{ type: 'PersistentVolumeClaim' }, { type: 'PersistentVolumeClaim', max: { storage: '1Gi' } }]) });
  assert.deepEqual(causes(pvcLimit), ['spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided', 'spec.limits[1].type: Duplicate value: "PersistentVolumeClaim"']);
});

test('a ResourceQuota starts with an empty status and checks its resources and scopes', async () => {
  const path = `${NS}/resourcequotas`;
  const body = await created(path, quota('compute', { hard: { 'requests.cpu': '1', 'limits.memory': '1024Mi', pods: '10' } }));
  assert.deepEqual(body.spec.hard, { 'limits.memory': '1Gi', pods: '10', 'requests.cpu': '1' });
  assert.deepEqual(body.status, {});
  const bad = await server.request('POST', path, { body: quota('bad', { hard: { pods: '1.5', cpu: '-1', widgets: '1' } }) });
  assert.deepEqual(causes(bad).sort(), [
    'spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    'spec.hard[pods]: Invalid value: "1500m": must be an integer',
    'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota',
    'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified',
  ]);
  const scopes = await server.request('POST', path, { body: quota('scopes', { hard: { 'requests.storage': '1Gi' }, scopes: ['BestEffort', 'NotBestEffort'] }) });
  assert.deepEqual(causes(scopes), [
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: unsupported scope applied to resource',
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: unsupported scope applied to resource',
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes',
  ]);
  const selector = await server.request('POST', path, {
    body: quota('selector', {
      hard: { pods: '5' },
      scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }, { scopeName: 'BestEffort', operator: 'In', values: ['x'] }, { scopeName: 'Galaxy', operator: 'Near' }] },
    }),
  });
  assert.deepEqual(causes(selector), [
    "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
    "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
    'spec.scopeSelector.matchExpressions.scopeName: Invalid value: "Galaxy": unsupported scope',
    'spec.scopeSelector.matchExpressions.operator: Invalid value: "Near": not a valid selector operator',
  ]);
  await created(path, quota('scoped', { hard: { pods: '5' }, scopes: ['NotTerminating', 'NotBestEffort'] }));
  const reordered = await server.request('PATCH', `${path}/scoped`, { body: { spec: { scopes: ['NotBestEffort', 'NotTerminating'] } }, headers: MERGE });
  assert.equal(reordered.status, 200, reordered.text);
  const rescoped = await server.request('PATCH', `${path}/scoped`, { body: { spec: { scopes: ['Terminating'] } }, headers: MERGE });
  assert.deepEqual(causes(rescoped), ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating"}: field is immutable']);
  const current = (await server.request('GET', `${path}/compute`)).body;
  const status = await server.request('PUT', `${path}/compute/status`, { body: { ...current, status: { hard: current.spec.hard, used: { 'requests.cpu': '0.5', 'limits.memory': '512Mi' } } } });
  assert.equal(status.status, 200, status.text);
  assert.equal(status.body.status.used['requests.cpu'], '500m', 'status quantities in canonical form');
  const badStatus = await server.request('PUT', `${path}/compute/status`, { body: { ...status.body, status: { used: { pods: '-1' } } } });
  assert.deepEqual(causes(badStatus), ['status.used[pods]: Invalid value: "-1": must be greater than or equal to 0']);
});

test('a PodTemplate gets the Pod defaults and generation follows its template', async () => {
  const path = `${NS}/podtemplates`;
  const body = await created(path, { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'tpl' }, template: { metadata: { labels: { app: 'tpl' } }, spec: { containers: [container] } } });
  assert.equal(body.template.spec.restartPolicy, 'Always');
  assert.equal(body.template.spec.dnsPolicy, 'ClusterFirst');
  assert.equal(body.metadata.generation, 1);
  const patched = await server.request('PATCH', `${path}/tpl`, { body: { template: { metadata: { labels: { app: 'tpl', v: '2' } } } }, headers: MERGE });
  assert.equal(patched.body.metadata.generation, 2);
  const labelsOnly = await server.request('PATCH', `${path}/tpl`, { body: { metadata: { labels: { x: 'y' } } }, headers: MERGE });
  assert.equal(labelsOnly.body.metadata.generation, 2);
  const bad = await server.request('POST', path, { body: { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'bad' }, template: { spec: { containers: [{ name: 'c' }] } } } });
  assert.ok(causes(bad).some((c) => c.startsWith('template.spec.containers[0].image: Required value')), bad.text);
});

test('a watch of PersistentVolumeClaims sees them added and modified', async () => {
  const path = `${NS}/persistentvolumeclaims`;
  const list = await server.request('GET', path);
  const watch = openWatch(server, `${path}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
  try {
    assert.equal(await watch.status, 200);
    await created(path, pvc('watched'));
    await server.request('PATCH', `${path}/watched`, { body: { metadata: { labels: { seen: 'yes' } } }, headers: MERGE });
    const events = await watch.waitFor(2);
    assert.deepEqual(events.map((e) => [e.type, e.object.kind, e.object.metadata.name]), [['ADDED', 'PersistentVolumeClaim', 'watched'], ['MODIFIED', 'PersistentVolumeClaim', 'watched']]);
  } finally {
    watch.close();
  }
});

test('discovery lists the kinds with short names, categories and subresources', async () => {
  const core = await server.request('GET', '/api/v1');
  const byName = new Map<string, any>(core.body.resources.map((r: any) => [r.name, r]));
  const expected: Record<string, [string[], boolean]> = {
    limitranges: [['limits'], true],
    resourcequotas: [['quota'], true],
    persistentvolumes: [['pv'], false],
    persistentvolumeclaims: [['pvc'], true],
    replicationcontrollers: [['rc'], true],
    endpoints: [['ep'], true],
    podtemplates: [[], true],
  };
  for (const [name, [shortNames, namespaced]] of Object.entries(expected)) {
    assert.deepEqual(byName.get(name)?.shortNames ?? [], shortNames, name);
    assert.equal(byName.get(name)?.namespaced, namespaced, name);
  }
  assert.deepEqual(byName.get('replicationcontrollers').categories, ['all']);
  assert.equal(byName.get('endpoints').singularName, 'endpoints');
  assert.deepEqual([byName.get('replicationcontrollers/scale').group, byName.get('replicationcontrollers/scale').kind], ['autoscaling', 'Scale']);
  for (const name of ['resourcequotas/status', 'persistentvolumes/status', 'persistentvolumeclaims/status', 'replicationcontrollers/status']) assert.ok(byName.has(name), name);
  assert.ok(!byName.has('endpoints/status') && !byName.has('limitranges/status'));
});

test('Tables carry upstream printers columns and cells', async () => {
  const table = async (path: string) => (await server.request('GET', path, { headers: { accept: TABLE } })).body;
  const names = (t: any) => t.columnDefinitions.map((c: any) => c.name);
  const row = (t: any, name: string) => t.rows.find((r: any) => r.cells[0] === name || r.object?.metadata?.name === name).cells;

  const pvs = await table('/api/v1/persistentvolumes');
  assert.deepEqual(names(pvs), ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode']);
  await created('/api/v1/persistentvolumes', pv('printed', { accessModes: ['ReadWriteMany', 'ReadWriteOnce'], storageClassName: 'fast', claimRef: { namespace: 'default', name: 'data' } }));
  const printed = row(await table('/api/v1/persistentvolumes'), 'printed');
  assert.deepEqual([...printed.slice(0, 9), printed[10]], ['printed', '1Gi', 'RWO,RWX', 'Retain', 'Pending', 'default/data', 'fast', '<unset>', '', 'Filesystem']);

  const claims = await table(`${NS}/persistentvolumeclaims`);
  assert.deepEqual(names(claims), ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode']);
  const data = row(claims, 'data');
  assert.deepEqual([...data.slice(0, 7), data[8]], ['data', 'Bound', 'pv1', '1Gi', 'RWO', '', '<unset>', 'Filesystem']);
  assert.deepEqual(row(claims, 'watched').slice(0, 5), ['watched', 'Pending', '', '', '']);
  assert.equal(row(claims, 'gold')[5], 'gold', 'the beta annotation names the class');

  const rcs = await table(`${NS}/replicationcontrollers`);
  assert.deepEqual(names(rcs), ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers', 'Images', 'Selector']);
  const web = row(rcs, 'web');
  assert.deepEqual([...web.slice(0, 4), ...web.slice(5)], ['web', 2, 0, 0, 'web', 'nginx:1.27', 'app=web']);

  const many = await created(`${NS}/endpoints`, endpoints('many', [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }, { port: 443, name: 'https' }].map((p, i) => ({ ...p, name: p.name ?? `p${i}` })) }, { addresses: [{ ip: 'fd00::1' }] }]));
  assert.equal(many.metadata.name, 'many');
  const eps = await table(`${NS}/endpoints`);
  assert.deepEqual(names(eps), ['Name', 'Endpoints', 'Age']);
  assert.deepEqual(row(eps, 'many').slice(0, 2), ['many', '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 2 more...']);
  assert.deepEqual(row(eps, 'svc').slice(0, 2), ['svc', '10.0.0.1:80,10.0.0.2:80']);
  assert.deepEqual(row(eps, 'created-by-put').slice(0, 2), ['created-by-put', '<none>']);

  const quotas = await table(`${NS}/resourcequotas`);
  assert.deepEqual(names(quotas), ['Name', 'Age', 'Request', 'Limit']);
  const compute = row(quotas, 'compute');
  assert.deepEqual([compute[0], compute[2], compute[3]], ['compute', 'pods: 0/10, requests.cpu: 500m/1', 'limits.memory: 512Mi/1Gi']);

  const limits = await table(`${NS}/limitranges`);
  assert.deepEqual(limits.columnDefinitions.map((c: any) => [c.name, c.type]), [['Name', 'string'], ['Created At', 'date']]);
  assert.match(row(limits, 'limits')[1], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  const templates = await table(`${NS}/podtemplates`);
  assert.deepEqual(names(templates), ['Name', 'Containers', 'Images', 'Pod Labels']);
  assert.deepEqual(row(templates, 'tpl'), ['tpl', 'web', 'nginx:1.27', 'app=tpl,v=2']);
});

test('kubectl gets, scales and explains the core kinds with upstream columns', { skip: !hasKubectl() && 'kubectl is not on PATH' }, async () => {
  const home = mkdtempSync(join(tmpdir(), 'orch-kubectl-core-'));
  const kubectl = (...args: string[]) => runKubectl(server.orchconfig, home, args);
  try {
    const list = await kubectl('get', 'pv,pvc,rc,ep,limits,quota,podtemplates');
    assert.equal(list.code, 0, list.stderr);
    const headers = list.stdout.split('\n').filter((line) => line.startsWith('NAME'));
    assert.deepEqual(headers.map((h) => h.split(/\s{2,}/).join('|')), [
      'NAME|CAPACITY|ACCESS MODES|RECLAIM POLICY|STATUS|CLAIM|STORAGECLASS|VOLUMEATTRIBUTESCLASS|REASON|AGE',
      'NAME|STATUS|VOLUME|CAPACITY|ACCESS MODES|STORAGECLASS|VOLUMEATTRIBUTESCLASS|AGE',
      'NAME|DESIRED|CURRENT|READY|AGE',
      'NAME|ENDPOINTS|AGE',
      'NAME|CREATED AT',
      'NAME|AGE|REQUEST|LIMIT',
      'NAME|CONTAINERS|IMAGES|POD LABELS',
    ]);
    assert.match(list.stdout, /^persistentvolume\/printed\s+1Gi\s+RWO,RWX\s+Retain\s+Pending\s+default\/data\s+fast\s+<unset>\s+\S+$/m);
    const scaled = await kubectl('scale', 'rc', 'web', '--replicas=5');
    assert.equal(scaled.code, 0, scaled.stderr);
    assert.equal((await kubectl('get', 'rc', 'web', '-o', 'jsonpath={.spec.replicas}')).stdout, '5');
    const wide = await kubectl('get', 'pvc', 'data', '-o', 'wide');
    assert.match(wide.stdout, /VOLUMEMODE/);
    const manifest = join(home, 'limits.yaml');
    const limits = (max: string) => `apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: applied\nspec:\n  limits:\n  - type: Container\n    max:\n      cpu: "${max}"\n`;
    writeFileSync(manifest, limits('2'));
    assert.equal((await kubectl('apply', '--server-side', '-f', manifest)).code, 0);
    writeFileSync(manifest, limits('3'));
    const reapplied = await kubectl('apply', '--server-side', '-f', manifest);
    assert.equal(reapplied.code, 0, reapplied.stderr);
    // spec.limits is an atomic list: the second apply replaces it, and the defaults follow the new max
    assert.equal((await kubectl('get', 'limits', 'applied', '-o', 'jsonpath={.spec.limits[0].max.cpu} {.spec.limits[0].default.cpu}')).stdout, '3 3');
    const explain = await kubectl('explain', 'pvc.spec');
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /accessModes/);
    assert.match(explain.stdout, /volumeMode/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
