// Table rows encoded once per object version (SPEC 2.5, 4.7; FACTS 5): the compact Table a request gets is
// byte for byte the Table of the object form (toTable, which pretty output still serves), for every kind, every
// includeObject and both Table versions, for lists from the watch cache, filtered lists, chunked and Exact lists
// read from storage, and single GETs; rows follow each new version; rows rendered at any time equal the object
// form at that time, also for stored JSON that is not what JSON.stringify makes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { kinds } from '../src/generated/index.ts';
import { rowRenderer, tablePlan, EncodedRow } from '../src/handlers/table-rows.ts';
import { toTable, type IncludeObject } from '../src/handlers/table.ts';
import { serializeForStorage } from '../src/registry/object-meta.ts';
import { CachedObject } from '../src/storage/cacher/cached-object.ts';
import { expectWrite } from './helpers/api.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
const NS = 'tables';
const TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';
const TABLE_BETA = 'application/json;as=Table;v=v1beta1;g=meta.orch.io';
const INCLUDES: Array<IncludeObject | ''> = ['', 'None', 'Metadata', 'Object'];

const ago = (ms: number, fraction = false) => {
  const iso = new Date(Date.now() - ms).toISOString();
  return fraction ? iso.replace(/Z$/, '123Z') : iso.replace(/\.\d+Z$/, 'Z');
};
const ns = (plural: string) => `/api/v1/namespaces/${NS}/${plural}`;
const RBAC = '/apis/rbac.authorization.orch.io/v1';

