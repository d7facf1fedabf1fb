/**
 * Watch as Table (SPEC 2.5, 4.7; apiserver watchEmbeddedEncoder): one-row
 * Tables, column definitions in the first event only, includeObject, and the
 * real kubectl's `get --watch` printing the server's columns.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';
import { hasKubectl } from './helpers/kubectl.ts';
import { eventually } from './helpers/eventually.ts';

const CM = '/api/v1/namespaces/default/configmaps';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

describe('watch as Table', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  test('each event is a one-row Table; columns come in the first event only', async () => {
    const list = await server.request('GET', CM);
    const watch = openWatch(server, `${CM}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`, server.token, TABLE);
    assert.equal(await watch.status, 200);
    try {
      const made = await server.request('POST', CM, { body: { metadata: { name: 'tw-a' }, data: { a: '1', b: '2' } } });
      assert.equal(made.status, 201);
      const updated = await server.request('PUT', `${CM}/tw-a`, { body: { ...made.body, data: { a: '1' } } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal((await server.request('DELETE', `${CM}/tw-a`)).status, 200);
      const events = await watch.waitFor(3);
      assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
      assert.deepEqual(events[0].object.columnDefinitions.map((c: any) => c.name), ['Name', 'Data', 'Age']);
      assert.equal(events[1].object.columnDefinitions, null);
      assert.equal(events[2].object.columnDefinitions, null);
      for (const e of events) {
        assert.equal(e.object.kind, 'Table');
        assert.equal(e.object.apiVersion, 'meta.k8s.io/v1');
        assert.equal(e.object.rows.length, 1);
        assert.equal(e.object.rows[0].object.kind, 'PartialObjectMetadata');
        assert.equal(e.object.rows[0].object.metadata.name, 'tw-a');
        assert.equal(e.object.metadata.resourceVersion, e.object.rows[0].object.metadata.resourceVersion);
      }
      assert.deepEqual(events.map((e) => e.object.rows[0].cells.slice(0, 2)), [['tw-a', 2], ['tw-a', 1], ['tw-a', 1]]);
      assert.equal(events[1].object.metadata.resourceVersion, updated.body.metadata.resourceVersion);
    } finally {
      watch.close();
    }
  });

  test('includeObject on a watch: Object, None, and a bad value is a 400', async () => {
    await server.request('POST', CM, { body: { metadata: { name: 'tw-b' }, data: { x: 'y' } } });
    for (const [include, check] of [
      ['Object', (row: any) => assert.deepEqual([row.object.kind, row.object.data], ['ConfigMap', { x: 'y' }])],
      ['None', (row: any) => assert.equal(row.object, undefined)],
    ] as const) {
      const watch = openWatch(server, `${CM}?watch=true&fieldSelector=metadata.name%3Dtw-b&includeObject=${include}`, server.token, TABLE);
      try {
        const [initial] = await watch.waitFor(1);
        assert.equal(initial.type, 'ADDED');
        assert.deepEqual(initial.object.columnDefinitions.map((c: any) => c.name), ['Name', 'Data', 'Age']);
        check(initial.object.rows[0]);
      } finally {
        watch.close();
      }
    }
    const bad = await server.request('GET', `${CM}?watch=true&includeObject=Everything`, { headers: TABLE });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.message, 'unrecognized includeObject value: "Everything"');
  });

  test('kubectl get --watch prints the server columns for a create, an update and a delete', { skip: !hasKubectl() && 'no kubectl on PATH' }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'kubectl-home-'));
    const child = spawn('kubectl', ['--kubeconfig', server.orchconfig, 'get', 'configmaps', '--watch', '--output-watch-events', '-n', 'default', '--field-selector', 'metadata.name=tw-k'], { env: { ...process.env, HOME: home } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      // kubectl first lists (nothing matches), then watches.
      await new Promise((r) => setTimeout(r, 1500));
      const made = await server.request('POST', CM, { body: { metadata: { name: 'tw-k' }, data: { one: '1' } } });
      assert.equal(made.status, 201);
      await server.request('PUT', `${CM}/tw-k`, { body: { ...made.body, data: { one: '1', two: '2', three: '3' } } });
      await server.request('DELETE', `${CM}/tw-k`);
      await eventually('kubectl printed three events', async () => ((out.match(/tw-k/g) ?? []).length >= 3 ? true : undefined));
      const lines = out.trim().split('\n');
      assert.match(lines[0], /^EVENT\s+NAME\s+DATA\s+AGE$/, out);
      const rows = lines.filter((l) => l.includes('tw-k')).map((l) => l.trim().split(/\s+/).slice(0, 3));
      assert.deepEqual(rows, [['ADDED', 'tw-k', '1'], ['MODIFIED', 'tw-k', '3'], ['DELETED', 'tw-k', '3']], out);
    } finally {
      child.kill();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
