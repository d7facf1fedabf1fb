/**
 * Access reviews (issue 9 start; SPEC 2.8, 4.11): answered by the server's own
 * authorization chain; validated as upstream validates them.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';

const AUTHZ = '/apis/authorization.orch.io/v1';
const resource = { verb: 'get', resource: 'secrets', namespace: 'default', name: 'x' };

describe('access reviews', () => {
  let deny: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-access-'));
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,,"dev"\n');
    deny = await startTestServer(['--authorization-mode=AlwaysDeny', `--token-auth-file=${join(dir, 'tokens.csv')}`]);
  });
  after(async () => {
    await deny?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('SubjectAccessReview answers with the chain: system:masters allowed, others denied', async () => {
    const asMaster = await deny.request('POST', `${AUTHZ}/subjectaccessreviews`, { body: { kind: 'SubjectAccessReview', spec: { user: 'root', groups: ['system:masters'], resourceAttributes: resource } } });
    assert.equal(asMaster.status, 201, asMaster.text);
    assert.deepEqual(asMaster.body.status, { allowed: true });
    const asAlice = await deny.request('POST', `${AUTHZ}/subjectaccessreviews`, { body: { kind: 'SubjectAccessReview', spec: { user: 'alice', resourceAttributes: resource } } });
    // upstream's AlwaysDeny has no opinion: not allowed, not denied, with its reason.
    assert.deepEqual(asAlice.body.status, { allowed: false, reason: 'Everything is forbidden.' });
    // AlwaysDeny denies the probes too, as upstream's (RBAC's default roles open them).
    const probe = await deny.request('POST', `${AUTHZ}/subjectaccessreviews`, { body: { kind: 'SubjectAccessReview', spec: { user: 'alice', nonResourceAttributes: { path: '/healthz', verb: 'get' } } } });
    assert.deepEqual(probe.body.status, { allowed: false, reason: 'Everything is forbidden.' });
  });

  test('validation: one kind of attributes, a user or group, empty metadata', async () => {
    const cases: Array<[object, RegExp]> = [
      [{ spec: { user: 'a' } }, /exactly one of nonResourceAttributes or resourceAttributes must be specified/],
      [{ spec: { user: 'a', resourceAttributes: resource, nonResourceAttributes: { path: '/', verb: 'get' } } }, /cannot be specified in combination with resourceAttributes/],
      [{ spec: { resourceAttributes: resource } }, /at least one of user or group must be specified/],
      [{ metadata: { name: 'named' }, spec: { user: 'a', resourceAttributes: resource } }, /metadata: Invalid value: .*must be empty/],
    ];
    for (const [body, message] of cases) {
      const res = await deny.request('POST', `${AUTHZ}/subjectaccessreviews`, { body: { kind: 'SubjectAccessReview', ...body } });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.match(res.body.message, /^SubjectAccessReview.authorization.orch.io "" is invalid/);
      assert.match(res.body.message, message);
    }
  });

  test('SelfSubjectAccessReview is the caller; LocalSubjectAccessReview stays in its namespace', async () => {
    const self = await deny.request('POST', `${AUTHZ}/selfsubjectaccessreviews`, { body: { kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: resource } } });
    assert.deepEqual(self.body.status, { allowed: true });
    const local = (ns: string, body: object) => deny.request('POST', `${AUTHZ}/namespaces/${ns}/localsubjectaccessreviews`, { body: { kind: 'LocalSubjectAccessReview', ...body } });
    const ok = await local('default', { spec: { user: 'alice', resourceAttributes: resource } });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.metadata.namespace, 'default');
    assert.deepEqual(ok.body.status, { allowed: false, reason: 'Everything is forbidden.' });
    const elsewhere = await local('default', { spec: { user: 'alice', resourceAttributes: { ...resource, namespace: 'other' } } });
    assert.equal(elsewhere.status, 400);
    assert.equal(elsewhere.body.message, 'spec.resourceAttributes.namespace must match namespace: default');
    const nonResource = await local('default', { spec: { user: 'alice', nonResourceAttributes: { path: '/', verb: 'get' } } });
    assert.equal(nonResource.status, 422);
    assert.match(nonResource.body.message, /disallowed on this kind of request/);
  });

  test('SelfSubjectRulesReview lists what the chain grants', async () => {
    const alice = await deny.request('POST', `${AUTHZ}/selfsubjectrulesreviews`, { token: 'alice-token', body: { kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } } });
    // AlwaysDeny refuses alice the review itself: its answer is the 403.
    assert.equal(alice.status, 403);
    const admin = await deny.request('POST', `${AUTHZ}/selfsubjectrulesreviews`, { body: { kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } } });
    assert.equal(admin.status, 201);
    assert.equal(admin.body.status.incomplete, false);
    assert.deepEqual(admin.body.status.resourceRules[0], { verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
    assert.deepEqual(admin.body.status.nonResourceRules, [{ verbs: ['*'], nonResourceURLs: ['*'] }]);
    const missing = await deny.request('POST', `${AUTHZ}/selfsubjectrulesreviews`, { body: { kind: 'SelfSubjectRulesReview', spec: {} } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.message, 'no namespace on request');
  });
});

describe('access reviews with selectors (AuthorizeWithSelectors)', () => {
  test('with the gate the selectors are validated as upstream; without it they are dropped', async () => {
    const on = await startTestServer(['--authorization-mode=RBAC', '--feature-gates=AuthorizeWithSelectors=true']);
    const off = await startTestServer(['--authorization-mode=RBAC']);
    try {
      const withSelectors = { verb: 'list', resource: 'pods', namespace: 'default', fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] }, labelSelector: { rawSelector: 'app=web' } };
      const accepted = await on.request('POST', `${AUTHZ}/selfsubjectaccessreviews`, { body: { spec: { resourceAttributes: withSelectors } } });
      assert.equal(accepted.status, 201, accepted.text);
      assert.deepEqual(accepted.body.spec.resourceAttributes.fieldSelector, withSelectors.fieldSelector);
      assert.equal(accepted.body.status.allowed, true);
      const invalidSelectors = { ...withSelectors, fieldSelector: {}, labelSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In', values: ['b'] }] } };
      const refused = await on.request('POST', `${AUTHZ}/selfsubjectaccessreviews`, { body: { spec: { resourceAttributes: invalidSelectors } } });
      assert.equal(refused.status, 422, refused.text);
      assert.deepEqual(refused.body.details.causes.map((c: any) => c.field), ['spec.resourceAttributes.fieldSelector.requirements', 'spec.resourceAttributes.labelSelector.rawSelector']);
      const dropped = await off.request('POST', `${AUTHZ}/selfsubjectaccessreviews`, { body: { spec: { resourceAttributes: invalidSelectors } } });
      assert.equal(dropped.status, 201, dropped.text);
      assert.equal(dropped.body.spec.resourceAttributes.fieldSelector, undefined);
      assert.equal(dropped.body.spec.resourceAttributes.labelSelector, undefined);
    } finally {
      await Promise.all([on.close(), off.close()]);
    }
  });
});
