// Nodes end to end (K pkg/registry/core/node/strategy.go, pkg/apis/core/validation ValidateNode and
// ValidateNodeUpdate, pkg/apis/core/v1 defaults and conversion, pkg/printers printNode at 1.31):
// discovery, create with status, the status subresource, validation with upstream's words,
// the spec.unschedulable field selector, the Table, kubectl.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cells } from '../src/kinds/core/node/cells.ts';
import type { Cell } from '../src/registry/printer-cells.ts';
import { kinds } from '../src/generated/index.ts';
import { selectableFields } from '../src/registry/list-filter.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure } from './helpers/api.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';

let server: TestServer;
/** The Node cells as the Table calls them: the column's value and the object. */
const nodeCells: Readonly<Record<string, Cell>> = cells;
const NODES = '/api/v1/nodes';
const TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const create = async (body: any) => {
  const res = await server.request('POST', NODES, { body });
  assert.equal(res.status, 201, res.text);
  return res.body;
};
const causes = (res: any) => (res.body?.details?.causes ?? []).map((c: any) => [c.reason, c.field, c.message]);

before(async () => {
  server = await startTestServer();
});
after(() => server?.close());

describe('discovery', () => {
  test('nodes: cluster-scoped, short name no, every verb, the status subresource', async () => {
    const res = await server.request('GET', '/api/v1');
    const byName = new Map(res.body.resources.map((r: any) => [r.name, r]));
    const nodes: any = byName.get('nodes');
    assert.deepEqual(
      { ...nodes, storageVersionHash: undefined },
      {
        name: 'nodes',
        singularName: 'node',
        namespaced: false,
        kind: 'Node',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['no'],
        storageVersionHash: undefined,
      },
    );
    // upstream's hash of v1 Node
    assert.equal(nodes.storageVersionHash, 'XwShjMxG9Fs=');
    assert.deepEqual(byName.get('nodes/status'), { name: 'nodes/status', singularName: '', namespaced: false, kind: 'Node', verbs: ['get', 'patch', 'update'] });
  });
});

describe('create, update, status', () => {
  test('a create keeps its status, defaults allocatable and the podCIDR pair, rounds quantities; system fields', async () => {
    const node = await create({
      metadata: { name: 'worker-1', namespace: 'ignored' },
      spec: { podCIDR: '10.244.1.0/24', providerID: 'cloud://1' },
      status: { capacity: { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '0.0001' }, conditions: [{ type: 'Ready', status: 'True' }], features: { supplementalGroupsPolicy: true } },
    });
    assert.equal(node.metadata.namespace, undefined);
    assert.ok(node.metadata.uid && node.metadata.creationTimestamp && node.metadata.resourceVersion);
    assert.deepEqual(node.spec.podCIDRs, ['10.244.1.0/24']);
    assert.deepEqual(node.status.capacity, { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '1m' });
    assert.deepEqual(node.status.allocatable, node.status.capacity);
    assert.deepEqual(node.status.conditions, [{ type: 'Ready', status: 'True' }]);
    assert.equal(node.status.features, undefined, 'SupplementalGroupsPolicy is off in 1.31');
    // the v1 zero values upstream always prints
    assert.deepEqual(node.status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
    const fromList = await create({ metadata: { name: 'worker-2' }, spec: { podCIDRs: ['10.244.2.0/24', 'fd00:2::/64'] } });
    assert.equal(fromList.spec.podCIDR, '10.244.2.0/24');
  });

  test('an update of the node keeps the stored status; an update of nodes/status keeps the stored spec', async () => {
    const patched = await server.request('PATCH', `${NODES}/worker-1`, { raw: JSON.stringify({ metadata: { labels: { a: 'b' } }, spec: { unschedulable: true }, status: { phase: 'Gone' } }), headers: MERGE });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.spec.unschedulable, true);
    assert.equal(patched.body.status.phase, undefined);
    const status = await server.request('PATCH', `${NODES}/worker-1/status`, {
      raw: JSON.stringify({ spec: { unschedulable: false }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], nodeInfo: { kubeletVersion: 'v1.31.0' } } }),
      headers: MERGE,
    });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.spec.unschedulable, true);
    assert.deepEqual(status.body.status.addresses, [{ type: 'InternalIP', address: '10.0.0.1' }]);
    assert.equal(status.body.status.nodeInfo.kubeletVersion, 'v1.31.0');
    const read = await server.request('GET', `${NODES}/worker-1/status`);
    assert.equal(read.body.kind, 'Node');
    assert.equal(read.body.status.nodeInfo.kubeletVersion, 'v1.31.0');
  });

  test('delete at once, deletecollection, 404 afterwards', async () => {
    await create({ metadata: { name: 'gone-1', labels: { temp: 'yes' } } });
    await create({ metadata: { name: 'gone-2', labels: { temp: 'yes' } } });
    const deleted = await server.request('DELETE', `${NODES}/gone-1`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.kind, 'Status');
    const collection = await server.request('DELETE', `${NODES}?labelSelector=temp%3Dyes`);
    assert.equal(collection.status, 200, collection.text);
    assert.deepEqual(collection.body.items.map((n: any) => n.metadata.name), ['gone-2']);
    assertFailure(await server.request('GET', `${NODES}/gone-2`), 404, 'NotFound', 'nodes "gone-2" not found');
  });
});

