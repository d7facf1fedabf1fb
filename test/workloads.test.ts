/**
 * apps/v1 and batch/v1 workload kinds served from the contract (SPEC 9.7,
 * issue 12): defaults, validation, the Job's generated selector, the scale
 * subresource, Tables, discovery and kubectl against a real server on SQLite.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';
import { openWatch } from './helpers/watch.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server?.stop();
});

const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';
const template = (labels: Record<string, string>, restartPolicy?: string) => ({
  metadata: { labels },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'web', image: 'nginx:1.27' }] },
});
const deployment = (name: string, extra: Record<string, any> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: template({ app: name }), ...extra },
});

/** The 422's causes as `field: message` lines. */
function causes(res: { status: number; body: any; text: string }): string[] {
  assert.equal(res.status, 422, res.text);
  assert.equal(res.body.reason, 'Invalid');
  return res.body.details.causes.map((c: any) => `${c.field}: ${c.message}`);
}

test('a Deployment gets upstream defaults, its pod template the Pod defaults, status {} and generation 1', async () => {
  const res = await server.request('POST', DEPLOYMENTS, { body: deployment('web') });
  assert.equal(res.status, 201, res.text);
  const spec = res.body.spec;
  assert.equal(spec.replicas, 1);
  assert.equal(spec.revisionHistoryLimit, 10);
  assert.equal(spec.progressDeadlineSeconds, 600);
  assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  assert.equal(spec.template.spec.restartPolicy, 'Always');
  assert.equal(spec.template.spec.terminationGracePeriodSeconds, 30);
  assert.equal(spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
  assert.equal(spec.template.spec.enableServiceLinks, undefined, 'SetDefaults_Pod is for Pods, not templates');
  assert.deepEqual(res.body.status, {});
  assert.equal(res.body.metadata.generation, 1);
});

test('Deployment validation answers 422 with upstream paths and words', async () => {
  const noMatch = await server.request('POST', DEPLOYMENTS, { body: { ...deployment('nomatch'), spec: { ...deployment('nomatch').spec, selector: { matchLabels: { app: 'other' } } } } });
  assert.ok(causes(noMatch).includes('spec.template.metadata.labels: Invalid value: map[string]string{"app":"nomatch"}: `selector` does not match template `labels`'), noMatch.text);
  const noSelector = await server.request('POST', DEPLOYMENTS, { body: { ...deployment('nosel'), spec: { template: template({ app: 'x' }) } } });
  assert.deepEqual(causes(noSelector), ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`']);
  const negative = await server.request('POST', DEPLOYMENTS, { body: deployment('neg', { replicas: -1 }) });
  assert.ok(causes(negative).includes('spec.replicas: Invalid value: -1: must be greater than or equal to 0'), negative.text);
  const onFailure = await server.request('POST', DEPLOYMENTS, { body: deployment('onfail', { template: template({ app: 'onfail' }, 'OnFailure') }) });
  assert.ok(causes(onFailure).includes('spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'), onFailure.text);
  const noImage = await server.request('POST', DEPLOYMENTS, { body: deployment('noimage', { template: { metadata: { labels: { app: 'noimage' } }, spec: { containers: [{ name: 'c' }] } } }) });
  assert.ok(causes(noImage).some((c) => c.startsWith('spec.template.spec.containers[0].image: Required value')), noImage.text);
});

test('a Deployment selector is immutable; a spec change bumps generation and a status write through the main resource is dropped', async () => {
  await server.request('POST', DEPLOYMENTS, { body: deployment('imm') });
  const patch = await server.request('PATCH', `${DEPLOYMENTS}/imm`, {
    body: { spec: { selector: { matchLabels: { app: 'imm', tier: 'x' } }, template: { metadata: { labels: { app: 'imm', tier: 'x' } } } } },
    headers: { 'content-type': 'application/strategic-merge-patch+json' },
  });
  assert.ok(causes(patch).some((c) => c.startsWith('spec.selector: Invalid value: ') && c.endsWith('field is immutable')), patch.text);
  const scaled = await server.request('PATCH', `${DEPLOYMENTS}/imm`, { body: { spec: { replicas: 3 }, status: { replicas: 9 } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(scaled.status, 200, scaled.text);
  assert.equal(scaled.body.metadata.generation, 2);
  assert.deepEqual(scaled.body.status, {});
  const status = await server.request('PATCH', `${DEPLOYMENTS}/imm/status`, { body: { status: { replicas: 3, readyReplicas: 2 } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(status.status, 200, status.text);
  assert.equal(status.body.status.readyReplicas, 2);
  assert.equal(status.body.metadata.generation, 2);
});

test('strategic merge merges containers by name; server-side apply keys them by name', async () => {
  await server.request('POST', DEPLOYMENTS, { body: deployment('smp') });
  const res = await server.request('PATCH', `${DEPLOYMENTS}/smp`, {
    body: { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } } },
    headers: { 'content-type': 'application/strategic-merge-patch+json' },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.spec.template.spec.containers.map((c: any) => c.name), ['web', 'sidecar']);
  const apply = await server.request('PATCH', `${DEPLOYMENTS}/applied?fieldManager=me`, {
    body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'applied' }, spec: { selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }) } },
    headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  assert.equal(apply.status, 201, apply.text);
  const fields = apply.body.metadata.managedFields[0].fieldsV1;
  assert.ok(fields['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}'], JSON.stringify(fields));
});

test('the scale subresource reads and writes spec.replicas of a Deployment', async () => {
  await server.request('POST', DEPLOYMENTS, { body: deployment('scaled', { replicas: 2 }) });
  const got = await server.request('GET', `${DEPLOYMENTS}/scaled/scale`);
  assert.equal(got.status, 200, got.text);
  assert.equal(got.body.kind, 'Scale');
  assert.equal(got.body.apiVersion, 'autoscaling/v1');
  assert.deepEqual(got.body.spec, { replicas: 2 });
  assert.deepEqual(got.body.status, { replicas: 0, selector: 'app=scaled' });
  const put = await server.request('PUT', `${DEPLOYMENTS}/scaled/scale`, { body: { ...got.body, spec: { replicas: 5 } } });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.body.spec.replicas, 5);
  const patched = await server.request('PATCH', `${DEPLOYMENTS}/scaled/scale`, { body: { spec: { replicas: 4 } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(patched.status, 200, patched.text);
  const strategic = await server.request('PATCH', `${DEPLOYMENTS}/scaled/scale`, { body: { spec: { replicas: 4 } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
  assert.equal(strategic.status, 200, strategic.text);
  assert.equal(strategic.body.spec.replicas, 4);
  const negative = await server.request('PATCH', `${DEPLOYMENTS}/scaled/scale`, { body: { spec: { replicas: -1 } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(negative.status, 422, negative.text);
  assert.equal(negative.body.message, 'Scale.autoscaling "scaled" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  const after = await server.request('GET', `${DEPLOYMENTS}/scaled`);
  assert.equal(after.body.spec.replicas, 4);
  assert.equal(after.body.metadata.generation, 3);
});

test('StatefulSet: defaults, and only the listed spec fields may change', async () => {
  const path = '/apis/apps/v1/namespaces/default/statefulsets';
  const created = await server.request('POST', path, { body: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' }, spec: { serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template({ app: 'db' }), volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] } } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.spec.podManagementPolicy, 'OrderedReady');
  assert.deepEqual(created.body.spec.updateStrategy, { type: 'RollingUpdate' });
  assert.deepEqual(created.body.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  assert.deepEqual(created.body.spec.volumeClaimTemplates[0].spec.volumeMode, 'Filesystem');
  assert.deepEqual(created.body.spec.volumeClaimTemplates[0].status, { phase: 'Pending' });
  const res = await server.request('PATCH', `${path}/db`, { body: { spec: { serviceName: 'other' } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.deepEqual(causes(res), [
    "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
  ]);
});

test('DaemonSet and ReplicaSet defaults and restart policy', async () => {
  const ds = await server.request('POST', '/apis/apps/v1/namespaces/default/daemonsets', { body: { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: template({ app: 'agent' }) } } });
  assert.equal(ds.status, 201, ds.text);
  assert.deepEqual(ds.body.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  assert.equal(ds.body.spec.revisionHistoryLimit, 10);
  assert.equal(ds.body.metadata.annotations['deprecated.daemonset.template.generation'], '1');
  const relabeled = await server.request('PATCH', '/apis/apps/v1/namespaces/default/daemonsets/agent', { body: { spec: { template: { metadata: { labels: { app: 'agent', v: '2' } } } } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
  assert.equal(relabeled.status, 200, relabeled.text);
  assert.equal(relabeled.body.metadata.annotations['deprecated.daemonset.template.generation'], '2');
  assert.equal(relabeled.body.metadata.generation, 2);
  const annotated = await server.request('PATCH', `${DEPLOYMENTS}/web`, { body: { metadata: { annotations: { note: 'x' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(annotated.body.metadata.generation, 2, 'a Deployment annotation change bumps generation');
  const rs = await server.request('POST', '/apis/apps/v1/namespaces/default/replicasets', { body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { selector: { matchLabels: { app: 'rs' } }, template: template({ app: 'rs' }, 'Never') } } });
  assert.ok(causes(rs).includes('spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'), rs.text);
});

test('a Job gets its generated selector, uid and name labels, and upstream defaults; its template is immutable', async () => {
  const path = '/apis/batch/v1/namespaces/default/jobs';
  const res = await server.request('POST', path, { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi' }, spec: { template: template({ run: 'pi' }, 'Never') } } });
  assert.equal(res.status, 201, res.text);
  const uid = res.body.metadata.uid;
  assert.deepEqual(res.body.spec.selector, { matchLabels: { 'batch.orch.io/controller-uid': uid } });
  assert.deepEqual(res.body.spec.template.metadata.labels, { run: 'pi', 'job-name': 'pi', 'batch.orch.io/job-name': 'pi', 'controller-uid': uid, 'batch.orch.io/controller-uid': uid });
  assert.deepEqual(res.body.metadata.labels, { run: 'pi' });
  for (const [key, value] of Object.entries({ completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, manualSelector: false, podReplacementPolicy: 'TerminatingOrFailed' })) {
    assert.deepEqual(res.body.spec[key], value, key);
  }
  const dotted = await server.request('POST', path, { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi.v2' }, spec: { template: template({}, 'Never') } } });
  assert.equal(dotted.status, 201, dotted.text);
  assert.match(String(dotted.headers.warning), /metadata\.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: \[must not contain dots\]"$/);
  const always = await server.request('POST', path, { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'always' }, spec: { template: template({}) } } });
  // The template's restartPolicy defaults to Always, so upstream asks for one of the two it takes.
  assert.ok(causes(always).includes('spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'), always.text);
  const sometimes = await server.request('POST', path, { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'sometimes' }, spec: { template: template({}, 'Sometimes') } } });
  assert.ok(causes(sometimes).includes('spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"'), sometimes.text);
  const changed = await server.request('PATCH', `${path}/pi`, { body: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
  assert.ok(causes(changed).some((c) => c.startsWith('spec.template: Invalid value: ') && c.endsWith('field is immutable')), changed.text);
  const completions = await server.request('PATCH', `${path}/pi`, { body: { spec: { completions: 2 } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.deepEqual(causes(completions), ['spec.completions: Invalid value: 2: field is immutable']);
  const byField = await server.request('GET', `${path}?fieldSelector=status.successful=0`);
  assert.deepEqual(byField.body.items.map((j: any) => j.metadata.name), ['pi', 'pi.v2']);
  const none = await server.request('GET', `${path}?fieldSelector=status.successful=1`);
  assert.deepEqual(none.body.items, []);
});

test("a Job's failure and success policies and indexed limits are checked as upstream checks them", async () => {
  const path = '/apis/batch/v1/namespaces/default/jobs';
  const job = (name: string, spec: Record<string, any>, restartPolicy = 'Never') => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { template: template({}, restartPolicy), ...spec } });
  const indexed = { completionMode: 'Indexed', completions: 5, parallelism: 5 };
  const good = await server.request('POST', path, {
    body: job('policies', {
      ...indexed,
      backoffLimitPerIndex: 1,
      maxFailedIndexes: 2,
      podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { containerName: 'web', operator: 'In', values: [1, 42] } }, { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] },
      successPolicy: { rules: [{ succeededIndexes: '0,2-4', succeededCount: 3 }] },
    }),
  });
  assert.equal(good.status, 201, good.text);
  assert.equal(good.body.spec.podReplacementPolicy, 'Failed', 'defaulted to Failed with a podFailurePolicy');
  // JobManagedBy is alpha and off in 1.31: the field is dropped, on create and on an update that adds it.
  const managed = await server.request('POST', path, { body: job('managed', { managedBy: 'example.com/queue' }) });
  assert.equal(managed.status, 201, managed.text);
  assert.equal(managed.body.spec.managedBy, undefined);
  const added = await server.request('PATCH', `${path}/managed`, { body: { spec: { managedBy: 'example.com/queue' } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(added.status, 200, added.text);
  assert.equal(added.body.spec.managedBy, undefined);
  const cases: Array<[string, Record<string, any>, string[], string?]> = [
    ['nonindexed', { backoffLimitPerIndex: 1, maxFailedIndexes: 1 }, ['spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode', 'spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode']],
    ['nolimit', { ...indexed, maxFailedIndexes: 1 }, ['spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified']],
    ['toomany', { ...indexed, backoffLimitPerIndex: 1, maxFailedIndexes: 6 }, ['spec.maxFailedIndexes: Invalid value: 6: must be less than or equal to completions']],
    ['bothrule', { podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1] }, onPodConditions: [{ type: 'X', status: 'True' }] }] } }, ['spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported']],
    ['norule', { podFailurePolicy: { rules: [{ action: 'Count' }] } }, ['spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required']],
    ['badaction', { podFailurePolicy: { rules: [{ action: 'Retry', onExitCodes: { operator: 'In', values: [1] } }] } }, ['spec.podFailurePolicy.rules[0].action: Unsupported value: "Retry": supported values: "Count", "FailIndex", "FailJob", "Ignore"']],
    ['noaction', { podFailurePolicy: { rules: [{ onExitCodes: { operator: 'In', values: [1] } }] } }, ['spec.podFailurePolicy.rules[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]']],
    ['failindex', { podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [1] } }] } }, ['spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set']],
    [
      'exitcodes',
      { podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'nope', operator: 'In', values: [3, 0, 3] } }] } },
      [
        'spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "nope": must be one of the container or initContainer names in the pod template',
        'spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator',
        'spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3',
        'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [3,0,3]: must be ordered',
      ],
    ],
    ['condstatus', { podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'Maybe' }] }] } }, ['spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"']],
    ['onfailure', { podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] } }, ['spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified'], 'OnFailure'],
    ['replacement', { podReplacementPolicy: 'TerminatingOrFailed', podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] } }, ['spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"']],
    ['replacement2', { podReplacementPolicy: 'Sometimes' }, ['spec.podReplacementPolicy: Unsupported value: "Sometimes": supported values: "Failed", "TerminatingOrFailed"']],
    ['success-nonindexed', { successPolicy: { rules: [{ succeededCount: 1 }] } }, ['spec.successPolicy: Invalid value: {"rules":[{"succeededCount":1}]}: requires indexed completion mode']],
    ['success-empty', { ...indexed, successPolicy: { rules: [] } }, ['spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified']],
    ['success-rule', { ...indexed, successPolicy: { rules: [{}] } }, ['spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified']],
    ['success-indexes', { ...indexed, successPolicy: { rules: [{ succeededIndexes: '3-1' }, { succeededIndexes: '1,7' }, { succeededIndexes: '0-1-2' }] } }, [
      'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "3-1": error parsing succeededIndexes: non-increasing order, previous: 3, current: 1',
      'spec.successPolicy.rules[1].succeededIndexes: Invalid value: "1,7": error parsing succeededIndexes: too large index: "7"',
      'spec.successPolicy.rules[2].succeededIndexes: Invalid value: "0-1-2": error parsing succeededIndexes: the fragment "0-1-2" violates the requirement that an index interval can have at most two parts separated by \'-\'',
    ]],
    ['success-count', { ...indexed, successPolicy: { rules: [{ succeededIndexes: '0-1', succeededCount: 3 }, { succeededCount: 6 }] } }, [
      'spec.successPolicy.rules[0].succeededCount: Invalid value: 3: must be less than or equal to 2 (the number of indexes in the specified succeededIndexes field)',
      'spec.successPolicy.rules[1].succeededCount: Invalid value: 6: must be less than or equal to 5 (the number of specified completions)',
    ]],
  ];
  for (const [name, spec, expected, restartPolicy] of cases) {
    const res = await server.request('POST', path, { body: job(name, spec, restartPolicy) });
    assert.equal(res.status, 422, `${name}: ${res.text}`);
    assert.deepEqual(causes(res), expected, name);
    assert.equal((await server.request('GET', `${path}/${name}`)).status, 404, `${name} not stored`);
  }
  const longName = 'x'.repeat(62);
  const hostname = await server.request('POST', path, { body: job(longName, { ...indexed, completions: 10, parallelism: 1 }) });
  assert.ok(causes(hostname).includes(`metadata.name: Invalid value: "${longName}": will not able to create pod with invalid DNS label: ${longName}-9`), hostname.text);
  // A CronJob's jobTemplate is checked the same way.
  const cron = await server.request('POST', '/apis/batch/v1/namespaces/default/cronjobs', {
    body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cron-policy' }, spec: { schedule: '0 * * * *', jobTemplate: { spec: { template: template({}, 'Never'), backoffLimitPerIndex: 2 } } } },
  });
  assert.deepEqual(causes(cron), ['spec.jobTemplate.spec.backoffLimitPerIndex: Invalid value: 2: requires indexed completion mode']);
});

test('a CronJob gets its defaults; its schedule is parsed with cron words and TZ= is refused', async () => {
  const path = '/apis/batch/v1/namespaces/default/cronjobs';
  const cron = (name: string, schedule: string) => ({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name }, spec: { schedule, jobTemplate: { spec: { template: template({}, 'OnFailure') } } } });
  const ok = await server.request('POST', path, { body: cron('hourly', '*/5 1-3 * JAN-MAR mon,fri') });
  assert.equal(ok.status, 201, ok.text);
  for (const [key, value] of Object.entries({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 })) assert.equal(ok.body.spec[key], value, key);
  assert.deepEqual(causes(await server.request('POST', path, { body: cron('four', '* * * *') })), ['spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]']);
  assert.deepEqual(causes(await server.request('POST', path, { body: cron('range', '61 * * * *') })), ['spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61']);
  assert.deepEqual(causes(await server.request('POST', path, { body: cron('tz', 'TZ=UTC 0 * * * *') })), ['spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead']);
});

test('each kind refuses what upstream refuses, with its words', async () => {
  const ns = '/namespaces/default/';
  const job = (name: string, spec: Record<string, any>) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { template: template({ app: name }, 'Never'), ...spec } });
  const cron = (name: string, spec: Record<string, any>) => ({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name }, spec: { schedule: '0 * * * *', jobTemplate: { spec: { template: template({}, 'Never') } }, ...spec } });
  const cases: Array<[string, any, string]> = [
    ['apps/v1' + ns + 'deployments', deployment('recreate', { strategy: { type: 'Recreate', rollingUpdate: {} } }), "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"],
    ['apps/v1' + ns + 'deployments', deployment('zero', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '0%' } } }), 'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0'],
    ['apps/v1' + ns + 'deployments', deployment('pct', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '120%' } } }), 'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "120%": must not be greater than 100%'],
    ['apps/v1' + ns + 'deployments', deployment('deadline', { minReadySeconds: 700 }), 'spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds'],
    ['apps/v1' + ns + 'daemonsets', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'both' }, spec: { selector: { matchLabels: { a: 'b' } }, template: template({ a: 'b' }), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } } }, 'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero'],
    ['apps/v1' + ns + 'statefulsets', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'pmp' }, spec: { podManagementPolicy: 'Random', selector: { matchLabels: { a: 'b' } }, template: template({ a: 'b' }) } }, 'spec.podManagementPolicy: Invalid value: "Random": must be \'OrderedReady\' or \'Parallel\''],
    ['apps/v1' + ns + 'statefulsets', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'Upper.name' }, spec: { selector: { matchLabels: { a: 'b' } }, template: template({ a: 'b' }) } }, "metadata.name: Invalid value: \"Upper.name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"],
    ['batch/v1' + ns + 'jobs', job('manual', { manualSelector: true, selector: { matchLabels: { app: 'other' } } }), 'spec.template.metadata.labels: Invalid value: map[string]string{"app":"manual"}: `selector` does not match template `labels`'],
    ['batch/v1' + ns + 'jobs', job('indexed', { completionMode: 'Indexed', parallelism: 2, completions: undefined }), 'spec.completions: Required value: when completion mode is Indexed'],
    ['batch/v1' + ns + 'jobs', job('negative', { backoffLimit: -1 }), 'spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0'],
    ['batch/v1' + ns + 'cronjobs', cron('policy', { concurrencyPolicy: 'Sometimes' }), 'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"'],
    ['batch/v1' + ns + 'cronjobs', cron('zone', { timeZone: 'Mars/Olympus' }), 'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus'],
    ['batch/v1' + ns + 'cronjobs', cron('a'.repeat(53), {}), `metadata.name: Invalid value: "${'a'.repeat(53)}": must be no more than 52 characters`],
    ['batch/v1' + ns + 'cronjobs', cron('steps', { schedule: '*/0 * * * *' }), 'spec.schedule: Invalid value: "*/0 * * * *": step of range should be a positive number: */0'],
    ['batch/v1' + ns + 'cronjobs', cron('manualtpl', { jobTemplate: { spec: { manualSelector: true, template: template({}, 'Never') } } }), 'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"'],
  ];
  for (const [path, body, message] of cases) {
    const res = await server.request('POST', `/apis/${path}`, { body });
    assert.ok(causes(res).includes(message), `${body.metadata.name}: ${res.text}`);
  }
  const revisions = '/apis/apps/v1/namespaces/default/controllerrevisions';
  const revision = await server.request('POST', revisions, { body: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r1' }, data: { a: 1 }, revision: 1 } });
  assert.equal(revision.status, 201, revision.text);
  const changed = await server.request('PATCH', `${revisions}/r1`, { body: { data: { a: 2 } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.ok(causes(changed).some((c) => c.startsWith('data: Invalid value: ') && c.endsWith('field is immutable')), changed.text);
});

test('a watch of Deployments sees them added and modified', async () => {
  const list = await server.request('GET', DEPLOYMENTS);
  const watch = openWatch(server, `${DEPLOYMENTS}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
  try {
    assert.equal(await watch.status, 200);
    await server.request('POST', DEPLOYMENTS, { body: deployment('watched') });
    await server.request('PATCH', `${DEPLOYMENTS}/watched`, { body: { spec: { replicas: 2 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    const events = await watch.waitFor(2);
    assert.deepEqual(events.map((e) => [e.type, e.object.kind, e.object.spec.replicas]), [['ADDED', 'Deployment', 1], ['MODIFIED', 'Deployment', 2]]);
  } finally {
    watch.close();
  }
});

test('the status subresource checks the counters as upstream', async () => {
  await server.request('POST', DEPLOYMENTS, { body: deployment('counted') });
  const res = await server.request('PUT', `${DEPLOYMENTS}/counted/status`, { body: { ...(await server.request('GET', `${DEPLOYMENTS}/counted`)).body, status: { replicas: 1, readyReplicas: 2, availableReplicas: -1 } } });
  assert.deepEqual(causes(res).sort(), ['status.availableReplicas: Invalid value: -1: must be greater than or equal to 0', 'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas'].sort());
});

test('deleting a batch/v1 Job without a policy orphans its pods and says so', async () => {
  const path = '/apis/batch/v1/namespaces/default/jobs';
  await server.request('POST', path, { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'gone' }, spec: { template: template({}, 'Never') } } });
  const res = await server.request('DELETE', `${path}/gone`);
  assert.equal(res.status, 200, res.text);
  assert.match(String(res.headers.warning), /child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning/);
  assert.deepEqual(res.body.metadata.finalizers, ['orphan']);
  const quiet = await server.request('POST', path, { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'quiet' }, spec: { template: template({}, 'Never') } } });
  assert.equal(quiet.status, 201, quiet.text);
  const background = await server.request('DELETE', `${path}/quiet?propagationPolicy=Background`);
  assert.equal(background.status, 200, background.text);
  assert.equal(background.headers.warning, undefined);
  assert.equal(background.body.kind, 'Status');
});

test('discovery lists the workload kinds with short names, categories and subresources', async () => {
  const apps = await server.request('GET', '/apis/apps/v1');
  assert.equal(apps.status, 200, apps.text);
  const byName = new Map(apps.body.resources.map((r: any) => [r.name, r]));
  assert.deepEqual((byName.get('deployments') as any).shortNames, ['deploy']);
  assert.deepEqual((byName.get('deployments') as any).categories, ['all']);
  assert.equal((byName.get('deployments/scale') as any).kind, 'Scale');
  assert.equal((byName.get('deployments/scale') as any).group, 'autoscaling');
  assert.ok(byName.has('statefulsets/scale') && byName.has('replicasets/scale') && !byName.has('daemonsets/scale'));
  assert.ok(byName.has('controllerrevisions'));
  const batch = await server.request('GET', '/apis/batch/v1');
  assert.deepEqual(batch.body.resources.map((r: any) => r.name).sort(), ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']);
});

test('Tables carry upstream printers columns', async () => {
  const res = await server.request('GET', `${DEPLOYMENTS}/web`, { headers: { accept: TABLE } });
  assert.deepEqual(res.body.columnDefinitions.map((c: any) => c.name), ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector']);
  assert.deepEqual(res.body.rows[0].cells.slice(0, 4), ['web', '0/1', 0, 0]);
  assert.deepEqual(res.body.rows[0].cells.slice(5), ['web', 'nginx:1.27', 'app=web']);
  const jobs = await server.request('GET', '/apis/batch/v1/namespaces/default/jobs', { headers: { accept: TABLE } });
  assert.deepEqual(jobs.body.columnDefinitions.map((c: any) => c.name), ['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers', 'Images', 'Selector']);
  assert.deepEqual(jobs.body.rows.find((r: any) => r.cells[0] === 'pi').cells.slice(0, 4), ['pi', 'Running', '0/1', '']);
  const crons = await server.request('GET', '/apis/batch/v1/namespaces/default/cronjobs', { headers: { accept: TABLE } });
  assert.deepEqual(crons.body.rows[0].cells.slice(0, 6), ['hourly', '*/5 1-3 * JAN-MAR mon,fri', '<none>', 'False', 0, '<none>']);
});

test('kubectl creates, lists, scales and explains the workload kinds', { skip: !hasKubectl() && 'kubectl is not on PATH' }, async () => {
  const home = mkdtempSync(join(tmpdir(), 'orch-kubectl-workloads-'));
  const kubectl = (...args: string[]) => runKubectl(server.orchconfig, home, args);
  try {
    const created = await kubectl('create', 'deployment', 'kc', '--image=nginx');
    assert.equal(created.code, 0, created.stderr);
    const scaled = await kubectl('scale', 'deployment', 'kc', '--replicas=3');
    assert.equal(scaled.code, 0, scaled.stderr);
    const got = await kubectl('get', 'deploy', 'kc', '-o', 'jsonpath={.spec.replicas}');
    assert.equal(got.stdout, '3');
    const resources = await kubectl('api-resources', '--api-group=apps');
    assert.equal(resources.code, 0, resources.stderr);
    assert.match(resources.stdout, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    assert.match(resources.stdout, /^statefulsets\s+sts\s+apps\/v1\s+true\s+StatefulSet$/m);
    const job = await kubectl('create', 'job', 'kj', '--image=busybox');
    assert.equal(job.code, 0, job.stderr);
    const cron = await kubectl('create', 'cronjob', 'kcj', '--image=busybox', '--schedule=*/5 * * * *');
    assert.equal(cron.code, 0, cron.stderr);
    const list = await kubectl('get', 'deploy,rs,sts,ds,job,cj');
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\n/);
    assert.match(list.stdout, /deployment\.apps\/kc\s+0\/3\s+0\s+0\s+\d+s/);
    assert.match(list.stdout, /NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\n/);
    assert.match(list.stdout, /^job\.batch\/kj\s+Running\s+0\/1\s+\d+s$/m);
    assert.match(list.stdout, /NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\n/);
    assert.match(list.stdout, /^cronjob\.batch\/kcj\s+\*\/5 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\d+s$/m);
    const all = await kubectl('get', 'all', '-o', 'name');
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^deployment\.apps\/kc$/m);
    assert.match(all.stdout, /^cronjob\.batch\/kcj$/m);
    // client-side apply patches with the contract's strategic merge keys; server-side apply keys containers by name
    const manifest = (image: string, extra = '') =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: applied-kc\nspec:\n  selector:\n    matchLabels: {app: applied-kc}\n  template:\n    metadata:\n      labels: {app: applied-kc}\n    spec:\n      containers:\n      - {name: web, image: ${image}}\n${extra}`;
    const file = join(home, 'deployment.yaml');
    writeFileSync(file, manifest('nginx:1'));
    assert.equal((await kubectl('apply', '-f', file)).code, 0);
    writeFileSync(file, manifest('nginx:2', '      - {name: side, image: busybox}\n'));
    const reapplied = await kubectl('apply', '-f', file);
    assert.equal(reapplied.code, 0, reapplied.stderr);
    const images = await kubectl('get', 'deploy', 'applied-kc', '-o', 'jsonpath={.spec.template.spec.containers[*].image}');
    assert.equal(images.stdout, 'nginx:2 busybox');
    writeFileSync(file, manifest('nginx:3').replace('applied-kc', 'ssa-kc'));
    const ssa = await kubectl('apply', '--server-side', '-f', file);
    assert.equal(ssa.code, 0, ssa.stderr);
    const owned = await kubectl('get', 'deploy', 'ssa-kc', '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields[0].manager}');
    assert.equal(owned.stdout, 'kubectl');
    const described = await kubectl('describe', 'deployment', 'kc');
    assert.equal(described.code, 0, described.stderr);
    assert.match(described.stdout, /^Replicas:\s+3 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$/m);
    assert.match(described.stdout, /^StrategyType:\s+RollingUpdate$/m);
    const explain = await kubectl('explain', 'deployment.spec.strategy');
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /rollingUpdate/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
