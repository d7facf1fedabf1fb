/**
 * The orchconfig loader and the HTTPS client of src/client (SPEC 2.9, 2.10,
 * 5.4): client-go's reading and its validation words, then requests over every
 * kind of connection against a running server, a loopback proxy and a
 * loopback server of the test's own that records what it receives.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { issue, makeCa } from './helpers/pki.ts';
import { loadOrchconfig, parseOrchconfig, type ClusterConnection } from '../src/client/orchconfig.ts';
import { OrchClient, requestJson } from '../src/client/http-client.ts';

const V1 = 'client.authentication.orch.io/v1';
const b64 = (text: string) => Buffer.from(text).toString('base64');

/** An orchconfig with one context `x` joining cluster `c` and user `u`. */
function config(cluster: object, user: object = {}, context: object = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', ...context } }],
    'current-context': 'x',
  };
}

describe('the orchconfig loader', () => {
  let dir: string;
  const ca = makeCa('loader-ca');
  const leaf = issue(ca, { commonName: 'someone' });
  const other = issue(ca, { commonName: 'other' });
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'orch-loader-'));
    mkdirSync(join(dir, 'pki'));
    writeFileSync(join(dir, 'pki/ca.crt'), ca.certPem);
    writeFileSync(join(dir, 'pki/client.crt'), leaf.certPem);
    writeFileSync(join(dir, 'pki/client.key'), leaf.keyPem);
    writeFileSync(join(dir, 'token'), '  file-token\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, doc: unknown, json = false) => {
    const file = join(dir, name);
    writeFileSync(file, json ? JSON.stringify(doc) : stringify(doc));
    return file;
  };

  test('YAML and JSON read alike; files resolve against the config directory; the current or a named context', () => {
    const doc = config({ server: 'https://127.0.0.1:6443', 'certificate-authority': 'pki/ca.crt', 'tls-server-name': 'api.example' }, { 'client-certificate': 'pki/client.crt', 'client-key': 'pki/client.key' }, { namespace: 'team-a' });
    (doc.contexts as object[]).push({ name: 'y', context: { cluster: 'c', user: 'tok' } });
    (doc.users as object[]).push({ name: 'tok', user: { tokenFile: 'token', exec: { command: './bin/plugin', apiVersion: V1, interactiveMode: 'Never' } } });
    const fromYaml = loadOrchconfig(write('a.yaml', doc));
    const fromJson = loadOrchconfig(write('a.json', doc, true));
    assert.deepEqual(fromYaml, fromJson);
    assert.deepEqual(fromYaml, { server: 'https://127.0.0.1:6443', caPem: ca.certPem, tlsServerName: 'api.example', clientCertPem: leaf.certPem, clientKeyPem: leaf.keyPem, namespace: 'team-a' });
    // tokenFile: read (trimmed) at load and kept for re-reading; a token means the exec plugin is not used, as client-go.
    assert.deepEqual(loadOrchconfig(write('a.yaml', doc), { context: 'y' }), { server: 'https://127.0.0.1:6443', caPem: ca.certPem, tlsServerName: 'api.example', token: 'file-token', tokenFile: join(dir, 'token') });
  });

  test('an exec user: v1beta1 defaults interactiveMode, a command with a slash resolves against the directory, the install hint loses control characters, the cluster extension is the plugin config', () => {
    const exec = { command: './bin/plugin', args: ['get-token', '--x'], env: [{ name: 'A', value: '1' }, { name: 'B' }], apiVersion: 'client.authentication.orch.io/v1beta1', installHint: 'run \u001b[31minstall\u001b[0m', provideClusterInfo: true };
    const extensions = [{ name: 'client.authentication.orch.io/exec', extension: { audience: 'orch' } }, { name: 'other', extension: { x: 1 } }];
    const connection = loadOrchconfig(write('exec.yaml', config({ server: 'https://h:1', 'insecure-skip-tls-verify': true, extensions }, { exec })));
    assert.deepEqual(connection, {
      server: 'https://h:1',
      insecureSkipTlsVerify: true,
      execClusterConfig: { audience: 'orch' },
      exec: { command: join(dir, 'bin/plugin'), args: ['get-token', '--x'], env: [{ name: 'A', value: '1' }, { name: 'B', value: '' }], apiVersion: 'client.authentication.orch.io/v1beta1', installHint: 'run U+001B[31minstallU+001B[0m', provideClusterInfo: true, interactiveMode: 'IfAvailable' },
    });
    const onPath = loadOrchconfig(write('exec2.yaml', config({ server: 'https://h:1' }, { exec: { command: 'orch-login', apiVersion: V1, interactiveMode: 'Always' } })));
    assert.equal(onPath.exec!.command, 'orch-login');
    assert.equal(onPath.exec!.interactiveMode, 'Always');
  });

  test('servers: a scheme is added as client-go adds it; a plain-http server gets no credentials; impersonation and basic auth are read', () => {
    assert.equal(parseOrchconfig(stringify(config({ server: '10.0.0.1:6443', 'certificate-authority-data': b64(ca.certPem) }))).server, 'https://10.0.0.1:6443');
    const plain = parseOrchconfig(stringify(config({ server: '10.0.0.1:8080' }, { token: 'secret', as: 'bob' })));
    assert.deepEqual(plain, { server: 'http://10.0.0.1:8080', impersonate: { user: 'bob' } });
    const as = parseOrchconfig(stringify(config({ server: 'https://h' }, { username: 'u', password: 'p', as: 'bob', 'as-uid': '42', 'as-groups': ['g1', 'g2'], 'as-user-extra': { 'example.org/scope': ['a', 'b'] } })));
    assert.deepEqual(as, { server: 'https://h', username: 'u', password: 'p', impersonate: { user: 'bob', uid: '42', groups: ['g1', 'g2'], extra: { 'example.org/scope': ['a', 'b'] } } });
    // The unnamed cluster of a document without contexts (what cluster-info publishes).
    assert.deepEqual(parseOrchconfig(stringify({ clusters: [{ name: '', cluster: { server: 'https://h' } }] })), { server: 'https://h' });
  });

  test('client-go validation, in its words', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['empty', '', /invalid configuration: no configuration has been provided$/],
      ['no current context', { clusters: [{ name: 'c', cluster: { server: 'https://h' } }] }, /invalid configuration: no configuration has been provided$/],
      ['missing context', { ...config({ server: 'https://h' }), 'current-context': 'nope' }, /invalid configuration: \[context was not found for specified context: nope, cluster has no server defined\]$/],
      ['missing cluster', { ...config({ server: 'https://h' }), clusters: [] }, /invalid configuration: no configuration has been provided$/],
      ['no server', config({ 'insecure-skip-tls-verify': true }), /invalid configuration: no server found for cluster "c"$/],
      ['CA file and data', config({ server: 'https://h', 'certificate-authority': 'pki/ca.crt', 'certificate-authority-data': b64(ca.certPem) }), /certificate-authority-data and certificate-authority are both specified for c\. certificate-authority-data will override\./],
      ['CA file missing', config({ server: 'https://h', 'certificate-authority': 'pki/none.crt' }), /unable to read certificate-authority pki\/none\.crt for c due to ENOENT/],
      ['cert without key', config({ server: 'https://h' }, { 'client-certificate-data': b64(leaf.certPem) }), /client-key-data or client-key must be specified for u to use the clientCert authentication method\./],
      ['key without cert', config({ server: 'https://h' }, { 'client-key-data': b64(leaf.keyPem) }), /client-cert-data or client-cert must be specified for u/],
      ['cert file and data', config({ server: 'https://h' }, { 'client-certificate': 'pki/client.crt', 'client-certificate-data': b64(leaf.certPem), 'client-key': 'pki/client.key' }), /client-cert-data and client-cert are both specified for u\. client-cert-data will override\./],
      ['exec without command, apiVersion, mode', config({ server: 'https://h' }, { exec: { env: [{ value: 'x' }] } }), /invalid configuration: \[command must be specified for u to use exec authentication plugin, apiVersion must be specified for u to use exec authentication plugin, env variable name must be specified for u to use exec authentication plugin, interactiveMode must be specified for u to use exec authentication plugin\]$/],
      ['v1 without interactiveMode', config({ server: 'https://h' }, { exec: { command: 'p', apiVersion: V1 } }), /invalid configuration: interactiveMode must be specified for u to use exec authentication plugin$/],
      ['bad interactiveMode', config({ server: 'https://h' }, { exec: { command: 'p', apiVersion: V1, interactiveMode: 'Sometimes' } }), /invalid interactiveMode for u: "Sometimes"/],
      ['exec and auth-provider', config({ server: 'https://h' }, { exec: { command: 'p', apiVersion: V1, interactiveMode: 'Never' }, 'auth-provider': { name: 'oidc' } }), /authProvider cannot be provided in combination with an exec plugin for u/],
      ['auth-provider', config({ server: 'https://h' }, { 'auth-provider': { name: 'oidc' } }), /no Auth Provider found for name "oidc"$/],
      ['exec apiVersion', config({ server: 'https://h' }, { exec: { command: 'p', apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never' } }), /exec plugin: invalid apiVersion "client\.authentication\.k8s\.io\/v1"$/],
      ['token and basic auth', config({ server: 'https://h' }, { token: 't', username: 'a', password: 'b' }), /more than one authentication method found for u; found \[token basicAuth\], only one is allowed/],
      ['impersonation without a user', config({ server: 'https://h' }, { 'as-groups': ['g'] }), /requesting uid, groups or user-extra for u without impersonating a user/],
      ['proxy scheme', config({ server: 'https://h', 'proxy-url': 'ftp://p' }), /invalid 'proxy-url' "ftp:\/\/p" for cluster "c": unsupported scheme "ftp", must be http, https, or socks5/],
      ['socks5', config({ server: 'https://h', 'proxy-url': 'socks5://p:1080' }), /socks5 proxies are not supported by this client/],
      ['insecure with a CA', config({ server: 'https://h', 'insecure-skip-tls-verify': true, 'certificate-authority-data': b64(ca.certPem) }), /specifying a root certificates file with the insecure flag is not allowed$/],
      ['CA not PEM', config({ server: 'https://h', 'certificate-authority-data': b64('not a certificate') }), /unable to load root certificates: unable to parse bytes as PEM block$/],
      ['key of another certificate', config({ server: 'https://h' }, { 'client-certificate-data': b64(leaf.certPem), 'client-key-data': b64(other.keyPem) }), /tls: private key does not match public key/],
      ['server not a URL', config({ server: 'https://[bad' }), /host must be a URL or a host:port pair/],
      ['tokenFile missing', config({ server: 'https://h' }, { tokenFile: 'no-such-token' }), /ENOENT/],
    ];
    for (const [name, doc, message] of cases) {
      const file = join(dir, `case-${name.replace(/\W+/g, '-')}.yaml`);
      writeFileSync(file, typeof doc === 'string' ? doc : stringify(doc));
      assert.throws(() => loadOrchconfig(file), message, name);
    }
    assert.throws(() => loadOrchconfig(write('ctx.yaml', config({ server: 'https://h' })), { context: 'other' }), /^Error: context "other" does not exist$/);
  });

  test('document errors: duplicate names, wrong types, bad base64, another kind, unreadable file', () => {
    const cases: Array<[string, RegExp]> = [
      [stringify({ clusters: [{ name: 'c', cluster: {} }, { name: 'c', cluster: {} }] }), /duplicate name "c" in list clusters/],
      [stringify({ clusters: [{ name: 'c', cluster: { server: 6443 } }] }), /json: cannot unmarshal number into Go struct field clusters\.cluster\.server of type string/],
      [stringify({ users: [{ name: 'u', user: { exec: { command: 'p', args: 'x' } } }] }), /cannot unmarshal string into Go struct field users\.user\.exec\.args of type array/],
      [stringify(config({ server: 'https://h', 'certificate-authority-data': '%%%' })), /illegal base64 data in clusters\.cluster\.certificate-authority-data/],
      [stringify({ apiVersion: 'v2', kind: 'Config' }), /no kind "Config" is registered for version "v2"/],
      ['{ clusters: [', /yaml:/],
    ];
    for (const [text, message] of cases) {
      writeFileSync(join(dir, 'doc.yaml'), text);
      assert.throws(() => loadOrchconfig(join(dir, 'doc.yaml')), (err: Error) => err.message.startsWith(`error loading config file "${join(dir, 'doc.yaml')}": `) && message.test(err.message), text);
    }
    assert.throws(() => loadOrchconfig(join(dir, 'missing.yaml')), /error loading config file .*ENOENT/);
  });
});

