/**
 * The ABAC authorizer (issue 9; SPEC 5.1 item 5): policy lines decoded and
 * converted as upstream's pkg/apis/abac, matched as pkg/auth/authorizer/abac,
 * the policy file read once at start-up, and a real server in ABAC mode.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePolicyLine, type PolicySpec } from '../src/auth/authorization/abac-policy.ts';
import { loadPolicyFile } from '../src/auth/authorization/abac-policy-file.ts';
import { abacAuthorizer } from '../src/auth/authorization/abac-authorizer.ts';
import type { AuthorizationAttributes } from '../src/auth/authorization/authorizer.ts';
import type { UserInfo } from '../src/api/user.ts';
import { BIN, ROOT, startTestServer, type TestServer } from './helpers/server.ts';

const v1 = (spec: object) => JSON.stringify({ apiVersion: 'abac.authorization.orch.io/v1beta1', kind: 'Policy', spec });
const spec = (over: Partial<PolicySpec>): PolicySpec => ({ user: '', group: '', readonly: false, apiGroup: '', resource: '', namespace: '', nonResourcePath: '', ...over });
const EVERYTHING = { namespace: '*', resource: '*', apiGroup: '*' };
const SCHEME = 'in scheme "pkg/apis/abac/register.go:33"';

const dir = mkdtempSync(join(tmpdir(), 'orch-abac-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function file(content: string | Buffer): string {
  const path = join(dir, `policy-${++files}.jsonl`);
  writeFileSync(path, content);
  return path;
}

describe('ABAC policy lines', () => {
  test('v0 lines: empty subjects, namespaces and resources mean all; `*` is every authenticated user', () => {
    const all = { apiGroup: '*', namespace: '*', resource: '*' };
    const cases: Array<[string, PolicySpec]> = [
      ['{"user":"alice"}', spec({ ...all, user: 'alice', nonResourcePath: '*' })],
      ['{}', spec({ ...all, group: 'system:authenticated', nonResourcePath: '*' })],
      ['{"user":"*","readonly":true}', spec({ ...all, group: 'system:authenticated', readonly: true, nonResourcePath: '*' })],
      ['{"user":"bob","group":"*"}', spec({ ...all, group: 'system:authenticated', nonResourcePath: '*' })],
      ['{"group":"system:unauthenticated","namespace":"ns1"}', spec({ ...all, group: 'system:unauthenticated', namespace: 'ns1' })],
      ['{"user":"alice","resource":"pods"}', spec({ ...all, user: 'alice', resource: 'pods' })],
      // Fields v0 does not have are ignored; a kind without a version, or a version of this group without a kind, is v0.
      ['{"user":"alice","apiGroup":"apps","nonResourcePath":"/x","namespace":"n","resource":"r"}', spec({ user: 'alice', apiGroup: '*', namespace: 'n', resource: 'r' })],
      ['{"kind":"Policy","user":"alice","namespace":"n"}', spec({ ...all, user: 'alice', namespace: 'n' })],
      ['{"apiVersion":"abac.authorization.orch.io/v0","kind":"Policy","user":"alice","namespace":"n"}', spec({ ...all, user: 'alice', namespace: 'n' })],
      // A line that is not a JSON object is read as YAML, as upstream's universal decoder reads it.
      ['user: alice', spec({ ...all, user: 'alice', nonResourcePath: '*' })],
      ['null', spec({ ...all, group: 'system:authenticated', nonResourcePath: '*' })],
      // Go's JSON nests up to 10,000 levels.
      [`{"a":${'['.repeat(9_999)}${']'.repeat(9_999)},"user":"alice","namespace":"n"}`, spec({ ...all, user: 'alice', namespace: 'n' })],
    ];
    for (const [line, expected] of cases) assert.deepEqual(decodePolicyLine(line).spec, expected, line.slice(0, 100));
    assert.equal(decodePolicyLine('{"user":"alice"}').unversioned, true);
    assert.equal(decodePolicyLine('{"apiVersion":"abac.authorization.orch.io/v0","kind":"Policy"}').unversioned, false);
  });

  test('v1beta1 lines keep their spec, but `*` as user or group is every authenticated user', () => {
    const cases: Array<[string, PolicySpec]> = [
      [v1({ user: 'alice', ...EVERYTHING }), spec({ user: 'alice', ...EVERYTHING })],
      [v1({ group: 'dev', readonly: true, nonResourcePath: '/apis/*' }), spec({ group: 'dev', readonly: true, nonResourcePath: '/apis/*' })],
      [v1({ user: '*', namespace: 'ns1', resource: 'pods' }), spec({ group: 'system:authenticated', namespace: 'ns1', resource: 'pods' })],
      [v1({ user: 'alice', group: '*' }), spec({ group: 'system:authenticated' })],
      [v1({}), spec({})],
      // Keys are case-sensitive in the object, but apiVersion and kind are found as encoding/json finds them.
      ['{"APIVERSION":"abac.authorization.orch.io/v1beta1","Kind":"Policy","spec":{"User":"x","user":"alice"}}', spec({ user: 'alice' })],
      // The internal version is registered too, with Go's field names and no conversion: `*` stays `*`.
      ['{"apiVersion":"abac.authorization.orch.io/__internal","kind":"Policy","Spec":{"User":"*","Namespace":"*"}}', spec({ user: '*', namespace: '*' })],
    ];
    for (const [line, expected] of cases) {
      const decoded = decodePolicyLine(line);
      assert.deepEqual(decoded.spec, expected, line);
      assert.equal(decoded.unversioned, false, line);
    }
  });

  test("decoding errors are upstream's", () => {
    const findKind = `couldn't get version/kind; json parse error: `;
    const cases: Array<[string, string]> = [
      ['{"user":"alice",}', `${findKind}invalid character '}' looking for beginning of object key string`],
      ['{"user" "alice"}', `${findKind}invalid character '"' after object key`],
      ['{"user":"alice"} x', `${findKind}invalid character 'x' after top-level value`],
      ['{"user":', `${findKind}unexpected end of JSON input`],
      ['{"apiVersion":5}', `${findKind}json: cannot unmarshal number into Go struct field .apiVersion of type string`],
      [`{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, `${findKind}invalid character '[' exceeded max depth`],
      ['alice', `${findKind}json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`],
      ['{"user":5}', 'json: cannot unmarshal number into Go struct field Policy.user of type string'],
      ['{"readonly":"yes"}', 'json: cannot unmarshal string into Go struct field Policy.readonly of type bool'],
      [v1({ user: ['alice'] }), 'json: cannot unmarshal array into Go struct field PolicySpec.spec.user of type string'],
      [v1({ readonly: 1 }), 'json: cannot unmarshal number into Go struct field PolicySpec.spec.readonly of type bool'],
      ['{"apiVersion":"abac.authorization.orch.io/v1beta1","kind":"Policy","spec":"alice"}', 'json: cannot unmarshal string into Go struct field Policy.spec of type v1beta1.PolicySpec'],
      ['{"apiVersion":"a/b/c","kind":"Policy"}', 'unexpected GroupVersion string: a/b/c'],
      // The upstream group name is not this server's.
      ['{"apiVersion":"abac.authorization.orch.io/v1","kind":"Policy"}', `no kind "Policy" is registered for version "abac.authorization.orch.io/v1" ${SCHEME}`],
      ['{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy"}', `no kind "Policy" is registered for version "abac.authorization.kubernetes.io/v1beta1" ${SCHEME}`],
      ['{"apiVersion":"v1","kind":"Policy"}', `no kind "Policy" is registered for version "v1" ${SCHEME}`],
      ['{"kind":"Role"}', `no kind "Role" is registered for version "abac.authorization.orch.io/v0" ${SCHEME}`],
      ['{"apiVersion":"abac.authorization.orch.io/__internal","kind":"Role"}', `no kind "Role" is registered for the internal version of group "abac.authorization.orch.io" ${SCHEME}`],
      // v1beta1 without a kind is read as v0, which nothing converts it to.
      ['{"apiVersion":"abac.authorization.orch.io/v1beta1","spec":{}}', 'converting (v1beta1.Policy) to (v0.Policy): unknown conversion'],
    ];
    for (const [line, message] of cases) assert.throws(() => decodePolicyLine(line), { message }, line.slice(0, 100));
  });
});

describe('ABAC matching', () => {
  const alice: UserInfo = { name: 'alice', groups: ['dev', 'system:authenticated'] };
  const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  const onResource = (over: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
    user: alice, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/ns1/pods/p', group: '', version: 'v1', namespace: 'ns1', resource: 'pods', subresource: '', name: 'p', ...over,
  });
  const onPath = (path: string, over: Partial<AuthorizationAttributes> = {}) => onResource({ isResourceRequest: false, path, version: '', namespace: '', resource: '', name: '', ...over });
  const allows = async (line: string, attributes: AuthorizationAttributes) => (await abacAuthorizer([decodePolicyLine(line).spec]).authorize(attributes)).decision === 'Allow';

  test('subjects: user, group, both, `*`, and the unauthenticated group', async () => {
    const cases: Array<[string, Partial<AuthorizationAttributes>, boolean]> = [
      [v1({ user: 'alice', ...EVERYTHING }), {}, true],
      [v1({ user: 'bob', ...EVERYTHING }), {}, false],
      [v1({ user: 'Alice', ...EVERYTHING }), {}, false],
      [v1({ group: 'dev', ...EVERYTHING }), {}, true],
      [v1({ group: 'ops', ...EVERYTHING }), {}, false],
      [v1({ user: 'alice', group: 'dev', ...EVERYTHING }), {}, true],
      [v1({ user: 'alice', group: 'ops', ...EVERYTHING }), {}, false],
      [v1({ user: 'bob', group: 'dev', ...EVERYTHING }), {}, false],
      // Neither user nor group: nobody.
      [v1(EVERYTHING), {}, false],
      [v1({ user: '*', ...EVERYTHING }), {}, true],
      [v1({ user: '*', ...EVERYTHING }), { user: anonymous }, false],
      [v1({ group: 'system:unauthenticated', ...EVERYTHING }), { user: anonymous }, true],
      [v1({ group: 'system:unauthenticated', ...EVERYTHING }), {}, false],
      ['{}', {}, true],
      ['{}', { user: anonymous }, false],
      ['{"user":"*"}', { user: anonymous }, false],
      ['{"group":"system:unauthenticated"}', { user: anonymous }, true],
      // Only the unconverted internal version keeps `*`, which matches anyone.
      ['{"apiVersion":"abac.authorization.orch.io/__internal","kind":"Policy","Spec":{"User":"*","Namespace":"*","Resource":"*","APIGroup":"*"}}', { user: anonymous }, true],
    ];
    for (const [line, over, expected] of cases) assert.equal(await allows(line, onResource(over)), expected, `${line} ${JSON.stringify(over)}`);
  });

  test('read-only policies: get, list and watch only, for resources and paths', async () => {
    const readonly = v1({ user: 'alice', readonly: true, ...EVERYTHING, nonResourcePath: '*' });
    for (const verb of ['get', 'list', 'watch']) assert.equal(await allows(readonly, onResource({ verb })), true, verb);
    for (const verb of ['create', 'update', 'patch', 'delete', 'deletecollection', 'impersonate', 'escalate']) assert.equal(await allows(readonly, onResource({ verb })), false, verb);
    assert.equal(await allows(readonly, onPath('/healthz')), true);
    assert.equal(await allows(readonly, onPath('/healthz', { verb: 'post' })), false);
    assert.equal(await allows(readonly, onPath('/healthz', { verb: 'head' })), false);
    assert.equal(await allows(v1({ user: 'alice', ...EVERYTHING }), onResource({ verb: 'delete' })), true);
  });

  test('API group, namespace and resource: exact or `*`; subresources follow their resource', async () => {
    const policy = (over: object) => v1({ user: 'alice', ...EVERYTHING, ...over });
    const cases: Array<[object, Partial<AuthorizationAttributes>, boolean]> = [
      [{ apiGroup: 'apps' }, { group: 'apps', resource: 'deployments' }, true],
      [{ apiGroup: 'apps' }, {}, false],
      [{ apiGroup: '' }, {}, true],
      [{ apiGroup: '' }, { group: 'apps' }, false],
      [{ namespace: 'ns1' }, {}, true],
      [{ namespace: 'ns2' }, {}, false],
      // An empty namespace is the cluster scope, which includes lists across namespaces.
      [{ namespace: '' }, {}, false],
      [{ namespace: '' }, { namespace: '', resource: 'namespaces' }, true],
      [{ namespace: 'ns1' }, { namespace: '' }, false],
      [{ resource: 'pods' }, {}, true],
      [{ resource: 'pods' }, { subresource: 'log' }, true],
      [{ resource: 'secrets' }, {}, false],
      [{ resource: 'pods/log' }, { subresource: 'log' }, false],
    ];
    for (const [over, request, expected] of cases) assert.equal(await allows(policy(over), onResource(request)), expected, `${JSON.stringify(over)} ${JSON.stringify(request)}`);
    // A resource policy never matches a path, nor a path policy a resource.
    assert.equal(await allows(policy({}), onPath('/api')), false);
    assert.equal(await allows(v1({ user: 'alice', nonResourcePath: '*' }), onResource()), false);
  });

  test('non-resource paths: `*`, exact, and a trailing `*` as a prefix', async () => {
    const path = (nonResourcePath: string) => v1({ user: 'alice', nonResourcePath });
    const cases: Array<[string, string, boolean]> = [
      ['*', '/anything/at/all', true],
      ['/healthz', '/healthz', true],
      ['/healthz', '/healthz/ping', false],
      ['/apis/*', '/apis/apps', true],
      ['/apis/*', '/apis', false],
      ['/api*', '/apis/apps/v1', true],
      ['/api**', '/api', true],
      ['/api', '/apis', false],
    ];
    for (const [pattern, requested, expected] of cases) assert.equal(await allows(path(pattern), onPath(requested)), expected, `${pattern} ${requested}`);
    // A v0 line with a namespace or a resource opens no path.
    assert.equal(await allows('{"user":"alice","namespace":"ns1"}', onPath('/api')), false);
    assert.equal(await allows('{"user":"alice"}', onPath('/api')), true);
  });

  test('decisions: allow, or no opinion with "No policy matched."', async () => {
    const authorizer = abacAuthorizer([decodePolicyLine(v1({ user: 'bob', ...EVERYTHING })).spec, decodePolicyLine(v1({ group: 'dev', ...EVERYTHING })).spec]);
    assert.deepEqual(await authorizer.authorize(onResource()), { decision: 'Allow', reason: '' });
    assert.deepEqual(await authorizer.authorize(onResource({ user: anonymous })), { decision: 'NoOpinion', reason: 'No policy matched.' });
    assert.deepEqual(await abacAuthorizer([]).authorize(onResource()), { decision: 'NoOpinion', reason: 'No policy matched.' });
  });

  test("rules: each policy of the user in the namespace (or `*`), its resource and its path", async () => {
    const authorizer = abacAuthorizer(
      [
        v1({ user: 'alice', namespace: 'ns1', resource: 'pods', apiGroup: '' }),
        v1({ group: 'dev', readonly: true, namespace: '*', resource: '*', apiGroup: 'apps', nonResourcePath: '/apis/*' }),
        v1({ user: 'alice', nonResourcePath: '/healthz' }),
        v1({ user: 'bob', ...EVERYTHING }),
        '{"user":"alice","namespace":"ns2"}',
      ].map((line) => decodePolicyLine(line).spec),
    );
    const read = ['get', 'list', 'watch'];
    assert.deepEqual(await authorizer.rulesFor!(alice, 'ns1'), {
      resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }, { verbs: read, apiGroups: ['apps'], resources: ['*'] }],
      nonResourceRules: [{ verbs: read, nonResourceURLs: ['/apis/*'] }],
      incomplete: false,
    });
    const ns2 = await authorizer.rulesFor!(alice, 'ns2');
    assert.deepEqual(ns2.resourceRules, [{ verbs: read, apiGroups: ['apps'], resources: ['*'] }, { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    // A policy without a namespace applies to the cluster scope only.
    assert.deepEqual((await authorizer.rulesFor!(alice, '')).nonResourceRules, [{ verbs: read, nonResourceURLs: ['/apis/*'] }, { verbs: ['*'], nonResourceURLs: ['/healthz'] }]);
    assert.deepEqual(await authorizer.rulesFor!(anonymous, 'ns1'), { resourceRules: [], nonResourceRules: [], incomplete: false });
  });
});

describe('ABAC policy file', () => {
  test('blank and comment lines are skipped but counted; CRLF lines; the bad line named', () => {
    const good = ['# policies', '', ' \t', '  # indented', '{"user":"alice"}\r', v1({ group: 'dev', ...EVERYTHING })];
    assert.deepEqual(loadPolicyFile(file(`${good.join('\n')}\n`)).map((p) => p.user || p.group), ['alice', 'dev']);
    assert.deepEqual(loadPolicyFile(file('')), []);
    const bad = file(`${good.join('\n')}\n{"user": 5}\n${v1({ user: 'never read' })}`);
    assert.throws(() => loadPolicyFile(bad), { message: `error reading policy file ${bad}, line 7: {"user": 5}: json: cannot unmarshal number into Go struct field Policy.user of type string` });
  });

  test('open errors and lines longer than 64 KiB', () => {
    const missing = join(dir, 'missing.jsonl');
    assert.throws(() => loadPolicyFile(missing), { message: `open ${missing}: no such file or directory` });
    const folder = join(dir, 'a-directory');
    mkdirSync(folder);
    assert.throws(() => loadPolicyFile(folder), { message: `error reading policy file ${folder}: read ${folder}: is a directory` });
    // A line and its newline must fit in bufio.Scanner's 64 KiB.
    const line = (bytes: number) => `{"user":"${'a'.repeat(bytes - 11)}"}`;
    assert.equal(loadPolicyFile(file(`${line(65535)}\n`)).length, 1);
    const long = file(`{"user":"alice"}\n${line(65536)}\n`);
    assert.throws(() => loadPolicyFile(long), { message: `error reading policy file ${long}: bufio.Scanner: token too long` });
  });

  test('start-up: a file that does not decode exits 1 with its error; mode and file must come together', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [BIN, '--secure-port=0', `--data-dir=${join(dir, `data-${++files}`)}`, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    const bad = file(`${v1({ user: 'alice', ...EVERYTHING })}\n{"apiVersion":"abac.authorization.orch.io/v2","kind":"Policy"}\n`);
    const decoding = run('--authorization-mode=ABAC', `--authorization-policy-file=${bad}`);
    assert.equal(decoding.status, 1, decoding.stderr);
    assert.match(decoding.stderr, new RegExp(`^Error: invalid authorization config: error reading policy file ${bad}, line 2: \\{.*\\}: no kind "Policy" is registered for version "abac.authorization.orch.io/v2" in scheme`, 'm'));
    const missing = join(dir, 'absent.jsonl');
    const absent = run('--authorization-mode=RBAC,ABAC', `--authorization-policy-file=${missing}`);
    assert.equal(absent.status, 1, absent.stderr);
    assert.match(absent.stderr, new RegExp(`^Error: invalid authorization config: open ${missing}: no such file or directory$`, 'm'));
    // Flag errors exit as every flag error of this command does (2), with upstream's words.
    const noFile = run('--authorization-mode=ABAC');
    assert.equal(noFile.status, 2);
    assert.match(noFile.stderr, /^Error: authorization-mode ABAC's authorization policy file not passed$/m);
    const noMode = run('--authorization-mode=RBAC', `--authorization-policy-file=${bad}`);
    assert.equal(noMode.status, 2);
    assert.match(noMode.stderr, /^Error: cannot specify --authorization-policy-file without mode ABAC$/m);
  });
});

describe('ABAC on a real server', () => {
  const servers: TestServer[] = [];
  let server: TestServer;
  let abacFirst: TestServer;
  let denyFirst: TestServer;
  before(async () => {
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'alice-token,alice,1,"dev"\nbob-token,bob,2,"viewers,other"\ncarol-token,carol,3\ndave-token,dave,4\n');
    const policy = file(
      [
        '# ABAC policies for the tests',
        v1({ user: 'alice', namespace: 'team-a', resource: 'configmaps', apiGroup: '' }),
        v1({ group: 'viewers', readonly: true, ...EVERYTHING }),
        v1({ user: '*', readonly: true, nonResourcePath: '/apis/*' }),
        v1({ user: 'carol', nonResourcePath: '/api' }),
        '{"user":"carol","namespace":"team-b"}',
        v1({ group: 'system:authenticated', apiGroup: 'authorization.orch.io', resource: 'selfsubjectrulesreviews' }),
        '{"user":"dave"}',
      ].join('\n'),
    );
    const flags = (modes: string) => [`--authorization-mode=${modes}`, `--authorization-policy-file=${policy}`, `--token-auth-file=${tokens}`];
    [server, abacFirst, denyFirst] = await Promise.all([startTestServer(flags('ABAC,RBAC')), startTestServer(flags('ABAC,AlwaysDeny')), startTestServer(flags('AlwaysDeny,ABAC'))]);
    servers.push(server, abacFirst, denyFirst);
    for (const name of ['team-a', 'team-b']) assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } })).status, 201);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  const configMap = (name: string) => ({ body: { metadata: { name }, data: { k: 'v' } } });
  const forbidden = (res: { status: number; body: any }, message: string) => {
    assert.equal(res.status, 403, message);
    assert.equal(res.body.kind, 'Status');
    assert.equal(res.body.reason, 'Forbidden');
    assert.equal(res.body.message, message);
  };

  test('a user policy allows its namespace and resource, and nothing else', async () => {
    const created = await server.request('POST', '/api/v1/namespaces/team-a/configmaps', { token: 'alice-token', ...configMap('mine') });
    assert.equal(created.status, 201, created.text);
    assert.equal((await server.request('GET', '/api/v1/namespaces/team-a/configmaps/mine', { token: 'alice-token' })).status, 200);
    forbidden(
      await server.request('POST', '/api/v1/namespaces/team-b/configmaps', { token: 'alice-token', ...configMap('theirs') }),
      'configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team-b": No policy matched.',
    );
    forbidden(
      await server.request('GET', '/api/v1/namespaces/team-a/secrets/s', { token: 'alice-token' }),
      'secrets "s" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "team-a": No policy matched.',
    );
    assert.match(server.output(), /Policy file .* contained unversioned rules\. See docs\/admin\/authorization\.md#abac-mode for ABAC file format details\./);
  });

  test('a read-only group policy reads everywhere and writes nowhere', async () => {
    assert.equal((await server.request('GET', '/api/v1/namespaces/team-a/configmaps/mine', { token: 'bob-token' })).status, 200);
    assert.equal((await server.request('GET', '/api/v1/configmaps', { token: 'bob-token' })).status, 200);
    assert.equal((await server.request('GET', '/apis/networking.orch.io/v1/networkpolicies?watch=1&timeoutSeconds=1', { token: 'bob-token' })).status, 200);
    forbidden(
      await server.request('POST', '/api/v1/namespaces/team-a/configmaps', { token: 'bob-token', ...configMap('bobs') }),
      'configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "team-a": No policy matched.',
    );
    forbidden(
      await server.request('DELETE', '/api/v1/namespaces/team-a/configmaps/mine', { token: 'bob-token' }),
      'configmaps "mine" is forbidden: User "bob" cannot delete resource "configmaps" in API group "" in the namespace "team-a": No policy matched.',
    );
    assert.equal((await server.request('GET', '/api/v1/namespaces/team-a/configmaps/mine')).status, 200, 'the refused delete changed nothing');
  });

  test('non-resource paths: prefixes, exact paths, read-only, and `*` only for authenticated users', async () => {
    // Beside AlwaysDeny, whose reason follows ABAC's: RBAC's default roles would open discovery to every user.
    assert.equal((await abacFirst.request('GET', '/apis/networking.orch.io/v1', { token: 'alice-token' })).status, 200);
    forbidden(await abacFirst.request('GET', '/api', { token: 'alice-token' }), 'forbidden: User "alice" cannot get path "/api": No policy matched.\nEverything is forbidden.');
    forbidden(await abacFirst.request('POST', '/apis/networking.orch.io/v1', { token: 'alice-token', body: {} }), 'forbidden: User "alice" cannot post path "/apis/networking.orch.io/v1": No policy matched.\nEverything is forbidden.');
    assert.equal((await abacFirst.request('GET', '/api', { token: 'carol-token' })).status, 200);
    forbidden(await abacFirst.request('GET', '/apis/networking.orch.io/v1', { token: null }), 'forbidden: User "system:anonymous" cannot get path "/apis/networking.orch.io/v1": No policy matched.\nEverything is forbidden.');
  });

  test('v0 lines: a namespace for every resource, or everything', async () => {
    assert.equal((await server.request('POST', '/api/v1/namespaces/team-b/configmaps', { token: 'carol-token', ...configMap('carols') })).status, 201);
    assert.equal((await server.request('DELETE', '/api/v1/namespaces/team-b/configmaps/carols', { token: 'carol-token' })).status, 200);
    forbidden(
      await server.request('GET', '/api/v1/namespaces/team-a/configmaps', { token: 'carol-token' }),
      'configmaps is forbidden: User "carol" cannot list resource "configmaps" in API group "" in the namespace "team-a": No policy matched.',
    );
    assert.equal((await server.request('POST', '/api/v1/namespaces', { token: 'dave-token', body: { metadata: { name: 'daves' } } })).status, 201);
    assert.equal((await server.request('GET', '/openapi/v2', { token: 'dave-token' })).status, 200);
  });

  test("SelfSubjectRulesReview lists ABAC's rules", async () => {
    // Beside AlwaysDeny, which lists nothing, so the rules are ABAC's alone.
    const review = async (token: string, namespace: string) => {
      const res = await abacFirst.request('POST', '/apis/authorization.orch.io/v1/selfsubjectrulesreviews', { token, body: { kind: 'SelfSubjectRulesReview', spec: { namespace } } });
      assert.equal(res.status, 201, res.text);
      return res.body.status;
    };
    assert.deepEqual(await review('alice-token', 'team-a'), { resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['configmaps'] }], nonResourceRules: [], incomplete: false });
    assert.deepEqual((await review('alice-token', 'team-b')).resourceRules, []);
    assert.deepEqual((await review('bob-token', 'team-b')).resourceRules, [{ verbs: ['get', 'list', 'watch'], apiGroups: ['*'], resources: ['*'] }]);
    assert.deepEqual(await review('dave-token', 'team-b'), {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
  });

  test('the order of modes: AlwaysDeny is upstream\'s no-opinion, so ABAC allows before or after it; its reason reaches the 403', async () => {
    assert.equal((await abacFirst.request('GET', '/api/v1/namespaces/team-a/configmaps', { token: 'alice-token' })).status, 200);
    const refused = await abacFirst.request('GET', '/api/v1/namespaces/team-b/configmaps', { token: 'alice-token' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team-b": No policy matched.\nEverything is forbidden.');
    assert.equal((await denyFirst.request('GET', '/api/v1/namespaces/team-a/configmaps', { token: 'alice-token' })).status, 200);
    assert.equal((await denyFirst.request('GET', '/api/v1/namespaces/team-b/configmaps', { token: 'alice-token' })).status, 403);
    assert.equal((await denyFirst.request('GET', '/api/v1/namespaces/team-a/configmaps')).status, 200, 'system:masters comes before every mode');
  });
});
