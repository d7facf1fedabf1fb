/** RBAC matching (issue 9 start; SPEC 5.5): upstream's RuleAllows and appliesToUser, case by case. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ruleAllows, subjectMatches, type PolicyRule } from '../src/auth/authorization/rbac-rules.ts';
import type { AuthorizationAttributes } from '../src/auth/authorization/authorizer.ts';

const user = { name: 'alice', groups: ['devs', 'system:authenticated'] };
const request = (over: Partial<AuthorizationAttributes>): AuthorizationAttributes => ({
  user, verb: 'get', isResourceRequest: true, path: '', group: '', version: 'v1', namespace: 'default', resource: 'configmaps', subresource: '', name: 'cm', ...over,
});

test('resource rules: verbs, groups, resources, subresources and resource names', () => {
  const cases: Array<[PolicyRule, Partial<AuthorizationAttributes>, boolean]> = [
    [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, {}, true],
    [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'] }, {}, false],
    [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { group: 'apps', resource: 'deployments' }, true],
    [{ verbs: ['get'], apiGroups: ['apps'], resources: ['configmaps'] }, {}, false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { resource: 'pods', subresource: 'status' }, false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods/status'] }, { resource: 'pods', subresource: 'status' }, true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, { resource: 'pods', subresource: 'status' }, true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, { resource: 'pods' }, false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'] }, {}, true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['other'] }, {}, false],
    // A list names no object: a rule limited to names cannot allow it.
    [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'] }, { verb: 'list', name: '' }, false],
    // Names are case-sensitive.
    [{ verbs: ['get'], apiGroups: [''], resources: ['ConfigMaps'] }, {}, false],
    [{ verbs: [], apiGroups: ['*'], resources: ['*'] }, {}, false],
  ];
  for (const [rule, over, allowed] of cases) assert.equal(ruleAllows(request(over), rule), allowed, `${JSON.stringify(rule)} ${JSON.stringify(over)}`);
});

test('non-resource rules: exact paths and trailing-star prefixes', () => {
  const nonResource = (path: string, verb = 'get') => request({ isResourceRequest: false, path, verb, resource: '', name: '' });
  const rule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics*'] };
  assert.equal(ruleAllows(nonResource('/healthz'), rule), true);
  assert.equal(ruleAllows(nonResource('/healthz/etcd'), rule), false);
  assert.equal(ruleAllows(nonResource('/metrics/cadvisor'), rule), true);
  assert.equal(ruleAllows(nonResource('/healthz', 'post'), rule), false);
  assert.equal(ruleAllows(nonResource('/anything'), { verbs: ['*'], nonResourceURLs: ['*'] }), true);
  // A resource rule never allows a non-resource request.
  assert.equal(ruleAllows(nonResource('/healthz'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }), false);
});

test('subjects: users and groups by exact name, service accounts in their or the binding namespace', () => {
  assert.equal(subjectMatches(user, { kind: 'User', name: 'alice' }, ''), true);
  assert.equal(subjectMatches(user, { kind: 'User', name: 'Alice' }, ''), false);
  assert.equal(subjectMatches(user, { kind: 'Group', name: 'devs' }, ''), true);
  const sa = { name: 'system:serviceaccount:team:bot', groups: ['system:serviceaccounts'] };
  assert.equal(subjectMatches(sa, { kind: 'ServiceAccount', name: 'bot', namespace: 'team' }, ''), true);
  assert.equal(subjectMatches(sa, { kind: 'ServiceAccount', name: 'bot' }, 'team'), true);
  assert.equal(subjectMatches(sa, { kind: 'ServiceAccount', name: 'bot' }, ''), false);
  assert.equal(subjectMatches(sa, { kind: 'ServiceAccount', name: 'bot', namespace: 'other' }, 'team'), false);
  assert.equal(subjectMatches(user, { kind: 'Robot', name: 'alice' }, ''), false);
});
