// Discovery, aggregated discovery, /version, OpenAPI v2/v3 and Table output over HTTPS
// (SPEC 2.5, 4.7, 9.1; FACTS 4, 5).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure } from './helpers/api.ts';

let server: TestServer;
const NS = 'disco';
const NPS = `/apis/networking.orch.io/v1/namespaces/${NS}/networkpolicies`;
const AGGREGATED = 'application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList';
const TABLE = 'application/json;as=Table;g=meta.orch.io;v=v1';
const NETPOL_RESOURCE = {
  name: 'networkpolicies', singularName: 'networkpolicy', namespaced: true, kind: 'NetworkPolicy',
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['netpol'], storageVersionHash: '0G7nR5+ls0I=',
};
/** FACTS 4: base64 of the first 8 bytes of SHA-256(`group/version/Kind`). */
const storageVersionHash = (group: string, version: string, kind: string) =>
  createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');

before(async () => {
  server = await startTestServer();
  assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
  const np = (name: string, podSelector: any) => server.request('POST', NPS, { body: { metadata: { name }, spec: { podSelector } } });
  assert.equal((await np('web', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] })).status, 201);
  assert.equal((await np('all', {})).status, 201);
  assert.equal((await np('odd', { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }, { key: 'b', operator: 'NotIn', values: ['1'] }] })).status, 201);
});
after(() => server?.close());