describe('the HTTPS client', () => {
  let server: TestServer;
  let dir: string;
  const clientCa = makeCa('client-ca');
  const loopbackCa = makeCa('loopback-ca');
  const loopbackCert = issue(loopbackCa, { commonName: 'loopback' }, { usages: ['serverAuth'], hosts: ['127.0.0.1', 'localhost'] });
  let loopback: HttpsServer;
  let loopbackUrl: string;
  const seen: Array<{ url: string; headers: Record<string, unknown>; body: string }> = [];
  let proxy: HttpServer;
  let proxyUrl: string;
  const tunnels: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-http-client-'));
    writeFileSync(join(dir, 'client-ca.crt'), clientCa.certPem);
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,1,"team"\nbob-token,bob,2,\n');
    [server] = await Promise.all([startTestServer(['--authorization-mode=AlwaysAllow', `--token-auth-file=${join(dir, 'tokens.csv')}`, `--client-ca-file=${join(dir, 'client-ca.crt')}`])]);
    // A loopback server of our own that records each request, answers JSON, and on /silent never answers.
    loopback = createHttpsServer({ cert: loopbackCert.certPem, key: loopbackCert.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        seen.push({ url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
        if (req.url!.endsWith('/silent')) return;
        if (req.url!.endsWith('/large')) return res.end(JSON.stringify({ pad: 'x'.repeat(4096) }));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true }));
      });
    });
    await new Promise<void>((r) => loopback.listen(0, '127.0.0.1', r));
    loopbackUrl = `https://127.0.0.1:${(loopback.address() as AddressInfo).port}`;
    // A CONNECT proxy that wants credentials and refuses one port.
    proxy = createHttpServer();
    proxy.on('connect', (req, socket, head) => {
      tunnels.push(`${req.url} ${req.headers['proxy-authorization'] ?? ''}`);
      if (req.headers['proxy-authorization'] !== `Basic ${b64('p:s3cret')}`) return socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      // Every host is this machine: a name only the proxy knows proves the request went through it.
      const upstream = connect(Number(req.url!.slice(req.url!.lastIndexOf(':') + 1)), '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://p:s3cret@127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  after(async () => {
    await server?.close();
    loopback?.closeAllConnections();
    loopback?.close();
    proxy?.closeAllConnections();
    proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const whoami = async (connection: ClusterConnection, client = new OrchClient(connection)) => {
    const res = await client.request('/apis/authentication.orch.io/v1/selfsubjectreviews', { method: 'POST', body: { kind: 'SelfSubjectReview' } });
    return { status: res.status, user: (res.body as any)?.status?.userInfo };
  };

  test('a bearer token, a client certificate, and impersonation (extra keys escaped as client-go escapes them)', async () => {
    assert.deepEqual((await whoami({ server: server.url, caPem: server.ca, token: 'alice-token' })).user, { username: 'alice', uid: '1', groups: ['team', 'system:authenticated'] });
    const cert = issue(clientCa, { commonName: 'carol', organizations: ['ops'] });
    assert.deepEqual((await whoami({ server: server.url, caPem: server.ca, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem })).user, { username: 'carol', groups: ['ops', 'system:authenticated'] });
    const impersonating = await whoami({ server: server.url, caPem: server.ca, token: 'alice-token', impersonate: { user: 'dave', uid: '7', groups: ['g1', 'g2'], extra: { 'example.org/scope %': ['a', 'b'] } } });
    assert.deepEqual(impersonating.user, { username: 'dave', uid: '7', groups: ['g1', 'g2', 'system:authenticated'], extra: { 'example.org/scope %': ['a', 'b'] } });
    assert.equal((await whoami({ server: server.url, caPem: server.ca, token: 'wrong' })).status, 401);
  });

  test('a token file is preferred to the inline token and read again once its content is older than the maximum age', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'alice-token\n');
    const connection: ClusterConnection = { server: server.url, caPem: server.ca, token: 'bob-token', tokenFile: file };
    const client = new OrchClient(connection, { tokenFileMaxAgeMs: 200 });
    assert.equal((await whoami(connection, client)).user.username, 'alice');
    writeFileSync(file, 'bob-token\n');
    assert.equal((await whoami(connection, client)).user.username, 'alice', 'still the cached content');
    await new Promise((r) => setTimeout(r, 250));
    assert.equal((await whoami(connection, client)).user.username, 'bob');
    rmSync(file);
    await new Promise((r) => setTimeout(r, 250));
    assert.equal((await whoami(connection, client)).user.username, 'bob', 'an unreadable file: the last token read');
  });

  test('server identity: the CA, tls-server-name, insecure-skip-tls-verify', async () => {
    const byIp = server.url.replace('localhost', '127.0.0.1');
    assert.equal((await whoami({ server: byIp, caPem: server.ca, token: 'alice-token', tlsServerName: 'localhost' })).status, 201);
    await assert.rejects(whoami({ server: byIp, caPem: server.ca, token: 'alice-token', tlsServerName: 'elsewhere.example' }), /elsewhere\.example/);
    await assert.rejects(whoami({ server: server.url, caPem: loopbackCa.certPem, token: 'alice-token' }), /self[- ]signed|unable to verify|issuer/i);
    assert.equal((await whoami({ server: server.url, insecureSkipTlsVerify: true, token: 'alice-token' })).status, 201);
  });

  test('through a CONNECT proxy, with the proxy credentials of the proxy URL', async () => {
    const before = tunnels.length;
    const viaProxy: ClusterConnection = { server: `https://orch.invalid:${server.port}`, caPem: server.ca, tlsServerName: 'localhost', token: 'alice-token', proxyUrl };
    await assert.rejects(whoami({ ...viaProxy, proxyUrl: undefined }), /ENOTFOUND|EAI_AGAIN/);
    assert.deepEqual((await whoami(viaProxy)).user.username, 'alice');
    assert.equal(tunnels.length, before + 1);
    assert.equal(tunnels.at(-1), `orch.invalid:${server.port} Basic ${b64('p:s3cret')}`);
    await assert.rejects(whoami({ ...viaProxy, proxyUrl: proxyUrl.replace('s3cret', 'wrong') }), /proxyconnect .*407/);
  });

  test('what goes on the wire: the server path prefix, basic auth, JSON bodies; bounded time and size', async () => {
    const connection: ClusterConnection = { server: `${loopbackUrl}/prefix/`, caPem: loopbackCa.certPem, username: 'ann', password: 'pw' };
    const res = await requestJson(connection, '/api/v1/things?limit=1', { method: 'PUT', body: { a: 1 } });
    assert.deepEqual(res.body, { ok: true });
    const got = seen.at(-1)!;
    assert.equal(got.url, '/prefix/api/v1/things?limit=1');
    assert.equal(got.headers.authorization, `Basic ${b64('ann:pw')}`);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.body, '{"a":1}');
    assert.equal((await requestJson({ ...connection, server: `${loopbackUrl}/hook` }, '')).status, 200);
    assert.equal(seen.at(-1)!.url, '/hook', 'an empty path is the server URL itself (webhooks)');
    await assert.rejects(requestJson(connection, '/silent', { timeoutMs: 300 }), /timed out after 300 ms/);
    await assert.rejects(requestJson(connection, '/large', { maxBytes: 1024 }), /larger than 1024 bytes/);
  });
});
