/**
 * `--authorization-config` (issue 9; SPEC 5.1.6 and its table, 8): the file's
 * decoding and validation rule by rule with upstream's messages, start-up
 * errors and the flags it excludes, and reloading: a change is served at once,
 * adding or removing RBAC is refused while the old chain keeps answering,
 * reordering is accepted, and the reload counters count.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadAuthorizationConfig } from '../src/auth/authorization/authorization-config.ts';
import { ReloadMetrics } from '../src/auth/authorization/reload-metrics.ts';
import { ReloadingAuthorizer } from '../src/auth/authorization/reloading-authorizer.ts';
import type { AuthorizerEntry } from '../src/auth/authorization/authorizer-entries.ts';
import { BIN, ROOT, startTestServer, type TestServer } from './helpers/server.ts';
import { eventually } from './helpers/eventually.ts';
import { startSarWebhook, type SarWebhook } from './helpers/authz-webhook.ts';

const dir = mkdtempSync(join(tmpdir(), 'orch-authz-config-'));
const orchconfig = join(dir, 'hook.orchconfig');
writeFileSync(orchconfig, 'apiVersion: v1\nkind: Config\n');
mkdirSync(join(dir, 'a-directory'));

const webhook = (over: object = {}) => ({ timeout: '3s', subjectAccessReviewVersion: 'v1', failurePolicy: 'NoOpinion', connectionInfo: { type: 'OrchConfig', orchConfigFile: orchconfig }, ...over });
const config = (authorizers: unknown[], over: object = {}) => ({ apiVersion: 'apiserver.config.orch.io/v1beta1', kind: 'AuthorizationConfiguration', authorizers, ...over });
const load = (doc: unknown) => loadAuthorizationConfig(typeof doc === 'string' ? doc : stringify(doc), { selectors: false });
const failure = (doc: unknown): string => {
  try {
    load(doc);
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail(`loaded ${JSON.stringify(doc)}`);
};
const hookEntry = (over: object) => config([{ type: 'Webhook', name: 'w', webhook: webhook(over) }]);

after(() => rmSync(dir, { recursive: true, force: true }));

test('a valid file: entries in order, upstream defaults for the TTLs, v1alpha1 and JSON read too', () => {
  const entries = load(config([{ type: 'RBAC', name: 'rbac' }, { type: 'Webhook', name: 'w', webhook: webhook({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: [{ expression: 'request.user != ""' }] }) }, { type: 'Node', name: 'node' }]));
  assert.deepEqual(entries.map((e) => `${e.type}/${e.name}`), ['RBAC/rbac', 'Webhook/w', 'Node/node']);
  const hook = entries[1] as Extract<AuthorizerEntry, { type: 'Webhook' }>;
  assert.deepEqual(hook.webhook, {
    authorizedTtlMs: 300_000,
    unauthorizedTtlMs: 30_000,
    timeoutMs: 3000,
    subjectAccessReviewVersion: 'v1',
    matchConditionSubjectAccessReviewVersion: 'v1',
    failurePolicy: 'NoOpinion',
    connectionInfo: { type: 'OrchConfig', orchConfigFile: orchconfig },
    matchConditions: [{ expression: 'request.user != ""' }],
  });
  assert.equal(load(JSON.stringify(config([{ type: 'RBAC', name: 'rbac' }], { apiVersion: 'apiserver.config.orch.io/v1alpha1' }))).length, 1);
  const ttls = load(hookEntry({ authorizedTTL: '1m', unauthorizedTTL: '0s', cacheAuthorizedRequests: false }))[0] as Extract<AuthorizerEntry, { type: 'Webhook' }>;
  assert.equal(ttls.webhook.authorizedTtlMs, 0, 'cacheAuthorizedRequests: false caches no allow');
  assert.equal(ttls.webhook.unauthorizedTtlMs, 30_000, 'a zero TTL is defaulted');
  const inCluster = load(hookEntry({ connectionInfo: { type: 'InClusterConfig' } }))[0] as Extract<AuthorizerEntry, { type: 'Webhook' }>;
  assert.deepEqual(inCluster.webhook.connectionInfo, { type: 'InClusterConfig' });
});

test('decoding is strict, with upstream words', () => {
  const prefix = 'failed to load AuthorizationConfiguration from file: ';
  assert.equal(failure(hookEntry({ timeOut: '3s' })), `${prefix}strict decoding error: unknown field "authorizers[0].webhook.timeOut"`);
  assert.equal(failure({ ...config([{ type: 'RBAC', name: 'rbac', extra: 1 }]), metadata: {} }), `${prefix}strict decoding error: unknown field "authorizers[0].extra", unknown field "metadata"`);
  assert.equal(failure(config([{ type: 'RBAC', name: 5 }])), `${prefix}json: cannot unmarshal number into Go struct field AuthorizerConfiguration.authorizers.name of type string`);
  assert.equal(failure(config({ rbac: true } as any)), `${prefix}json: cannot unmarshal object into Go struct field AuthorizationConfiguration.authorizers of type []v1beta1.AuthorizerConfiguration`);
  assert.equal(failure(hookEntry({ timeout: 'soon' })), `${prefix}time: invalid duration "soon"`);
  assert.equal(failure(hookEntry({ timeout: 3 })), `${prefix}json: cannot unmarshal number into Go value of type string`);
  assert.equal(failure(config([], { apiVersion: 'apiserver.config.orch.io/v2' })), `${prefix}no kind "AuthorizationConfiguration" is registered for version "apiserver.config.orch.io/v2" in scheme "pkg/apis/apiserver/load/load.go:33"`);
  assert.equal(failure(config([], { kind: 'AuthenticationConfiguration' })), `${prefix}expected AuthorizationConfiguration, got *apiserver.AuthenticationConfiguration`);
  assert.equal(failure({ authorizers: [] }), `${prefix}Object 'Kind' is missing in '{"authorizers":[]}'`);
  assert.equal(failure('kind: AuthorizationConfiguration\napiVersion: apiserver.config.orch.io/v1beta1\nauthorizers: []\nauthorizers: []\n'), `${prefix}error converting YAML to JSON: yaml: unmarshal errors:\n  line 4: key "authorizers" already set in map`);
  assert.equal(failure('{"kind": "AuthorizationConfiguration", "kind": "x"}'), `${prefix}error converting YAML to JSON: yaml: unmarshal errors:\n  line 1: key "kind" already set in map`);
});

test('validation: one case per rule, upstream messages word for word', () => {
  const cases: Array<[unknown, string]> = [
    ['', 'authorizers: Required value: at least one authorization mode must be defined'],
    [config([]), 'authorizers: Required value: at least one authorization mode must be defined'],
    [config([{ name: 'x' }]), 'authorizers[0].type: Required value'],
    [config([{ type: 'ABAC', name: 'abac' }]), 'authorizers[0].type: Unsupported value: "ABAC": supported values: "Node", "RBAC", "Webhook"'],
    [config([{ type: 'RBAC', name: 'rbac' }, { type: 'RBAC', name: 'rbac2' }]), 'authorizers[1].type: Duplicate value: "RBAC"'],
    [config([{ type: 'Node', name: 'node' }, { type: 'Node', name: 'node' }]), 'authorizers[1].type: Duplicate value: "Node"'],
    [config([{ type: 'RBAC' }]), 'authorizers[0].name: Required value'],
    [config([{ type: 'Webhook', name: 'My_Hook', webhook: webhook() }]), `authorizers[0].name: Invalid value: "My_Hook": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
    [config([{ type: 'Webhook', name: 'w', webhook: webhook() }, { type: 'Webhook', name: 'w', webhook: webhook() }]), 'authorizers[1].name: Duplicate value: "w"'],
    [config([{ type: 'Webhook', name: 'w' }]), 'authorizers[0].webhook: Required value: required when type=Webhook'],
    [config([{ type: 'RBAC', name: 'rbac', webhook: webhook() }]), 'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook'],
    [hookEntry({ timeout: undefined }), 'authorizers[0].timeout: Required value'],
    [hookEntry({ timeout: '45s' }), 'authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s'],
    [hookEntry({ timeout: '-1s' }), 'authorizers[0].timeout: Invalid value: "-1s": must be > 0s and <= 30s'],
    [hookEntry({ authorizedTTL: '-1m' }), 'authorizers[0].authorizedTTL: Invalid value: "-1m0s": must be > 0s'],
    [hookEntry({ unauthorizedTTL: '-2s' }), 'authorizers[0].unauthorizedTTL: Invalid value: "-2s": must be > 0s'],
    [hookEntry({ subjectAccessReviewVersion: undefined }), 'authorizers[0].subjectAccessReviewVersion: Required value'],
    [hookEntry({ subjectAccessReviewVersion: 'v2' }), 'authorizers[0].subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"'],
    [hookEntry({ matchConditions: [{ expression: 'true' }] }), 'authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified'],
    [hookEntry({ matchConditionSubjectAccessReviewVersion: 'v1beta1' }), 'authorizers[0].matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"'],
    [hookEntry({ failurePolicy: undefined }), 'authorizers[0].failurePolicy: Required value'],
    [hookEntry({ failurePolicy: 'Allow' }), 'authorizers[0].failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"'],
    [hookEntry({ connectionInfo: {} }), 'authorizers[0].connectionInfo.type: Required value'],
    [hookEntry({ connectionInfo: { type: 'KubeConfigFile' } }), 'authorizers[0].connectionInfo.type: Unsupported value: apiserver.WebhookConnectionInfo{Type:"KubeConfigFile", OrchConfigFile:(*string)(nil)}: supported values: "InClusterConfig", "OrchConfig"'],
    [hookEntry({ connectionInfo: { type: 'OrchConfig' } }), 'authorizers[0].connectionInfo.orchConfigFile: Required value'],
    [hookEntry({ connectionInfo: { type: 'OrchConfig', orchConfigFile: 'hook.orchconfig' } }), 'authorizers[0].connectionInfo.orchConfigFile: Invalid value: "hook.orchconfig": must be an absolute path'],
    [hookEntry({ connectionInfo: { type: 'OrchConfig', orchConfigFile: join(dir, 'missing') } }), `authorizers[0].connectionInfo.orchConfigFile: Invalid value: "${join(dir, 'missing')}": error loading file: stat ${join(dir, 'missing')}: no such file or directory`],
    [hookEntry({ connectionInfo: { type: 'OrchConfig', orchConfigFile: join(dir, 'a-directory') } }), `authorizers[0].connectionInfo.orchConfigFile: Invalid value: "${join(dir, 'a-directory')}": must be a regular file`],
    [hookEntry({ connectionInfo: { type: 'InClusterConfig', orchConfigFile: orchconfig } }), `authorizers[0].connectionInfo.orchConfigFile: Invalid value: "${orchconfig}": can only be set when type=OrchConfig`],
    [hookEntry({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: Array.from({ length: 65 }, (_, i) => ({ expression: `request.user != "${i}"` })) }), 'authorizers[0].matchConditions: Too many: 65: must have at most 64 items'],
    [hookEntry({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: [{ expression: '  ' }] }), 'authorizers[0].matchConditions[0].expression: Required value'],
    [hookEntry({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: [{ expression: 'true' }, { expression: 'true' }] }), 'authorizers[0].matchConditions[1].expression: Duplicate value: "true"'],
    [hookEntry({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: [{ expression: 'request.user' }] }), 'authorizers[0].matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string'],
    [hookEntry({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: [{ expression: 'request.user ==' }] }), 'authorizers[0].matchConditions[0].expression: Invalid value: "request.user ==": compilation failed: ERROR: <input>:1:16: Syntax error: Unexpected token: EOF\n | request.user ==\n | ...............^'],
    [config([{ type: 'RBAC', name: 'authz' }]), 'expected name rbac for authorizer RBAC instead of authz'],
    [hookEntry({ timeout: undefined, failurePolicy: undefined }), '[authorizers[0].timeout: Required value, authorizers[0].failurePolicy: Required value]'],
  ];
  for (const [doc, message] of cases) assert.equal(failure(doc), message, JSON.stringify(doc));
  // Up to 64 conditions, and Webhook repeats under other names.
  assert.equal(load(hookEntry({ matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: Array.from({ length: 64 }, (_, i) => ({ expression: `request.user != "${i}"` })) })).length, 1);
  assert.equal(load(config([{ type: 'Webhook', name: 'a', webhook: webhook() }, { type: 'Webhook', name: 'b.example', webhook: webhook() }])).length, 2);
  assert.equal(
    (() => {
      try {
        loadAuthorizationConfig(stringify(hookEntry({})), { selectors: false, requireNonWebhookTypes: new Set(['RBAC', 'Node']) });
      } catch (err) {
        return (err as Error).message;
      }
    })(),
    'missing required types: [Node RBAC]',
  );
});

test('start-up: a bad file exits 1 with its error; the legacy flags are refused beside it', () => {
  const start = (...flags: string[]) => spawnSync(process.execPath, [BIN, '--secure-port=0', `--data-dir=${join(dir, 'startup-data')}`, ...flags], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, stringify(hookEntry({ timeout: '1m' })));
  const invalid = start(`--authorization-config=${bad}`);
  assert.equal(invalid.status, 1);
  assert.match(invalid.stderr, /^Error: authorizers\[0\]\.timeout: Invalid value: "1m0s": must be > 0s and <= 30s$/m);
  const missing = start(`--authorization-config=${join(dir, 'nope.yaml')}`);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, new RegExp(`Error: open ${join(dir, 'nope.yaml')}: no such file or directory`));
  for (const flag of ['--authorization-mode=RBAC', '--authorization-webhook-version=v1', '--authorization-webhook-cache-authorized-ttl=1s']) {
    const both = start(`--authorization-config=${bad}`, flag);
    assert.notEqual(both.status, 0, flag);
    assert.match(both.stderr, /--authorization-config can not be specified when --authorization-mode or --authorization-webhook-\* flags are defined/, flag);
  }
});

test('the reload module: a change is taken at once, a bad one refused and counted, the old chain kept', async () => {
  const file = join(dir, 'unit.yaml');
  const chains: string[][] = [];
  const good = (names: string[]) => config([...names.map((name) => ({ type: 'Webhook', name, webhook: webhook() })), { type: 'RBAC', name: 'rbac' }]);
  writeFileSync(file, stringify(good(['one'])));
  const metrics = new ReloadMetrics();
  const logged: string[] = [];
  const reloading = new ReloadingAuthorizer({
    file,
    data: stringify(good(['one'])),
    entries: load(good(['one'])),
    build: (entries) => {
      chains.push(entries.map((e) => e.name));
      return { authorize: async () => ({ decision: 'NoOpinion', reason: entries.map((e) => e.name).join(',') }) };
    },
    load: { selectors: false },
    metrics,
    intervalMs: 60_000,
    log: { info: (m) => logged.push(m), error: (m) => logged.push(m) },
  });
  reloading.start();
  try {
    const reason = async () => (await reloading.authorize({} as any)).reason;
    assert.equal(await reason(), 'one,rbac');
    writeFileSync(file, stringify(good(['two', 'one'])));
    await eventually('the reload', async () => ((await reason()) === 'two,one,rbac' ? true : undefined), 5000, 20);
    assert.equal(metrics.snapshot().total.success, 1);
    assert.ok(metrics.snapshot().lastTimestampSeconds.success! <= Date.now() / 1000);
    writeFileSync(file, stringify(config([{ type: 'Webhook', name: 'two', webhook: webhook() }])));
    await eventually('the refusal', async () => (metrics.snapshot().total.failure === 1 ? true : undefined), 5000, 20);
    assert.ok(logged.includes('reloading authorization config: missing required types: [RBAC]'), logged.join('\n'));
    assert.equal(await reason(), 'two,one,rbac', 'the old chain answers');
    writeFileSync(file, stringify(good(['one'])).replace('name: rbac', 'name: rbac-x'));
    await eventually('the second refusal', async () => (metrics.snapshot().total.failure === 2 ? true : undefined), 5000, 20);
    assert.equal(logged.at(-1), 'reloading authorization config: expected name rbac for authorizer RBAC instead of rbac-x');
    // The same bytes again are no change: nothing is counted.
    reloading.checkFile();
    assert.equal(metrics.snapshot().total.failure, 2);
    assert.deepEqual(chains, [['one', 'rbac'], ['two', 'one', 'rbac']]);
  } finally {
    reloading.stop();
  }
});

describe('reloading a running server', () => {
  let hook: SarWebhook;
  let withRbac: TestServer;
  let withoutRbac: TestServer;
  const fileA = join(dir, 'server-a.yaml');
  const fileB = join(dir, 'server-b.yaml');
  const CM = '/api/v1/namespaces/default/configmaps/cm1';
  const as = (user: string) => ({ headers: { 'Impersonate-User': user } });
  let hookConfig: string;
  const hookOnly = (expression: string) => ({
    type: 'Webhook',
    name: 'hook',
    webhook: webhook({ connectionInfo: { type: 'OrchConfig', orchConfigFile: hookConfig }, matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: [{ expression }] }),
  });

  before(async () => {
    hook = await startSarWebhook(() => ({ status: { allowed: true, reason: 'the hook allows' } }));
    hookConfig = hook.orchconfig(dir, 'reload');
    writeFileSync(fileA, stringify(config([hookOnly('request.user.startsWith("hook-")'), { type: 'RBAC', name: 'rbac' }])));
    writeFileSync(fileB, stringify(config([hookOnly('request.user.startsWith("hook-")')])));
    [withRbac, withoutRbac] = await Promise.all([startTestServer([`--authorization-config=${fileA}`]), startTestServer([`--authorization-config=${fileB}`])]);
  });
  after(async () => {
    await Promise.all([withRbac?.close(), withoutRbac?.close()]);
    await hook?.close();
  });

  const statusOf = async (server: TestServer, user: string) => (await server.request('GET', CM, as(user))).status;

  test('a changed file is served within moments; removing RBAC is refused and the old chain answers', async () => {
    assert.equal(await statusOf(withRbac, 'hook-a'), 404);
    assert.equal(await statusOf(withRbac, 'other-a'), 403);
    writeFileSync(fileA, stringify(config([hookOnly('request.user.startsWith("other-")'), { type: 'RBAC', name: 'rbac' }])));
    await eventually('the new matchCondition', async () => ((await statusOf(withRbac, 'other-a')) === 404 ? true : undefined), 5000, 50);
    assert.equal(await statusOf(withRbac, 'hook-b'), 403);
    assert.match(withRbac.output(), /reloaded authz config/);
    writeFileSync(fileA, stringify(config([hookOnly('request.user.startsWith("hook-")')])));
    await eventually('the refusal', async () => (/reloading authorization config: missing required types: \[RBAC\]/.test(withRbac.output()) ? true : undefined), 5000, 50);
    assert.equal(await statusOf(withRbac, 'other-b'), 404, 'the previous chain still answers');
    assert.equal(await statusOf(withRbac, 'hook-c'), 403);
  });

  const reloads = (server: TestServer) => (server.output().match(/reloaded authz config/g) ?? []).length;
  const reloadedAfter = (server: TestServer, count: number) => eventually('the reload', async () => (reloads(server) > count ? true : undefined), 5000, 50);

  test('reordering is accepted: RBAC first decides before the webhook is asked', async () => {
    const rbac = '/apis/rbac.authorization.orch.io/v1';
    await withRbac.request('POST', `${rbac}/clusterroles`, { body: { metadata: { name: 'reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] } });
    await withRbac.request('POST', `${rbac}/clusterrolebindings`, { body: { metadata: { name: 'readers' }, roleRef: { kind: 'ClusterRole', apiGroup: 'rbac.authorization.orch.io', name: 'reader' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: 'hook-bound' }] } });
    let count = reloads(withRbac);
    writeFileSync(fileA, stringify(config([hookOnly('request.user.startsWith("hook-")'), { type: 'RBAC', name: 'rbac' }])));
    await reloadedAfter(withRbac, count);
    assert.equal(await statusOf(withRbac, 'hook-bound'), 404);
    assert.equal(hook.callsFor('hook-bound').length, 1, 'the webhook, first, allowed');
    count = reloads(withRbac);
    writeFileSync(fileA, stringify(config([{ type: 'RBAC', name: 'rbac' }, hookOnly('request.user.startsWith("hook-")')])));
    await reloadedAfter(withRbac, count);
    assert.equal(await statusOf(withRbac, 'hook-bound'), 404);
    assert.equal(hook.callsFor('hook-bound').length, 1, 'RBAC allowed before the webhook was asked');
    assert.equal(await statusOf(withRbac, 'hook-e'), 404, 'the webhook still answers what RBAC does not');
  });

  test('adding RBAC the server did not start with is refused', async () => {
    assert.equal(await statusOf(withoutRbac, 'hook-a'), 404);
    writeFileSync(fileB, stringify(config([hookOnly('request.user.startsWith("other-")'), { type: 'RBAC', name: 'rbac' }])));
    await eventually('the refusal', async () => (/reloading authorization config: authorizer type RBAC is not allowed if it was not enabled at initial server startup/.test(withoutRbac.output()) ? true : undefined), 5000, 50);
    assert.equal(await statusOf(withoutRbac, 'hook-a'), 404, 'the old chain answers');
    assert.equal(await statusOf(withoutRbac, 'other-a'), 403);
  });
});
