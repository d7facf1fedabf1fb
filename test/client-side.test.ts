/**
 * The client side (issue 8; SPEC 2.9, 2.10): credential plugins run as real
 * scripts against a running server, cluster-info verified before it is
 * trusted, and kubectl with an exec plugin.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { stringify } from 'yaml';
import { hasKubectl } from './helpers/kubectl.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { issue, makeCa } from './helpers/pki.ts';
import { loadOrchconfig, type ClusterConnection, type ExecConfig } from '../src/client/orchconfig.ts';
import { OrchClient } from '../src/client/http-client.ts';
import { runPlugin } from '../src/client/exec-credential.ts';
import { detachedSignature } from '../src/controllers/bootstrap-signer.ts';
import { publicKeyHash, verifyClusterInfo } from '../src/client/cluster-info.ts';
import { X509Certificate } from 'node:crypto';

const V1 = 'client.authentication.orch.io/v1';

describe('credential plugins and cluster-info', () => {
  let server: TestServer;
  let dir: string;
  let clientCa: ReturnType<typeof makeCa>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-client-'));
    clientCa = makeCa('client-ca');
    writeFileSync(join(dir, 'client-ca.crt'), clientCa.certPem);
    writeFileSync(join(dir, 'tokens.csv'), 'plugin-token,plugin-user,,\nsecond-token,second-user,,\n');
    server = await startTestServer([`--token-auth-file=${join(dir, 'tokens.csv')}`, `--client-ca-file=${join(dir, 'client-ca.crt')}`, '--enable-bootstrap-token-auth']);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A plugin script that answers from a file and counts its runs. */
  function plugin(name: string, answer: (info: any, run: number) => unknown, exitCode = 0): string {
    const script = join(dir, name);
    const answers = join(dir, `${name}.answers.json`);
    const runs = join(dir, `${name}.runs`);
    writeFileSync(answers, JSON.stringify(Array.from({ length: 5 }, (_, i) => i)));
    writeFileSync(
      script,
      `#!/usr/bin/env node
const fs = require('fs');
const runs = fs.existsSync(${JSON.stringify(runs)}) ? Number(fs.readFileSync(${JSON.stringify(runs)}, 'utf8')) + 1 : 1;
fs.writeFileSync(${JSON.stringify(runs)}, String(runs));
fs.writeFileSync(${JSON.stringify(`${runs}.info`)}, process.env.ORCH_EXEC_INFO || process.env.KUBERNETES_EXEC_INFO || '');
const info = JSON.parse(process.env.ORCH_EXEC_INFO || process.env.KUBERNETES_EXEC_INFO);
const answer = (${answer.toString()})(info, runs);
process.stdout.write(typeof answer === 'string' ? answer : JSON.stringify(answer));
process.exit(${exitCode});
`,
    );
    chmodSync(script, 0o755);
    return script;
  }
  const runs = (name: string) => (existsSync(join(dir, `${name}.runs`)) ? Number(readFileSync(join(dir, `${name}.runs`), 'utf8')) : 0);
  const connectionWith = (exec: Partial<ExecConfig>): ClusterConnection => ({
    server: server.url,
    caPem: server.ca,
    exec: { command: '', args: [], env: [], apiVersion: V1, provideClusterInfo: false, interactiveMode: 'Never', ...exec },
  });
  const whoami = async (client: OrchClient) => (await client.request('/apis/authentication.orch.io/v1/selfsubjectreviews', { method: 'POST', body: { kind: 'SelfSubjectReview' } }));

  test('a token plugin: authenticates, cached until expirationTimestamp, one shared run, re-run once after a 401', async () => {
    const script = plugin('token', (_info: any, run: number) => ({
      apiVersion: 'client.authentication.orch.io/v1',
      kind: 'ExecCredential',
      // Run 1 has already expired; run 2 gives a token the server refuses; run 3 a good one, cached.
      status: run === 1 ? { token: 'plugin-token', expirationTimestamp: new Date(Date.now() - 1000).toISOString() } : run === 2 ? { token: 'revoked' } : { token: 'plugin-token' },
    }));
    const client = new OrchClient(connectionWith({ command: script }));
    assert.equal((await whoami(client)).status, 201);
    assert.equal(runs('token'), 1);
    const [a, b] = await Promise.all([whoami(client), whoami(client)]);
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.equal((a.body as any).status.userInfo.username, 'plugin-user');
    assert.equal(runs('token'), 3, 'expired: one shared run; its token got 401: one more shared run');
    assert.equal((await whoami(client)).status, 201);
    assert.equal(runs('token'), 3, 'no expiry: cached');
  });

  test('a client-certificate plugin, with the cluster passed in ORCH_EXEC_INFO', async () => {
    const cert = issue(clientCa, { commonName: 'cert-user', organizations: ['plugins'] });
    const script = plugin('cert', (info: any) => ({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { clientCertificateData: process.env.CERT, clientKeyData: process.env.KEY } }));
    const connection = connectionWith({ command: script, provideClusterInfo: true, env: [{ name: 'CERT', value: cert.certPem }, { name: 'KEY', value: cert.keyPem }] });
    connection.execClusterConfig = { region: 'lab' };
    const res = await whoami(new OrchClient(connection));
    assert.equal(res.status, 201);
    assert.deepEqual((res.body as any).status.userInfo, { username: 'cert-user', groups: ['plugins', 'system:authenticated'] });
    const info = JSON.parse(readFileSync(join(dir, 'cert.runs.info'), 'utf8'));
    assert.deepEqual(info, {
      apiVersion: V1,
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.ca).toString('base64'), config: { region: 'lab' } } },
    });
  });

  test('plugin failures: apiVersion mismatch, exit status, garbage, half a key pair, Always without a terminal', async () => {
    const cases: Array<[string, Partial<ExecConfig>, RegExp]> = [
      ['mismatch', { command: plugin('mismatch', () => ({ apiVersion: 'client.authentication.orch.io/v1beta1', kind: 'ExecCredential', status: { token: 'x' } })) }, /plugin returned version client.authentication.orch.io\/v1beta1/],
      ['exit', { command: plugin('exit', () => ({}), 1), installHint: 'install the thing' }, /exit code 1[\s\S]*install the thing/],
      ['garbage', { command: plugin('garbage', () => 'not json') }, /not an ExecCredential/],
      ['half', { command: plugin('half', (info: any) => ({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { clientCertificateData: 'x' } })) }, /only certificate or key/],
      ['empty', { command: plugin('empty', (info: any) => ({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: {} })) }, /didn't return a token or cert\/key pair/],
      ['always', { command: plugin('always', () => ({})), interactiveMode: 'Always' }, /standard input is not a terminal/],
      ['missing', { command: join(dir, 'no-such-plugin') }, /failed/],
    ];
    for (const [name, exec, message] of cases) {
      const connection = connectionWith(exec);
      await assert.rejects(runPlugin(connection.exec!, connection), message, name);
    }
    assert.equal(runs('always'), 0, 'Always without a terminal never runs the plugin');
  });

  test('the orchconfig loader: exec needs interactiveMode in v1, token and exec together are refused', () => {
    const write = (name: string, user: object) => {
      const file = join(dir, name);
      writeFileSync(file, stringify({ clusters: [{ name: 'c', cluster: { server: server.url } }], users: [{ name: 'u', user }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }], 'current-context': 'x' }));
      return file;
    };
    assert.throws(() => loadOrchconfig(write('no-mode.yaml', { exec: { command: 'x', apiVersion: V1 } })), /interactiveMode must be specified/);
    assert.equal(loadOrchconfig(write('beta.yaml', { exec: { command: 'x', apiVersion: 'client.authentication.orch.io/v1beta1' } })).exec!.interactiveMode, 'IfAvailable');
    assert.throws(() => loadOrchconfig(write('both.yaml', { token: 't', exec: { command: 'x', apiVersion: V1, interactiveMode: 'Never' } })), /both a token and an exec plugin/);
    assert.throws(() => loadOrchconfig(write('version.yaml', { exec: { command: 'x', apiVersion: 'v9', interactiveMode: 'Never' } })), /apiVersion "v9"/);
  });

  test('cluster-info is trusted only when its signature verifies with the full token', async () => {
    await server.request('POST', '/api/v1/namespaces/orch-system/secrets', {
      body: { metadata: { name: 'bootstrap-token-join01' }, type: 'bootstrap.orch.io/token', stringData: { 'token-id': 'join01', 'token-secret': 'abcdefghijklmnop', 'usage-bootstrap-signing': 'true' } },
    });
    let data: Record<string, string> = {};
    for (let i = 0; i < 100 && !data['jws-orchconfig-join01']; i++) {
      data = (await server.request('GET', '/api/v1/namespaces/orch-public/configmaps/cluster-info')).body.data ?? {};
      await new Promise((r) => setTimeout(r, 50));
    }
    const cluster = await verifyClusterInfo(data, 'join01.abcdefghijklmnop');
    assert.equal(cluster.server, server.url);
    assert.equal(cluster.caPem, server.ca);
    const hash = publicKeyHash(new X509Certificate(server.ca));
    assert.equal((await verifyClusterInfo(data, 'join01.abcdefghijklmnop', [`sha256:${hash}`])).server, server.url);
    await assert.rejects(verifyClusterInfo(data, 'join01.abcdefghijklmnop', ['sha256:' + '0'.repeat(64)]), /not in the pinned hashes/);
    await assert.rejects(verifyClusterInfo(data, 'join01.abcdefghijklmnoq'), /failed to verify JWS signature/);
    await assert.rejects(verifyClusterInfo({ ...data, orchconfig: data.orchconfig.replace('127.0.0.1', '10.0.0.1') }, 'join01.abcdefghijklmnop'), /failed to verify/);
    await assert.rejects(verifyClusterInfo(data, 'other1.abcdefghijklmnop'), /no JWS signed token/);
    assert.equal(await detachedSignature(data.orchconfig, 'join01', 'abcdefghijklmnop'), data['jws-orchconfig-join01']);
    const [header, , signature] = data['jws-orchconfig-join01'].split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'join01' })).toString('base64url')}..${signature}`;
    await assert.rejects(verifyClusterInfo({ ...data, 'jws-orchconfig-join01': none }, 'join01.abcdefghijklmnop'), /not HS256/);
    assert.ok(header);
  });

  test('kubectl with an exec plugin', { skip: !hasKubectl() && 'kubectl is not installed' }, async () => {
    writeFileSync(join(dir, 'tokens.csv'), 'plugin-token,plugin-user,,"system:masters"\n');
    // The token file is read at start: restart to pick up the new one.
    const fresh = await startTestServer([`--token-auth-file=${join(dir, 'tokens.csv')}`]);
    try {
      // kubectl speaks upstream's group: the plugin answers in whatever version it was called with.
      const script = plugin('kubectl', (info: any) => ({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token: 'plugin-token' } }));
      const config = join(dir, 'exec.orchconfig');
      writeFileSync(
        config,
        stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'c', cluster: { server: fresh.url, 'certificate-authority-data': Buffer.from(fresh.ca).toString('base64') } }],
          users: [{ name: 'u', user: { exec: { command: script, apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never' } } }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'x',
        }),
      );
      const out = execFileSync('kubectl', ['--kubeconfig', config, 'get', 'namespaces', '-o', 'name'], { encoding: 'utf8' });
      assert.match(out, /namespace\/default/);
      assert.ok(runs('kubectl') >= 1);
    } finally {
      await fresh.close();
    }
  });
});
