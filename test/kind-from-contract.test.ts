/**
 * A brand-new kind written as its contract alone (issue 31, proof): an
 * overlay under openapi/kinds/ with its schema (a maximum, an enum, an
 * x-kubernetes-validations rule with a messageExpression), printer columns
 * and a status subresource, then `codegen`; no line of code outside openapi/.
 * It is served end to end: create, the three rules refused in custom
 * resources' field error shapes, ratcheting of an object stored before the
 * rules existed, Table columns, discovery, OpenAPI, protobuf and watch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ProtobufCodec } from '../src/api/protobuf/codec.ts';
import { PROTOBUF_TYPE } from '../src/api/protobuf/envelope.ts';
import { startServer } from '../src/server/start.ts';
import { request, ROOT } from './helpers/server.ts';

const TSX = join(ROOT, 'node_modules/.bin/tsx');
const OBJECT_META = `'#/components/schemas/io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta'`;

/** The Widget's whole contract; `rules` adds the three rules a later release of the contract brings. */
function widgetOverlay(rules: boolean): string {
  return `
# A Widget: a kind of this server's own, written as its contract alone.
group: example.orch.io
kind: Widget
versions:
  v1:
    schema: io.example.v1.Widget
    schemas:
      io.example.v1.Widget:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {allOf: [{$ref: ${OBJECT_META}}], default: {}, x-orch-protobuf-field: 1}
          spec: {allOf: [{$ref: '#/components/schemas/io.example.v1.WidgetSpec'}], default: {}, x-orch-protobuf-field: 2}
          status: {allOf: [{$ref: '#/components/schemas/io.example.v1.WidgetStatus'}], default: {}, x-orch-protobuf-field: 3}
      io.example.v1.WidgetSpec:
        type: object
        properties:
          size:
            type: integer
            format: int32
            description: How big the widget is.
            x-orch-protobuf-field: 1
${rules ? '            maximum: 10' : ''}
          color:
            type: string
            description: What colour the widget is.
            x-orch-protobuf-field: 2
${rules ? '            enum: [red, blue]' : ''}
          parts: {type: integer, format: int32, x-orch-protobuf-field: 3}
${rules ? `        x-kubernetes-validations:
          - rule: "!has(self.parts) || !has(self.size) || self.parts <= self.size"
            messageExpression: "'parts must not outnumber the size (' + (self.parts > 100 ? 'far ' : '') + 'too many)'"` : ''}
      io.example.v1.WidgetStatus:
        type: object
        properties:
          phase:
            type: string
            x-orch-protobuf-field: 1
${rules ? '            enum: [Pending, Ready]' : ''}
plural: widgets
shortNames: [wd]
namespaced: true
subresources: [status]
printerColumns:
  - Name
  - {name: Size, type: integer, description: {schema: io.example.v1.WidgetSpec, property: size}, jsonPath: .spec.size}
  - {name: Color, type: string, description: {schema: io.example.v1.WidgetSpec, property: color}, jsonPath: .spec.color}
  - {name: Phase, type: string, priority: 1, description: The widget's phase., jsonPath: .status.phase}
  - Age
`;
}

/** Generates the server's API from a copy of the contract with the Widget's overlay added. */
function generate(work: string, name: string, rules: boolean): { dir: string; overlay: string } {
  const contract = join(work, `openapi-${name}`);
  cpSync(join(ROOT, 'openapi'), contract, { recursive: true });
  mkdirSync(join(contract, 'kinds/example.orch.io'));
  const overlay = widgetOverlay(rules);
  writeFileSync(join(contract, 'kinds/example.orch.io/Widget.yaml'), overlay);
  // A rule on a body kind too: every Scale written through a scale subresource keeps it.
  if (rules) appendFileSync(join(contract, 'kinds/autoscaling/Scale.yaml'), '\npatches:\n  io.k8s.api.autoscaling.v1.ScaleSpec:\n    properties:\n      replicas: {maximum: 100}\n');
  const dir = join(work, `generated-${name}`);
  execFileSync(TSX, ['codegen/generate.ts', '--contract', contract, '--out', dir], { cwd: ROOT });
  return { dir, overlay };
}

