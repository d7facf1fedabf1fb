/**
 * The etcd store's series on /metrics (upstream pkg/storage/etcd3/metrics):
 * etcd_request_duration_seconds, etcd_requests_total and etcd_request_errors_total
 * by operation and object type, summed over the server's processes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { etcdAvailable, startEtcd, type TestEtcd } from './helpers/etcd.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const CM = '/api/v1/namespaces/default/configmaps';

/** The samples of one metric name with its labels, from the text format. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels = Object.fromEntries([...match[2].matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    out.push({ labels, value: Number(match[3]) });
  }
  return out;
}

const valueOf = (text: string, name: string, want: Record<string, string>) =>
  samples(text, name).find((s) => Object.entries(want).every(([k, v]) => s.labels[k] === v))?.value ?? 0;

describe('etcd request metrics', { skip: etcdAvailable() ? false : 'etcd is not installed' }, () => {
  let etcd: TestEtcd;
  let server: TestServer;
  before(async () => {
    etcd = await startEtcd();
    server = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--request-timeout=3s']);
  });
  after(async () => {
    await server?.close();
    await etcd?.stop();
  });

  const scrape = async () => {
    const res = await server.request('GET', '/metrics');
    assert.equal(res.status, 200);
    return res.text;
  };

  test('creates, updates and deletes are counted by operation and type, with the latency histogram', async () => {
    const before = await scrape();
    const created = await server.request('POST', CM, { body: { metadata: { name: 'counted' } } });
    assert.equal(created.status, 201);
    assert.equal((await server.request('PUT', `${CM}/counted`, { body: { metadata: { name: 'counted' }, data: { a: 'b' } } })).status, 200);
    // A create of an existing name is an outcome etcd answered, not a failed request.
    assert.equal((await server.request('POST', CM, { body: { metadata: { name: 'counted' } } })).status, 409);
    assert.equal((await server.request('DELETE', `${CM}/counted`)).status, 200);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    assert.equal(delta('etcd_requests_total', { operation: 'create', type: 'configmaps' }), 2);
    assert.ok(delta('etcd_requests_total', { operation: 'update', type: 'configmaps' }) >= 1);
    assert.ok(delta('etcd_requests_total', { operation: 'delete', type: 'configmaps' }) >= 1);
    assert.equal(delta('etcd_request_errors_total', { operation: 'create', type: 'configmaps' }), 0);
    const count = valueOf(after, 'etcd_request_duration_seconds_count', { operation: 'create', type: 'configmaps' });
    assert.equal(count, valueOf(after, 'etcd_requests_total', { operation: 'create', type: 'configmaps' }));
    assert.equal(valueOf(after, 'etcd_request_duration_seconds_bucket', { operation: 'create', type: 'configmaps', le: '+Inf' }), count);
    const buckets = samples(after, 'etcd_request_duration_seconds_bucket').filter((s) => s.labels.operation === 'create' && s.labels.type === 'configmaps');
    assert.equal(buckets.length, 24, 'upstream buckets and +Inf');
    assert.match(after, /# HELP etcd_request_duration_seconds \[ALPHA\] Etcd request latency in seconds for each operation and object type\./);
    // Other groups are typed resource.group, as upstream's groupResourceString.
    assert.ok(valueOf(after, 'etcd_requests_total', { operation: 'list', type: 'networkpolicies.networking.orch.io' }) >= 1);
  });

  test('a store that does not answer is counted as failed requests', async () => {
    const before = await scrape();
    etcd.process.kill('SIGKILL');
    try {
      const res = await server.request('POST', CM, { body: { metadata: { name: 'lost' } } });
      assert.ok(res.status >= 500, `${res.status}`);
    } finally {
      await etcd.restart();
    }
    let after = '';
    for (let i = 0; i < 50; i++) {
      after = await scrape();
      if (valueOf(after, 'etcd_request_errors_total', { operation: 'create', type: 'configmaps' }) > valueOf(before, 'etcd_request_errors_total', { operation: 'create', type: 'configmaps' })) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(valueOf(after, 'etcd_request_errors_total', { operation: 'create', type: 'configmaps' }) >= 1, after.split('\n').filter((l) => l.startsWith('etcd_request_errors')).join('\n'));
  });
});
