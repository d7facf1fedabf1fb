/**
 * The authorizer library (SPEC 2.11; upstream pkg/cel/library/authz.go, 1.31)
 * against a real chain: system:masters, RBAC over in-memory roles and
 * bindings, AlwaysDeny, as buildAuthorizer makes it. Decisions, reasons,
 * identities (the user, a service account), errors of the chain, the rounds
 * of evaluateAsync, upstream's costs, selectors under AuthorizeWithSelectors,
 * compile errors, and where `authorizer` is (not) declared.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CelCompileError, CelEnvironment, CelEvaluationError } from '../src/cel/environment.ts';
import {
  AUTHORIZER_TYPE,
  authzSelectorsLibrary,
  CHECK_COST,
  REQUEST_RESOURCE_VARIABLE,
  RESOURCE_CHECK_TYPE,
  selectorCost,
  type RequestResource,
} from '../src/cel/authz.ts';
import { authorizerActivation } from '../src/auth/authorization/authorizer-activation.ts';
import { COST_LIMIT_MESSAGE, PER_CALL_LIMIT } from '../src/cel/cost.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../src/auth/authorization/authorizer.ts';
import { buildAuthorizer } from '../src/auth/authorization/build-authorizer.ts';
import { rbacAuthorizer, resolveGrants, type RbacSource } from '../src/auth/authorization/rbac-authorizer.ts';
import { compileMatchConditions } from '../src/auth/authorization/match-conditions.ts';
import type { ApiObject } from '../src/registry/strategy.ts';
import type { UserInfo } from '../src/api/user.ts';

// ---------------------------------------------------------------- the chain

const role = (name: string, namespace: string | undefined, rules: object[]): ApiObject => ({ metadata: { name, ...(namespace ? { namespace } : {}) }, rules });
const binding = (name: string, namespace: string | undefined, roleRef: { kind: string; name: string }, subjects: object[]): ApiObject => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: 'rbac.authorization.orch.io', ...roleRef },
  subjects,
});

const clusterRoles = [
  role('deployment-lister', undefined, [{ verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'] }]),
  role('health-reader', undefined, [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]),
  role('node-viewer', undefined, [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }]),
];
const roles = [
  role('reader', 'dev', [
    { verbs: ['get'], apiGroups: [''], resources: ['pods', 'pods/log'] },
    { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'] },
  ]),
  role('builder', 'dev', [{ verbs: ['create'], apiGroups: [''], resources: ['pods'] }]),
];
const clusterBindings = [
  binding('alice-deployments', undefined, { kind: 'ClusterRole', name: 'deployment-lister' }, [{ kind: 'User', name: 'alice' }]),
  binding('health', undefined, { kind: 'ClusterRole', name: 'health-reader' }, [{ kind: 'Group', name: 'system:authenticated' }]),
  // Every service account of dev may read nodes: the account's groups, not its name.
  binding('dev-accounts-nodes', undefined, { kind: 'ClusterRole', name: 'node-viewer' }, [{ kind: 'Group', name: 'system:serviceaccounts:dev' }]),
];
const roleBindings = [
  binding('dev-readers', 'dev', { kind: 'Role', name: 'reader' }, [{ kind: 'User', name: 'alice' }]),
  binding('dev-builder', 'dev', { kind: 'Role', name: 'builder' }, [{ kind: 'ServiceAccount', name: 'builder', namespace: 'dev' }]),
];
const source: RbacSource = {
  clusterRoleBindings: () => clusterBindings,
  roleBindings: (ns) => roleBindings.filter((b) => b.metadata.namespace === ns),
  clusterRole: (name) => clusterRoles.find((r) => r.metadata.name === name),
  role: (ns, name) => roles.find((r) => r.metadata.namespace === ns && r.metadata.name === name),
};
const rbac = rbacAuthorizer({ grantsFor: (user, ns) => resolveGrants(source, user, ns) });

/** A chain that records what it is asked. */
function recorded(entries: Array<{ type: 'RBAC' | 'AlwaysDeny' | 'AlwaysAllow'; name: string }>, before: Authorizer[] = []): { chain: Authorizer; asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  const built = buildAuthorizer(entries, { RBAC: () => rbac });
  const chain: Authorizer = {
    async authorize(attributes) {
      asked.push(attributes);
      for (const a of before) {
        const r = await a.authorize(attributes);
        if (r.decision !== 'NoOpinion' || r.error) return r;
      }
      return built.authorize(attributes);
    },
  };
  return { chain, asked };
}

