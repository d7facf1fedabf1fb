// GET /metrics (SPEC 9.5, FACTS 13): known requests, then a scrape whose counters, labels and
// buckets are exact; authorization through the bootstrap system:monitoring role; and a pool of
// two processes (the test server's --min-workers=2) whose scrapes are sums that never go down.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createServedCrd, exampleCrd } from './helpers/crd.ts';
import { eventually } from './helpers/eventually.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const tokenDir = mkdtempSync(join(tmpdir(), 'orch-metrics-'));
const tokenFile = join(tokenDir, 'tokens.csv');
writeFileSync(tokenFile, 'monitor-token,monitor,uid1,"system:monitoring"\nplain-token,plain,uid2,"team"\n');

const NP = '/apis/networking.orch.io/v1/namespaces/default/networkpolicies';
const BUCKETS = ['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '+Inf'];

let server: TestServer;
before(async () => (server = await startTestServer([`--token-auth-file=${tokenFile}`, '--authorization-mode=RBAC'])));
after(async () => {
  await server?.close();
  rmSync(tokenDir, { recursive: true, force: true });
});

/** The samples of a scrape, by `name{labels}` as exposed (labels in prom-client's order). */
async function scrape(token?: string): Promise<{ text: string; sample(name: string, labels: Record<string, string>): number | undefined }> {
  const res = await server.request('GET', '/metrics', token ? { token } : {});
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  const samples = new Map<string, number>();
  for (const line of res.text.split('\n')) {
    const m = /^(\w+)(\{.*\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}=${v}`).sort().join(',');
    samples.set(`${m[1]}{${labels}}`, Number(m[3]));
  }
  return {
    text: res.text,
    sample: (name, labels) => samples.get(`${name}{${Object.entries(labels).map(([k, v]) => `${k}=${v}`).sort().join(',')}}`),
  };
}

const requestLabels = (verb: string, scope: string, code: string, extra: Record<string, string> = {}) => ({
  verb,
  dry_run: '',
  group: 'networking.orch.io',
  version: 'v1',
  resource: 'networkpolicies',
  subresource: '',
  scope,
  component: 'apiserver',
  code,
  ...extra,
});

const policy = (name: string) => ({ apiVersion: 'networking.orch.io/v1', kind: 'NetworkPolicy', metadata: { name }, spec: { podSelector: {} } });

test('HELP and TYPE lines carry upstream stability levels; default process and nodejs series are there', async () => {
  const { text } = await scrape();
  assert.match(text, /^# HELP apiserver_request_total \[STABLE\] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code\.$/m);
  assert.match(text, /^# TYPE apiserver_request_total counter$/m);
  assert.match(text, /^# TYPE apiserver_request_duration_seconds histogram$/m);
  assert.match(text, /^# HELP apiserver_requested_deprecated_apis \[STABLE\] /m);
  assert.match(text, /^apiserver_current_inflight_requests\{request_kind="mutating"\} \d+$/m);
  assert.match(text, /^process_cpu_seconds_total \d/m);
  assert.match(text, /^nodejs_heap_size_total_bytes \d/m);
});

test('requests are counted with canonical verbs, dry_run, scope and code', async () => {
  for (let i = 0; i < 3; i++) assert.equal((await server.request('GET', NP)).status, 200);
  assert.equal((await server.request('POST', NP, { body: policy('a') })).status, 201);
  assert.equal((await server.request('POST', NP, { body: policy('a') })).status, 409);
  assert.equal((await server.request('POST', `${NP}?dryRun=All`, { body: policy('b') })).status, 201);
  assert.equal((await server.request('POST', NP, { body: { ...policy('Bad_Name') } })).status, 422);
  assert.equal((await server.request('GET', `${NP}/a`)).status, 200);
  assert.equal((await server.request('GET', `${NP}/missing`)).status, 404);
  assert.equal((await server.request('GET', '/apis/networking.orch.io/v1/networkpolicies')).status, 200);
  assert.equal((await server.request('GET', `${NP}?watch=1&timeoutSeconds=1`)).status, 200);
  const apply = await server.request('PATCH', `${NP}/c?fieldManager=t`, {
    raw: JSON.stringify(policy('c')),
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
  });
  assert.equal(apply.status, 201);
  assert.equal((await server.request('DELETE', `${NP}/c`)).status, 200);
  const expected: Array<[Record<string, string>, number]> = [
    [requestLabels('LIST', 'namespace', '200'), 3],
    [requestLabels('POST', 'resource', '201'), 1],
    [requestLabels('POST', 'resource', '409'), 1],
    [requestLabels('POST', 'resource', '422'), 1],
    [requestLabels('POST', 'resource', '201', { dry_run: 'All' }), 1],
    [requestLabels('GET', 'resource', '200'), 1],
    [requestLabels('GET', 'resource', '404'), 1],
    [requestLabels('LIST', 'cluster', '200'), 1],
    [requestLabels('WATCH', 'namespace', '200'), 1],
    [requestLabels('APPLY', 'resource', '201'), 1],
    [requestLabels('DELETE', 'resource', '200'), 1],
  ];
  await eventually('every request counted', async () => {
    const { sample } = await scrape();
    return expected.every(([labels]) => sample('apiserver_request_total', labels) !== undefined) ? true : undefined;
  });
  const { sample } = await scrape();
  for (const [labels, count] of expected) assert.equal(sample('apiserver_request_total', labels), count, JSON.stringify(labels));

  const { code: _code, ...durationLabels } = requestLabels('LIST', 'namespace', '200');
  for (const le of BUCKETS) {
    const bucket = sample('apiserver_request_duration_seconds_bucket', { ...durationLabels, le });
    assert.ok(bucket !== undefined && bucket <= 3, `bucket le=${le}`);
  }
  assert.equal(sample('apiserver_request_duration_seconds_bucket', { ...durationLabels, le: '+Inf' }), 3);
  assert.equal(sample('apiserver_request_duration_seconds_count', durationLabels), 3);

  // The embedded store's own figures: two committed creates (and the apply) went through group commits and fsyncs.
  assert.ok((sample('apiserver_storage_sqlite_commit_batch_size_count', {}) ?? 0) >= 3);
  assert.ok((sample('apiserver_storage_sqlite_fsync_duration_seconds_count', {}) ?? 0) >= 1);
});

test('watch events are counted and sized by group, version and kind', async () => {
  const labels = { group: 'networking.orch.io', version: 'v1', kind: 'NetworkPolicy' };
  const before = await scrape();
  const countBefore = before.sample('apiserver_watch_events_total', labels) ?? 0;
  const sizedBefore = before.sample('apiserver_watch_events_sizes_count', labels) ?? 0;
  const watch = openWatch(server, `${NP}?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dwatched`);
  assert.equal(await watch.status, 200);
  assert.equal((await server.request('POST', NP, { body: policy('watched') })).status, 201);
  assert.equal((await server.request('DELETE', `${NP}/watched`)).status, 200);
  const events = await watch.waitFor(2);
  watch.close();
  assert.deepEqual(events.map((e) => e.type), ['ADDED', 'DELETED']);
  const after = await scrape();
  assert.equal(after.sample('apiserver_watch_events_total', labels), countBefore + 2);
  assert.equal(after.sample('apiserver_watch_events_sizes_count', labels), sizedBefore + 2);
  assert.equal(after.sample('apiserver_watch_events_sizes_bucket', { ...labels, le: '131072' }), sizedBefore + 2);
});

test('apiserver_storage_objects counts stored objects by group-resource; apiserver_longrunning_requests counts open watches', async () => {
  const listed = await server.request('GET', NP);
  const { sample } = await scrape();
  assert.equal(sample('apiserver_storage_objects', { resource: 'networkpolicies.networking.orch.io' }), listed.body.items.length);
  assert.ok((sample('apiserver_storage_objects', { resource: 'namespaces' }) ?? 0) >= 4, 'the core group has no suffix');

  const watchLabels = { verb: 'WATCH', group: 'networking.orch.io', version: 'v1', resource: 'networkpolicies', subresource: '', scope: 'namespace', component: 'apiserver' };
  const watch = openWatch(server, `${NP}?watch=1`);
  assert.equal(await watch.status, 200);
  assert.equal((await scrape()).sample('apiserver_longrunning_requests', watchLabels), 1);
  watch.close();
  await eventually('the watch no longer counted', async () => ((await scrape()).sample('apiserver_longrunning_requests', watchLabels) === 0 ? true : undefined));
});

test('a deprecated custom resource version sets apiserver_requested_deprecated_apis', async () => {
  const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
  const crd = exampleCrd('gadgets', 'Gadget', 'Namespaced', [
    { name: 'v1beta1', served: true, storage: false, deprecated: true, schema },
    { name: 'v1', served: true, storage: true, schema },
  ]);
  await createServedCrd(server, crd, ['/apis/example.com/v1beta1/namespaces/default/gadgets', '/apis/example.com/v1/namespaces/default/gadgets']);
  const labels = { group: 'example.com', version: 'v1beta1', resource: 'gadgets', subresource: '', removed_release: '' };
  const { sample } = await scrape();
  assert.equal(sample('apiserver_requested_deprecated_apis', labels), 1);
  assert.equal(sample('apiserver_requested_deprecated_apis', { ...labels, version: 'v1' }), undefined, 'v1 is not deprecated');
});

test('/metrics/slis records the results of the checks the root health endpoints ran', async () => {
  for (let i = 0; i < 2; i++) assert.equal((await server.request('GET', '/readyz')).status, 200);
  assert.equal((await server.request('GET', '/livez?exclude=ping')).status, 200);
  const res = await server.request('GET', '/metrics/slis');
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  assert.match(res.text, /^# HELP kubernetes_healthcheck \[STABLE\] This metric records the result of a single healthcheck\.$/m);
  assert.match(res.text, /^kubernetes_healthcheck\{name="ping",type="readyz"\} 1$/m);
  assert.match(res.text, /^kubernetes_healthchecks_total\{name="ping",type="readyz",status="success"\} 2$/m);
  assert.match(res.text, /^kubernetes_healthchecks_total\{name="log",type="livez",status="success"\} 1$/m);
  assert.doesNotMatch(res.text, /name="ping",type="livez"/, 'an excluded check is not recorded');
  assert.doesNotMatch(res.text, /apiserver_request_total/, 'the SLI registry holds only the health checks');
});

test('a user outside system:monitoring is forbidden; one in it reads the metrics', async () => {
  const denied = await server.request('GET', '/metrics', { token: 'plain-token' });
  assert.equal(denied.status, 403);
  assert.equal(denied.body.reason, 'Forbidden');
  await scrape('monitor-token');
});

test('over the pool of two processes, scrapes are sums that never go down', async () => {
  let previous = 0;
  const labels = requestLabels('GET', 'resource', '200');
  const writes = (async () => {
    for (let i = 0; i < 40; i++) await server.request('GET', `${NP}/a`);
  })();
  for (let i = 0; i < 40; i++) {
    const value = (await scrape()).sample('apiserver_request_total', labels) ?? 0;
    assert.ok(value >= previous, `scrape ${i}: ${value} after ${previous}`);
    previous = value;
  }
  await writes;
  const final = await eventually('all reads counted', async () => {
    const value = (await scrape()).sample('apiserver_request_total', labels);
    return value === 41 ? value : undefined;
  });
  assert.equal(final, 41);
});
