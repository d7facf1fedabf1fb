/**
 * gzip of large responses (gate APIResponseCompression, SPEC 9.6; upstream
 * responsewriters): over 128 KiB to a client sending `Accept-Encoding: gzip`,
 * on every path a list takes (the cache's shared body, a chunk, a filtered
 * stream, a Table, a protobuf list or chunk), decoding to the bytes of the
 * plain answer.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';

const CMS = '/api/v1/namespaces/default/configmaps';
const COUNT = 160;
const GZIP = { 'accept-encoding': 'gzip, deflate' };
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' };
const PROTOBUF = { accept: 'application/vnd.orch.protobuf' };

/** 160 ConfigMaps of about 1 KiB each: every list of them is over the 128 KiB threshold. */
async function fill(server: TestServer): Promise<void> {
  for (let i = 0; i < COUNT; i += 16) {
    await Promise.all(
      Array.from({ length: 16 }, async (_, j) => {
        const res = await server.request('POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i + j}`, labels: { big: 'yes' } }, data: { blob: 'x'.repeat(1024) } } });
        assert.equal(res.status, 201, res.text);
      }),
    );
  }
}

function assertPlain(res: { status: number; headers: Record<string, unknown> }): void {
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-encoding'], undefined);
}

describe('gzip of large responses (APIResponseCompression on by default)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(['--workers=1']);
    await fill(server);
  });
  after(() => server?.close());

  for (const [what, path, headers] of [
    ['the whole list (the shared body)', CMS, {}],
    ['a chunk the cache holds', `${CMS}?limit=150`, {}],
    ['a filtered list (streamed)', `${CMS}?labelSelector=big%3Dyes`, {}],
    ['a Table with its objects', `${CMS}?includeObject=Object`, TABLE],
    ['a pretty list (one string)', `${CMS}?pretty=true`, {}],
    ['a protobuf list (its items shared, the envelope around them per answer)', CMS, PROTOBUF],
    ['a protobuf chunk', `${CMS}?limit=150`, PROTOBUF],
  ] as const) {
    test(`${what}: gzipped, decoding to the plain answer's bytes`, async () => {
      const plain = await server.request('GET', path, { headers });
      assertPlain(plain);
      assert.ok(plain.bytes.length > 128 * 1024, `${plain.bytes.length} bytes`);
      const zipped = await server.request('GET', path, { headers: { ...headers, ...GZIP } });
      assert.equal(zipped.status, 200);
      assert.equal(zipped.headers['content-encoding'], 'gzip');
      assert.equal(zipped.headers.vary, 'Accept-Encoding');
      assert.ok(zipped.bytes.length < plain.bytes.length / 4, `${zipped.bytes.length} of ${plain.bytes.length}`);
      const decoded = gunzipSync(zipped.bytes);
      if (headers === TABLE) {
        // A Table's rows carry ages: compare all but the cells.
        const [a, b] = [JSON.parse(decoded.toString()), plain.body];
        assert.deepEqual(a.rows.map((r: any) => r.object.metadata.name), b.rows.map((r: any) => r.object.metadata.name));
        assert.ok(a.rows.length >= COUNT);
      } else assert.ok(decoded.equals(plain.bytes));
      // A second reader of the same version gets the same bytes (compressed once, shared).
      const again = await server.request('GET', path, { headers: { ...headers, ...GZIP } });
      if (headers !== TABLE) assert.ok(gunzipSync(again.bytes).equals(plain.bytes));
    });
  }

  test('a small answer is not gzipped; nor is anything without Accept-Encoding gzip', async () => {
    assertPlain(await server.request('GET', `${CMS}/cm-1`, { headers: GZIP }));
    assertPlain(await server.request('GET', `${CMS}?limit=5`, { headers: GZIP }));
    assertPlain(await server.request('GET', CMS));
    // Upstream matches the bare token only (ContentEncodingSupported).
    assertPlain(await server.request('GET', CMS, { headers: { 'accept-encoding': 'deflate, br' } }));
    assertPlain(await server.request('GET', CMS, { headers: { 'accept-encoding': 'gzip;q=1' } }));
  });

  test('after a change, the gzipped list is the new version', async () => {
    const del = await server.request('DELETE', `${CMS}/cm-0`);
    assert.equal(del.status, 200);
    const plain = await server.request('GET', CMS);
    const zipped = await server.request('GET', CMS, { headers: GZIP });
    assert.ok(gunzipSync(zipped.bytes).equals(plain.bytes));
    assert.equal(JSON.parse(gunzipSync(zipped.bytes).toString()).items.filter((i: any) => i.metadata.labels?.big === 'yes').length, COUNT - 1);
  });

  test('kubectl (Go transport, Accept-Encoding gzip) lists the large collection', { skip: !hasKubectl() && 'no kubectl on PATH' }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'kubectl-home-'));
    try {
      const out = await runKubectl(server.orchconfig, home, ['get', 'configmaps', '-n', 'default', '-l', 'big=yes', '-o', 'name']);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.stdout.trim().split('\n').length, COUNT - 1);
      const json = await runKubectl(server.orchconfig, home, ['get', 'configmaps', '-n', 'default', '-o', 'json', '--chunk-size=0']);
      assert.equal(json.code, 0, json.stderr);
      assert.equal(JSON.parse(json.stdout).items.filter((i: any) => i.metadata.labels?.big === 'yes').length, COUNT - 1);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('gzip off', () => {
  for (const gates of ['APIResponseCompression=false', 'AllBeta=false']) {
    test(`--feature-gates=${gates}: large lists go plain`, async () => {
      const server = await startTestServer(['--workers=1', `--feature-gates=${gates}`]);
      try {
        await fill(server);
        const res = await server.request('GET', CMS, { headers: GZIP });
        assertPlain(res);
        assert.equal(res.body.items.filter((i: any) => i.metadata.labels?.big === 'yes').length, COUNT);
      } finally {
        await server.close();
      }
    });
  }
});