const alice: UserInfo = { name: 'alice', groups: ['devs', 'system:authenticated'] };

// ---------------------------------------------------------------- environments

const env = new CelEnvironment({ variables: { authorizer: AUTHORIZER_TYPE } });
const selectorEnv = new CelEnvironment({ variables: { authorizer: AUTHORIZER_TYPE }, libraries: [authzSelectorsLibrary] });
const admissionEnv = new CelEnvironment({ variables: { authorizer: AUTHORIZER_TYPE, [REQUEST_RESOURCE_VARIABLE]: RESOURCE_CHECK_TYPE } });

function setup(user: UserInfo = alice, before: Authorizer[] = []) {
  const { chain, asked } = recorded(
    [
      { type: 'RBAC', name: 'rbac' },
      { type: 'AlwaysDeny', name: 'deny' },
    ],
    before,
  );
  const activation = authorizerActivation(user, chain);
  const run = async (expression: string, environment = env, limit = PER_CALL_LIMIT) => environment.compile(expression).evaluateAsync(activation, limit);
  const value = async (expression: string, environment = env) => (await run(expression, environment)).value;
  return { asked, activation, run, value };
}

async function evalError(promise: Promise<unknown>): Promise<CelEvaluationError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof CelEvaluationError, String(err));
    return err;
  }
  assert.fail('evaluated');
}

function compileError(expression: string, environment = env, resultType?: string): string {
  try {
    environment.compile(expression, resultType ? { resultType } : {});
  } catch (err) {
    assert.ok(err instanceof CelCompileError, String(err));
    return err.detail;
  }
  assert.fail(`${expression} compiled`);
}

// ---------------------------------------------------------------- tests

test('resource checks: group, resource, subresource, namespace and name decide as RBAC does', async () => {
  const { value } = setup();
  const pods = "authorizer.group('').resource('pods')";
  assert.equal(await value(`${pods}.namespace('dev').check('get').allowed()`), true);
  assert.equal(await value(`${pods}.namespace('prod').check('get').allowed()`), false);
  assert.equal(await value(`${pods}.namespace('dev').check('delete').allowed()`), false);
  // Cluster scope: a Role in dev does not reach it.
  assert.equal(await value(`${pods}.check('get').allowed()`), false);
  assert.equal(await value(`${pods}.namespace('dev').subresource('log').check('get').allowed()`), true);
  assert.equal(await value(`${pods}.namespace('dev').subresource('exec').check('get').allowed()`), false);
  // An empty subresource is no subresource.
  assert.equal(await value(`${pods}.namespace('dev').subresource('').check('get').allowed()`), true);
  const configmaps = "authorizer.group('').resource('configmaps').namespace('dev')";
  assert.equal(await value(`${configmaps}.name('cfg').check('get').allowed()`), true);
  assert.equal(await value(`${configmaps}.name('other').check('get').allowed()`), false);
  assert.equal(await value(`${configmaps}.check('get').allowed()`), false);
  assert.equal(await value("authorizer.group('apps').resource('deployments').check('list').allowed()"), true);
  assert.equal(await value("authorizer.group('apps').resource('deployments').namespace('any').check('list').allowed()"), true);
  assert.equal(await value("authorizer.group('extensions').resource('deployments').check('list').allowed()"), false);
  // Builders return new checks: the one bound to `c` is not changed by `c.name(...)`.
  assert.equal(await value(`[${configmaps}].all(c, c.name('cfg').check('get').allowed() && !c.check('get').allowed())`), true);
});

test('resource checks reach the chain with upstream attributes: every version, the user, no path', async () => {
  const { value, asked } = setup();
  await value("authorizer.group('apps').resource('deployments').subresource('scale').namespace('dev').name('web').check('update').allowed()");
  assert.deepEqual(asked, [
    {
      user: alice,
      verb: 'update',
      isResourceRequest: true,
      path: '',
      group: 'apps',
      version: '*',
      namespace: 'dev',
      resource: 'deployments',
      subresource: 'scale',
      name: 'web',
    },
  ]);
});