describe('legacy discovery', () => {
  const address = () => [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${server.port}` }];

  test('/api lists the core version and carries no apiVersion', async () => {
    const res = await server.request('GET', '/api');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: address() });
  });

  test('/api/v1 lists the core resources with sorted verbs and storage version hashes', async () => {
    const res = await server.request('GET', '/api/v1');
    assert.equal(res.body.kind, 'APIResourceList');
    assert.equal(res.body.apiVersion, undefined);
    assert.equal(res.body.groupVersion, 'v1');
    const byName = new Map(res.body.resources.map((r: any) => [r.name, r]));
    for (const name of ['configmaps', 'events', 'namespaces', 'secrets', 'serviceaccounts', 'namespaces/status', 'namespaces/finalize']) assert.ok(byName.has(name), name);
    assert.equal((byName.get('namespaces') as any).namespaced, false);
    assert.deepEqual((byName.get('configmaps') as any).shortNames, ['cm']);
    for (const r of res.body.resources as any[]) {
      assert.deepEqual(r.verbs, [...r.verbs].sort(), `${r.name} verbs sorted`);
      if (r.name.includes('/')) assert.equal(r.singularName, '');
      else assert.equal(r.storageVersionHash, storageVersionHash('', 'v1', r.kind), r.name);
    }
  });

  test('/apis lists named groups only', async () => {
    const res = await server.request('GET', '/apis');
    assert.equal(res.body.kind, 'APIGroupList');
    assert.equal(res.body.apiVersion, 'v1');
    const gv = { groupVersion: 'networking.orch.io/v1', version: 'v1' };
    const group = res.body.groups.find((g: any) => g.name === 'networking.orch.io');
    assert.deepEqual(group, { name: 'networking.orch.io', versions: [gv], preferredVersion: gv, serverAddressByClientCIDRs: address() });
    assert.ok(!res.body.groups.some((g: any) => g.name === ''), 'the core group is not listed');
  });

  test('/apis/networking.orch.io and its version', async () => {
    const group = await server.request('GET', '/apis/networking.orch.io');
    assert.equal(group.body.kind, 'APIGroup');
    assert.equal(group.body.apiVersion, 'v1');
    assert.equal(group.body.name, 'networking.orch.io');
    assert.deepEqual(group.body.preferredVersion, { groupVersion: 'networking.orch.io/v1', version: 'v1' });
    const version = await server.request('GET', '/apis/networking.orch.io/v1');
    assert.deepEqual({ ...version.body, resources: undefined }, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'networking.orch.io/v1', resources: undefined });
    assert.deepEqual(version.body.resources.map((r: any) => r.name), ['ingresses', 'ingresses/status', 'ingressclasses', 'networkpolicies']);
    assert.deepEqual(version.body.resources.find((r: any) => r.name === 'networkpolicies'), NETPOL_RESOURCE);
    assert.equal(storageVersionHash('networking.orch.io', 'v1', 'NetworkPolicy'), '0G7nR5+ls0I=');
  });
});

describe('aggregated discovery', () => {
  test('/apis as APIGroupDiscoveryList with ETag, and 304 on If-None-Match', async () => {
    for (const accept of [AGGREGATED, 'application/json;g=apidiscovery.orch.io;v=v2beta1;as=APIGroupDiscoveryList', `${AGGREGATED}, application/json`]) {
      const res = await server.request('GET', '/apis', { headers: { accept } });
      assert.equal(res.status, 200, accept);
      assert.equal(res.body.kind, 'APIGroupDiscoveryList');
      assert.equal(res.body.apiVersion, 'apidiscovery.orch.io/v2');
      assert.match(res.headers['content-type'] as string, /^application\/json;g=apidiscovery\.orch\.io;v=v2/);
      assert.match(res.headers.etag as string, /^"[0-9A-Fa-f]+"$/);
      assert.equal(res.headers.vary, 'Accept');
      assert.equal(res.headers['cache-control'], 'public');
    }
    const res = await server.request('GET', '/apis', { headers: { accept: AGGREGATED } });
    const group = res.body.items.find((g: any) => g.metadata.name === 'networking.orch.io');
    assert.equal(group.versions.length, 1);
    assert.equal(group.versions[0].version, 'v1');
    assert.equal(group.versions[0].freshness, 'Current');
    assert.deepEqual(group.versions[0].resources.map((r: any) => r.resource), ['ingresses', 'ingressclasses', 'networkpolicies']);
    assert.deepEqual(group.versions[0].resources.find((r: any) => r.resource === 'networkpolicies'), {
      resource: 'networkpolicies', responseKind: { group: 'networking.orch.io', version: 'v1', kind: 'NetworkPolicy' }, scope: 'Namespaced',
      singularResource: 'networkpolicy', verbs: NETPOL_RESOURCE.verbs, shortNames: ['netpol'],
    });
    const cached = await server.request('GET', '/apis', { headers: { accept: AGGREGATED, 'if-none-match': res.headers.etag as string } });
    assert.equal(cached.status, 304);
    assert.equal(cached.text, '');
    assert.equal(cached.headers.etag, res.headers.etag);
    const stale = await server.request('GET', '/apis', { headers: { accept: AGGREGATED, 'if-none-match': '"0"' } });
    assert.equal(stale.status, 200);
  });

  test('/api as APIGroupDiscoveryList with the core resources and subresources', async () => {
    const res = await server.request('GET', '/api', { headers: { accept: AGGREGATED } });
    assert.equal(res.body.kind, 'APIGroupDiscoveryList');
    assert.equal(res.body.items.length, 1);
    const resources = res.body.items[0].versions[0].resources;
    const ns = resources.find((r: any) => r.resource === 'namespaces');
    assert.equal(ns.scope, 'Cluster');
    assert.deepEqual(ns.responseKind, { group: '', version: 'v1', kind: 'Namespace' });
    assert.deepEqual(ns.subresources.map((s: any) => s.subresource).sort(), ['finalize', 'status']);
    assert.equal(resources.find((r: any) => r.resource === 'configmaps').scope, 'Namespaced');
  });
});

describe('/version and OpenAPI', () => {
  test('/version holds the version fields as strings', async () => {
    const res = await server.request('GET', '/version');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['buildDate', 'compiler', 'gitCommit', 'gitTreeState', 'gitVersion', 'goVersion', 'major', 'minor', 'platform']);
    for (const value of Object.values(res.body)) assert.equal(typeof value, 'string');
    assert.equal(res.body.major, '1');
    assert.equal(res.body.minor, '31');
    assert.match(res.body.gitVersion, /^v1\.31\./);
  });

  test('/openapi/v3 index points at content-addressed documents', async () => {
    const index = await server.request('GET', '/openapi/v3');
    assert.equal(index.status, 200);
    assert.deepEqual(Object.keys(index.body.paths).sort(), ['api/v1', 'apis/apiextensions.orch.io/v1', 'apis/apps/v1', 'apis/authentication.orch.io/v1', 'apis/authorization.orch.io/v1', 'apis/autoscaling/v1', 'apis/autoscaling/v2', 'apis/batch/v1', 'apis/coordination.orch.io/v1', 'apis/discovery.orch.io/v1', 'apis/events.orch.io/v1', 'apis/flowcontrol.orch.io/v1', 'apis/flowcontrol.orch.io/v1beta3', 'apis/networking.orch.io/v1', 'apis/node.orch.io/v1', 'apis/policy/v1', 'apis/rbac.authorization.orch.io/v1', 'apis/storage.orch.io/v1']);
    for (const [gv, { serverRelativeURL }] of Object.entries<any>(index.body.paths)) {
      const match = new RegExp(`^/openapi/v3/${gv.replace(/\./g, '\\.')}\\?hash=([0-9A-F]{128})$`).exec(serverRelativeURL);
      assert.ok(match, serverRelativeURL);
      const doc = await server.request('GET', serverRelativeURL);
      assert.equal(doc.status, 200);
      assert.equal(createHash('sha512').update(doc.text).digest('hex').toUpperCase(), match[1], 'the hash is the document\'s');
      assert.equal(doc.headers.etag, `"${match[1]}"`);
      assert.equal(doc.headers['cache-control'], 'public, immutable');
      assert.ok(Date.parse(doc.headers.expires as string) - Date.now() > 300 * 24 * 3600 * 1000);
      const stale = await server.request('GET', `/openapi/v3/${gv}?hash=ABC`);
      assert.equal(stale.status, 301);
      assert.equal(stale.headers.location, serverRelativeURL);
      const unpinned = await server.request('GET', `/openapi/v3/${gv}`);
      assert.equal(unpinned.text, doc.text);
      assert.equal(unpinned.headers['cache-control'], undefined);
    }
    assert.equal((await server.request('GET', '/openapi/v3/apis/nope.orch.io/v1')).status, 404);
  });

  test('the networking document describes NetworkPolicy with its group-version-kind', async () => {
    const doc = (await server.request('GET', '/openapi/v3/apis/networking.orch.io/v1')).body;
    assert.match(doc.openapi, /^3\./);
    const schema = doc.components.schemas['io.orch.api.networking.v1.NetworkPolicy'];
    assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: 'networking.orch.io', kind: 'NetworkPolicy', version: 'v1' }]);
    for (const path of ['/apis/networking.orch.io/v1/namespaces/{namespace}/networkpolicies', '/apis/networking.orch.io/v1/namespaces/{namespace}/networkpolicies/{name}', '/apis/networking.orch.io/v1/networkpolicies']) {
      assert.ok(doc.paths[path], path);
    }
  });

  test('/openapi/v2 is a Swagger 2.0 document with definitions and paths', async () => {
    const res = await server.request('GET', '/openapi/v2');
    assert.equal(res.status, 200);
    assert.equal(res.body.swagger, '2.0');
    assert.ok(res.body.definitions['io.orch.api.networking.v1.NetworkPolicy']);
    assert.ok(res.body.definitions['io.orch.api.core.v1.ConfigMap']);
    assert.ok(res.body.paths['/apis/networking.orch.io/v1/namespaces/{namespace}/networkpolicies/{name}'].get);
    assert.ok(res.body.paths['/api/v1/namespaces/{namespace}/configmaps'].post);
  });
});

describe('Table output', () => {
  const table = (path: string, accept = TABLE) => server.request('GET', path, { headers: { accept } });

  test('NetworkPolicy list: Name, Pod-Selector, Age', async () => {
    const res = await table(NPS);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.kind, 'Table');
    assert.equal(res.body.apiVersion, 'meta.orch.io/v1');
    assert.match(res.body.metadata.resourceVersion, /^\d+$/);
    assert.deepEqual(res.body.columnDefinitions.map((c: any) => [c.name, c.type, c.format, c.priority]), [
      ['Name', 'string', 'name', 0], ['Pod-Selector', 'string', '', 0], ['Age', 'string', '', 0],
    ]);
    assert.ok(res.body.columnDefinitions.every((c: any) => typeof c.description === 'string' && c.description.length > 0));
    const rows = new Map(res.body.rows.map((r: any) => [r.cells[0], r]));
    assert.deepEqual((rows.get('web') as any).cells.slice(0, 2), ['web', 'app=web,tier in (a,b)']);
    assert.deepEqual((rows.get('all') as any).cells.slice(0, 2), ['all', '<none>']);
    assert.deepEqual((rows.get('odd') as any).cells.slice(0, 2), ['odd', 'b notin (1),!x']);
    for (const row of res.body.rows) {
      assert.match(row.cells[2], /^\d+s$/);
      assert.deepEqual(Object.keys(row.object), ['kind', 'apiVersion', 'metadata']);
      assert.equal(row.object.kind, 'PartialObjectMetadata');
      assert.equal(row.object.apiVersion, 'meta.orch.io/v1');
      assert.equal(row.object.metadata.name, row.cells[0]);
    }
  });

  test('includeObject None, Object and an unknown value', async () => {
    const none = await table(`${NPS}?includeObject=None`);
    assert.equal(none.body.rows.length, 3);
    assert.ok(none.body.rows.every((r: any) => !('object' in r)));
    const full = await table(`${NPS}/web?includeObject=Object`);
    assert.equal(full.body.rows.length, 1);
    assert.equal(full.body.rows[0].object.kind, 'NetworkPolicy');
    assert.deepEqual(full.body.rows[0].object.spec.policyTypes, ['Ingress']);
    assertFailure(await table(`${NPS}?includeObject=Everything`), 400, 'BadRequest', 'unrecognized includeObject value: "Everything"');
  });

  test('namespace list as a Table; v1beta1; JSON fallback; unknown Table version is 406', async () => {
    const res = await table('/api/v1/namespaces');
    assert.deepEqual(res.body.columnDefinitions.map((c: any) => c.name), ['Name', 'Status', 'Age']);
    const row = res.body.rows.find((r: any) => r.cells[0] === 'default');
    assert.deepEqual(row.cells.slice(0, 2), ['default', 'Active']);
    const beta = await table(NPS, 'application/json;as=Table;g=meta.orch.io;v=v1beta1');
    assert.equal(beta.body.apiVersion, 'meta.orch.io/v1beta1');
    const fallback = await table(NPS, `${TABLE.replace('v=v1', 'v=v9')}, application/json`);
    assert.equal(fallback.body.kind, 'NetworkPolicyList');
    assertFailure(await table(NPS, TABLE.replace('v=v1', 'v=v9')), 406, 'NotAcceptable');
    // YAML is the other media type a Table is served in (upstream AllowsMediaTypeTransform); not for a watch.
    const yaml = await server.request('GET', '/api/v1/namespaces/default', { headers: { accept: 'application/yaml;as=Table;g=meta.orch.io;v=v1' } });
    assert.equal(yaml.status, 200, yaml.text);
    assert.match(String(yaml.headers['content-type']), /^application\/yaml/);
    assert.match(yaml.text, /^kind: Table\napiVersion: meta\.orch\.io\/v1\n/);
    assert.match(yaml.text, /cells:\n\s+- default\n\s+- Active\n/);
    assertFailure(await server.request('GET', '/api/v1/namespaces?watch=1', { headers: { accept: 'application/yaml;as=Table;g=meta.orch.io;v=v1' } }), 406, 'NotAcceptable');
    // Nor a plain YAML watch: YAML is chosen and has no stream form (upstream NegotiateOutputMediaTypeStream), even with JSON after it.
    for (const accept of ['application/yaml', 'application/yaml, application/json', 'application/yaml;as=PartialObjectMetadata;g=meta.k8s.io;v=v1']) {
      assertFailure(await server.request('GET', '/api/v1/namespaces?watch=1&timeoutSeconds=1', { headers: { accept } }), 406, 'NotAcceptable');
    }
    assert.equal((await server.request('GET', '/api/v1/namespaces', { headers: { accept: 'application/yaml' } })).status, 200);
  });

  test("kubectl's own Table request (g=meta.k8s.io) gets the same Table in the group it named; other groups are 406", async () => {
    const kubectlAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const res = await table(`${NPS}?includeObject=Metadata`, kubectlAccept);
    assert.equal(res.body.kind, 'Table');
    assert.equal(res.body.apiVersion, 'meta.k8s.io/v1');
    assert.equal(res.body.rows[0].object.apiVersion, 'meta.k8s.io/v1');
    const orch = await table(`${NPS}?includeObject=Metadata`);
    assert.deepEqual({ ...res.body, apiVersion: undefined, rows: undefined }, { ...orch.body, apiVersion: undefined, rows: undefined });
    assertFailure(await table(NPS, 'application/json;as=Table;v=v1;g=meta.example.io'), 406, 'NotAcceptable');
  });
});

describe('the address discovery and issuer discovery name (--advertise-address, --external-hostname)', () => {
  test('--external-hostname wins over --advertise-address; the port is added unless given; bad IPs are refused', async () => {
    const advertised = await startTestServer(['--advertise-address=10.20.30.40']);
    const named = await startTestServer(['--advertise-address=10.20.30.40', '--external-hostname=api.example:8443']);
    try {
      const cidrs = (res: { body: any }) => res.body.serverAddressByClientCIDRs;
      assert.deepEqual(cidrs(await advertised.request('GET', '/api')), [{ clientCIDR: '0.0.0.0/0', serverAddress: `10.20.30.40:${advertised.port}` }]);
      const group = (await advertised.request('GET', '/apis')).body.groups.find((g: any) => g.name === 'networking.orch.io');
      assert.deepEqual(group.serverAddressByClientCIDRs, [{ clientCIDR: '0.0.0.0/0', serverAddress: `10.20.30.40:${advertised.port}` }]);
      assert.equal((await advertised.request('GET', '/.well-known/openid-configuration')).body.jwks_uri, `https://10.20.30.40:${advertised.port}/openid/v1/jwks`);
      assert.deepEqual(cidrs(await named.request('GET', '/api')), [{ clientCIDR: '0.0.0.0/0', serverAddress: 'api.example:8443' }]);
      assert.equal((await named.request('GET', '/.well-known/openid-configuration')).body.jwks_uri, 'https://api.example:8443/openid/v1/jwks');
    } finally {
      await Promise.all([advertised.close(), named.close()]);
    }
    const { parseFlags } = await import('../src/cli/flags.ts');
    assert.throws(() => parseFlags(['--advertise-address=api.example']), /invalid argument "api.example" for "--advertise-address" flag: failed to parse IP/);
  });
});
