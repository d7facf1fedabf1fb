/**
 * The audit policy (SPEC 9.5; upstream pkg/audit/policy): decoding and
 * validation with upstream's words, and each matcher of a rule.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePolicy, PolicyEvaluator, type AuditAttributes } from '../src/audit/policy.ts';

const header = 'apiVersion: audit.orch.io/v1\nkind: Policy\n';

function levelFor(rules: string, attributes: Partial<AuditAttributes>, user = { name: 'alice', groups: ['devs'] }): string {
  const evaluator = new PolicyEvaluator(parsePolicy(`${header}rules:\n${rules}`));
  const request: AuditAttributes = { verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/default/pods/p', group: '', namespace: 'default', resource: 'pods', subresource: '', name: 'p', ...attributes };
  return evaluator.evaluate(request, user).level;
}

test('rules match in order by users, groups and verbs; no match is level None', () => {
  const rules = '- level: Request\n  users: [bob]\n- level: Metadata\n  userGroups: [devs]\n  verbs: [list]\n- level: RequestResponse\n  verbs: [get]\n';
  assert.equal(levelFor(rules, {}, { name: 'bob', groups: [] }), 'Request');
  assert.equal(levelFor(rules, { verb: 'list' }), 'Metadata');
  assert.equal(levelFor(rules, {}), 'RequestResponse');
  assert.equal(levelFor(rules, { verb: 'delete' }), 'None');
});

test('resources match by group, resource, subresource forms and resourceNames; namespaces alone match resource requests', () => {
  const rules =
    '- level: Request\n  resources: [{group: "", resources: ["pods/status"]}]\n' +
    '- level: RequestResponse\n  resources: [{group: "apps", resources: ["*/scale"]}]\n' +
    '- level: Metadata\n  resources: [{group: "*", resources: ["secrets/*"]}]\n' +
    '- level: Request\n  resources: [{group: "", resources: ["configmaps"], resourceNames: ["cfg"]}]\n' +
    '- level: Metadata\n  namespaces: ["audited"]\n';
  assert.equal(levelFor(rules, { subresource: 'status' }), 'Request');
  assert.equal(levelFor(rules, {}), 'None', 'pods without status matches no resource rule');
  assert.equal(levelFor(rules, { group: 'apps', resource: 'deployments', subresource: 'scale' }), 'RequestResponse');
  assert.equal(levelFor(rules, { group: 'apps', resource: 'deployments' }), 'None');
  assert.equal(levelFor(rules, { group: 'x.io', resource: 'secrets', subresource: 'anything' }), 'Metadata');
  assert.equal(levelFor(rules, { resource: 'configmaps', name: 'cfg' }), 'Request');
  assert.equal(levelFor(rules, { resource: 'configmaps', name: 'other' }), 'None');
  assert.equal(levelFor(rules, { resource: 'configmaps', name: 'other', namespace: 'audited' }), 'Metadata');
  assert.equal(levelFor(rules, { isResourceRequest: false, path: '/version', resource: '', namespace: '' }), 'None');
});

test('nonResourceURLs match exactly, by a trailing * and by *; never a resource request', () => {
  const rules = '- level: Metadata\n  nonResourceURLs: ["/healthz*", "/version"]\n- level: Request\n  nonResourceURLs: ["*"]\n';
  const nonResource = (path: string) => levelFor(rules, { isResourceRequest: false, path, resource: '', namespace: '', name: '' });
  assert.equal(nonResource('/healthz/etcd'), 'Metadata');
  assert.equal(nonResource('/version'), 'Metadata');
  assert.equal(nonResource('/version/x'), 'Request');
  assert.equal(levelFor(rules, {}), 'None');
});

test('omitStages of the policy and of the rule add up; omitManagedFields of the rule wins over the policy', () => {
  const policy = parsePolicy(`${header}omitStages: [RequestReceived]\nomitManagedFields: true\nrules:\n- level: Metadata\n  omitStages: [ResponseStarted]\n  omitManagedFields: false\n  verbs: [get]\n- level: Request\n`);
  const evaluator = new PolicyEvaluator(policy);
  const base: AuditAttributes = { verb: 'get', isResourceRequest: false, path: '/x', group: '', namespace: '', resource: '', subresource: '', name: '' };
  const first = evaluator.evaluate(base, undefined);
  assert.deepEqual([...first.omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
  assert.equal(first.omitManagedFields, false);
  const second = evaluator.evaluate({ ...base, verb: 'list' }, undefined);
  assert.deepEqual([...second.omitStages], ['RequestReceived']);
  assert.equal(second.omitManagedFields, true);
});

test('a bad policy is refused with upstream\'s words', () => {
  assert.throws(() => parsePolicy(`${header}rules: []\n`), { message: 'loaded illegal policy with 0 rules' });
  assert.throws(() => parsePolicy(`${header}rules:\n- level: Loud\n`), { message: 'rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse"' });
  assert.throws(() => parsePolicy(`${header}rules:\n- users: [a]\n`), { message: 'rules[0].level: Required value' });
  assert.throws(() => parsePolicy(`${header}omitStages: [Later]\nrules:\n- level: None\n`), {
    message: 'omitStages[0]: Invalid value: "Later": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic',
  });
  assert.throws(() => parsePolicy(`${header}rules:\n- level: None\n  nonResourceURLs: ["api/*", "/a*b"]\n  namespaces: [x]\n`), {
    message:
      '[rules[0].nonResourceURLs[0]: Invalid value: "api/*": non-resource URL rules must begin with a \'/\' character, ' +
      'rules[0].nonResourceURLs[1]: Invalid value: "/a*b": non-resource URL wildcards \'*\' must be the final character of the rule, ' +
      'rules[0].nonResourceURLs: Invalid value: []string{"api/*", "/a*b"}: rules cannot apply to both regular resources and non-resource URLs]',
  });
  assert.throws(() => parsePolicy(`${header}rules:\n- level: None\n  resources: [{resourceNames: [a]}]\n`), {
    message: 'rules[0].resources.resourceNames: Invalid value: []string{"a"}: using resourceNames requires at least one resource',
  });
  assert.throws(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n'), /failed decoding: no kind "Policy" is registered for version "audit.k8s.io\/v1"/);
  assert.throws(() => parsePolicy(`${header}rules:\n- level: None\n  users: a\n`), { message: 'failed decoding: json: cannot unmarshal string into Go struct field PolicyRule.rules.users of type []string' });
});

test('a policy whose only fault is an unknown field is read leniently, as upstream falls back', () => {
  const policy = parsePolicy(`${header}rules:\n- level: Metadata\n  color: blue\n`);
  assert.deepEqual(policy.rules, [{ level: 'Metadata' }]);
});