test('reason() is the chain reason: the allowing binding, or the deny of the last authorizer', async () => {
  const { value } = setup();
  assert.equal(await value("authorizer.group('').resource('pods').namespace('dev').check('get').reason()"), 'RBAC: allowed by RoleBinding "dev-readers/dev" of Role "reader" to User "alice"');
  assert.equal(await value("authorizer.group('apps').resource('deployments').check('list').reason()"), 'RBAC: allowed by ClusterRoleBinding "alice-deployments" of ClusterRole "deployment-lister" to User "alice"');
  assert.equal(await value("authorizer.group('').resource('secrets').check('get').reason()"), 'Everything is forbidden.');
  assert.equal(await value("authorizer.group('').resource('secrets').check('get').errored()"), false);
  assert.equal(await value("authorizer.group('').resource('secrets').check('get').error()"), '');
});

test('path checks: the non-resource path as given, with the HTTP verb', async () => {
  const { value, asked } = setup();
  assert.equal(await value("authorizer.path('/healthz').check('get').allowed()"), true);
  assert.equal(await value("authorizer.path('/healthz').check('get').reason()"), 'RBAC: allowed by ClusterRoleBinding "health" of ClusterRole "health-reader" to Group "system:authenticated"');
  assert.equal(await value("authorizer.path('/healthz').check('post').allowed()"), false);
  assert.equal(await value("authorizer.path('/metrics').check('get').allowed()"), false);
  // upstream passes the path verbatim: no leading slash is added.
  assert.equal(await value("authorizer.path('healthz').check('get').allowed()"), false);
  assert.deepEqual(asked.at(-1), {
    user: alice,
    verb: 'get',
    isResourceRequest: false,
    path: 'healthz',
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  });
  // An empty path or resource is an error of the call; `||` absorbs it, as cel-go's does.
  assert.equal((await evalError(value("authorizer.path('').check('get').allowed()"))).message, 'path must not be empty');
  assert.equal((await evalError(value("authorizer.path('  ').check('get').allowed()"))).message, 'path must not be empty');
  assert.equal((await evalError(value("authorizer.group('').resource(' ').check('get').allowed()"))).message, 'resource must not be empty');
  assert.equal(await value("authorizer.path('').check('get').allowed() || true"), true);
});

test('serviceAccount(): the same chain as system:serviceaccount:<ns>:<name> with its groups', async () => {
  const { value, asked } = setup();
  const builder = "authorizer.serviceAccount('dev', 'builder')";
  assert.equal(await value(`${builder}.group('').resource('pods').namespace('dev').check('create').allowed()`), true);
  assert.equal(await value(`${builder}.group('').resource('pods').namespace('dev').check('create').reason()`), 'RBAC: allowed by RoleBinding "dev-builder/dev" of Role "builder" to ServiceAccount "builder/dev"');
  assert.deepEqual(asked.at(-1)!.user, { name: 'system:serviceaccount:dev:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:dev'] });
  // The caller herself may not; alice's grants are not the account's.
  assert.equal(await value("authorizer.group('').resource('pods').namespace('dev').check('create').allowed()"), false);
  assert.equal(await value(`${builder}.group('').resource('pods').namespace('dev').check('get').allowed()`), false);
  // Through the account's namespace group.
  assert.equal(await value("authorizer.serviceAccount('dev', 'other').group('').resource('nodes').check('get').allowed()"), true);
  assert.equal(await value("authorizer.serviceAccount('prod', 'other').group('').resource('nodes').check('get').allowed()"), false);
  // serviceAccount of a serviceAccount is the latter.
  assert.equal(await value("authorizer.serviceAccount('prod', 'x').serviceAccount('dev', 'builder').group('').resource('pods').namespace('dev').check('create').allowed()"), true);
  // upstream validates the name (DNS subdomain) first, then the namespace (DNS label).
  assert.equal((await evalError(value("authorizer.serviceAccount('dev', 'Bad_Name').path('/healthz').check('get').allowed()"))).message, 'Invalid service account name');
  assert.equal((await evalError(value("authorizer.serviceAccount('dev', '').path('/healthz').check('get').allowed()"))).message, 'Invalid service account name');
  assert.equal((await evalError(value("authorizer.serviceAccount('dev.example', 'ok.name').path('/healthz').check('get').allowed()"))).message, 'Invalid service account namespace');
  assert.equal((await evalError(value("authorizer.serviceAccount('not@valid', 'Bad_Name').path('/healthz').check('get').allowed()"))).message, 'Invalid service account name');
});