/** Every listable kind's collection and the objects made in it, with the printers' special cases. */
const COLLECTIONS: Record<string, { path: string; kind: string; group?: string; fixtures: any[] }> = {
  configmaps: {
    path: ns('configmaps'), kind: 'ConfigMap',
    fixtures: [
      { metadata: { name: 'cm-data', labels: { tier: 'table' } }, data: { a: '1', b: '2' }, binaryData: { c: 'AAE=' } },
      { metadata: { name: 'cm-empty' } },
      { metadata: { name: 'cm-text', annotations: { note: 'é "quoted" \\ ✓ \u2028 </script>' } }, data: { t: 'line\nline' } },
    ],
  },
  secrets: {
    path: ns('secrets'), kind: 'Secret',
    fixtures: [
      { metadata: { name: 's-opaque', labels: { tier: 'table' } }, type: 'Opaque', data: { x: 'eA==', y: 'eQ==' } },
      { metadata: { name: 's-custom' }, type: 'example.com/thing' },
    ],
  },
  serviceaccounts: { path: ns('serviceaccounts'), kind: 'ServiceAccount', fixtures: [{ metadata: { name: 'sa-two' }, secrets: [{ name: 's1' }, { name: 's2' }] }] },
  events: {
    path: ns('events'), kind: 'Event',
    fixtures: [
      {
        metadata: { name: 'ev-classic', labels: { tier: 'table' } }, involvedObject: { kind: 'Pod', name: 'p', namespace: NS, fieldPath: 'spec.containers{c}' },
        reason: 'Started', message: '  Started container c  ', type: 'Normal', source: { component: 'kubelet', host: 'node-1' },
        firstTimestamp: ago(600_000), lastTimestamp: ago(60_000), count: 3,
      },
      {
        metadata: { name: 'ev-series' }, involvedObject: { kind: 'Pod', name: 'p-running', namespace: NS }, reason: 'Pressure', message: 'memory', type: 'Warning',
        eventTime: ago(7_200_000, true), series: { count: 7, lastObservedTime: ago(30_000, true) }, reportingComponent: 'orch.io/ctrl', reportingInstance: 'ctrl-1', action: 'Check',
      },
      { metadata: { name: 'ev-bare' }, involvedObject: { kind: 'Pod', name: 'q', namespace: NS } },
    ],
  },
  pods: {
    path: ns('pods'), kind: 'Pod',
    fixtures: [
      { metadata: { name: 'p-pending', labels: { tier: 'table' } }, spec: { containers: [{ name: 'c', image: 'nginx' }], nodeName: 'n-full', readinessGates: [{ conditionType: 'example.com/lb' }] } },
      { metadata: { name: 'p-running' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      { metadata: { name: 'p-succeeded' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      { metadata: { name: 'p-failed' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      { metadata: { name: 'p-init' }, spec: { initContainers: [{ name: 'i1', image: 'busybox' }, { name: 'i2', image: 'busybox' }], containers: [{ name: 'c', image: 'nginx' }] } },
    ],
  },
  leases: {
    path: `/apis/coordination.orch.io/v1/namespaces/${NS}/leases`, kind: 'Lease', group: 'coordination.orch.io',
    fixtures: [{ metadata: { name: 'l-held', labels: { tier: 'table' } }, spec: { holderIdentity: 'me' } }, { metadata: { name: 'l-free' }, spec: {} }],
  },
  networkpolicies: {
    path: `/apis/networking.orch.io/v1/namespaces/${NS}/networkpolicies`, kind: 'NetworkPolicy', group: 'networking.orch.io',
    fixtures: [
      { metadata: { name: 'np-labels', labels: { tier: 'table' } }, spec: { podSelector: { matchLabels: { app: 'api', tier: 'backend' } } } },
      { metadata: { name: 'np-expr' }, spec: { podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['b', 'a'] }, { key: 'gone', operator: 'DoesNotExist' }] } } },
      { metadata: { name: 'np-all' }, spec: { podSelector: {} } },
    ],
  },
  roles: {
    path: `${RBAC}/namespaces/${NS}/roles`, kind: 'Role', group: 'rbac.authorization.orch.io',
    fixtures: [{ metadata: { name: 'r-read' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }, { metadata: { name: 'r-none', labels: { tier: 'table' } } }],
  },
  rolebindings: {
    path: `${RBAC}/namespaces/${NS}/rolebindings`, kind: 'RoleBinding', group: 'rbac.authorization.orch.io',
    fixtures: [
      {
        metadata: { name: 'rb-all', labels: { tier: 'table' } }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: 'r-read' },
        subjects: [{ kind: 'User', name: 'ann' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa-two', namespace: NS }, { kind: 'User', name: 'bob' }],
      },
      { metadata: { name: 'rb-none' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: 'r-none' } },
    ],
  },
  namespaces: { path: '/api/v1/namespaces', kind: 'Namespace', fixtures: [{ metadata: { name: 'tables-other', labels: { tier: 'table' } } }] },
  nodes: {
    path: '/api/v1/nodes', kind: 'Node',
    fixtures: [
      {
        metadata: { name: 'n-full', labels: { tier: 'table', 'node-role.orch.io/control-plane': '', 'orch.io/role': 'edge' } },
        spec: { unschedulable: true },
        status: {
          conditions: [{ type: 'Ready', status: 'True' }],
          addresses: [{ type: 'InternalIP', address: '10.0.0.9' }, { type: 'ExternalIP', address: '203.0.113.9' }],
          nodeInfo: { kubeletVersion: 'v1.31.2', osImage: 'Debian GNU/Linux 12', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7' },
        },
      },
      { metadata: { name: 'n-bare' } },
    ],
  },
  clusterroles: { path: `${RBAC}/clusterroles`, kind: 'ClusterRole', group: 'rbac.authorization.orch.io', fixtures: [{ metadata: { name: 'cr-table', labels: { tier: 'table' } }, rules: [] }] },
  clusterrolebindings: {
    path: `${RBAC}/clusterrolebindings`, kind: 'ClusterRoleBinding', group: 'rbac.authorization.orch.io',
    fixtures: [{ metadata: { name: 'crb-table' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'cr-table' }, subjects: [{ kind: 'Group', name: 'g' }] }],
  },
};

/** Pod statuses that reach each of printPod's branches, Restarts with the age of a restart among them. */
const POD_STATUSES: Record<string, any> = {
  'p-running': {
    phase: 'Running', podIP: '10.0.0.9', nominatedNodeName: 'n-bare', conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [{ name: 'c', image: 'nginx', imageID: '', ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: ago(300_000) } } }],
  },
  'p-succeeded': { phase: 'Succeeded', containerStatuses: [{ name: 'c', image: 'nginx', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] },
  'p-failed': { phase: 'Failed', reason: 'Evicted' },
  'p-init': {
    phase: 'Pending',
    initContainerStatuses: [
      { name: 'i1', image: 'b', imageID: '', ready: true, restartCount: 1, state: { terminated: { exitCode: 0 } }, lastState: { terminated: { exitCode: 2, finishedAt: ago(90_000) } } },
      { name: 'i2', image: 'b', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } },
    ],
  },
};

async function fetchText(path: string, accept: string): Promise<string> {
  const res = await server.request('GET', path, { headers: { accept } });
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return res.text;
}

const withQuery = (path: string, query: string) => (query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path);

/**
 * The compact Table of `path` is the object form's bytes: compared with the pretty answer re-encoded, between
 * two compact answers that agree (an age may tick over, or a controller write land, between requests).
 */
async function assertSameTable(path: string, accept = TABLE): Promise<any> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const first = await fetchText(path, accept);
    const pretty = await fetchText(withQuery(path, 'pretty=true'), accept);
    const second = await fetchText(path, accept);
    if (first !== second) continue;
    assert.equal(JSON.stringify(JSON.parse(pretty)), first, `${path} as ${accept}`);
    return JSON.parse(first);
  }
  assert.fail(`${path}: the Table kept changing`);
}

before(async () => {
  server = await startTestServer(['--authorization-mode=AlwaysAllow']);
  await expectWrite(server, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
  const sa = await server.request('POST', ns('serviceaccounts'), { body: { metadata: { name: 'default' } } });
  assert.ok(sa.status === 201 || sa.status === 409, sa.text);
  for (const { path, fixtures } of Object.values(COLLECTIONS)) for (const body of fixtures) await expectWrite(server, 'POST', path, body);
  for (const [name, status] of Object.entries(POD_STATUSES)) {
    const current = (await server.request('GET', `${ns('pods')}/${name}`)).body;
    await expectWrite(server, 'PUT', `${ns('pods')}/${name}/status`, { ...current, status: { ...status, qosClass: current.status.qosClass } });
  }
});
after(() => server?.close());

describe('the encoded rows give the object form’s bytes', () => {
  for (const [plural, { path }] of Object.entries(COLLECTIONS)) {
    test(`${plural}: whole, filtered, chunked and Exact lists, single GETs`, async () => {
      for (const include of INCLUDES) await assertSameTable(withQuery(path, include && `includeObject=${include}`));
      await assertSameTable(path, TABLE_BETA);
      await assertSameTable(withQuery(path, 'labelSelector=tier%3Dtable&includeObject=Object'));
      const list = JSON.parse(await fetchText(path, 'application/json'));
      // Chunks read from storage carry the same resourceVersion and continue tokens as the JSON list's.
      const limit = Math.ceil(list.items.length / 3);
      let token = '';
      let pages = 0;
      do {
        const query = `limit=${limit}${token && `&continue=${encodeURIComponent(token)}`}`;
        const table = await assertSameTable(withQuery(path, query));
        const list = JSON.parse(await fetchText(withQuery(path, query), 'application/json'));
        assert.deepEqual(table.metadata, list.metadata);
        assert.deepEqual(table.rows.map((r: any) => r.object.metadata.name), list.items.map((i: any) => i.metadata.name));
        token = table.metadata.continue ?? '';
        pages++;
      } while (token);
      assert.ok(pages > 1);
      const rv = list.metadata.resourceVersion;
      const exact = await assertSameTable(withQuery(path, `resourceVersion=${rv}&resourceVersionMatch=Exact&includeObject=Object`));
      assert.deepEqual(exact.rows.map((r: any) => r.object), list.items);
      assert.equal(exact.metadata.resourceVersion, rv);
      for (const item of list.items.slice(0, 8)) {
        for (const include of INCLUDES) {
          const one = await assertSameTable(withQuery(`${path}/${item.metadata.name}`, include && `includeObject=${include}`));
          assert.equal(one.metadata.resourceVersion, item.metadata.resourceVersion);
        }
      }
    });
  }

  test('a shared Table or chunk larger than one write goes out in slices, whole, with its Content-Length', async () => {
    await expectWrite(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'tables-big' } });
    const path = '/api/v1/namespaces/tables-big/configmaps';
    for (let i = 0; i < 200; i++) await expectWrite(server, 'POST', path, { metadata: { name: `cm-${i}` }, data: { blob: 'x'.repeat(2000) } });
    for (const [query, accept] of [['includeObject=Object', TABLE], ['limit=150', 'application/json'], ['limit=150&includeObject=Object', TABLE]]) {
      const res = await server.request('GET', withQuery(path, query), { headers: { accept } });
      assert.equal(res.status, 200, res.text);
      const bytes = Buffer.byteLength(res.text);
      assert.ok(bytes > 262_144, `${query}: ${bytes} bytes is more than one slice`);
      assert.equal(res.headers['content-length'], String(bytes));
      const body = JSON.parse(res.text);
      const names = (body.rows?.map((r: any) => r.object.metadata.name) ?? body.items.map((i: any) => i.metadata.name)) as string[];
      // The namespace's root CA ConfigMap is listed beside the 200 (after them: keys sort by name).
      assert.equal(names.filter((n) => n.startsWith('cm-')).length, query.startsWith('limit') ? 150 : 200);
    }
    await assertSameTable(withQuery(path, 'includeObject=Object'));
  });

  test('a new version gets a new row; a deleted object leaves the Table', async () => {
    const { path } = COLLECTIONS.networkpolicies;
    const cells = async () => new Map((await assertSameTable(path)).rows.map((r: any) => [r.cells[0], r.cells[1]]));
    assert.equal((await cells()).get('np-labels'), 'app=api,tier=backend');
    const current = (await server.request('GET', `${path}/np-labels`)).body;
    const updated = await expectWrite(server, 'PUT', `${path}/np-labels`, { ...current, spec: { podSelector: { matchLabels: { app: 'web' } } } });
    assert.equal((await cells()).get('np-labels'), 'app=web');
    const one = await assertSameTable(`${path}/np-labels`);
    assert.equal(one.rows[0].object.metadata.resourceVersion, updated.metadata.resourceVersion);
    await expectWrite(server, 'DELETE', `${path}/np-expr`);
    assert.equal((await cells()).has('np-expr'), false);
  });

  test('an unchanged collection listed after other resources changed: the same rows and items (Table, JSON chunk, metadata-only), under the new resourceVersion and continue token', async () => {
    // The shared rows and chunk items are keyed by the objects, not by the revision: a write elsewhere moves the
    // revision without changing them, and the head each answer writes must still carry the revision it is at.
    // One process, so that every read finds what the one before it shared.
    const server = await startTestServer(['--workers=1']);
    after(() => server.stop());
    await expectWrite(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'tables-shared' } });
    const path = '/api/v1/namespaces/tables-shared/configmaps';
    for (let i = 0; i < 5; i++) await expectWrite(server, 'POST', path, { metadata: { name: `cm-${i}` }, data: { i: String(i) } });
    const read = async (query: string, accept: string) => {
      const res = await server.request('GET', withQuery(path, query), { headers: { accept } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.text)));
      return JSON.parse(res.text);
    };
    const PARTIAL = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.orch.io';
    const forms: Array<[string, string]> = [['', TABLE], ['limit=2', TABLE], ['limit=2', 'application/json'], ['includeObject=Object', TABLE], ['', PARTIAL], ['limit=2', PARTIAL]];
    const before = await Promise.all(forms.map(([q, a]) => read(q, a)));
    // Elsewhere: an object of another resource.
    const other = await expectWrite(server, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'elsewhere' } });
    const moved = Number(other.metadata.resourceVersion);
    const again = await Promise.all(forms.map(([q, a]) => read(q, a)));
    for (const [i, [query, accept]] of forms.entries()) {
      const [was, now] = [before[i], again[i]];
      assert.ok(Number(now.metadata.resourceVersion) >= moved, `${query} ${accept}: at the new revision, not ${now.metadata.resourceVersion}`);
      assert.ok(Number(was.metadata.resourceVersion) < moved);
      // A Table's last cell is the age, which may have ticked over a second in between.
      const same = (body: any) => body.items ?? body.rows.map((r: any) => ({ ...r, cells: r.cells.slice(0, -1) }));
      assert.deepEqual(same(now), same(was), `${query} ${accept}: the same objects`);
      if (query.startsWith('limit')) {
        // The continue token is at the answer's revision: the next page is read there, with the rest.
        const next = await read(`limit=10&continue=${encodeURIComponent(now.metadata.continue)}`, accept);
        const names = [...(now.rows ?? now.items), ...(next.rows ?? next.items)].map((r: any) => (r.object?.metadata ?? r.metadata)?.name ?? r.cells?.[0]);
        assert.deepEqual(names.filter((n: string) => n.startsWith('cm-')), ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
        assert.equal(now.metadata.remainingItemCount, was.metadata.remainingItemCount);
      }
    }
    // A change of the collection itself is seen at once by every form.
    await expectWrite(server, 'DELETE', `${path}/cm-0`);
    const changed = await Promise.all(forms.map(([q, a]) => read(q, a)));
    for (const body of changed) {
      const first = (body.rows ?? body.items)[0];
      assert.notEqual((first.object?.metadata ?? first.metadata)?.name ?? first.cells?.[0], 'cm-0');
    }
  });
});

