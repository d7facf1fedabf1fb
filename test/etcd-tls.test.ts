/**
 * etcd over TLS (kube-apiserver's --etcd-cafile, --etcd-certfile,
 * --etcd-keyfile): a real etcd serving https:// and requiring client
 * certificates, with certificates made here. The server stores and watches
 * through it; a client certificate from another CA is refused and the server
 * says why; unreadable or mismatched files stop it at start-up.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { eventually } from './helpers/eventually.ts';
import { etcdAvailable, startEtcd, type EtcdTls, type TestEtcd } from './helpers/etcd.ts';
import { issue, makeCa } from './helpers/pki.ts';
import { BIN, startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const NP = '/apis/networking.orch.io/v1/namespaces/default/networkpolicies';
const policy = (name: string) => ({ apiVersion: 'networking.orch.io/v1', kind: 'NetworkPolicy', metadata: { name }, spec: { podSelector: {} } });

describe('etcd over TLS with client certificates', { skip: !etcdAvailable() && 'etcd is not installed' }, () => {
  let dir: string;
  let etcd: TestEtcd;
  let tls: EtcdTls;
  let strangerCert: string;
  let strangerKey: string;
  const servers: TestServer[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-etcd-tls-'));
    const write = (name: string, pem: string) => {
      const path = join(dir, name);
      writeFileSync(path, pem);
      return path;
    };
    const ca = makeCa('etcd-ca');
    const serving = issue(ca, { commonName: 'etcd' }, { usages: ['serverAuth'], hosts: ['127.0.0.1', 'localhost'] });
    const client = issue(ca, { commonName: 'orch-apiserver' }, { usages: ['clientAuth'] });
    const stranger = issue(makeCa('other-ca'), { commonName: 'orch-apiserver' }, { usages: ['clientAuth'] });
    tls = {
      caFile: write('ca.crt', ca.certPem),
      certFile: write('etcd.crt', serving.certPem),
      keyFile: write('etcd.key', serving.keyPem),
      clientCertFile: write('client.crt', client.certPem),
      clientKeyFile: write('client.key', client.keyPem),
    };
    strangerCert = write('stranger.crt', stranger.certPem);
    strangerKey = write('stranger.key', stranger.keyPem);
    etcd = await startEtcd({ tls });
  });
  after(async () => {
    for (const server of servers) await server.close();
    await etcd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('creates, reads and watches through https:// with the client certificate', async () => {
    assert.match(etcd.endpoint, /^https:/);
    const server = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, `--etcd-cafile=${tls.caFile}`, `--etcd-certfile=${tls.clientCertFile}`, `--etcd-keyfile=${tls.clientKeyFile}`]);
    servers.push(server);
    await eventually('the server ready over TLS', async () => ((await server.request('GET', '/readyz')).status === 200 ? true : undefined));
    const watch = openWatch(server, `${NP}?watch=1`);
    assert.equal(await watch.status, 200);
    const created = await server.request('POST', NP, { body: policy('over-tls') });
    assert.equal(created.status, 201, created.text);
    const events = await watch.waitFor(1);
    watch.close();
    assert.equal(events[0].type, 'ADDED');
    assert.equal(events[0].object.metadata.name, 'over-tls');
    const read = await server.request('GET', `${NP}/over-tls`);
    assert.equal(read.status, 200);
    assert.equal(read.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
  });

  test('a client certificate from another CA is refused: never ready, and the reason is logged', async () => {
    const server = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, `--etcd-cafile=${tls.caFile}`, `--etcd-certfile=${strangerCert}`, `--etcd-keyfile=${strangerKey}`], { startTimeoutMs: 30_000 }).catch((err: Error) => err);
    if (server instanceof Error) {
      // Refused before serving: the start-up output must name the TLS failure.
      assert.match(server.message, /certificate|alert|handshake/i);
      return;
    }
    servers.push(server);
    await eventually('the TLS refusal in the log', async () => (/etcd[^\n]*(certificate|alert|handshake)/i.test(server.output()) ? true : undefined));
    const ready = await server.request('GET', '/readyz?verbose');
    assert.equal(ready.status, 500, ready.text);
    assert.match(ready.text, /\[-\]etcd failed/);
  });

  test('a server without the client certificate is refused as well', async () => {
    const server = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, `--etcd-cafile=${tls.caFile}`], { startTimeoutMs: 30_000 }).catch((err: Error) => err);
    if (server instanceof Error) {
      assert.match(server.message, /certificate|alert|handshake/i);
      return;
    }
    servers.push(server);
    const ready = await server.request('GET', '/readyz?verbose');
    assert.equal(ready.status, 500, ready.text);
    assert.match(ready.text, /\[-\]etcd failed/);
  });

  test('missing or mismatched files stop the server at start-up with a message naming the flag', () => {
    const run = (...flags: string[]) => spawnSync(process.execPath, [BIN, '--data-dir', dir, '--secure-port', '0', '--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, ...flags], { encoding: 'utf8', timeout: 30_000 });
    const missing = run(`--etcd-cafile=${join(dir, 'absent.crt')}`);
    assert.equal(missing.status, 1, missing.stderr);
    assert.match(missing.stderr, /--etcd-cafile: cannot read .*absent\.crt/);
    const mismatched = run(`--etcd-cafile=${tls.caFile}`, `--etcd-certfile=${tls.clientCertFile}`, `--etcd-keyfile=${strangerKey}`);
    assert.equal(mismatched.status, 1, mismatched.stderr);
    assert.match(mismatched.stderr, /etcd client TLS .*key values mismatch/);
    const half = run(`--etcd-certfile=${tls.clientCertFile}`);
    assert.equal(half.status, 1, half.stderr);
    assert.match(half.stderr, /--etcd-certfile and --etcd-keyfile must be given together/);
  });
});