test('errored() and error(): an authorizer that cannot decide, or that fails', async () => {
  const unreachable: Authorizer = { authorize: async (): Promise<AuthorizationResult> => ({ decision: 'NoOpinion', reason: '', error: 'Post "https://authz.example/": dial tcp: connection refused' }) };
  const { value } = setup(alice, [unreachable]);
  const check = "authorizer.group('').resource('pods').namespace('dev').check('get')";
  assert.equal(await value(`${check}.errored()`), true);
  assert.equal(await value(`${check}.error()`), 'Post "https://authz.example/": dial tcp: connection refused');
  assert.equal(await value(`${check}.allowed()`), false);

  const failing: Authorizer = {
    authorize: async () => {
      throw new Error('authorizer crashed');
    },
  };
  const crashed = setup(alice, [failing]);
  assert.equal(await crashed.value(`${check}.errored()`), true);
  assert.equal(await crashed.value(`${check}.error()`), 'authorizer crashed');
  assert.equal(await crashed.value(`${check}.allowed()`), false);
  assert.equal(await crashed.value(`${check}.reason()`), '');

  // Through the union: a webhook that errs, then RBAC that allows; RBAC decides, the error is not reported.
  const union = buildAuthorizer(
    [
      { type: 'Webhook', name: 'w' },
      { type: 'RBAC', name: 'rbac' },
    ] as never,
    { RBAC: () => rbac, Webhook: () => unreachable },
  );
  const activation = authorizerActivation(alice, union);
  assert.equal((await env.compile(`${check}.allowed() && !${check}.errored()`).evaluateAsync(activation)).value, true);
  const denied = "authorizer.group('').resource('secrets').check('get')";
  assert.equal((await env.compile(`${denied}.errored()`).evaluateAsync(activation)).value, true);
  assert.equal((await env.compile(`${denied}.error()`).evaluateAsync(activation)).value, 'Post "https://authz.example/": dial tcp: connection refused');
});

test('several checks in one expression: one round per decision, asked in evaluation order, each once', async () => {
  const { run, asked } = setup();
  const pods = "authorizer.group('').resource('pods').namespace('dev').check('get')";
  const secrets = "authorizer.group('').resource('secrets').namespace('dev').check('get')";
  const health = "authorizer.path('/healthz').check('get')";
  let r = await run(`!${secrets}.allowed() && ${health}.allowed()`);
  assert.equal(r.value, true);
  assert.deepEqual(
    asked.map((a) => a.resource || a.path),
    ['secrets', '/healthz'],
  );
  // Short-circuit: the second check is never asked, as upstream's evaluation never makes it.
  asked.length = 0;
  r = await run(`${pods}.allowed() || ${secrets}.allowed()`);
  assert.equal(r.value, true);
  assert.deepEqual(
    asked.map((a) => a.resource),
    ['pods'],
  );
  // The same check twice is asked once, and charged twice.
  asked.length = 0;
  r = await run(`${pods}.allowed() && ${pods}.reason() != ''`);
  assert.equal(r.value, true);
  assert.equal(asked.length, 1);
  assert.equal(r.cost, 2 * (3 + CHECK_COST + 1) + 1 + 1);
  // A decision that changes which check comes next.
  asked.length = 0;
  r = await run(`${secrets}.allowed() ? 'secrets' : (${pods}.allowed() ? 'pods' : 'none')`);
  assert.equal(r.value, 'pods');
  assert.deepEqual(
    asked.map((a) => a.resource),
    ['secrets', 'pods'],
  );
});

test('rounds are bounded', async () => {
  const { activation, asked } = setup();
  const two = env.compile("authorizer.path('/healthz').check('get').allowed() && authorizer.path('/livez').check('get').allowed() == false");
  assert.equal((await two.evaluateAsync(activation, PER_CALL_LIMIT, { maxRounds: 3 })).value, true);
  asked.length = 0;
  const err = await evalError(two.evaluateAsync(activation, PER_CALL_LIMIT, { maxRounds: 2 }));
  assert.equal(err.message, 'evaluation needs more than 2 rounds of asynchronous calls');
  assert.equal(asked.length, 1);
});

