/**
 * --runtime-config (SPEC 9.2, 9.3, 9.8; apiserver resourceconfig,
 * APIEnablementOptions): the defaults by version level, every key form, the
 * precedence, upstream's errors, and through real servers a disabled
 * group-version or resource gone from routing, discovery and OpenAPI while the
 * server's own readers keep working.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigurationMap, resolveRuntimeConfig, versionLevel, type RegisteredResource } from '../src/server/runtime-config.ts';
import { kinds } from '../src/generated/index.ts';
import { BIN, startTestServer, type TestServer } from './helpers/server.ts';

const REGISTERED: RegisteredResource[] = [
  { group: '', version: 'v1', plural: 'pods' },
  { group: '', version: 'v1', plural: 'secrets' },
  { group: 'apps', version: 'v1', plural: 'deployments' },
  { group: 'example.orch.io', version: 'v1alpha1', plural: 'widgets' },
  { group: 'example.orch.io', version: 'v2beta1', plural: 'widgets' },
  { group: 'example.orch.io', version: 'v2beta1', plural: 'gadgets' },
  { group: 'flowcontrol.orch.io', version: 'v1beta3', plural: 'flowschemas' },
];

function served(flag: string): string[] {
  const enablement = resolveRuntimeConfig(parseConfigurationMap(flag), REGISTERED);
  return REGISTERED.filter((r) => enablement.resourceEnabled(r.group, r.version, r.plural)).map((r) => `${r.group}/${r.version}/${r.plural}`);
}

test('version levels from the name', () => {
  assert.deepEqual(['v1', 'v12', 'v1beta3', 'v2alpha1', 'v1beta', 'latest'].map(versionLevel), ['ga', 'ga', 'beta', 'alpha', undefined, undefined]);
});

test('defaults: stable on, alpha off, beta off but for upstream legacy betas', () => {
  assert.deepEqual(served(''), ['/v1/pods', '/v1/secrets', 'apps/v1/deployments', 'flowcontrol.orch.io/v1beta3/flowschemas']);
});

test('key forms and precedence: api/<level>, then versions, then resources; omitted value is true', () => {
  assert.deepEqual(served('api/alpha=true'), ['/v1/pods', '/v1/secrets', 'apps/v1/deployments', 'example.orch.io/v1alpha1/widgets', 'flowcontrol.orch.io/v1beta3/flowschemas']);
  assert.deepEqual(served('api/beta=false'), ['/v1/pods', '/v1/secrets', 'apps/v1/deployments']);
  assert.deepEqual(served('api/all=false,example.orch.io/v2beta1'), ['example.orch.io/v2beta1/widgets', 'example.orch.io/v2beta1/gadgets']);
  assert.deepEqual(served('api/all=false,example.orch.io/v2beta1/gadgets'), ['example.orch.io/v2beta1/gadgets']);
  assert.deepEqual(served('api/ga=false,apps/v1=true'), ['apps/v1/deployments', 'flowcontrol.orch.io/v1beta3/flowschemas']);
  assert.deepEqual(served('apps/v1=false,apps/v1/deployments=true'), ['/v1/pods', '/v1/secrets', 'apps/v1/deployments', 'flowcontrol.orch.io/v1beta3/flowschemas']);
  // The core group: v1, api/v1 and their resource forms; api/legacy is dropped.
  for (const flag of ['v1=false', 'api/v1=false']) assert.deepEqual(served(flag), ['apps/v1/deployments', 'flowcontrol.orch.io/v1beta3/flowschemas'], flag);
  for (const flag of ['v1/pods=false', 'api/v1/pods=0']) assert.deepEqual(served(`${flag},api/legacy=false`), ['/v1/secrets', 'apps/v1/deployments', 'flowcontrol.orch.io/v1beta3/flowschemas'], flag);
  // A version named after the default of its resources drops them (ExplicitlyDisableVersions).
  assert.deepEqual(served('flowcontrol.orch.io/v1beta3=false'), ['/v1/pods', '/v1/secrets', 'apps/v1/deployments']);
  // A resource a registered version does not have changes nothing.
  assert.deepEqual(served('apps/v1/nothings=false'), served(''));
});

test("upstream's errors", () => {
  const cases: Array<[string, string]> = [
    ['api/all=false', 'invalid runtime-config with only api/all=false'],
    ['foo.io/v1=false,bar.io/v2', 'unknown api groups bar.io/v2,foo.io/v1'],
    ['apps', 'runtime-config invalid key apps'],
    ['apps/v1/deployments/scale', 'runtime-config invalid key apps/v1/deployments/scale'],
    ['apps/v9=true', 'group version apps/v9 that has not been registered'],
    ['v2=true', 'runtime-config invalid key v2'],
    ['/v2=true', 'group version v2 that has not been registered'],
    ['api/all=yes', 'invalid value api/all=yes'],
    ['apps/v1=yes', 'invalid value of apps/v1: yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    ['apps/v1/Deployments=false', 'invalid key apps/v1/Deployments: group/version/resource and resource is always lowercase plural, not "Deployments"'],
  ];
  for (const [flag, message] of cases) assert.throws(() => served(flag), { message }, flag);
});

test('a bad --runtime-config stops the server at start with the message, exit 1', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-rc-'));
  try {
    const run = spawnSync(process.execPath, [BIN, '--data-dir', dataDir, '--secure-port', '0', '--runtime-config=stable.example.com/v1=false'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /^Error: unknown api groups stable\.example\.com\/v1$/m);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('every generated kind has a version level', () => {
  for (const kind of kinds) assert.ok(versionLevel(kind.version), `${kind.group}/${kind.version}`);
});

const NPS = '/apis/networking.orch.io/v1/namespaces/default/networkpolicies';
const CMS = '/api/v1/namespaces/default/configmaps';
const AGGREGATED = { accept: 'application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList' };

describe('disabled group-version and core resource, through a real server', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(['--workers=1', '--runtime-config=networking.orch.io/v1=false,v1/configmaps=false,rbac.authorization.orch.io/v1=false', '--authorization-mode=Node,RBAC']);
  });
  after(() => server?.close());

  test('routing: 404 as for a path never served', async () => {
    for (const path of [NPS, CMS, `${CMS}/x`, '/apis/rbac.authorization.orch.io/v1/clusterroles', '/apis/networking.orch.io/v1']) {
      const res = await server.request('GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.reason, 'NotFound');
    }
    const never = await server.request('GET', '/apis/never.orch.io/v1/things');
    assert.equal(never.body.message, (await server.request('GET', NPS)).body.message);
    assert.equal((await server.request('GET', '/api/v1/namespaces/default/secrets')).status, 200);
  });

  test('discovery, legacy and aggregated', async () => {
    const groups = (await server.request('GET', '/apis')).body.groups.map((g: any) => g.name);
    assert.ok(!groups.includes('networking.orch.io') && !groups.includes('rbac.authorization.orch.io'), groups.join());
    assert.ok(groups.includes('coordination.orch.io'));
    const core = (await server.request('GET', '/api/v1')).body.resources.map((r: any) => r.name);
    assert.ok(!core.includes('configmaps') && core.includes('secrets'));
    const aggregated = (await server.request('GET', '/apis', { headers: AGGREGATED })).body.items.map((i: any) => i.metadata.name);
    assert.ok(!aggregated.includes('networking.orch.io') && aggregated.includes('coordination.orch.io'));
    const aggregatedCore = (await server.request('GET', '/api', { headers: AGGREGATED })).body.items[0].versions[0].resources.map((r: any) => r.resource);
    assert.ok(!aggregatedCore.includes('configmaps') && aggregatedCore.includes('secrets'));
  });

  test('OpenAPI v3 index and documents, and v2', async () => {
    const index = Object.keys((await server.request('GET', '/openapi/v3')).body.paths);
    assert.ok(!index.includes('apis/networking.orch.io/v1') && index.includes('api/v1') && index.includes('apis/coordination.orch.io/v1'), index.join());
    assert.equal((await server.request('GET', '/openapi/v3/apis/networking.orch.io/v1')).status, 404);
    const core = Object.keys((await server.request('GET', '/openapi/v3/api/v1')).body.paths);
    assert.ok(!core.some((p) => p.includes('/configmaps')), 'configmaps in v3');
    assert.ok(core.includes('/api/v1/namespaces/{namespace}/secrets') && core.includes('/api/v1/namespaces/{name}'));
    const v2 = Object.keys((await server.request('GET', '/openapi/v2')).body.paths);
    assert.ok(!v2.some((p) => p.includes('/configmaps') || p.startsWith('/apis/networking.orch.io/v1')), 'disabled paths in v2');
    assert.ok(v2.includes('/api/v1/namespaces/{namespace}/secrets') && v2.some((p) => p.startsWith('/apis/coordination.orch.io/v1/')));
  });

  test("the server's own readers keep working: RBAC authorizes from stored policy, bootstrap done", async () => {
    assert.equal((await server.request('GET', '/readyz')).status, 200);
    // A service account's token is authorized by the stored bootstrap roles (system:discovery for everyone authenticated).
    const sa = await server.request('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { body: { apiVersion: 'authentication.orch.io/v1', kind: 'TokenRequest', spec: {} } });
    assert.equal(sa.status, 201, sa.text);
    const asSa = await server.request('GET', '/api', { token: sa.body.status.token });
    assert.equal(asSa.status, 200);
    const denied = await server.request('GET', '/api/v1/namespaces/default/secrets', { token: sa.body.status.token });
    assert.equal(denied.status, 403);
  });
});

describe('api/all=false with named parts, through a real server (a primary and a worker)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(['--runtime-config=api/all=false,api/v1,networking.orch.io/v1/networkpolicies,api/legacy=false']);
  });
  after(() => server?.close());

  test('only what is named is served; an omitted value enables', async () => {
    assert.equal((await server.request('GET', NPS)).status, 200);
    assert.equal((await server.request('GET', CMS)).status, 200);
    assert.equal((await server.request('GET', '/apis/coordination.orch.io/v1/namespaces/default/leases')).status, 404);
    const groups = (await server.request('GET', '/apis')).body.groups.map((g: any) => g.name);
    assert.deepEqual(groups, ['networking.orch.io']);
    const index = Object.keys((await server.request('GET', '/openapi/v3')).body.paths).sort();
    assert.deepEqual(index, ['api/v1', 'apis/networking.orch.io/v1']);
  });
});