async function serve(generated: string, dataDir: string) {
  const api = await import(pathToFileURL(join(generated, 'index.ts')).href);
  const running = await startServer({
    api,
    dataDir,
    port: 0,
    bindAddress: '127.0.0.1',
    authorizers: [{ type: 'AlwaysAllow', name: 'alwaysallow' }],
    livezGracePeriodMs: 0,
    shutdownDelayMs: 0,
  });
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    request(running.url, running.caPem, method, path, { body, headers, defaultToken: running.adminToken });
  return { api, running, call };
}

/** The first event line a watch sends. */
function firstWatchLine(url: string, ca: string, token: string, path: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, url), { ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
        const line = text.indexOf('\n');
        if (line >= 0) {
          resolve(JSON.parse(text.slice(0, line)));
          req.destroy();
        }
      });
    });
    req.on('error', (err) => (err.message.includes('aborted') || (err as any).code === 'ECONNRESET' ? undefined : reject(err)));
    req.end();
  });
}

const WIDGETS = '/apis/example.orch.io/v1/namespaces/default/widgets';
const widget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'example.orch.io/v1', kind: 'Widget', metadata: { name }, spec });

test('a kind written as its contract alone is served, its rules enforced as a custom resource\'s', async () => {
  const work = mkdtempSync(join(tmpdir(), 'orch-widget-'));
  const dataDir = join(work, 'data');
  try {
    // Release 1 of the contract has no rules: an object it stores would break the next release's.
    const first = generate(work, 'release-1', false);
    const one = await serve(first.dir, dataDir);
    try {
      const stored = await one.call('POST', WIDGETS, widget('old', { size: 50, color: 'green', parts: 60 }));
      assert.equal(stored.status, 201, stored.text);
    } finally {
      await one.running.shutdown();
    }

    const second = generate(work, 'release-2', true);
    // Nothing but the overlay: no folder of hooks, no line of code outside openapi/.
    assert.equal(existsSync(join(ROOT, 'src/kinds/example.orch.io')), false);
    const { api, running, call } = await serve(second.dir, dataDir);
    try {
      const created = await call('POST', WIDGETS, widget('w1', { size: 3, color: 'red', parts: 2 }));
      assert.equal(created.status, 201, created.text);

      // The three rules, refused with custom resources' field error shapes and words.
      const tooBig = await call('POST', WIDGETS, widget('w2', { size: 11 }));
      assert.equal(tooBig.status, 422);
      assert.equal(tooBig.body.message, 'Widget.example.orch.io "w2" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10');
      assert.deepEqual(tooBig.body.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: 11: spec.size in body should be less than or equal to 10', field: 'spec.size' }]);
      const green = await call('POST', WIDGETS, widget('w3', { color: 'green' }));
      assert.deepEqual(green.body.details.causes, [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: "green": supported values: "red", "blue"', field: 'spec.color' }]);
      const crowded = await call('POST', WIDGETS, widget('w4', { size: 2, parts: 200 }));
      assert.deepEqual(crowded.body.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": parts must not outnumber the size (far too many)', field: 'spec' }]);

      // Ratcheting: the object stored before the rules keeps what it did not change, and no more.
      const old = await call('GET', `${WIDGETS}/old`);
      const relabelled = await call('PUT', `${WIDGETS}/old`, { ...old.body, metadata: { ...old.body.metadata, labels: { touched: 'yes' } } });
      assert.equal(relabelled.status, 200, relabelled.text);
      assert.match(String(relabelled.headers.warning), /parts must not outnumber the size/, 'a rule ratcheting forgave is a warning');
      const grown = await call('PUT', `${WIDGETS}/old`, { ...relabelled.body, spec: { ...relabelled.body.spec, size: 51 } });
      assert.equal(grown.status, 422);
      // The changed size is checked, and so is the spec's rule (the spec changed); the unchanged colour is not.
      assert.deepEqual(grown.body.details.causes.map((c: any) => c.field), ['spec.size', 'spec']);

      // The status subresource: its own rules, and spec left alone.
      const status = await call('PUT', `${WIDGETS}/w1/status`, { ...created.body, spec: { size: 9 }, status: { phase: 'Gone' } });
      assert.deepEqual(status.body.details.causes, [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: "Gone": supported values: "Pending", "Ready"', field: 'status.phase' }]);
      const ready = await call('PUT', `${WIDGETS}/w1/status`, { ...created.body, spec: { size: 9 }, status: { phase: 'Ready' } });
      assert.equal(ready.status, 200, ready.text);
      assert.equal(ready.body.spec.size, 3, 'a status write changes no spec');

      // Table columns, discovery and OpenAPI come from the same overlay.
      const table = await call('GET', WIDGETS, undefined, { accept: 'application/json;as=Table;g=meta.orch.io;v=v1' });
      assert.deepEqual(table.body.columnDefinitions.map((c: any) => c.name), ['Name', 'Size', 'Color', 'Phase', 'Age']);
      assert.deepEqual(table.body.rows.find((r: any) => r.cells[0] === 'w1').cells.slice(0, 4), ['w1', 3, 'red', 'Ready']);
      const discovery = await call('GET', '/apis/example.orch.io/v1');
      assert.deepEqual(discovery.body.resources.map((r: any) => r.name).sort(), ['widgets', 'widgets/status']);
      const published = await call('GET', '/openapi/v3/apis/example.orch.io/v1');
      const spec = published.body.components.schemas['io.example.v1.WidgetSpec'];
      assert.equal(spec.properties.size.maximum, 10, 'what the server enforces, it publishes');
      assert.deepEqual(spec.properties.color.enum, ['red', 'blue']);
      assert.equal(spec['x-kubernetes-validations'][0].rule, '!has(self.parts) || !has(self.size) || self.parts <= self.size');

      // Protobuf, both ways, and a watch.
      const codec = new ProtobufCodec(api.protobuf);
      const binary = await call('GET', `${WIDGETS}/w1`, undefined, { accept: PROTOBUF_TYPE });
      assert.equal(binary.headers['content-type'], PROTOBUF_TYPE);
      assert.deepEqual((codec.decodeObject(binary.bytes, 'example.orch.io/v1', 'Widget') as any).spec, { size: 3, color: 'red', parts: 2 });
      const list = await call('GET', WIDGETS);
      const watched = firstWatchLine(running.url, running.caPem, running.adminToken, `${WIDGETS}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
      assert.equal((await call('POST', WIDGETS, widget('w5', { size: 1, color: 'blue' }))).status, 201);
      const event = await watched;
      assert.equal(event.type, 'ADDED');
      assert.equal(event.object.metadata.name, 'w5');

      // The body kind's rule, on a Deployment's scale subresource.
      const deployments = '/apis/apps/v1/namespaces/default/deployments';
      const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
      assert.equal((await call('POST', deployments, { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'a' } }, template } })).status, 201);
      const scale = await call('GET', `${deployments}/d/scale`);
      const tooMany = await call('PUT', `${deployments}/d/scale`, { ...scale.body, spec: { replicas: 1000 } });
      assert.equal(tooMany.status, 422, tooMany.text);
      assert.equal(tooMany.body.message, 'Scale.autoscaling "d" is invalid: spec.replicas: Invalid value: 1000: spec.replicas in body should be less than or equal to 100');
      assert.equal((await call('PUT', `${deployments}/d/scale`, { ...scale.body, spec: { replicas: 3 } })).status, 200);
    } finally {
      await running.shutdown();
    }
    // The whole kind: its overlay, and nothing else.
    const lines = second.overlay.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#')).length;
    assert.ok(lines < 60, `the overlay is ${lines} lines`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
