/**
 * `kubectl get` of every built-in kind prints upstream 1.31's columns
 * (pkg/printers/internalversion/printers.go; the default Name / Created At
 * Table for kinds without a printer), from the server's Table.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';

const NS = '/api/v1/namespaces/default';
const objects: Array<[string, unknown]> = [
  [`${NS}/configmaps`, { metadata: { name: 'c1' }, data: { a: 'b' } }],
  [`${NS}/secrets`, { metadata: { name: 's1' }, type: 'Opaque', data: { a: 'Yg==' } }],
  [`${NS}/serviceaccounts`, { metadata: { name: 'sa1' } }],
  [`${NS}/events`, { metadata: { name: 'e1' }, involvedObject: { kind: 'ConfigMap', name: 'c1', namespace: 'default' }, reason: 'Made', message: 'made', type: 'Normal' }],
  [`${NS}/pods`, { metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }],
  ['/api/v1/nodes', { metadata: { name: 'n1' } }],
  ['/apis/coordination.orch.io/v1/namespaces/default/leases', { metadata: { name: 'l1' }, spec: { holderIdentity: 'me' } }],
  ['/apis/networking.orch.io/v1/namespaces/default/networkpolicies', { metadata: { name: 'np1' }, spec: { podSelector: {} } }],
  ['/apis/rbac.authorization.orch.io/v1/namespaces/default/roles', { metadata: { name: 'r1' }, rules: [] }],
  ['/apis/discovery.orch.io/v1/namespaces/default/endpointslices', { metadata: { name: 'es1' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }] }],
  ['/apis/policy/v1/namespaces/default/poddisruptionbudgets', { metadata: { name: 'pdb1' }, spec: { minAvailable: 1 } }],
  ['/apis/node.orch.io/v1/runtimeclasses', { metadata: { name: 'rc1' }, handler: 'runc' }],
  ['/apis/storage.orch.io/v1/storageclasses', { metadata: { name: 'sc1' }, provisioner: 'example.com/disk' }],
  ['/apis/storage.orch.io/v1/volumeattachments', { metadata: { name: 'va1' }, spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } } }],
  ['/apis/storage.orch.io/v1/csidrivers', { metadata: { name: 'csi.example.com' }, spec: {} }],
  ['/apis/storage.orch.io/v1/csinodes', { metadata: { name: 'n1' }, spec: { drivers: [] } }],
  ['/apis/storage.orch.io/v1/namespaces/default/csistoragecapacities', { metadata: { name: 'cap1' }, storageClassName: 'sc1', capacity: '1Gi' }],
  ['/apis/networking.orch.io/v1/namespaces/default/ingresses', { metadata: { name: 'ing1' }, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } }],
  ['/apis/networking.orch.io/v1/ingressclasses', { metadata: { name: 'ic1' }, spec: { controller: 'example.com/ingress' } }],
  ['/apis/rbac.authorization.orch.io/v1/namespaces/default/rolebindings', { metadata: { name: 'rb1' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: 'r1' }, subjects: [{ kind: 'User', name: 'u', apiGroup: 'rbac.authorization.orch.io' }] }],
];

/** The header lines upstream's printers give (`kubectl get` and `-o wide`). */
const expected: Array<[string, string, string]> = [
  ['namespaces', 'NAME STATUS AGE', 'NAME STATUS AGE'],
  ['configmaps', 'NAME DATA AGE', 'NAME DATA AGE'],
  ['secrets', 'NAME TYPE DATA AGE', 'NAME TYPE DATA AGE'],
  ['serviceaccounts', 'NAME SECRETS AGE', 'NAME SECRETS AGE'],
  ['events', 'LAST SEEN TYPE REASON OBJECT MESSAGE', 'LAST SEEN TYPE REASON OBJECT SUBOBJECT SOURCE MESSAGE FIRST SEEN COUNT NAME'],
  ['pods', 'NAME READY STATUS RESTARTS AGE', 'NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES'],
  ['nodes', 'NAME STATUS ROLES AGE VERSION', 'NAME STATUS ROLES AGE VERSION INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME'],
  ['leases', 'NAME HOLDER AGE', 'NAME HOLDER AGE'],
  ['networkpolicies', 'NAME POD-SELECTOR AGE', 'NAME POD-SELECTOR AGE'],
  ['roles', 'NAME CREATED AT', 'NAME CREATED AT'],
  ['clusterroles', 'NAME CREATED AT', 'NAME CREATED AT'],
  ['rolebindings', 'NAME ROLE AGE', 'NAME ROLE AGE USERS GROUPS SERVICEACCOUNTS'],
  ['clusterrolebindings', 'NAME ROLE AGE', 'NAME ROLE AGE USERS GROUPS SERVICEACCOUNTS'],
  ['endpointslices', 'NAME ADDRESSTYPE PORTS ENDPOINTS AGE', 'NAME ADDRESSTYPE PORTS ENDPOINTS AGE'],
  ['poddisruptionbudgets', 'NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE', 'NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE'],
  ['runtimeclasses', 'NAME HANDLER AGE', 'NAME HANDLER AGE'],
  ['storageclasses', 'NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE', 'NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE'],
  ['volumeattachments', 'NAME ATTACHER PV NODE ATTACHED AGE', 'NAME ATTACHER PV NODE ATTACHED AGE'],
  ['csidrivers', 'NAME ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE', 'NAME ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE'],
  ['csinodes', 'NAME DRIVERS AGE', 'NAME DRIVERS AGE'],
  ['csistoragecapacities', 'NAME STORAGECLASSNAME CAPACITY', 'NAME STORAGECLASSNAME CAPACITY'],
  ['ingresses', 'NAME CLASS HOSTS ADDRESS PORTS AGE', 'NAME CLASS HOSTS ADDRESS PORTS AGE'],
  ['ingressclasses', 'NAME CONTROLLER PARAMETERS AGE', 'NAME CONTROLLER PARAMETERS AGE'],
];

let server: TestServer;
let home: string;
before(async () => {
  server = await startTestServer();
  home = mkdtempSync(join(tmpdir(), 'kubectl-home-'));
  for (const [path, body] of objects) {
    const made = await server.request('POST', path, { body });
    assert.equal(made.status, 201, `${path}: ${made.text}`);
  }
});
after(async () => {
  await server?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('kubectl get prints upstream columns for every built-in kind', { skip: !hasKubectl() && 'no kubectl on PATH' }, async () => {
  for (const [resource, plain, wide] of expected) {
    for (const [args, header] of [[[], plain], [['-o', 'wide'], wide]] as const) {
      const run = await runKubectl(server.orchconfig, home, ['get', resource, '-n', 'default', ...args]);
      assert.equal(run.code, 0, `${resource}: ${run.stderr}`);
      const first = run.stdout.split('\n')[0].trim().split(/\s{2,}/).join(' ');
      assert.equal(first, header, `${resource} ${args.join(' ')}:\n${run.stdout}`);
    }
  }
});
