/**
 * flowcontrol.orch.io served at v1 and at the deprecated v1beta3 over one key
 * space stored at v1 (SPEC 9.4, 9.5, 9.7): objects written at one version read
 * at the other without loss, the nominalConcurrencyShares round trip and its
 * annotation, lists and watches at each version, the deprecation's Warning,
 * audit annotation and gauge, defaults, validation, printer columns, removed
 * versions, and --runtime-config switching v1beta3 off.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertFailure, causesOf, expectGet } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';
import { wholeJsonLines } from './helpers/json-lines.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';
import { ProtobufCodec } from '../src/api/protobuf/codec.ts';
import { protobuf as protobufTable } from '../src/generated/index.ts';

const V1 = '/apis/flowcontrol.orch.io/v1';
const V1BETA3 = '/apis/flowcontrol.orch.io/v1beta3';
const PRESERVE = 'flowcontrol.orch.io/v1beta3-preserve-zero-concurrency-shares';
const WARNING = (kind: string) => `299 - "flowcontrol.orch.io/v1beta3 ${kind} is deprecated in v1.29+, unavailable in v1.32+; use flowcontrol.orch.io/v1 ${kind}"`;

const level = (apiVersion: string, name: string, limited: Record<string, unknown>, annotations?: Record<string, string>) => ({
  apiVersion,
  kind: 'PriorityLevelConfiguration',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 16 } }, ...limited } },
});

const flowSchema = (apiVersion: string, name: string) => ({
  apiVersion,
  kind: 'FlowSchema',
  metadata: { name, labels: { team: 'a' } },
  spec: {
    priorityLevelConfiguration: { name: 'workload' },
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'default', name: 'builder' } }],
        resourceRules: [{ verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'], namespaces: ['*'] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }],
      },
    ],
  },
});

describe('flowcontrol.orch.io v1 and v1beta3', () => {
  let server: TestServer;
  let dir: string;
  let logPath: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-flowcontrol-'));
    logPath = join(dir, 'audit.log');
    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "flowcontrol.orch.io"}]\n');
    server = await startTestServer([`--audit-policy-file=${policy}`, `--audit-log-path=${logPath}`]);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = async (path: string, body: unknown) => {
    const res = await server.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
    return res;
  };
  const get = (path: string) => expectGet(server, path);

  test('the mandatory exempt and catch-all objects exist from the start, as upstream ensures them', async () => {
    const exemptLevel = await get(`${V1}/prioritylevelconfigurations/exempt`);
    assert.deepEqual(exemptLevel.spec, { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
    assert.deepEqual(exemptLevel.metadata.annotations, { 'apf.orch.io/autoupdate-spec': 'true' });
    const catchAllLevel = await get(`${V1}/prioritylevelconfigurations/catch-all`);
    assert.deepEqual(catchAllLevel.spec.limited, { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 });
    const exempt = await get(`${V1}/flowschemas/exempt`);
    assert.equal(exempt.spec.matchingPrecedence, 1);
    assert.deepEqual(exempt.spec.rules[0].subjects, [{ kind: 'Group', group: { name: 'system:masters' } }]);
    const catchAll = await get(`${V1BETA3}/flowschemas/catch-all`);
    assert.deepEqual([catchAll.spec.matchingPrecedence, catchAll.spec.distinguisherMethod, catchAll.spec.priorityLevelConfiguration.name], [10000, { type: 'ByUser' }, 'catch-all']);
    const ready = await server.request('GET', '/readyz?verbose');
    assert.match(ready.text, /^\[\+\]poststarthook\/priority-and-fairness-config-producer ok$/m);
    // The administrator may change the exempt level's shares (the ensurer leaves them alone).
    exemptLevel.spec.exempt.nominalConcurrencyShares = 10;
    const changed = await server.request('PUT', `${V1}/prioritylevelconfigurations/exempt`, { body: exemptLevel });
    assert.equal(changed.status, 200, changed.text);
  });

  test('a FlowSchema written at v1beta3 reads at v1 with the same fields, and back', async () => {
    const created = await create(`${V1BETA3}/flowschemas`, flowSchema('flowcontrol.orch.io/v1beta3', 'builders'));
    assert.equal(created.body.apiVersion, 'flowcontrol.orch.io/v1beta3');
    assert.equal(created.body.spec.matchingPrecedence, 1000, 'SetDefaults_FlowSchemaSpec');
    assert.deepEqual(created.body.status, {});
    const atV1 = await get(`${V1}/flowschemas/builders`);
    assert.equal(atV1.apiVersion, 'flowcontrol.orch.io/v1');
    const { apiVersion: _a, ...restV1 } = atV1;
    const { apiVersion: _b, ...restBeta } = await get(`${V1BETA3}/flowschemas/builders`);
    assert.deepEqual(restV1, restBeta);
    // An update at v1 is seen at v1beta3.
    atV1.spec.matchingPrecedence = 500;
    const updated = await server.request('PUT', `${V1}/flowschemas/builders`, { body: atV1 });
    assert.equal(updated.status, 200, updated.text);
    const beta = await get(`${V1BETA3}/flowschemas/builders`);
    assert.equal(beta.spec.matchingPrecedence, 500);
    assert.equal(beta.metadata.generation, 2);
    assert.deepEqual(beta.spec.rules, flowSchema('', '').spec.rules);
  });

  test('nominalConcurrencyShares: 30 only when unset at v1; at v1beta3 a 0 is kept only with the round-trip annotation', async () => {
    const unset = await create(`${V1}/prioritylevelconfigurations`, level('flowcontrol.orch.io/v1', 'unset', {}));
    assert.equal(unset.body.spec.limited.nominalConcurrencyShares, 30);
    assert.equal(unset.body.spec.limited.lendablePercent, 0);
    assert.deepEqual(unset.body.spec.limited.limitResponse.queuing, { handSize: 8, queueLengthLimit: 50, queues: 16 });

    // A 0 written at v1 is a real 0: v1beta3 shows it with the annotation, v1 without.
    await create(`${V1}/prioritylevelconfigurations`, level('flowcontrol.orch.io/v1', 'jail', { nominalConcurrencyShares: 0 }));
    const jailBeta = await get(`${V1BETA3}/prioritylevelconfigurations/jail`);
    assert.equal(jailBeta.spec.limited.nominalConcurrencyShares, 0);
    assert.deepEqual(jailBeta.metadata.annotations, { [PRESERVE]: '' });
    const jailV1 = await get(`${V1}/prioritylevelconfigurations/jail`);
    assert.equal(jailV1.spec.limited.nominalConcurrencyShares, 0);
    assert.equal(jailV1.metadata.annotations, undefined);

    // The v1beta3 object read back is written back unchanged: the 0 survives the round trip.
    const rewritten = await server.request('PUT', `${V1BETA3}/prioritylevelconfigurations/jail`, { body: jailBeta });
    assert.equal(rewritten.status, 200, rewritten.text);
    assert.equal((await get(`${V1}/prioritylevelconfigurations/jail`)).spec.limited.nominalConcurrencyShares, 0);

    // At v1beta3, 0 (or absent) without the annotation means the default.
    const defaulted = await create(`${V1BETA3}/prioritylevelconfigurations`, level('flowcontrol.orch.io/v1beta3', 'beta-default', { nominalConcurrencyShares: 0 }));
    assert.equal(defaulted.body.spec.limited.nominalConcurrencyShares, 30);
    const zero = await create(`${V1BETA3}/prioritylevelconfigurations`, level('flowcontrol.orch.io/v1beta3', 'beta-zero', { nominalConcurrencyShares: 0 }, { [PRESERVE]: 'true', keep: 'me' }));
    assert.deepEqual(zero.body.metadata.annotations, { [PRESERVE]: '', keep: 'me' }, 'the answer is the object as v1beta3 reads it back');
    const five = await create(`${V1BETA3}/prioritylevelconfigurations`, level('flowcontrol.orch.io/v1beta3', 'beta-five', { nominalConcurrencyShares: 5 }, { [PRESERVE]: '' }));
    assert.equal(five.body.metadata.annotations, undefined, 'a non-zero share count needs no annotation');
    const stored = await get(`${V1}/prioritylevelconfigurations/beta-zero`);
    assert.equal(stored.spec.limited.nominalConcurrencyShares, 0);
    assert.deepEqual(stored.metadata.annotations, { keep: 'me' }, 'the annotation never reaches the storage version');

    // Written at v1, the annotation is forbidden (it only exists for v1beta3's sake).
    const forbidden = await server.request('POST', `${V1}/prioritylevelconfigurations`, { body: level('flowcontrol.orch.io/v1', 'bad', {}, { [PRESERVE]: '' }) });
    assertFailure(forbidden, 422, 'Invalid');
    assert.deepEqual(causesOf(forbidden), [['FieldValueForbidden', 'metadata.annotations']]);
  });

  test('fields only one version has do not exist here, so every field survives v1 -> v1beta3 -> v1', async () => {
    const full = level('flowcontrol.orch.io/v1', 'full', { nominalConcurrencyShares: 7, lendablePercent: 20, borrowingLimitPercent: 150 });
    const created = (await create(`${V1}/prioritylevelconfigurations`, full)).body;
    const beta = await get(`${V1BETA3}/prioritylevelconfigurations/full`);
    assert.deepEqual(beta.spec.limited, { nominalConcurrencyShares: 7, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 8, queueLengthLimit: 50 } }, lendablePercent: 20, borrowingLimitPercent: 150 });
    const put = await server.request('PUT', `${V1BETA3}/prioritylevelconfigurations/full`, { body: beta });
    assert.equal(put.status, 200, put.text);
    const back = await get(`${V1}/prioritylevelconfigurations/full`);
    assert.deepEqual(back.spec, created.spec);
    assert.deepEqual(back.metadata, created.metadata);
    assert.equal(back.metadata.resourceVersion, beta.metadata.resourceVersion, 'rewriting the same object at v1beta3 changed nothing');
  });

  test('lists and watches answer at the version asked', async () => {
    const betaList = await get(`${V1BETA3}/prioritylevelconfigurations`);
    assert.equal(betaList.apiVersion, 'flowcontrol.orch.io/v1beta3');
    assert.equal(betaList.kind, 'PriorityLevelConfigurationList');
    assert.ok(betaList.items.length >= 4);
    for (const item of betaList.items) assert.equal(item.apiVersion, 'flowcontrol.orch.io/v1beta3');
    const jail = betaList.items.find((i: any) => i.metadata.name === 'jail');
    assert.deepEqual(jail.metadata.annotations, { [PRESERVE]: '' });
    const v1List = await get(`${V1}/prioritylevelconfigurations`);
    for (const item of v1List.items) assert.equal(item.apiVersion, 'flowcontrol.orch.io/v1');

    const rv = v1List.metadata.resourceVersion;
    const betaWatch = openWatch(server, `${V1BETA3}/prioritylevelconfigurations?watch=1&resourceVersion=${rv}`);
    const v1Watch = openWatch(server, `${V1}/prioritylevelconfigurations?watch=1&resourceVersion=${rv}`);
    try {
      await create(`${V1}/prioritylevelconfigurations`, level('flowcontrol.orch.io/v1', 'watched', { nominalConcurrencyShares: 0 }));
      const [betaEvent] = await betaWatch.waitFor(1);
      const [v1Event] = await v1Watch.waitFor(1);
      assert.equal(betaEvent.type, 'ADDED');
      assert.equal(betaEvent.object.apiVersion, 'flowcontrol.orch.io/v1beta3');
      assert.deepEqual(betaEvent.object.metadata.annotations, { [PRESERVE]: '' });
      assert.equal(v1Event.object.apiVersion, 'flowcontrol.orch.io/v1');
      assert.equal(v1Event.object.metadata.annotations, undefined);
    } finally {
      betaWatch.close();
      v1Watch.close();
    }
  });

  test('v1beta3 requests carry the deprecation Warning, audit annotations and gauge; v1 requests none', async () => {
    const beta = await server.request('GET', `${V1BETA3}/flowschemas`);
    assert.equal(beta.status, 200);
    assert.deepEqual(beta.headers.warning, WARNING('FlowSchema'));
    const status = await server.request('GET', `${V1BETA3}/prioritylevelconfigurations/jail/status`);
    assert.equal(status.status, 200);
    assert.deepEqual(status.headers.warning, WARNING('PriorityLevelConfiguration'));
    const v1 = await server.request('GET', `${V1}/flowschemas`);
    assert.equal(v1.headers.warning, undefined);

    const auditID = String(beta.headers['audit-id']);
    const v1AuditID = String(v1.headers['audit-id']);
    const events = () => wholeJsonLines(readFileSync(logPath, 'utf8'));
    const event = await eventually('the v1beta3 audit event', async () => events().find((e) => e.auditID === auditID && e.stage === 'ResponseComplete'));
    assert.equal(event.annotations['orch.io/deprecated'], 'true');
    assert.equal(event.annotations['orch.io/removed-release'], '1.32');
    const v1Event = await eventually('the v1 audit event', async () => events().find((e) => e.auditID === v1AuditID && e.stage === 'ResponseComplete'));
    assert.equal(v1Event.annotations?.['orch.io/deprecated'], undefined);

    const metrics = await server.request('GET', '/metrics');
    assert.match(metrics.text, /^apiserver_requested_deprecated_apis\{group="flowcontrol.orch.io",version="v1beta3",resource="flowschemas",subresource="",removed_release="1.32"\} 1$/m);
    assert.match(metrics.text, /^apiserver_requested_deprecated_apis\{group="flowcontrol.orch.io",version="v1beta3",resource="prioritylevelconfigurations",subresource="status",removed_release="1.32"\} 1$/m);
    assert.doesNotMatch(metrics.text, /apiserver_requested_deprecated_apis\{[^}]*version="v1",/);
  });

  test('validation: the rules a user meets, at either version', async () => {
    const bad = flowSchema('flowcontrol.orch.io/v1beta3', 'bad');
    bad.spec.rules[0].resourceRules[0].verbs = ['*', 'get'];
    bad.spec.rules[0].nonResourceRules[0].nonResourceURLs = ['healthz'];
    (bad.spec as any).matchingPrecedence = 1;
    const res = await server.request('POST', `${V1BETA3}/flowschemas`, { body: bad });
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causesOf(res), [
      ['FieldValueInvalid', 'spec.matchingPrecedence'],
      ['FieldValueInvalid', 'spec.rules[0].resourceRules[0].verbs'],
      ['FieldValueInvalid', 'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]'],
    ]);
    assert.match(res.body.message, /only the schema named 'exempt' may have matchingPrecedence 1/);
    const exempt = await server.request('POST', `${V1}/prioritylevelconfigurations`, { body: { ...level('flowcontrol.orch.io/v1', 'not-exempt', {}), spec: { type: 'Exempt' } } });
    assertFailure(exempt, 422, 'Invalid', /spec\.type: Invalid value: "Exempt": type must be 'Exempt' if and only if name is 'exempt'/);
    const queues = await server.request('POST', `${V1}/prioritylevelconfigurations`, {
      body: level('flowcontrol.orch.io/v1', 'entropy', { limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 10 } } }),
    });
    assertFailure(queues, 422, 'Invalid', /required entropy bits of deckSize 128 and handSize 10 should not be greater than 60/);
  });

  test('Table columns as upstream prints them, at both versions', async () => {
    for (const base of [V1, V1BETA3]) {
      const res = await server.request('GET', `${base}/prioritylevelconfigurations/jail`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.columnDefinitions.map((c: any) => c.name), ['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age']);
      assert.deepEqual(res.body.rows[0].cells.slice(0, 6), ['jail', 'Limited', 0, 16, 8, 50]);
    }
    const fs = await server.request('GET', `${V1BETA3}/flowschemas/builders`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' } });
    assert.deepEqual(fs.body.columnDefinitions.map((c: any) => c.name), ['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL']);
    const cells = fs.body.rows[0].cells;
    assert.deepEqual([cells[0], cells[1], cells[2], cells[3], cells[5]], ['builders', 'workload', 500, 'ByUser', '?']);
  });

  test('Protobuf, metadata-only and Table answers at v1beta3 are of the converted objects', async () => {
    const pb = await server.request('GET', `${V1BETA3}/prioritylevelconfigurations/jail`, { headers: { accept: 'application/vnd.orch.protobuf' } });
    assert.equal(pb.status, 200);
    const decoded: any = new ProtobufCodec(protobufTable).decodeObject(pb.bytes, 'flowcontrol.orch.io/v1beta3', 'PriorityLevelConfiguration');
    assert.deepEqual(decoded.metadata.annotations, { [PRESERVE]: '' });
    const partialAccept = { accept: 'application/json;as=PartialObjectMetadata;g=meta.orch.io;v=v1' };
    const partialBeta = await server.request('GET', `${V1BETA3}/prioritylevelconfigurations/jail`, { headers: partialAccept });
    assert.deepEqual(partialBeta.body.metadata.annotations, { [PRESERVE]: '' });
    const partialV1 = await server.request('GET', `${V1}/prioritylevelconfigurations/jail`, { headers: partialAccept });
    assert.equal(partialV1.body.metadata.annotations, undefined);
    const table = await server.request('GET', `${V1BETA3}/flowschemas`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' } });
    assert.equal(table.status, 200);
    assert.deepEqual(table.body.rows.map((r: any) => r.cells[0]).sort(), ['builders', 'catch-all', 'exempt']);
  });

  test('kubectl get shows upstream columns, and a v1beta3 request shows the Warning', { skip: !hasKubectl() && 'no kubectl on PATH' }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'kubectl-home-'));
    try {
      const run = await runKubectl(server.orchconfig, home, ['get', 'flowschemas,prioritylevelconfigurations']);
      assert.equal(run.code, 0, run.stderr);
      const headers = run.stdout.split('\n').filter((line) => line.startsWith('NAME')).map((line) => line.trim().split(/\s{2,}/).join(' '));
      assert.deepEqual(headers, ['NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE MISSINGPL', 'NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT AGE']);
      assert.match(run.stdout, /^flowschema\.flowcontrol\.orch\.io\/catch-all\s+catch-all\s+10000\s+ByUser\s+\S+\s+\?$/m);
      assert.match(run.stdout, /^flowschema\.flowcontrol\.orch\.io\/builders\s+workload\s+500\s+ByUser\s+\S+\s+\?$/m);
      assert.match(run.stdout, /^prioritylevelconfiguration\.flowcontrol\.orch\.io\/jail\s+Limited\s+0\s+16\s+8\s+50\s+\S+$/m);
      const raw = await runKubectl(server.orchconfig, home, ['get', '--raw', `${V1BETA3}/flowschemas/builders`]);
      assert.equal(raw.code, 0, raw.stderr);
      assert.equal(JSON.parse(raw.stdout).apiVersion, 'flowcontrol.orch.io/v1beta3');
      assert.match(raw.stderr, /Warning: flowcontrol\.orch\.io\/v1beta3 FlowSchema is deprecated in v1\.29\+, unavailable in v1\.32\+; use flowcontrol\.orch\.io\/v1 FlowSchema/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('discovery and OpenAPI publish both versions, v1 preferred, with one storage version hash', async () => {
    const group = await get('/apis/flowcontrol.orch.io');
    assert.deepEqual(group.versions.map((v: any) => v.version), ['v1', 'v1beta3']);
    assert.equal(group.preferredVersion.version, 'v1');
    const v1 = (await get(V1)).resources.find((r: any) => r.name === 'flowschemas');
    const beta = (await get(V1BETA3)).resources.find((r: any) => r.name === 'flowschemas');
    assert.equal(beta.storageVersionHash, v1.storageVersionHash);
    const index = await get('/openapi/v3');
    assert.ok(index.paths['apis/flowcontrol.orch.io/v1']);
    assert.ok(index.paths['apis/flowcontrol.orch.io/v1beta3']);
  });

  test('removed versions answer 404 while their replacements are served (every row of SPEC 9.7)', async () => {
    const ns = '/namespaces/default';
    // [removed, replacement]: each removed path is 404 and its replacement's is 200.
    const rows: Array<[string, string]> = [
      ['/apis/flowcontrol.orch.io/v1beta2/flowschemas', `${V1}/flowschemas`],
      ['/apis/flowcontrol.orch.io/v1beta2/prioritylevelconfigurations', `${V1}/prioritylevelconfigurations`],
      ['/apis/flowcontrol.orch.io/v1beta1/prioritylevelconfigurations', `${V1}/prioritylevelconfigurations`],
      [`/apis/storage.orch.io/v1beta1${ns}/csistoragecapacities`, `/apis/storage.orch.io/v1${ns}/csistoragecapacities`],
      [`/apis/autoscaling/v2beta2${ns}/horizontalpodautoscalers`, `/apis/autoscaling/v2${ns}/horizontalpodautoscalers`],
      [`/apis/autoscaling/v2beta1${ns}/horizontalpodautoscalers`, `/apis/autoscaling/v2${ns}/horizontalpodautoscalers`],
      [`/apis/batch/v1beta1${ns}/cronjobs`, `/apis/batch/v1${ns}/cronjobs`],
      [`/apis/discovery.orch.io/v1beta1${ns}/endpointslices`, `/apis/discovery.orch.io/v1${ns}/endpointslices`],
      [`/apis/events.orch.io/v1beta1${ns}/events`, `/apis/events.orch.io/v1${ns}/events`],
      [`/apis/policy/v1beta1${ns}/poddisruptionbudgets`, `/apis/policy/v1${ns}/poddisruptionbudgets`],
      ['/apis/policy/v1beta1/podsecuritypolicies', `/apis/policy/v1${ns}/poddisruptionbudgets`],
      ['/apis/node.orch.io/v1beta1/runtimeclasses', '/apis/node.orch.io/v1/runtimeclasses'],
      ['/apis/apiextensions.orch.io/v1beta1/customresourcedefinitions', '/apis/apiextensions.orch.io/v1/customresourcedefinitions'],
      ['/apis/coordination.orch.io/v1beta1/namespaces/orch-system/leases', '/apis/coordination.orch.io/v1/namespaces/orch-system/leases'],
      [`/apis/networking.orch.io/v1beta1${ns}/ingresses`, `/apis/networking.orch.io/v1${ns}/ingresses`],
      ['/apis/networking.orch.io/v1beta1/ingressclasses', '/apis/networking.orch.io/v1/ingressclasses'],
      ['/apis/rbac.authorization.orch.io/v1beta1/clusterroles', '/apis/rbac.authorization.orch.io/v1/clusterroles'],
      ['/apis/storage.orch.io/v1beta1/storageclasses', '/apis/storage.orch.io/v1/storageclasses'],
      ['/apis/storage.orch.io/v1beta1/csidrivers', '/apis/storage.orch.io/v1/csidrivers'],
      [`/apis/extensions/v1beta1${ns}/networkpolicies`, `/apis/networking.orch.io/v1${ns}/networkpolicies`],
      [`/apis/extensions/v1beta1${ns}/deployments`, `/apis/apps/v1${ns}/deployments`],
      [`/apis/extensions/v1beta1${ns}/daemonsets`, `/apis/apps/v1${ns}/daemonsets`],
      [`/apis/extensions/v1beta1${ns}/replicasets`, `/apis/apps/v1${ns}/replicasets`],
      [`/apis/apps/v1beta1${ns}/deployments`, `/apis/apps/v1${ns}/deployments`],
      [`/apis/apps/v1beta2${ns}/statefulsets`, `/apis/apps/v1${ns}/statefulsets`],
    ];
    for (const [removed, replacement] of rows) {
      assert.equal((await server.request('GET', removed)).status, 404, removed);
      assert.equal((await server.request('GET', replacement)).status, 200, replacement);
    }
    // The 1.22 row's reviews: a create at the removed beta is 404, at v1 it is answered.
    const review = { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } };
    assert.equal((await server.request('POST', '/apis/authorization.orch.io/v1beta1/selfsubjectaccessreviews', { body: review })).status, 404);
    assert.equal((await server.request('POST', '/apis/authorization.orch.io/v1/selfsubjectaccessreviews', { body: { apiVersion: 'authorization.orch.io/v1', kind: 'SelfSubjectAccessReview', ...review } })).status, 201);
    assert.equal((await server.request('POST', '/apis/authentication.orch.io/v1beta1/tokenreviews', { body: { spec: { token: 'x' } } })).status, 404);
  });
});

describe('--runtime-config=flowcontrol.orch.io/v1beta3=false', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer(['--runtime-config=flowcontrol.orch.io/v1beta3=false'])));
  after(async () => server?.close());

  test('removes v1beta3 from routing, discovery and /openapi/v3; v1 stays', async () => {
    assert.equal((await server.request('GET', `${V1BETA3}/flowschemas`)).status, 404);
    assert.equal((await server.request('GET', `${V1}/flowschemas`)).status, 200);
    const group = await server.request('GET', '/apis/flowcontrol.orch.io');
    assert.deepEqual(group.body.versions.map((v: any) => v.version), ['v1']);
    const index = await server.request('GET', '/openapi/v3');
    assert.equal(index.body.paths['apis/flowcontrol.orch.io/v1beta3'], undefined);
    assert.ok(index.body.paths['apis/flowcontrol.orch.io/v1']);
  });
});
