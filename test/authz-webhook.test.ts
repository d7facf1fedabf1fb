/**
 * The Webhook authorizer (issue 9; SPEC 5.1.5-6, 8): a real loopback HTTPS
 * webhook answers SubjectAccessReviews for servers configured by the legacy
 * flags (v1beta1 and v1) and by an AuthorizationConfiguration file; the
 * review bodies, the decisions, the cache, the failure policies, timeouts,
 * malformed answers and matchConditions are checked at the webhook and
 * through real requests and access reviews.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { BIN, ROOT, startTestServer, type TestServer } from './helpers/server.ts';
import { deadWebhookOrchconfig, startSarWebhook, type SarWebhook, type WebhookAnswer } from './helpers/authz-webhook.ts';
import { inClusterConnection, NOT_IN_CLUSTER } from '../src/client/in-cluster.ts';

const CM = '/api/v1/namespaces/default/configmaps/cm1';
const SAR = '/apis/authorization.orch.io/v1/subjectaccessreviews';

/** What the webhook answers, by a word in the user's name. */
const flakyCalls = new Map<string, number>();
function answer(review: any): WebhookAnswer {
  const user: string = review.spec.user ?? '';
  if (user.includes('slow')) return { delayMs: 2500, then: { status: { allowed: true } } };
  if (user.includes('garbage')) return { raw: '<html>' };
  if (user.includes('badtype')) return { raw: '{"status":{"allowed":"yes"}}' };
  if (user.includes('both')) return { status: { allowed: true, denied: true, reason: 'confused' } };
  if (user.includes('unavailable')) return { raw: '', code: 503 };
  if (user.includes('flaky')) {
    const n = (flakyCalls.get(user) ?? 0) + 1;
    flakyCalls.set(user, n);
    if (n < 3) return { raw: 'try again', code: 500, contentType: 'text/plain' };
  }
  if (user.includes('allow') || user.includes('flaky')) return { status: { allowed: true, reason: 'allowed by the webhook' } };
  if (user.includes('deny')) return { status: { allowed: false, denied: true, reason: 'denied by the webhook' } };
  if (user.includes('evalerr')) return { status: { allowed: false, reason: 'not sure', evaluationError: 'the webhook could not decide' } };
  return { status: { allowed: false, reason: 'no opinion from the webhook' } };
}

const as = (user: string) => ({ headers: { 'Impersonate-User': user } });
const review = (server: TestServer, user: string, attributes: object = { resourceAttributes: { namespace: 'default', verb: 'get', version: 'v1', resource: 'configmaps', name: 'cm1' } }) =>
  server.request('POST', SAR, { body: { kind: 'SubjectAccessReview', spec: { user, ...attributes } } }).then((r) => r.body.status);