test('synchronous evaluate fails at a check rather than decide without it, even where || would absorb an error', () => {
  const { activation, asked } = setup();
  for (const expression of [
    "authorizer.path('/healthz').check('get').allowed()",
    "authorizer.path('/healthz').check('get').allowed() || true",
    "[1, 2].exists(i, authorizer.path('/healthz').check('get').allowed()) || true",
  ]) {
    assert.throws(
      () => env.compile(expression).evaluate(activation),
      (err: unknown) => err instanceof CelEvaluationError && err.message === 'an authorization check is asynchronous: the expression must be evaluated with evaluateAsync',
      expression,
    );
  }
  assert.equal(asked.length, 0);
  // What checks nothing needs nothing asynchronous.
  assert.equal(env.compile("authorizer.path('').check('get').allowed() || true").evaluate(activation).value, true);
});

test('cost: check() is 350000 and the builders and accessors 1, charged once however many rounds ran', async () => {
  const { run, asked } = setup();
  assert.equal(CHECK_COST, 350000);
  // authorizer (1) + path (1) + check + allowed (1)
  assert.equal((await run("authorizer.path('/healthz').check('get').allowed()")).cost, 350003);
  // authorizer, group, resource, namespace, name, subresource, check, reason
  assert.equal((await run("authorizer.group('').resource('pods').namespace('dev').name('p').subresource('log').check('get').reason()")).cost, 6 + CHECK_COST + 1);
  assert.equal((await run("authorizer.serviceAccount('dev', 'builder').path('/healthz').check('get').errored()")).cost, 3 + CHECK_COST + 1);
  // Two checks (two rounds before the last): twice the check, not four times; `== ''` traverses nothing.
  assert.equal((await run("authorizer.path('/a').check('get').allowed() || authorizer.path('/b').check('get').error() == ''")).cost, 2 * 350003);
  // A third check exceeds the per-expression budget before it is asked, as upstream intends.
  asked.length = 0;
  const three = "authorizer.path('/healthz').check('get').allowed() && authorizer.path('/healthz').check('post').allowed() == false && authorizer.path('/livez').check('get').allowed() == false";
  const err = await evalError(run(three));
  assert.equal(err.message, COST_LIMIT_MESSAGE);
  assert.equal(err.costExceeded, true);
  assert.equal(asked.length, 2);
  assert.equal((await run(three, env, 2_000_000)).value, true);
});

test('selectors (AuthorizeWithSelectors): requirements reach the chain; one that does not parse reaches it as its error', async () => {
  const { value, run, asked } = setup();
  const pods = "authorizer.group('').resource('pods').namespace('dev')";
  assert.equal(await value(`${pods}.fieldSelector('spec.nodeName=node1').labelSelector('app=web,tier!=db').check('list').allowed()`, selectorEnv), false);
  assert.deepEqual(asked.at(-1)!.fieldSelector, { requirements: [{ field: 'spec.nodeName', operator: '=', value: 'node1' }] });
  assert.deepEqual(asked.at(-1)!.labelSelector, {
    requirements: [
      { key: 'app', operator: '=', values: ['web'] },
      { key: 'tier', operator: '!=', values: ['db'] },
    ],
  });
  // A selector that does not parse: no requirements, its error; the check still runs and decides.
  assert.equal(await value(`${pods}.fieldSelector('spec.nodeName').check('get').allowed()`, selectorEnv), true);
  assert.deepEqual(asked.at(-1)!.fieldSelector, { requirements: [], error: "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'" });
  assert.equal(await value(`${pods}.labelSelector('app in (web').check('get').errored()`, selectorEnv), false);
  assert.equal(asked.at(-1)!.labelSelector?.requirements.length, 0);
  assert.match(asked.at(-1)!.labelSelector!.error!, /^unable to parse requirement: /);
  assert.equal(asked.at(-1)!.fieldSelector, undefined);
  // An empty selector (or one of no requirements) adds nothing.
  await value(`${pods}.fieldSelector('').labelSelector('').check('list').allowed()`, selectorEnv);
  assert.equal('fieldSelector' in asked.at(-1)!, false);
  assert.equal('labelSelector' in asked.at(-1)!, false);
  // Cost (upstream selectorCostEstimate at the actual length): 10 + ceil(0.1 x len) + 50 x ceil(len / 2).
  assert.equal(selectorCost(0), 10);
  assert.equal(selectorCost(20), 10 + 2 + 500);
  assert.equal(selectorCost(21), 10 + 3 + 550);
  const r = await run(`${pods}.fieldSelector('spec.nodeName=node1').check('list').allowed()`, selectorEnv);
  assert.equal(r.cost, 4 + selectorCost(20) + CHECK_COST + 1);
  // Without the gate the functions are not declared.
  assert.match(compileError(`${pods}.fieldSelector('a=b').check('list').allowed()`), /undeclared reference to 'fieldSelector'|found no matching overload for 'fieldSelector'/);
});

