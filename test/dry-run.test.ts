/**
 * dryRun=All (SPEC 4.9) on every mutating verb: the answer is what would be
 * stored, and nothing is written: no new revision, no watch event.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const NP = '/apis/networking.orch.io/v1/namespaces/default/networkpolicies';
const policy = (name: string) => ({ metadata: { name, labels: { app: name } }, spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] } });

describe('dry run', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server.close());

  test('every verb runs its stages, returns the result, and writes nothing', async () => {
    const existing = (await server.request('POST', NP, { body: policy('dry-existing') })).body;
    const start = (await server.request('GET', NP)).body.metadata.resourceVersion;
    const watch = openWatch(server, `${NP}?watch=1&resourceVersion=${start}`);
    const cases: Array<[string, string, string, RequestInit & { body?: unknown; raw?: string; headers?: Record<string, string> }, number, (body: any) => void]> = [
      ['create', 'POST', NP, { body: policy('dry-new') }, 201, (b) => assert.equal(b.spec.ingress[0].ports[0].protocol, 'TCP')],
      ['update', 'PUT', `${NP}/dry-existing`, { body: { ...existing, metadata: { ...existing.metadata, labels: { app: 'changed' } } } }, 200, (b) => assert.equal(b.metadata.labels.app, 'changed')],
      ['patch', 'PATCH', `${NP}/dry-existing`, { raw: '{"metadata":{"labels":{"p":"1"}}}', headers: { 'content-type': 'application/merge-patch+json' } }, 200, (b) => assert.equal(b.metadata.labels.p, '1')],
      ['apply (create)', 'PATCH', `${NP}/dry-applied`, { raw: JSON.stringify({ apiVersion: 'networking.orch.io/v1', kind: 'NetworkPolicy', ...policy('dry-applied') }), headers: { 'content-type': 'application/apply-patch+yaml' } }, 201, (b) => assert.equal(b.metadata.managedFields[0].manager, 'dry')],
      ['delete', 'DELETE', `${NP}/dry-existing`, {}, 200, (b) => assert.equal(b.status, 'Success')],
      ['deletecollection', 'DELETE', NP, {}, 200, (b) => assert.deepEqual(b.items.map((i: any) => i.metadata.name), ['dry-existing'])],
    ];
    for (const [name, method, path, options, status, check] of cases) {
      const sep = path.includes('?') ? '&' : '?';
      const manager = name.startsWith('apply') ? '&fieldManager=dry' : '';
      const res = await server.request(method, `${path}${sep}dryRun=All${manager}`, options as any);
      assert.equal(res.status, status, `${name}: ${res.text}`);
      check(res.body);
      const bad = await server.request(method, `${path}${sep}dryRun=Maybe${manager}`, options as any);
      assert.equal(bad.status, 400, `${name} with an unknown dryRun value`);
      assert.match(bad.body.message, /dryRun\[0\]: Unsupported value: "Maybe": supported values: "All"/);
    }
    const after = await server.request('GET', NP);
    assert.deepEqual(after.body.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion]), [['dry-existing', existing.metadata.resourceVersion]]);
    assert.equal((await server.request('GET', `${NP}/dry-new`)).status, 404);
    assert.equal((await server.request('GET', `${NP}/dry-applied`)).status, 404);
    await new Promise((r) => setTimeout(r, 300));
    watch.close();
    assert.deepEqual(watch.events, [], 'no watch event');
  });

  test('a dry-run create still fails validation and name collisions like a real one', async () => {
    await server.request('POST', NP, { body: policy('taken') });
    const taken = await server.request('POST', `${NP}?dryRun=All`, { body: policy('taken') });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.reason, 'AlreadyExists');
    const invalid = await server.request('POST', `${NP}?dryRun=All`, { body: { metadata: { name: 'bad' }, spec: { podSelector: {}, ingress: [{ ports: [{ port: 0 }] }] } } });
    assert.equal(invalid.status, 422);
  });
});