describe('validation', () => {
  test('the name is a DNS subdomain', async () => {
    const res = await server.request('POST', NODES, { body: { metadata: { name: 'Bad_Name' } } });
    assert.equal(res.status, 422);
    assert.match(res.body.message, /^Node "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  });

  test('taints: qualified key, label value, a known effect, unique by key and effect (reported under metadata.taints, as upstream)', async () => {
    const res = await server.request('POST', NODES, {
      body: {
        metadata: { name: 'tainted' },
        spec: { taints: [{ key: 'bad key', effect: 'NoSchedule' }, { key: 'a', value: 'x y', effect: 'Sometimes' }, { key: 'a', effect: '' }, { key: 'b', effect: 'NoExecute' }, { key: 'b', effect: 'NoExecute' }] },
      },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causes(res), [
      ['FieldValueInvalid', 'metadata.taints[0].key', `Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`],
      ['FieldValueInvalid', 'metadata.taints[1].value', `Invalid value: "x y": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`],
      ['FieldValueNotSupported', 'metadata.taints[1].effect', 'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'],
      ['FieldValueRequired', 'metadata.taints[2].effect', 'Required value'],
      ['FieldValueDuplicate', 'metadata.taints[4]', 'Duplicate value: core.Taint{Key:"b", Value:"", Effect:"NoExecute", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair'],
    ]);
  });

  test('podCIDRs: valid CIDRs, at most one per family, no duplicates', async () => {
    const invalid = async (podCIDRs: string[]) => {
      const res = await server.request('POST', NODES, { body: { metadata: { name: 'cidrs' }, spec: { podCIDRs } } });
      assert.equal(res.status, 422, res.text);
      return causes(res);
    };
    assert.deepEqual(await invalid(['10.0.0.0/33']), [['FieldValueInvalid', 'spec.podCIDRs[0]', 'Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']]);
    assert.deepEqual(await invalid(['10.0.0.0/24', '10.1.0.0/24']), [['FieldValueInvalid', 'spec.podCIDRs', 'Invalid value: []string{"10.0.0.0/24", "10.1.0.0/24"}: may specify no more than one CIDR for each IP family']]);
    assert.deepEqual(await invalid(['fd00::/64', 'fd00::/64']), [
      ['FieldValueInvalid', 'spec.podCIDRs', 'Invalid value: []string{"fd00::/64", "fd00::/64"}: may specify no more than one CIDR for each IP family'],
      ['FieldValueDuplicate', 'spec.podCIDRs[1]', 'Duplicate value: "fd00::/64"'],
    ]);
    assert.deepEqual(await invalid(['10.0.0.0/24', 'nope']), [
      ['FieldValueInvalid', 'spec.podCIDRs[1]', 'Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'],
      ['InternalError', 'spec.podCIDRs', 'Internal error: invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[1]: <nil> (invalid CIDR address: nope)'],
      ['FieldValueInvalid', 'spec.podCIDRs', 'Invalid value: []string{"10.0.0.0/24", "nope"}: may specify no more than one CIDR for each IP family'],
    ]);
  });

  test('capacity and allocatable: not negative, whole for countable resources', async () => {
    const res = await server.request('POST', NODES, { body: { metadata: { name: 'negative' }, status: { capacity: { cpu: '-1', pods: '1500m', 'example.com/gpu': '0.5' }, allocatable: { memory: '1Gi' } } } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causes(res), [
      ['FieldValueInvalid', 'status.capacity.cpu', 'Invalid value: "-1": must be greater than or equal to 0'],
      ['FieldValueInvalid', 'status.capacity.pods', 'Invalid value: "1500m": must be an integer'],
      ['FieldValueInvalid', 'status.capacity.example.com/gpu', 'Invalid value: "500m": must be an integer'],
    ]);
  });

  test('updates: podCIDRs and providerID fixed once set, externalID fixed, addresses unique', async () => {
    const patch = (path: string, body: object) => server.request('PATCH', `${NODES}/${path}`, { raw: JSON.stringify(body), headers: MERGE });
    const cidr = await patch('worker-1', { spec: { podCIDR: '10.9.0.0/24', podCIDRs: null } });
    assert.equal(cidr.status, 422, cidr.text);
    assert.deepEqual(causes(cidr), [['FieldValueForbidden', 'spec.podCIDRs', 'Forbidden: node updates may not change podCIDR except from "" to valid']]);
    const provider = await patch('worker-1', { spec: { providerID: 'cloud://2' } });
    assert.deepEqual(causes(provider), [['FieldValueForbidden', 'spec.providerID', 'Forbidden: node updates may not change providerID except from "" to valid']]);
    assert.equal((await patch('worker-2', { spec: { podCIDRs: ['10.244.2.0/24', 'fd00:2::/64'], providerID: 'cloud://first' } })).status, 200, 'from "" to valid');
    const external = await patch('worker-2', { spec: { externalID: 'x' } });
    assert.deepEqual(causes(external), [['FieldValueForbidden', 'spec.externalID', 'Forbidden: may not be updated']]);
    const addresses = await patch('worker-2/status', { status: { addresses: [{ type: 'Hostname', address: 'w2' }, { type: 'Hostname', address: 'w2' }] } });
    assert.equal(addresses.status, 422, addresses.text);
    assert.deepEqual(causes(addresses), [['FieldValueDuplicate', 'status.addresses[1]', 'Duplicate value: core.NodeAddress{Type:"Hostname", Address:"w2"}']]);
  });

  test('the taints annotation is validated as upstream validates it', async () => {
    const res = await server.request('POST', NODES, { body: { metadata: { name: 'annotated', annotations: { 'scheduler.alpha.orch.io/taints': '[{"key":"k","effect":"Never"}]' } } } });
    assert.deepEqual(causes(res), [['FieldValueNotSupported', 'metadata.annotations.scheduler.alpha.orch.io/taints[0].effect', 'Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"']]);
    const broken = await server.request('POST', NODES, { body: { metadata: { name: 'annotated', annotations: { 'scheduler.alpha.orch.io/taints': '{' } } } });
    assert.deepEqual(causes(broken), [['FieldValueInvalid', 'metadata.annotations', 'Invalid value: "scheduler.alpha.orch.io/taints": unexpected end of JSON input']]);
  });
});

describe('field selectors and Table', () => {
  test('spec.unschedulable reads "false" for a node that never set it; metadata.namespace is not a node field', async () => {
    const names = async (selector: string) => (await server.request('GET', `${NODES}?fieldSelector=${encodeURIComponent(selector)}`)).body.items.map((n: any) => n.metadata.name);
    assert.deepEqual(await names('spec.unschedulable=true'), ['worker-1']);
    assert.deepEqual(await names('spec.unschedulable=false'), ['worker-2']);
    assert.deepEqual(await names('metadata.name=worker-2'), ['worker-2']);
    assertFailure(await server.request('GET', `${NODES}?fieldSelector=metadata.namespace%3Dx`), 400, 'BadRequest', 'field label not supported: metadata.namespace');
  });

  test('selectable fields: a default for an absent field, a fallback for an empty one', () => {
    const kind = (name: string) => kinds.find((k) => k.group === '' && k.kind === name)!;
    assert.deepEqual(selectableFields(kind('Node'), { metadata: { name: 'a' }, spec: {} }), { 'metadata.name': 'a', 'spec.unschedulable': 'false' });
    assert.equal(selectableFields(kind('Pod'), { metadata: { name: 'p' }, spec: {} })['spec.hostNetwork'], 'false');
    const event = kind('Event');
    assert.equal(selectableFields(event, { metadata: { name: 'e' }, source: { component: '' }, reportingComponent: 'kubelet' }).source, 'kubelet');
    assert.equal(selectableFields(event, { metadata: { name: 'e' }, source: { component: 'scheduler' }, reportingComponent: 'kubelet' }).source, 'scheduler');
  });

  test("printNode's columns: status from Ready and unschedulable, roles, version, addresses, <unknown> node info", async () => {
    await create({
      metadata: { name: 'printed', labels: { 'node-role.orch.io/control-plane': '', 'orch.io/role': 'edge' } },
      status: {
        conditions: [{ type: 'Ready', status: 'False' }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.9' }, { type: 'ExternalIP', address: '203.0.113.9' }],
        nodeInfo: { kubeletVersion: 'v1.31.2', osImage: 'Debian GNU/Linux 12' },
      },
    });
    const res = await server.request('GET', NODES, { headers: { accept: TABLE } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.columnDefinitions.map((c: any) => [c.name, c.priority]),
      [['Name', 0], ['Status', 0], ['Roles', 0], ['Age', 0], ['Version', 0], ['Internal-IP', 1], ['External-IP', 1], ['OS-Image', 1], ['Kernel-Version', 1], ['Container-Runtime', 1]],
    );
    assert.equal(res.body.columnDefinitions[4].description, 'Kubelet Version reported by the node.');
    const rows = new Map(res.body.rows.map((r: any) => [r.cells[0], r.cells]));
    const printed: any = rows.get('printed');
    assert.deepEqual([printed[1], printed[2], printed[4], ...printed.slice(5)], ['NotReady', 'control-plane,edge', 'v1.31.2', '10.0.0.9', '203.0.113.9', 'Debian GNU/Linux 12', '<unknown>', '<unknown>']);
    assert.match(printed[3], /^\d+s$/);
    const worker1: any = rows.get('worker-1');
    assert.deepEqual([worker1[1], worker1[2], worker1[5], worker1[6]], ['Ready,SchedulingDisabled', '<none>', '10.0.0.1', '<none>']);
    assert.equal((rows.get('worker-2') as any)[1], 'Unknown');
  });

  test('the formatters on their own', () => {
    assert.equal(nodeCells.nodeStatus(undefined, { status: { conditions: [{ type: 'Ready', status: 'Unknown' }, { type: 'Ready', status: 'True' }] } }), 'Ready');
    assert.equal(nodeCells.nodeRoles({ 'node-role.orch.io/b': '', 'node-role.orch.io/a': 'x', 'orch.io/role': '' }, {}), 'a,b');
    assert.equal(nodeCells.nodeInternalIP(undefined, {}), '<none>');
  });
});

describe('kubectl', { skip: !hasKubectl() && 'kubectl is not on PATH' }, () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'orch-kubectl-nodes-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  // kubectl asks for meta.k8s.io Tables, answered as meta.orch.io ones are: it prints printNode's columns.
  test('get nodes and the short name, cordon, delete', async () => {
    const kubectl = (...args: string[]) => runKubectl(server.orchconfig, home, args);
    for (const args of [['get', 'nodes'], ['get', 'no', 'worker-2']]) {
      const out = await kubectl(...args);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\n/, args.join(' '));
      assert.match(out.stdout, /worker-2\s+Unknown\s+<none>\s+\d+s\s*\n/);
    }
    const cordon = await kubectl('cordon', 'worker-2');
    assert.equal(cordon.code, 0, cordon.stderr);
    assert.match(cordon.stdout, /node\/worker-2 cordoned/);
    const unschedulable = await kubectl('get', 'node', 'worker-2', '-o', 'jsonpath={.spec.unschedulable}');
    assert.equal(unschedulable.stdout, 'true');
    const deleted = await kubectl('delete', 'node', 'printed');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /node "printed" deleted/);
  });
});