test('authorizer.requestResource: the request resource as a ResourceCheck, for fields that declare it', async () => {
  const { chain, asked } = recorded([{ type: 'RBAC', name: 'rbac' }]);
  const request: RequestResource = { group: '', resource: 'pods', subresource: 'log', namespace: 'dev', name: 'web-1' };
  const activation = authorizerActivation(alice, chain, request);
  const value = async (expression: string) => (await admissionEnv.compile(expression).evaluateAsync(activation)).value;
  assert.equal(await value("authorizer.requestResource.check('get').allowed()"), true);
  assert.deepEqual(asked.at(-1), { user: alice, verb: 'get', isResourceRequest: true, path: '', group: '', version: '*', namespace: 'dev', resource: 'pods', subresource: 'log', name: 'web-1' });
  assert.equal(await value("authorizer.requestResource.subresource('exec').check('get').allowed()"), false);
  assert.equal(await value("authorizer.requestResource.namespace('prod').check('get').allowed()"), false);
  // The variable `authorizer` is still itself.
  assert.equal(await value("authorizer.path('/healthz').check('get').allowed()"), true);
  assert.equal(admissionEnv.compile('authorizer.requestResource').resultType, RESOURCE_CHECK_TYPE);
  // Where only `authorizer` is declared, requestResource is no field of it.
  assert.match(compileError("authorizer.requestResource.check('get').allowed()"), /undefined field 'requestResource'/);
});

test('compile errors: wrong argument types, wrong receivers, results that are not bool', () => {
  assert.equal(
    compileError('authorizer.group(1)'),
    "compilation failed: ERROR: <input>:1:1: found no matching overload for 'group' applied to 'kubernetes.authorization.Authorizer.(int)'\n | authorizer.group(1)\n | ^",
  );
  assert.match(compileError("authorizer.path('/x').check(1)"), /found no matching overload for 'check' applied to 'kubernetes\.authorization\.PathCheck\.\(int\)'/);
  assert.match(compileError("authorizer.group('').check('get')"), /found no matching overload for 'check' applied to 'kubernetes\.authorization\.GroupCheck\.\(string\)'/);
  assert.match(compileError("authorizer.path('/x').namespace('dev')"), /found no matching overload for 'namespace' applied to 'kubernetes\.authorization\.PathCheck\.\(string\)'/);
  assert.match(compileError("authorizer.serviceAccount('dev')"), /found no matching overload for 'serviceAccount'/);
  assert.match(compileError('authorizer.allowed()'), /found no matching overload for 'allowed' applied to 'kubernetes\.authorization\.Authorizer\.\(\)'/);
  assert.equal(compileError("authorizer.path('/x').check('get')", env, 'bool'), 'must evaluate to bool but got kubernetes.authorization.Decision');
  assert.match(compileError("authorizer.path('/x').check('get').allowed() == 'yes'"), /found no matching overload for '_==_' applied to '\(bool, string\)'/);
  assert.match(compileError('authorizer.user'), /undefined field 'user'/);
  // Receiver-only values: comparing them type-checks, and fails as upstream's Equal does.
  assert.throws(() => env.compile('authorizer == authorizer').evaluate(authorizerActivation(alice, rbac)), (err: unknown) => err instanceof CelEvaluationError && err.message === 'no such overload');
});

test('authorization matchConditions declare `request` only, as upstream 1.31: `authorizer` is undeclared there', () => {
  const { matcher, errors } = compileMatchConditions([{ expression: "authorizer.path('/healthz').check('get').allowed()" }], 'authorizers[0]', true);
  assert.equal(matcher, undefined);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].field, 'authorizers[0].matchConditions[0].expression');
  assert.match(errors[0].message, /undeclared reference to 'authorizer'/);
  // The functions are declared (upstream's base environment): a dyn receiver type-checks, and fails at run time.
  const compiled = compileMatchConditions([{ expression: "dyn(request).check('get').allowed()" }], '', true);
  assert.equal(compiled.errors.length, 0);
});