describe('rows rendered at a given time', () => {
  const OFFSETS_MS = [-5_000, -500, 0, 59_999, 90_000, 330_000, 7_200_000, 19_800_000, 108_000_000, 277_200_000, 8_640_000_000, 100_000_000_000, 400_000_000_000];

  /** The object versions as the watch cache holds them: stored JSON without resourceVersion, and the revision. */
  async function versionsOf(path: string): Promise<CachedObject[]> {
    const list = JSON.parse(await fetchText(path, 'application/json'));
    return list.items.map((item: any) => new CachedObject(item.metadata.name, serializeForStorage(item), Number(item.metadata.resourceVersion)));
  }

  function assertRowsMatch(kindName: string, group: string, objects: CachedObject[], now: number): void {
    const kind = kinds.find((k) => k.kind === kindName && k.group === group)!;
    const plan = tablePlan(kind);
    for (const include of ['None', 'Metadata', 'Object'] as const) {
      for (const version of ['meta.orch.io/v1', 'meta.orch.io/v1beta1', 'meta.k8s.io/v1']) {
        const table: any = toTable(kind, objects.map((o) => JSON.parse(o.json())), {}, include, version, now);
        assert.equal(plan.columnDefinitions, JSON.stringify(table.columnDefinitions));
        const row = rowRenderer(plan, objects, include, version, now);
        objects.forEach((o, i) => assert.equal(row(i), JSON.stringify(table.rows[i]), `${kindName} ${o.key} ${include} ${version} at +${now}`));
      }
    }
  }

  test('every kind at ages from <invalid> to years, each version encoded once', async () => {
    const base = Date.now();
    for (const { path, kind, group } of Object.values(COLLECTIONS)) {
      const objects = await versionsOf(path);
      for (const offset of OFFSETS_MS) assertRowsMatch(kind, group ?? '', objects, base + offset);
      for (const o of objects) assert.ok(o.derived instanceof EncodedRow, `${kind} ${o.key} keeps its row`);
      const kept = objects.map((o) => o.derived);
      assertRowsMatch(kind, group ?? '', objects, base);
      objects.forEach((o, i) => assert.equal(o.derived, kept[i], 'a version is encoded once'));
    }
  });

  test('stored JSON that is not what JSON.stringify makes of it is re-encoded, as a parse would', () => {
    const stored = [
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"spaced", "creationTimestamp":"2024-01-01T00:00:00Z"},"data":{"a":"1"}}',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"escaped-\\u00e9","creationTimestamp":"2024-01-01T00:00:00Z"},"data":{"a":"\\/"}}',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"number","creationTimestamp":"2024-01-01T00:00:00Z","generation":1.0}}',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"canonical"},"data":{"b":"2"}}',
    ];
    const objects = stored.map((value, i) => new CachedObject(`k${i}`, value, 100 + i));
    assertRowsMatch('ConfigMap', '', objects, Date.parse('2024-03-01T00:00:00Z'));
    assert.deepEqual(objects.map((o) => (o.derived as EncodedRow).reencoded === undefined), [false, false, false, true, true]);
  });
});
