/**
 * Audit logging on a real server (SPEC 6.3, 9.5; upstream WithAudit and the
 * log backend): a pool of two processes whose events the primary writes as
 * whole JSON lines, per the policy's level and stages, with the Audit-ID
 * header, the authorization and deprecation annotations.
 */
import { ProtobufCodec } from '../src/api/protobuf/codec.ts';
import { protobuf as protobufTable } from '../src/generated/index.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { expectWrite } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';
import { wholeJsonLines } from './helpers/json-lines.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const POLICY = `apiVersion: audit.orch.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: None
  users: ["quiet"]
- level: RequestResponse
  resources: [{group: "", resources: ["configmaps"], resourceNames: ["full"]}]
  omitManagedFields: true
- level: Request
  resources: [{group: "", resources: ["configmaps"]}]
  omitStages: [RequestReceived]
- level: Metadata
  userGroups: ["auditors"]
- level: Metadata
  resources: [{group: "example.com"}]
  omitStages: [RequestReceived]
- level: Metadata
  verbs: ["watch"]
- level: Metadata
  omitStages: [RequestReceived]
`;

describe('audit log', () => {
  let server: TestServer;
  let dir: string;
  let logPath: string;
  const events = (): any[] => wholeJsonLines(readFileSync(logPath, 'utf8'));
  const eventsOf = (auditID: string, count: number) =>
    eventually(`${count} events of ${auditID}`, async () => {
      const found = events().filter((e) => e.auditID === auditID);
      return found.length >= count ? found : undefined;
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-audit-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(join(dir, 'tokens.csv'), 'quiet-token,quiet,q1,"devs"\nauditor-token,ann,a1,"auditors"\n');
    logPath = join(dir, 'logs', 'audit.log');
    server = await startTestServer([`--audit-policy-file=${join(dir, 'policy.yaml')}`, `--audit-log-path=${logPath}`, `--token-auth-file=${join(dir, 'tokens.csv')}`]);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a Metadata event: the exact line of a get, its stages omitted per rule, Audit-ID as the header says', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/default', { headers: { 'user-agent': 'audit-test/1.0' } });
    assert.equal(res.status, 200);
    const auditID = String(res.headers['audit-id']);
    assert.match(auditID, /^[0-9a-f-]{36}$/);
    const [event] = await eventsOf(auditID, 1);
    assert.match(event.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.match(event.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(event.stageTimestamp >= event.requestReceivedTimestamp);
    const { requestReceivedTimestamp: _r, stageTimestamp: _s, user, ...rest } = event;
    assert.equal(user.username, 'orch-admin');
    assert.deepEqual(user.groups, ['system:masters', 'system:authenticated']);
    assert.deepEqual(Object.keys(event), ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs', 'userAgent', 'objectRef', 'responseStatus', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations']);
    assert.deepEqual(rest, {
      kind: 'Event',
      apiVersion: 'audit.orch.io/v1',
      level: 'Metadata',
      auditID,
      stage: 'ResponseComplete',
      requestURI: '/api/v1/namespaces/default',
      verb: 'get',
      sourceIPs: ['127.0.0.1'],
      userAgent: 'audit-test/1.0',
      objectRef: { resource: 'namespaces', namespace: 'default', name: 'default', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 200 },
      annotations: { 'authorization.orch.io/decision': 'allow', 'authorization.orch.io/reason': '' },
    });
  });

  test('a client-sent Audit-ID is kept in the header and the event', async () => {
    const res = await server.request('GET', '/version', { headers: { 'audit-id': 'my-own-id-123' } });
    assert.equal(res.headers['audit-id'], 'my-own-id-123');
    const [event] = await eventsOf('my-own-id-123', 1);
    assert.equal(event.requestURI, '/version');
    assert.equal(event.objectRef, undefined);
  });

  test('Request level: the request object without the response object; the object names the objectRef', async () => {
    const res = await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'req-level' }, data: { a: 'b' } } });
    assert.equal(res.status, 201);
    const [event, extra] = await eventsOf(String(res.headers['audit-id']), 1);
    assert.equal(extra, undefined);
    assert.equal(event.level, 'Request');
    assert.equal(event.stage, 'ResponseComplete');
    assert.deepEqual(event.objectRef, { resource: 'configmaps', namespace: 'default', name: 'req-level', apiVersion: 'v1' });
    assert.deepEqual(event.requestObject, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'req-level' }, data: { a: 'b' } });
    assert.equal(event.responseObject, undefined);
    assert.deepEqual(event.responseStatus, { metadata: {}, code: 201 });
  });

  test('RequestResponse level: both stages, the response object without managed fields (omitManagedFields)', async () => {
    await expectWrite(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'full' }, data: { k: 'v' } });
    const res = await server.request('GET', '/api/v1/namespaces/default/configmaps/full');
    const found = await eventsOf(String(res.headers['audit-id']), 2);
    assert.deepEqual(found.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    assert.equal(found[0].responseStatus, undefined);
    assert.equal(found[0].stageTimestamp, found[0].requestReceivedTimestamp);
    const object = found[1].responseObject;
    assert.equal(object.kind, 'ConfigMap');
    assert.deepEqual(object.data, { k: 'v' });
    assert.equal(object.metadata.name, 'full');
    assert.equal(object.metadata.managedFields, undefined);
    assert.ok(res.body.metadata.managedFields, 'the client still gets the managed fields');
  });

  test('a protobuf request and answer are logged as the objects they encode', async () => {
    const codec = new ProtobufCodec(protobufTable);
    await server.request('DELETE', '/api/v1/namespaces/default/configmaps/full');
    const body = codec.encodeObject('v1', 'ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'full' }, data: { wire: 'protobuf' } });
    const res = await server.request('POST', '/api/v1/namespaces/default/configmaps', { raw: body, headers: { 'content-type': 'application/vnd.orch.protobuf', accept: 'application/vnd.orch.protobuf' } });
    assert.equal(res.status, 201, res.text);
    // A create names no object in its URL: the Request-level rule of configmaps logs its body.
    const [created] = await eventsOf(String(res.headers['audit-id']), 1);
    assert.equal(created.level, 'Request');
    assert.deepEqual(created.requestObject, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'full' }, data: { wire: 'protobuf' } });
    // A get of `full` is at RequestResponse: the protobuf answer is logged as the ConfigMap.
    const read = await server.request('GET', '/api/v1/namespaces/default/configmaps/full', { headers: { accept: 'application/vnd.orch.protobuf' } });
    assert.equal(read.status, 200);
    const found = await eventsOf(String(read.headers['audit-id']), 2);
    const complete = found.find((e) => e.stage === 'ResponseComplete');
    assert.equal(complete.responseObject.kind, 'ConfigMap');
    assert.deepEqual(complete.responseObject.data, { wire: 'protobuf' });
    assert.equal(complete.responseObject.metadata.managedFields, undefined);
    assert.ok(complete.responseObject.metadata.uid);
  });

  test('a gzipped answer is logged as the object it carries', async () => {
    const big = 'x'.repeat(200 * 1024);
    const updated = await server.request('PUT', '/api/v1/namespaces/default/configmaps/full', { body: { metadata: { name: 'full' }, data: { big } } });
    assert.equal(updated.status, 200, updated.text);
    const read = await server.request('GET', '/api/v1/namespaces/default/configmaps/full', { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(read.headers['content-encoding'], 'gzip');
    const found = await eventsOf(String(read.headers['audit-id']), 2);
    const complete = found.find((e) => e.stage === 'ResponseComplete');
    assert.equal(complete.responseObject.data.big, big);
  });

  test('an error answer: the whole Status as responseStatus', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/default/pods/missing');
    assert.equal(res.status, 404);
    const [event] = await eventsOf(String(res.headers['audit-id']), 1);
    assert.deepEqual(event.responseStatus, { metadata: {}, status: 'Failure', message: 'pods "missing" not found', reason: 'NotFound', details: { name: 'missing', kind: 'pods' }, code: 404 });
  });

  test('users and groups rules: a user at level None leaves nothing; a forbidden request carries the forbid decision', async () => {
    const quiet = await server.request('GET', '/api/v1/namespaces', { token: 'quiet-token' });
    assert.ok(quiet.headers['audit-id'], 'Audit-ID is sent even at level None');
    const auditor = await server.request('GET', '/api/v1/namespaces', { token: 'auditor-token' });
    assert.equal(auditor.status, 403);
    const found = await eventsOf(String(auditor.headers['audit-id']), 2);
    assert.deepEqual(found.map((e) => e.stage), ['RequestReceived', 'ResponseComplete'], 'the groups rule omits no stage');
    assert.deepEqual(found[1].user, { username: 'ann', uid: 'a1', groups: ['auditors', 'system:authenticated'] });
    assert.equal(found[1].annotations['authorization.orch.io/decision'], 'forbid');
    assert.match(found[1].annotations['authorization.orch.io/reason'], /.*/);
    assert.equal(found[1].responseStatus.code, 403);
    assert.equal(events().filter((e) => e.auditID === quiet.headers['audit-id']).length, 0);
  });

  test('a failed authentication is audited without a user, at ResponseStarted, with the methods tried', async () => {
    const res = await server.request('GET', '/api/v1/namespaces', { token: 'not-a-token' });
    assert.equal(res.status, 401);
    const [event] = await eventsOf(String(res.headers['audit-id']), 1);
    assert.equal(event.stage, 'ResponseStarted');
    assert.deepEqual(event.user, {});
    assert.deepEqual(event.responseStatus, { metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 });
    assert.equal(event.annotations, undefined);
  });

  test('impersonation: the event names the impersonated user beside the authenticated one', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/default/pods', { headers: { 'impersonate-user': 'someone', 'impersonate-group': 'team' } });
    const [event] = await eventsOf(String(res.headers['audit-id']), 1);
    assert.equal(event.user.username, 'orch-admin');
    assert.deepEqual(event.impersonatedUser, { username: 'someone', groups: ['team', 'system:authenticated'] });
    assert.equal(event.annotations['authorization.orch.io/decision'], 'forbid');
  });

  test('a watch is long-running: RequestReceived, ResponseStarted at its head, ResponseComplete when it ends', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1');
    assert.equal(res.status, 200);
    const found = await eventsOf(String(res.headers['audit-id']), 3);
    assert.deepEqual(found.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    assert.equal(found[0].verb, 'watch');
    assert.deepEqual(found[1].responseStatus, { metadata: {}, code: 200 });
    assert.ok(found[2].stageTimestamp >= found[1].stageTimestamp);
  });

  test('a deprecated custom resource version is marked orch.io/deprecated on its events', async () => {
    const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
    await expectWrite(server, 'POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', {
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          { name: 'v1', served: true, storage: true, schema },
          { name: 'v1beta1', served: true, storage: false, deprecated: true, schema },
        ],
      },
    });
    const old = await eventually('v1beta1 served', async () => {
      const r = await server.request('GET', '/apis/example.com/v1beta1/namespaces/default/gadgets');
      return r.status === 200 ? r : undefined;
    });
    const [event] = await eventsOf(String(old.headers['audit-id']), 1);
    assert.equal(event.annotations['orch.io/deprecated'], 'true');
    assert.equal(event.annotations['orch.io/removed-release'], undefined, 'a custom version has no removal release');
    const current = await server.request('GET', '/apis/example.com/v1/namespaces/default/gadgets');
    const [plain] = await eventsOf(String(current.headers['audit-id']), 1);
    assert.equal(plain.annotations['orch.io/deprecated'], undefined);
  });

  test('every line of the file is one whole event, from every process of the pool', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, () => server.request('GET', '/api/v1/namespaces/default')));
    for (const r of results) await eventsOf(String(r.headers['audit-id']), 1);
    const lines = readFileSync(logPath, 'utf8').split('\n');
    assert.equal(lines.pop(), '');
    for (const line of lines) assert.equal(JSON.parse(line).kind, 'Event');
  });
});
