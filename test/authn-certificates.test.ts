/**
 * Client certificates and the authenticating proxy (issue 8; SPEC 5.2), over
 * real HTTPS with certificates the test makes: CN is the user, O the groups;
 * expired, foreign, wrong-usage certificates authenticate nothing (401); proxy
 * headers count only from a verified, allowed proxy and never go further.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { stringify } from 'yaml';
import { hasKubectl } from './helpers/kubectl.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { issue, makeCa, requestWithCert, whoami, type Issued } from './helpers/pki.ts';

const DAY = 86_400_000;

describe('client certificates and the authenticating proxy', () => {
  let server: TestServer;
  let dir: string;
  let clientCa: Issued;
  let proxyCa: Issued;
  let foreignCa: Issued;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-certs-'));
    clientCa = makeCa('client-ca');
    proxyCa = makeCa('front-proxy-ca');
    foreignCa = makeCa('client-ca');
    writeFileSync(join(dir, 'client-ca.crt'), clientCa.certPem);
    writeFileSync(join(dir, 'proxy-ca.crt'), proxyCa.certPem);
    writeFileSync(join(dir, 'tokens.csv'), 'carol-token,carol,carol-uid,"readers"\n');
    server = await startTestServer([
      `--client-ca-file=${join(dir, 'client-ca.crt')}`,
      `--requestheader-client-ca-file=${join(dir, 'proxy-ca.crt')}`,
      '--requestheader-allowed-names=front-proxy,aggregator',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      '--authorization-mode=AlwaysDeny',
    ]);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const who = (options: Parameters<typeof whoami>[2]) => whoami(server.url, server.ca, options);

  test('a client certificate: CN is the user, each O a group, plus system:authenticated', async () => {
    const alice = issue(clientCa, { commonName: 'alice', organizations: ['dev', 'ops'] });
    const res = await who({ cert: alice.certPem, key: alice.keyPem });
    // AlwaysDeny: the 403 names the authenticated user.
    assert.equal(res.status, 403);
    assert.match(res.body.message, /^selfsubjectreviews\.authentication\.orch\.io is forbidden: User "alice" cannot create resource/);
  });

  test('through an intermediate CA the client sends', async () => {
    const intermediate = issue(clientCa, { commonName: 'intermediate' }, { isCa: true, usages: [] });
    const bob = issue(intermediate, { commonName: 'bob' });
    const res = await who({ cert: bob.certPem + intermediate.certPem, key: bob.keyPem });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /User "bob"/);
    // Without the intermediate the chain does not reach the bundle.
    assert.equal((await who({ cert: bob.certPem, key: bob.keyPem })).status, 401);
  });

  test('expired, not yet valid, foreign, server-only certificates authenticate nothing: 401, and nothing about them leaks', async () => {
    const expired = issue(clientCa, { commonName: 'old' }, { notBefore: new Date(Date.now() - 3 * DAY), notAfter: new Date(Date.now() - DAY) });
    const future = issue(clientCa, { commonName: 'new' }, { notBefore: new Date(Date.now() + DAY), notAfter: new Date(Date.now() + 2 * DAY) });
    const foreign = issue(foreignCa, { commonName: 'mallory', organizations: ['system:masters'] });
    const serverOnly = issue(clientCa, { commonName: 'webserver' }, { usages: ['serverAuth'] });
    for (const cert of [expired, future, foreign, serverOnly]) {
      const res = await who({ cert: cert.certPem, key: cert.keyPem });
      assert.equal(res.status, 401, cert.name);
      assert.equal(res.body.reason, 'Unauthorized');
      assert.doesNotMatch(JSON.stringify(res.body), new RegExp(cert.name));
      // Another valid credential on the same request still authenticates it, as upstream's union does.
      const withToken = await who({ cert: cert.certPem, key: cert.keyPem, token: 'carol-token' });
      assert.match(withToken.body.message, /User "carol"/, cert.name);
    }
  });

  test('no certificate: anonymous as before; a certificate without CN is 401', async () => {
    const res = await who({});
    assert.match(res.body.message, /User "system:anonymous"/);
    const nameless = issue(clientCa, { commonName: '' });
    assert.equal((await who({ cert: nameless.certPem, key: nameless.keyPem })).status, 401);
  });

  test('the proxy: user, repeated groups, percent-encoded extras from a verified, allowed proxy', async () => {
    const proxy = issue(proxyCa, { commonName: 'front-proxy' });
    const res = await requestWithCert(server.url, server.ca, 'GET', '/api/v1/namespaces/default/configmaps', {
      cert: proxy.certPem,
      key: proxy.keyPem,
      headers: { 'X-Remote-User': 'dave', 'X-Remote-Group': ['g1', 'g2'], 'X-Remote-Extra-Acme.com%2Fteam': 'blue' },
    });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /User "dave" cannot list resource "configmaps"/);
    // system:masters passes AlwaysDeny, so the review shows the whole identity.
    const review = await who({
      cert: proxy.certPem,
      key: proxy.keyPem,
      headers: { 'X-Remote-User': 'dave', 'X-Remote-Group': ['system:masters', 'g2'], 'X-Remote-Extra-Acme.com%2Fteam': ['blue', 'red'], 'X-Remote-Extra-Scopes': 'a' },
    });
    assert.equal(review.status, 201);
    assert.deepEqual(review.user, {
      username: 'dave',
      groups: ['system:masters', 'g2', 'system:authenticated'],
      extra: { 'acme.com/team': ['blue', 'red'], scopes: ['a'] },
    });
  });

  test('proxy headers from a disallowed CN, a foreign CA or no certificate are ignored', async () => {
    const disallowed = issue(proxyCa, { commonName: 'someone-else' });
    const foreign = issue(foreignCa, { commonName: 'front-proxy' });
    const client = issue(clientCa, { commonName: 'erin' });
    const headers = { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' };
    // Ignored, and the request is authenticated by its other credentials.
    for (const cert of [disallowed, foreign]) {
      const res = await who({ cert: cert.certPem, key: cert.keyPem, token: 'carol-token', headers });
      assert.match(res.body.message, /User "carol"/, cert.name);
      // With nothing else, the failed verification is the answer.
      assert.equal((await who({ cert: cert.certPem, key: cert.keyPem, headers })).status, 401, cert.name);
    }
    const viaClientCa = await who({ cert: client.certPem, key: client.keyPem, headers });
    assert.match(viaClientCa.body.message, /User "erin"/);
    const bare = await who({ headers });
    assert.match(bare.body.message, /User "system:anonymous"/);
  });

  test('kubectl with a client-certificate orchconfig', { skip: !hasKubectl() && 'kubectl is not installed' }, async () => {
    const admin = issue(clientCa, { commonName: 'kube-admin', organizations: ['system:masters'] });
    const config = join(dir, 'cert.orchconfig');
    writeFileSync(
      config,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.ca).toString('base64') } }],
        users: [{ name: 'u', user: { 'client-certificate-data': Buffer.from(admin.certPem).toString('base64'), 'client-key-data': Buffer.from(admin.keyPem).toString('base64') } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    // system:masters passes even AlwaysDeny (FACTS 11).
    const out = execFileSync('kubectl', ['--kubeconfig', config, 'get', 'namespaces', '-o', 'name'], { encoding: 'utf8' });
    assert.match(out, /namespace\/default/);
  });
});