describe('webhook authorizer', () => {
  let dir: string;
  let hook: SarWebhook;
  let v1beta1: TestServer;
  let v1: TestServer;
  let file: TestServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-authz-webhook-'));
    hook = await startSarWebhook(answer);
    const webhook = (name: string, over: object) => ({
      type: 'Webhook',
      name,
      webhook: { timeout: '1s', subjectAccessReviewVersion: 'v1', matchConditionSubjectAccessReviewVersion: 'v1', failurePolicy: 'NoOpinion', connectionInfo: { type: 'OrchConfig', orchConfigFile: hook.orchconfig(dir, name) }, ...over },
    });
    const config = join(dir, 'authz.yaml');
    writeFileSync(
      config,
      stringify({
        apiVersion: 'apiserver.config.orch.io/v1beta1',
        kind: 'AuthorizationConfiguration',
        authorizers: [
          webhook('down-noopinion', { connectionInfo: { type: 'OrchConfig', orchConfigFile: await deadWebhookOrchconfig(dir, 'dead1') }, matchConditions: [{ expression: 'request.user.startsWith("down-noop")' }] }),
          webhook('down-deny', { failurePolicy: 'Deny', connectionInfo: { type: 'OrchConfig', orchConfigFile: await deadWebhookOrchconfig(dir, 'dead2') }, matchConditions: [{ expression: 'request.user.startsWith("down-deny")' }] }),
          webhook('slow-deny', { failurePolicy: 'Deny', matchConditions: [{ expression: 'request.user.startsWith("slow-deny")' }] }),
          webhook('guarded', {
            failurePolicy: 'Deny',
            matchConditions: [{ expression: 'request.user.startsWith("guarded-")' }, { expression: 'request.resourceAttributes.namespace != "skipped"' }],
          }),
          webhook('selective', {
            failurePolicy: 'Deny',
            matchConditions: [
              { expression: 'request.user.startsWith("sel-")' },
              { expression: 'has(request.resourceAttributes.labelSelector) && request.resourceAttributes.labelSelector.requirements.exists(r, r.key == "team")' },
            ],
          }),
          webhook('main', { subjectAccessReviewVersion: 'v1beta1', matchConditions: [{ expression: '!request.user.startsWith("guarded-")' }] }),
          { type: 'RBAC', name: 'rbac' },
        ],
      }),
    );
    [v1beta1, v1, file] = await Promise.all([
      // One process each: every worker keeps its own decision cache (as every replica does), and the tests count calls.
      startTestServer(['--workers=1', '--authorization-mode=Webhook,RBAC', `--authorization-webhook-config-file=${hook.orchconfig(dir, 'legacy')}`, '--authorization-webhook-cache-authorized-ttl=2s', '--authorization-webhook-cache-unauthorized-ttl=2s']),
      startTestServer(['--workers=1', '--authorization-mode=Webhook', `--authorization-webhook-config-file=${hook.orchconfig(dir, 'legacy-v1')}`, '--authorization-webhook-version=v1', '--authorization-webhook-cache-authorized-ttl=0s', '--authorization-webhook-cache-unauthorized-ttl=0s']),
      startTestServer(['--workers=1', `--authorization-config=${config}`, '--feature-gates=AuthorizeWithSelectors=true']),
    ]);
    // RBAC lets the *-bound users read config maps, so a webhook's no opinion can be seen to fall through.
    const rbac = '/apis/rbac.authorization.orch.io/v1';
    await file.request('POST', `${rbac}/clusterroles`, { body: { metadata: { name: 'cm-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] } });
    const subjects = ['down-noop-bound', 'down-deny-bound', 'garbage-bound', 'slow-bound'].map((name) => ({ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name }));
    const bound = await file.request('POST', `${rbac}/clusterrolebindings`, { body: { metadata: { name: 'cm-readers' }, roleRef: { kind: 'ClusterRole', apiGroup: 'rbac.authorization.orch.io', name: 'cm-reader' }, subjects } });
    assert.equal(bound.status, 201, bound.text);
  });
  after(async () => {
    await Promise.all([v1beta1?.close(), v1?.close(), file?.close()]);
    await hook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const calls = (user: string, webhook?: string) => hook.callsFor(user).filter((r) => !webhook || r.url.startsWith(`/authorize/${webhook}?`)).length;

  test('v1beta1: the review as upstream sends it; allow, deny and no opinion with the webhook reasons', async () => {
    assert.equal((await v1beta1.request('GET', CM, as('allow-body'))).status, 404, 'allowed: the handler answers');
    const [sent] = hook.callsFor('allow-body');
    assert.equal(sent.url, '/authorize/legacy?timeout=30s');
    const expected = {
      kind: 'SubjectAccessReview',
      apiVersion: 'authorization.orch.io/v1beta1',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'default', verb: 'get', version: 'v1', resource: 'configmaps', name: 'cm1' }, user: 'allow-body', group: ['system:authenticated'] },
      status: { allowed: false },
    };
    assert.equal(sent.raw, JSON.stringify(expected));
    await v1beta1.request('GET', '/apis', { headers: { 'Impersonate-User': 'allow-paths', 'Impersonate-Group': 'qa', 'Impersonate-Uid': 'u-1', 'Impersonate-Extra-Scopes': ['b', 'a'] } });
    assert.deepEqual(hook.callsFor('allow-paths')[0].body.spec, { nonResourceAttributes: { path: '/apis', verb: 'get' }, user: 'allow-paths', group: ['qa', 'system:authenticated'], extra: { scopes: ['b', 'a'] }, uid: 'u-1' });

    const denied = await v1beta1.request('GET', CM, as('deny-1'));
    assert.equal(denied.status, 403);
    assert.equal(denied.body.message, 'configmaps "cm1" is forbidden: User "deny-1" cannot get resource "configmaps" in API group "" in the namespace "default": denied by the webhook');
    const quiet = await v1beta1.request('GET', CM, as('quiet-1'));
    assert.equal(quiet.status, 403, 'no opinion, and RBAC has none either');
    assert.match(quiet.body.message, /: no opinion from the webhook$/);
    assert.deepEqual(await review(v1beta1, 'allow-2'), { allowed: true, reason: 'allowed by the webhook' });
    assert.deepEqual(await review(v1beta1, 'deny-2'), { allowed: false, denied: true, reason: 'denied by the webhook' });
    // The webhook's evaluationError is not passed on, as upstream's authorizer drops it.
    assert.deepEqual(await review(v1beta1, 'evalerr-1'), { allowed: false, reason: 'not sure' });
  });

  test('v1: groups under their v1 name', async () => {
    assert.equal((await v1.request('GET', CM, as('allow-v1'))).status, 404);
    const [sent] = hook.callsFor('allow-v1');
    assert.equal(sent.url, '/authorize/legacy-v1?timeout=30s');
    assert.equal(sent.body.apiVersion, 'authorization.orch.io/v1');
    assert.deepEqual(sent.body.spec.groups, ['system:authenticated']);
    assert.equal(sent.body.spec.group, undefined);
  });

  test('answers are cached for their TTL, allows and the rest alike; a TTL of 0 asks every time; errors are never cached', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await v1beta1.request('GET', CM, as('allow-cache'))).status, 404);
    for (let i = 0; i < 3; i++) assert.equal((await v1beta1.request('GET', CM, as('deny-cache'))).status, 403);
    assert.equal(calls('allow-cache'), 1);
    assert.equal(calls('deny-cache'), 1);
    // Another object is another review.
    await v1beta1.request('GET', '/api/v1/namespaces/default/configmaps/cm2', as('allow-cache'));
    assert.equal(calls('allow-cache'), 2);
    await new Promise((r) => setTimeout(r, 2100));
    await v1beta1.request('GET', CM, as('allow-cache'));
    await v1beta1.request('GET', CM, as('deny-cache'));
    assert.equal(calls('allow-cache'), 3);
    assert.equal(calls('deny-cache'), 2);
    await v1.request('GET', CM, as('allow-nocache'));
    await v1.request('GET', CM, as('allow-nocache'));
    assert.equal(calls('allow-nocache'), 2);
    await v1beta1.request('GET', CM, as('garbage-cache'));
    await v1beta1.request('GET', CM, as('garbage-cache'));
    assert.equal(calls('garbage-cache'), 2);
  });

  test('failures: garbage, a wrong type, both answers, 5xx retried with backoff, 503 and timeouts not retried', async () => {
    const garbage = await v1beta1.request('GET', CM, as('garbage-1'));
    assert.equal(garbage.status, 500, 'no opinion with an error, and nobody allowed');
    assert.match(garbage.body.message, /couldn't get version\/kind; json parse error: invalid character '<' looking for beginning of value/);
    assert.equal(calls('garbage-1'), 1, 'a malformed answer is not retried');
    assert.match((await review(v1beta1, 'badtype-1')).evaluationError, /^json: cannot unmarshal string into Go struct field SubjectAccessReviewStatus\.status\.allowed of type bool$/);
    assert.deepEqual(await review(v1beta1, 'both-1'), { allowed: false, denied: true, reason: 'confused', evaluationError: 'webhook subject access review returned both allow and deny response' });
    assert.equal((await v1beta1.request('GET', CM, as('both-2'))).status, 500);
    assert.equal((await v1beta1.request('GET', CM, as('flaky-1'))).status, 404, 'allowed on the third try');
    assert.equal(calls('flaky-1'), 3);
    assert.equal((await review(v1beta1, 'unavailable-1')).evaluationError, 'the server is currently unable to handle the request');
    assert.equal(calls('unavailable-1'), 1);
  });

  test('failure policy NoOpinion: a webhook that is down or too slow leaves the decision to the next authorizer', async () => {
    assert.equal((await file.request('GET', CM, as('down-noop-bound'))).status, 404, 'RBAC allows');
    const unbound = await file.request('GET', CM, as('down-noop-unbound'));
    assert.equal(unbound.status, 500, 'nobody allowed and the webhook failed');
    assert.match(unbound.body.message, /Post "https:\/\/127\.0\.0\.1:\d+\/authorize\?timeout=1s": dial tcp 127\.0\.0\.1:\d+: connect: connection refused/);
    const started = Date.now();
    assert.equal((await file.request('GET', CM, as('slow-bound'))).status, 404);
    assert.ok(Date.now() - started < 2400, 'the call was cut at its 1 s timeout');
    assert.equal(calls('slow-bound', 'main'), 1, 'a timeout is not retried');
    assert.deepEqual(await review(file, 'garbage-bound'), { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "cm-readers" of ClusterRole "cm-reader" to User "garbage-bound"' });
  });

  test('failure policy Deny: the webhook failing denies, whatever comes after it', async () => {
    const down = await file.request('GET', CM, as('down-deny-bound'));
    assert.equal(down.status, 500, 'a deny carrying the error, as upstream answers it');
    const status = await review(file, 'down-deny-bound');
    assert.equal(status.allowed, false);
    assert.equal(status.denied, true);
    assert.match(status.evaluationError, /connect: connection refused$/);
    const started = Date.now();
    const slow = await review(file, 'slow-deny-1');
    assert.ok(Date.now() - started < 2400);
    assert.equal(slow.denied, true);
    assert.match(slow.evaluationError, /^Post "https:\/\/127\.0\.0\.1:\d+\/authorize\/slow-deny\?timeout=1s": context deadline exceeded$/);
  });

  test('matchConditions: a false skips the webhook, all true call it, an error follows the failure policy', async () => {
    assert.equal((await file.request('GET', CM, as('guarded-allow'))).status, 404);
    assert.equal(calls('guarded-allow', 'guarded'), 1);
    assert.equal(calls('guarded-allow', 'main'), 0, 'main matches only users outside guarded-');
    const skipped = await file.request('GET', '/api/v1/namespaces/skipped/configmaps/cm1', as('guarded-allow'));
    assert.equal(skipped.status, 403, 'skipped, and nobody else allows');
    assert.equal(calls('guarded-allow', 'guarded'), 1, 'the webhook saw no call');
    // A non-resource request has no resourceAttributes: the condition errs, and the policy is Deny.
    const errs = await review(file, 'guarded-allow', { nonResourceAttributes: { path: '/custom', verb: 'get' } });
    assert.deepEqual(errs, {
      allowed: false,
      denied: true,
      evaluationError: `cel evaluation error: expression 'request.resourceAttributes.namespace != "skipped"' resulted in error: no such key: resourceAttributes`,
    });
    assert.equal(calls('guarded-allow', 'guarded'), 1);
  });

  test('under AuthorizeWithSelectors the review carries the selectors, and matchConditions can read them', async () => {
    const list = '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dcm1,metadata.namespace!%3Dx&labelSelector=team%20in%20(b,a),!tier,size%3E3';
    assert.equal((await file.request('GET', list, as('sel-allow'))).status, 200);
    const [sent] = hook.callsFor('sel-allow');
    assert.equal(sent.url, '/authorize/selective?timeout=1s');
    assert.deepEqual(sent.body.spec.resourceAttributes, {
      namespace: 'default',
      verb: 'list',
      version: 'v1',
      resource: 'configmaps',
      // A list selecting metadata.name is authorized as that name, as upstream's request info does.
      name: 'cm1',
      fieldSelector: { requirements: [{ key: 'metadata.name', operator: 'In', values: ['cm1'] }, { key: 'metadata.namespace', operator: 'NotIn', values: ['x'] }] },
      // size>3 has no authorization operator: dropped, which only broadens the check.
      labelSelector: { requirements: [{ key: 'team', operator: 'In', values: ['a', 'b'] }, { key: 'tier', operator: 'DoesNotExist' }] },
    });
    assert.equal((await file.request('GET', '/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb', as('sel-allow-other'))).status, 200);
    assert.deepEqual(hook.callsFor('sel-allow-other').map((r) => r.url), ['/authorize/main?timeout=1s'], 'no team requirement: selective skipped');
  });

  test('access reviews give the decisions requests get', async () => {
    for (const [server, user] of [[file, 'down-noop-bound'], [file, 'down-noop-unbound'], [file, 'down-deny-bound'], [file, 'guarded-allow'], [file, 'quiet-2'], [v1beta1, 'deny-3'], [v1beta1, 'allow-3'], [v1beta1, 'garbage-3']] as const) {
      const res = await server.request('GET', CM, as(user));
      const status = await review(server, user);
      const expected = status.allowed ? 404 : status.evaluationError ? 500 : 403;
      assert.equal(res.status, expected, `${user}: ${JSON.stringify(status)}`);
    }
  });

  test('rules reviews: the webhook cannot list rules, as upstream', async () => {
    const rules = await file.request('POST', '/apis/authorization.orch.io/v1/selfsubjectrulesreviews', { body: { kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } } });
    assert.equal(rules.status, 201);
    assert.equal(rules.body.status.incomplete, true);
    assert.match(rules.body.status.evaluationError, /webhook authorizer does not support user rule resolution/);
  });

  test('a matchCondition that does not compile stops the server at start-up', () => {
    const config = join(dir, 'bad-condition.yaml');
    writeFileSync(
      config,
      JSON.stringify({
        apiVersion: 'apiserver.config.orch.io/v1beta1',
        kind: 'AuthorizationConfiguration',
        authorizers: [{ type: 'Webhook', name: 'w', webhook: { timeout: '3s', subjectAccessReviewVersion: 'v1', matchConditionSubjectAccessReviewVersion: 'v1', failurePolicy: 'Deny', connectionInfo: { type: 'OrchConfig', orchConfigFile: hook.orchconfig(dir, 'bad') }, matchConditions: [{ expression: 'request.nope' }] } }],
      }),
    );
    const run = spawnSync(process.execPath, [BIN, '--secure-port=0', `--data-dir=${join(dir, 'bad-data')}`, `--authorization-config=${config}`], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /authorizers\[0\]\.matchConditions\[0\]\.expression: Invalid value: "request\.nope": compilation failed: ERROR: <input>:1:9: undefined field 'nope'/);
  });

  test("InClusterConfig is client-go's in-cluster config with the spec's names", () => {
    const token = join(dir, 'token');
    const ca = join(dir, 'ca.crt');
    writeFileSync(token, 'sa-token\n');
    writeFileSync(ca, 'PEM');
    const env = { ORCH_SERVICE_HOST: 'fd00::1', ORCH_SERVICE_PORT: '443' };
    assert.deepEqual(inClusterConnection({ env, tokenFile: token, caFile: ca }), { server: 'https://[fd00::1]:443', caPem: 'PEM', tokenFile: token });
    assert.throws(() => inClusterConnection({ env: { ORCH_SERVICE_HOST: 'h' }, tokenFile: token, caFile: ca }), { message: NOT_IN_CLUSTER });
    assert.throws(() => inClusterConnection({ env, tokenFile: join(dir, 'none'), caFile: ca }), { message: `open ${join(dir, 'none')}: no such file or directory` });
    assert.equal(NOT_IN_CLUSTER, 'unable to load in-cluster configuration, ORCH_SERVICE_HOST and ORCH_SERVICE_PORT must be defined');
  });
});
