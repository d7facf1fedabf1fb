/**
 * The authorization attributes and verb table (SPEC 5.1 items 2 and 4; issue 9):
 * what a request is authorized as, the chain's union semantics, the legacy
 * flags' validation, and the selector attributes of AuthorizeWithSelectors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chain, privilegedGroups, type Authorizer, type AuthorizationResult } from '../src/auth/authorization/authorizer.ts';
import { entriesFromFlags, validateAuthorizationFlags } from '../src/auth/authorization/authorizer-entries.ts';
import { fieldSelectorAttribute, labelSelectorAttribute, selectorAttributeErrors } from '../src/auth/reviews/review-selectors.ts';
import { resolveRequestInfo } from '../src/http/request-info.ts';
import { attributesFor } from '../src/server/filters/authorization.ts';
import { parseRequestTarget } from '../src/http/request-target.ts';
import { BIN, ROOT } from './helpers/server.ts';

const user = { name: 'alice', groups: ['system:authenticated'] };
const attrs = (method: string, url: string, gate = false) => attributesFor(user, resolveRequestInfo(method, parseRequestTarget(url), { authorizeWithSelectors: gate }));

test('the verb table: method and path to verb, resource, subresource, name and namespace', () => {
  const cases: Array<[string, string, Partial<ReturnType<typeof attrs>>]> = [
    ['GET', '/api/v1/namespaces/ns/pods/p', { verb: 'get', resource: 'pods', name: 'p', namespace: 'ns', group: '', version: 'v1' }],
    ['HEAD', '/api/v1/namespaces/ns/pods/p', { verb: 'get', name: 'p' }],
    ['GET', '/api/v1/namespaces/ns/pods', { verb: 'list', name: '' }],
    ['HEAD', '/api/v1/namespaces/ns/pods', { verb: 'list' }],
    ['GET', '/api/v1/pods', { verb: 'list', namespace: '' }],
    ['GET', '/api/v1/namespaces/ns/pods?watch=true', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/pods?watch=1', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/pods?watch=false', { verb: 'list' }],
    ['GET', '/api/v1/watch/namespaces/ns/pods', { verb: 'watch', resource: 'pods', namespace: 'ns' }],
    ['GET', '/api/v1/namespaces/ns/pods/p?watch=true', { verb: 'watch', name: 'p' }],
    ['POST', '/api/v1/namespaces/ns/pods', { verb: 'create', name: '' }],
    ['PUT', '/api/v1/namespaces/ns/pods/p', { verb: 'update' }],
    ['PATCH', '/api/v1/namespaces/ns/pods/p', { verb: 'patch' }],
    ['DELETE', '/api/v1/namespaces/ns/pods/p', { verb: 'delete' }],
    ['DELETE', '/api/v1/namespaces/ns/pods', { verb: 'deletecollection' }],
    ['PUT', '/api/v1/namespaces/ns/pods/p/status', { verb: 'update', subresource: 'status' }],
    ['POST', '/api/v1/namespaces/ns/serviceaccounts/sa/token', { verb: 'create', resource: 'serviceaccounts', subresource: 'token', name: 'sa' }],
    ['GET', '/api/v1/namespaces/ns', { verb: 'get', resource: 'namespaces', name: 'ns', namespace: 'ns' }],
    ['PUT', '/api/v1/namespaces/ns/finalize', { verb: 'update', resource: 'namespaces', subresource: 'finalize', name: 'ns' }],
    ['GET', '/apis/rbac.authorization.orch.io/v1/clusterroles/x', { verb: 'get', group: 'rbac.authorization.orch.io', resource: 'clusterroles', name: 'x', namespace: '' }],
    // A collection read narrowed to one name by a field selector is authorized as that name; an unparsable or invalid one is not.
    ['GET', '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Ds1', { verb: 'list', name: 's1' }],
    ['GET', '/api/v1/namespaces/ns/secrets?watch=1&fieldSelector=metadata.name%3Ds1', { verb: 'watch', name: 's1' }],
    ['GET', '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%21%3Ds1', { verb: 'list', name: '' }],
    ['GET', '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Da%2Fb', { verb: 'list', name: '' }],
    ['GET', '/api/v1/namespaces/ns/secrets?fieldSelector=garbage', { verb: 'list', name: '' }],
    ['DELETE', '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Ds1', { verb: 'deletecollection', name: '' }],
  ];
  for (const [method, url, expected] of cases) {
    const a = attrs(method, url);
    assert.equal(a.isResourceRequest, true, url);
    for (const [key, value] of Object.entries(expected)) assert.equal((a as any)[key], value, `${method} ${url}: ${key}`);
  }
});

test('non-resource requests use the lower-case method as verb and the path as sent', () => {
  for (const [method, url, verb] of [['GET', '/healthz', 'get'], ['HEAD', '/version', 'head'], ['POST', '/apis', 'post'], ['GET', '/api', 'get'], ['GET', '/apis/rbac.authorization.orch.io', 'get'], ['PUT', '/metrics', 'put']]) {
    const a = attrs(method, url);
    assert.equal(a.isResourceRequest, false, url);
    assert.equal(a.verb, verb, url);
    assert.equal(a.path, url.split('?')[0]);
  }
});

test('AuthorizeWithSelectors: the selectors of list, watch and deletecollection become requirements', () => {
  const off = attrs('GET', '/api/v1/pods?labelSelector=app%3Dweb&fieldSelector=spec.nodeName%3Dn1');
  assert.equal(off.labelSelector, undefined);
  assert.equal(off.fieldSelector, undefined);
  const on = attrs('GET', '/api/v1/pods?labelSelector=app%3Dweb&fieldSelector=spec.nodeName%3Dn1', true);
  assert.deepEqual(on.labelSelector, { requirements: [{ key: 'app', operator: '=', values: ['web'] }] });
  assert.deepEqual(on.fieldSelector, { requirements: [{ field: 'spec.nodeName', operator: '=', value: 'n1' }] });
  assert.match(attrs('GET', '/api/v1/pods?labelSelector=%3D%3D', true).labelSelector!.error!, /./);
  assert.equal(attrs('GET', '/api/v1/namespaces/ns/pods/p?labelSelector=a%3Db', true).labelSelector, undefined);
  // The deprecated verb-via-path watch carries none, as upstream.
  assert.equal(attrs('GET', '/api/v1/watch/pods?labelSelector=a%3Db', true).labelSelector, undefined);
  assert.ok(attrs('DELETE', '/api/v1/namespaces/ns/pods?labelSelector=a%3Db', true).labelSelector);
});

test('access-review selectors: upstream validation and conversion', () => {
  assert.deepEqual(selectorAttributeErrors({ fieldSelector: {} }, 'spec.resourceAttributes').map((e) => e.field), ['spec.resourceAttributes.fieldSelector.requirements']);
  const both = selectorAttributeErrors({ labelSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In', values: ['b'] }] } }, 'spec.resourceAttributes');
  assert.deepEqual(both.map((e) => e.field), ['spec.resourceAttributes.labelSelector.rawSelector']);
  const bad = selectorAttributeErrors({ fieldSelector: { requirements: [{ operator: 'In' }, { key: 'k', operator: 'Exists', values: ['v'] }, { key: 'k', operator: 'Later' }] } }, 's');
  assert.deepEqual(bad.map((e) => e.field), ['s.fieldSelector.requirements[0].key', 's.fieldSelector.requirements[0].values', 's.fieldSelector.requirements[1].values']);
  assert.deepEqual(fieldSelectorAttribute('list', { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }, { key: 'x', operator: 'NotIn', values: ['y'] }] }), {
    requirements: [
      { field: 'spec.nodeName', operator: '=', value: 'n1' },
      { field: 'x', operator: '!=', value: 'y' },
    ],
  });
  assert.equal(fieldSelectorAttribute('list', { requirements: [{ key: 'k', operator: 'In', values: ['a', 'b'] }] })!.error, 'fieldSelectors in access reviews are not supported with "In" operator and 2 values');
  assert.equal(fieldSelectorAttribute('list', { requirements: [{ key: 'k', operator: 'Exists' }] })!.error, 'fieldSelectors in access reviews do not support "Exists"');
  assert.equal(fieldSelectorAttribute('get', { rawSelector: 'a=b' }), undefined);
  assert.deepEqual(labelSelectorAttribute('watch', { rawSelector: 'a in (b)' }), { requirements: [{ key: 'a', operator: 'in', values: ['b'] }] });
  assert.equal(labelSelectorAttribute('list', { requirements: [{ key: 'a', operator: 'Near', values: [] }] })!.error, '"Near" is not a valid label selector operator');
  assert.equal(labelSelectorAttribute('list', { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'Exists' }] })!.error, 'labelSelectors.rawSelector and labelSelectors.requirements are mutually exclusive');
});

test('the union: first Allow or Deny wins, reasons and errors of no-opinions are joined, system:masters first', async () => {
  const fixed = (result: AuthorizationResult): Authorizer => ({ authorize: async () => result });
  const request = attrs('GET', '/api/v1/pods');
  assert.deepEqual(await chain([fixed({ decision: 'NoOpinion', reason: 'a' }), fixed({ decision: 'Deny', reason: 'no' }), fixed({ decision: 'Allow', reason: 'yes' })]).authorize(request), { decision: 'Deny', reason: 'no' });
  assert.deepEqual(await chain([fixed({ decision: 'NoOpinion', reason: 'a', error: 'e1' }), fixed({ decision: 'NoOpinion', reason: 'b', error: 'e2' })]).authorize(request), {
    decision: 'NoOpinion',
    reason: 'a\nb',
    error: '[e1, e2]',
  });
  const denyAll = chain([privilegedGroups, fixed({ decision: 'Deny', reason: '' })]);
  assert.equal((await denyAll.authorize({ ...request, user: { name: 'root', groups: ['system:masters'] } })).decision, 'Allow');
  assert.equal((await denyAll.authorize(request)).decision, 'Deny');
});

test('--authorization-mode and its flags: upstream\'s validation, entries named as upstream', () => {
  const base = { webhookVersion: 'v1beta1' as const, webhookCacheAuthorizedTtlMs: 300_000, webhookCacheUnauthorizedTtlMs: 30_000 };
  assert.deepEqual(validateAuthorizationFlags({ ...base, modes: [] }), ['at least one authorization-mode must be passed']);
  assert.deepEqual(validateAuthorizationFlags({ ...base, modes: ['RBAC', 'Magic', 'RBAC'] }), [
    'authorization-mode "Magic" is not a valid mode',
    'authorization-mode ["RBAC" "Magic" "RBAC"] has mode specified more than once',
  ]);
  assert.deepEqual(validateAuthorizationFlags({ ...base, modes: ['ABAC', 'Webhook'] }), ["authorization-mode ABAC's authorization policy file not passed", "authorization-mode Webhook's authorization config file not passed"]);
  assert.deepEqual(validateAuthorizationFlags({ ...base, modes: ['RBAC'], policyFile: 'p', webhookConfigFile: 'w' }), [
    'cannot specify --authorization-policy-file without mode ABAC',
    'cannot specify --authorization-webhook-config-file without mode Webhook',
  ]);
  const entries = entriesFromFlags({ ...base, modes: ['Node', 'RBAC', 'Webhook'], webhookConfigFile: '/w.yaml' });
  assert.deepEqual(entries.map((e) => [e.type, e.name]), [['Node', 'node'], ['RBAC', 'rbac'], ['Webhook', 'default']]);
  assert.deepEqual((entries[2] as any).webhook, {
    authorizedTtlMs: 300_000,
    unauthorizedTtlMs: 30_000,
    timeoutMs: 30_000,
    failurePolicy: 'NoOpinion',
    subjectAccessReviewVersion: 'v1beta1',
    matchConditionSubjectAccessReviewVersion: 'v1',
    connectionInfo: { type: 'OrchConfig', orchConfigFile: '/w.yaml' },
    matchConditions: [],
  });
});

test('start-up refuses bad authorization flags with upstream\'s words', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-authz-flags-'));
  try {
    const cases: Array<[string[], RegExp]> = [
      [['--authorization-mode=RBAC,Sometimes'], /authorization-mode "Sometimes" is not a valid mode/],
      [['--authorization-mode=RBAC,RBAC'], /has mode specified more than once/],
      [['--authorization-mode=Webhook'], /authorization-mode Webhook's authorization config file not passed/],
      [['--authorization-config=/x.yaml', '--authorization-mode=RBAC'], /--authorization-config can not be specified when --authorization-mode or --authorization-webhook-\* flags are defined/],
      [['--authorization-config=/x.yaml', '--authorization-webhook-cache-authorized-ttl=1m'], /--authorization-config can not be specified when/],
      [['--authorization-config=/x.yaml', '--feature-gates=StructuredAuthorizationConfiguration=false'], /cannot be used without enabling StructuredAuthorizationConfiguration feature flag/],
      [['--authorization-webhook-version=v2'], /invalid argument "v2" for "--authorization-webhook-version" flag: must be v1 or v1beta1/],
    ];
    for (const [args, message] of cases) {
      const run = spawnSync(process.execPath, [BIN, '--secure-port=0', `--data-dir=${join(dir, 'data')}`, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
      assert.notEqual(run.status, 0, args.join(' '));
      assert.match(run.stderr, message, args.join(' '));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
