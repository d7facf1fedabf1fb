/**
 * Credential plugins (SPEC 2.10) as real scripts against a running server:
 * token and certificate answers, ORCH_EXEC_INFO, caching until expiry, one
 * shared run, client-go's refresh after a 401, every failure in client-go's
 * words; and kubectl with an exec plugin (skipped without kubectl).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { issue, makeCa } from './helpers/pki.ts';
import { loadOrchconfig, type ClusterConnection, type ExecConfig } from '../src/client/orchconfig.ts';
import { OrchClient } from '../src/client/http-client.ts';
import { execCluster, runPlugin } from '../src/client/exec-credential.ts';

const V1 = 'client.authentication.orch.io/v1';
const V1BETA1 = 'client.authentication.orch.io/v1beta1';

describe('credential plugins', () => {
  let server: TestServer;
  let dir: string;
  const clientCa = makeCa('plugin-client-ca');
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-exec-'));
    writeFileSync(join(dir, 'client-ca.crt'), clientCa.certPem);
    writeFileSync(join(dir, 'tokens.csv'), 'plugin-token,plugin-user,,\nsecond-token,second-user,,\n');
    server = await startTestServer(['--authorization-mode=AlwaysAllow', `--token-auth-file=${join(dir, 'tokens.csv')}`, `--client-ca-file=${join(dir, 'client-ca.crt')}`]);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A plugin script: it counts its runs in a file, records what it was given
   * (argv, ORCH_EXEC_INFO or KUBERNETES_EXEC_INFO, one env var), waits
   * `delayMs`, and prints what `answer(info, run)` returns (a string as is).
   */
  function plugin(name: string, answer: (info: any, run: number) => unknown, options: { exitCode?: number; delayMs?: number } = {}): string {
    const script = join(dir, name);
    const base = join(dir, `${name}.state`);
    writeFileSync(
      script,
      `#!/usr/bin/env node
const fs = require('fs');
const base = ${JSON.stringify(base)};
const run = fs.existsSync(base + '.runs') ? Number(fs.readFileSync(base + '.runs', 'utf8')) + 1 : 1;
fs.writeFileSync(base + '.runs', String(run));
const raw = process.env.ORCH_EXEC_INFO || process.env.KUBERNETES_EXEC_INFO || '';
fs.writeFileSync(base + '.given', JSON.stringify({ argv: process.argv.slice(2), raw, plugin_env: process.env.PLUGIN_ENV, kubernetes: 'KUBERNETES_EXEC_INFO' in process.env }));
const info = raw ? JSON.parse(raw) : {};
setTimeout(() => {
  const answer = (${answer.toString()})(info, run);
  process.stdout.write(typeof answer === 'string' ? answer : JSON.stringify(answer));
  process.exitCode = ${options.exitCode ?? 0};
}, ${options.delayMs ?? 0});
`,
    );
    chmodSync(script, 0o755);
    return script;
  }
  const runs = (name: string) => (existsSync(join(dir, `${name}.state.runs`)) ? Number(readFileSync(join(dir, `${name}.state.runs`), 'utf8')) : 0);
  const given = (name: string) => JSON.parse(readFileSync(join(dir, `${name}.state.given`), 'utf8'));
  const execConfig = (exec: Partial<ExecConfig>): ExecConfig => ({ command: '', args: [], env: [], apiVersion: V1, provideClusterInfo: false, interactiveMode: 'Never', ...exec });
  const connectionWith = (exec: Partial<ExecConfig>): ClusterConnection => ({ server: server.url, caPem: server.ca, exec: execConfig(exec) });
  const whoami = async (client: OrchClient) => {
    const res = await client.request('/apis/authentication.orch.io/v1/selfsubjectreviews', { method: 'POST', body: { kind: 'SelfSubjectReview' } });
    return { status: res.status, user: (res.body as any)?.status?.userInfo };
  };
  const tokenAnswer = (token: string) => `(info) => ({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token: ${JSON.stringify(token)} } })`;

  test('a token plugin from an orchconfig: args, env, ORCH_EXEC_INFO without the cluster; cached without expiry; clients of one configuration share it', async () => {
    const script = plugin('token', (info: any) => ({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token: 'plugin-token' } }));
    const file = join(dir, 'token.orchconfig');
    writeFileSync(
      file,
      stringify({
        clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.ca).toString('base64') } }],
        users: [{ name: 'u', user: { exec: { command: './token', args: ['get', '--fast'], env: [{ name: 'PLUGIN_ENV', value: 'from-config' }], apiVersion: V1, interactiveMode: 'IfAvailable' } } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const connection = loadOrchconfig(file);
    const client = new OrchClient(connection, { exec: { stdinIsTerminal: false } });
    assert.deepEqual(await whoami(client), { status: 201, user: { username: 'plugin-user', groups: ['system:authenticated'] } });
    const { argv, raw, plugin_env, kubernetes } = given('token');
    assert.deepEqual(argv, ['get', '--fast']);
    assert.equal(plugin_env, 'from-config');
    assert.equal(kubernetes, false);
    // client-go's encoding: kind first, no status, spec.interactive always present.
    assert.equal(raw, `{"kind":"ExecCredential","apiVersion":"${V1}","spec":{"interactive":false}}`);
    assert.equal((await whoami(client)).status, 201);
    assert.equal((await whoami(new OrchClient(loadOrchconfig(file), { exec: { stdinIsTerminal: false } }))).status, 201);
    assert.equal(runs('token'), 1, 'cached, and shared by clients of the same configuration');
  });

  test('v1beta1: interactiveMode defaults to IfAvailable, the answer carries v1beta1', async () => {
    const script = plugin('beta', (info: any) => ({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token: 'second-token' } }));
    const client = new OrchClient(connectionWith({ command: script, apiVersion: V1BETA1, interactiveMode: 'IfAvailable' }), { exec: { stdinIsTerminal: false } });
    assert.equal((await whoami(client)).user.username, 'second-user');
    assert.equal(given('beta').raw, `{"kind":"ExecCredential","apiVersion":"${V1BETA1}","spec":{"interactive":false}}`);
  });

  test('expirationTimestamp: an expired answer is used once, then the plugin runs again; concurrent requests share one run', async () => {
    const script = plugin(
      'expiry',
      (info: any, run: number) => ({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: run === 1 ? { token: 'plugin-token', expirationTimestamp: new Date(Date.now() - 1000).toISOString() } : { token: 'plugin-token', expirationTimestamp: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, '+00:00') } }),
      { delayMs: 300 },
    );
    const client = new OrchClient(connectionWith({ command: script }));
    const first = await Promise.all(Array.from({ length: 5 }, () => whoami(client)));
    assert.deepEqual(first.map((r) => r.status), [201, 201, 201, 201, 201]);
    assert.equal(runs('expiry'), 1, 'five concurrent requests, one run');
    assert.equal((await whoami(client)).status, 201);
    assert.equal(runs('expiry'), 2, 'the first answer had expired');
    await Promise.all([whoami(client), whoami(client)]);
    assert.equal(runs('expiry'), 2, 'unexpired: cached');
  });

  test('a 401: the plugin runs again once, the 401 is handed back, the next request carries the new token', async () => {
    const script = plugin('refresh', (info: any, run: number) => ({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token: run === 1 ? 'revoked' : 'plugin-token' } }), { delayMs: 100 });
    const client = new OrchClient(connectionWith({ command: script }));
    const both = await Promise.all([whoami(client), whoami(client)]);
    assert.deepEqual(both.map((r) => r.status), [401, 401]);
    assert.equal(runs('refresh'), 2, 'two 401s with the same token: one refresh');
    assert.equal((await whoami(client)).user.username, 'plugin-user');
    assert.equal(runs('refresh'), 2);
  });

  test('a refresh that fails keeps the credentials in hand and is reported; the next 401 tries again', async () => {
    const script = plugin('refresh-fails', (info: any, run: number) => (run === 2 ? 'boom' : { apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token: run === 1 ? 'revoked' : 'plugin-token' } }));
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const client = new OrchClient(connectionWith({ command: script }));
      assert.equal((await whoami(client)).status, 401);
      assert.equal(runs('refresh-fails'), 2);
      assert.equal((await whoami(client)).status, 401, 'the old token again');
      assert.equal(runs('refresh-fails'), 3);
      assert.equal((await whoami(client)).status, 201);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(warnings, ['refreshing credentials: decoding stdout: couldn\'t get version/kind; json parse error: Unexpected token \'b\', "boom" is not valid JSON']);
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('a client-certificate answer; provideClusterInfo puts the cluster, its exec extension and its TLS settings in ORCH_EXEC_INFO', async () => {
    const cert = issue(clientCa, { commonName: 'cert-user', organizations: ['plugins'] });
    const script = plugin('cert', (info: any) => ({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { clientCertificateData: process.env.CERT, clientKeyData: process.env.KEY } }));
    const connection: ClusterConnection = {
      server: server.url,
      caPem: server.ca,
      tlsServerName: 'localhost',
      disableCompression: true,
      execClusterConfig: { region: 'lab', audiences: ['a'] },
      exec: execConfig({ command: script, provideClusterInfo: true, env: [{ name: 'CERT', value: cert.certPem }, { name: 'KEY', value: cert.keyPem }] }),
    };
    assert.deepEqual(await whoami(new OrchClient(connection)), { status: 201, user: { username: 'cert-user', groups: ['plugins', 'system:authenticated'] } });
    const expectedCluster = { server: server.url, 'tls-server-name': 'localhost', 'certificate-authority-data': Buffer.from(server.ca).toString('base64'), 'disable-compression': true, config: { region: 'lab', audiences: ['a'] } };
    assert.equal(given('cert').raw, JSON.stringify({ kind: 'ExecCredential', apiVersion: V1, spec: { cluster: expectedCluster, interactive: false } }));
    assert.deepEqual(execCluster({ server: 'https://h', insecureSkipTlsVerify: true, proxyUrl: 'http://proxy:3128' }), { server: 'https://h', 'insecure-skip-tls-verify': true, 'proxy-url': 'http://proxy:3128' });
  });

  test('interactive modes: Always without a terminal never runs the plugin; with one, spec.interactive is true; Never says false even on a terminal', async () => {
    const script = plugin('modes', tokenAnswer('plugin-token') as any);
    const cluster = execCluster(connectionWith({}));
    await assert.rejects(runPlugin(execConfig({ command: script, interactiveMode: 'Always' }), cluster, { stdinIsTerminal: false }), /^Error: exec plugin cannot support interactive mode: standard input is not a terminal$/);
    assert.equal(runs('modes'), 0);
    // By default the process's own stdin decides; under node --test it is a pipe, not a terminal.
    if (!process.stdin.isTTY) {
      await assert.rejects(runPlugin(execConfig({ command: script, interactiveMode: 'Always' }), cluster), /standard input is not a terminal/);
      assert.equal(runs('modes'), 0);
    }
    for (const [mode, terminal, interactive] of [['Always', true, true], ['IfAvailable', true, true], ['IfAvailable', false, false], ['Never', true, false]] as const) {
      await runPlugin(execConfig({ command: script, interactiveMode: mode }), cluster, { stdinIsTerminal: terminal });
      assert.equal(JSON.parse(given('modes').raw).spec.interactive, interactive, `${mode} with terminal=${terminal}`);
    }
  });

  test('answers refused, in client-go\'s words', async () => {
    const cert = issue(clientCa, { commonName: 'x' });
    const other = issue(clientCa, { commonName: 'y' });
    const answer = (status: unknown, apiVersion = V1, kind = 'ExecCredential') => JSON.stringify({ apiVersion, kind, status });
    const cases: Array<[string, string, RegExp]> = [
      ['mismatch', answer({ token: 'x' }, V1BETA1), /^exec plugin is configured to use API version client\.authentication\.orch\.io\/v1, plugin returned version client\.authentication\.orch\.io\/v1beta1$/],
      ['upstream-group', answer({ token: 'x' }, 'client.authentication.k8s.io/v1'), /^decoding stdout: no kind "ExecCredential" is registered for version "client\.authentication\.k8s\.io\/v1" in scheme$/],
      ['kind', answer({ token: 'x' }, V1, 'Secret'), /no kind "Secret" is registered for version/],
      ['no-kind', JSON.stringify({ apiVersion: V1, status: { token: 'x' } }), /^decoding stdout: Object 'Kind' is missing$/],
      ['garbage', 'not json at all', /^decoding stdout: couldn't get version\/kind; json parse error: /],
      ['no-status', JSON.stringify({ apiVersion: V1, kind: 'ExecCredential' }), /^exec plugin didn't return a status field$/],
      ['empty-status', answer({}), /^exec plugin didn't return a token or cert\/key pair$/],
      ['half', answer({ clientCertificateData: cert.certPem }), /^exec plugin returned only certificate or key, not both$/],
      ['wrong-key', answer({ clientCertificateData: cert.certPem, clientKeyData: other.keyPem }), /^failed parsing client key\/certificate: tls: private key does not match public key$/],
      ['not-a-cert', answer({ clientCertificateData: 'x', clientKeyData: cert.keyPem }), /^failed parsing client key\/certificate: tls: failed to find any PEM data in certificate input$/],
      ['date', answer({ token: 'x', expirationTimestamp: 'tomorrow' }), /^decoding stdout: parsing time "tomorrow"/],
      ['date-no-zone', answer({ token: 'x', expirationTimestamp: '2030-01-01T00:00:00' }), /parsing time "2030-01-01T00:00:00"/],
      ['token-type', answer({ token: 42 }), /status\.token: expected a string/],
    ];
    for (const [name, output, message] of cases) {
      const script = plugin(`bad-${name}`, new Function('return () => ' + JSON.stringify(output))() as any);
      await assert.rejects(runPlugin(execConfig({ command: script }), execCluster(connectionWith({}))), (err: Error) => message.test(err.message), name);
    }
    // YAML is an answer too (client-go's universal decoder reads it).
    const yaml = plugin('yaml', (() => 'apiVersion: client.authentication.orch.io/v1\nkind: ExecCredential\nstatus:\n  token: plugin-token\n') as any);
    assert.deepEqual(await runPlugin(execConfig({ command: yaml }), execCluster(connectionWith({}))), { token: 'plugin-token' });
  });

  test('runs that fail: the exit status (no hint), a missing command (with the install hint), a hung or flooding plugin is cut off', async () => {
    const cluster = execCluster(connectionWith({}));
    const exit = plugin('exit', tokenAnswer('x') as any, { exitCode: 3 });
    await assert.rejects(runPlugin(execConfig({ command: exit, installHint: 'install orch-login' }), cluster), (err: Error) => err.message === `exec: executable ${exit} failed with exit code 3`);
    const missing = join(dir, 'no-such-plugin');
    await assert.rejects(runPlugin(execConfig({ command: missing, installHint: 'install orch-login' }), cluster), (err: Error) => err.message.startsWith(`exec: executable ${missing} not found\n\n`) && err.message.endsWith('\n\ninstall orch-login'));
    const hung = plugin('hung', tokenAnswer('x') as any, { delayMs: 10_000 });
    const started = Date.now();
    await assert.rejects(runPlugin(execConfig({ command: hung }), cluster, { timeoutMs: 500 }), new RegExp(`exec: executable ${hung} did not finish within 500 ms`));
    assert.ok(Date.now() - started < 5_000);
    const flood = plugin('flood', (() => 'x'.repeat(2 * 1024 * 1024)) as any);
    await assert.rejects(runPlugin(execConfig({ command: flood }), cluster), /wrote more than 1048576 bytes/);
    // Through the client, the failure is named as client-go's round tripper names it.
    await assert.rejects(new OrchClient(connectionWith({ command: exit })).request('/api'), /^Error: getting credentials: exec: executable .* failed with exit code 3$/);
  });

  test('kubectl runs a plugin of upstream\'s group (client.authentication.k8s.io/v1); it refuses the orch group', { skip: !hasKubectl() && 'kubectl is not on PATH' }, async () => {
    // kubectl speaks upstream's group: the plugin answers in whatever version it was called with.
    const script = plugin('kubectl', (info: any) => ({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token: 'plugin-token' } }));
    const write = (name: string, apiVersion: string) => {
      const file = join(dir, name);
      writeFileSync(
        file,
        stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.ca).toString('base64') } }],
          users: [{ name: 'u', user: { exec: { command: script, apiVersion, interactiveMode: 'Never' } } }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'x',
        }),
      );
      return file;
    };
    const home = mkdtempSync(join(dir, 'home-'));
    const ok = await runKubectl(write('kubectl.orchconfig', 'client.authentication.k8s.io/v1'), home, ['get', 'namespaces', '-o', 'name']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^namespace\/default$/m);
    // kubectl builds more than one client per process and may run the plugin once for each.
    const firstProcess = runs('kubectl');
    assert.ok(firstProcess >= 1);
    const info = given('kubectl');
    assert.equal(info.kubernetes, true);
    assert.deepEqual(JSON.parse(info.raw), { kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1', spec: { interactive: false } });
    const again = await runKubectl(join(dir, 'kubectl.orchconfig'), home, ['get', 'namespace', 'default', '-o', 'jsonpath={.metadata.name}']);
    assert.equal(again.stdout, 'default', again.stderr);
    assert.ok(runs('kubectl') > firstProcess, 'cached only until the process exits');
    const orch = await runKubectl(write('orch-group.orchconfig', V1), home, ['get', 'namespaces']);
    assert.notEqual(orch.code, 0);
    assert.match(orch.stderr, /exec plugin: invalid apiVersion "client\.authentication\.orch\.io\/v1"/);
  });
});
