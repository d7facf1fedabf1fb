/**
 * cluster-info discovery (SPEC 2.9): read anonymously, trusted only when its
 * detached HS256 JWS, keyed with the full bootstrap token, verifies; CA pins as
 * kubeadm's. Against ConfigMaps the test signs itself (served by a server whose
 * bootstrap signer is off), against the bootstrap signer of a second server,
 * and against a loopback server that changes its answer between two reads.
 *
 * The servers let anonymous requests reach cluster-info and nothing else with
 * an AuthenticationConfiguration (gate AnonymousAuthConfigurableEndpoints):
 * under the default flags (AlwaysAllow) anonymous requests are refused, 401,
 * as test/anonymous.test.ts shows.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactSign } from 'jose';
import { stringify } from 'yaml';
import { request, startTestServer, type TestServer } from './helpers/server.ts';
import { issue, makeCa } from './helpers/pki.ts';
import { eventually } from './helpers/eventually.ts';
import { CLUSTER_INFO_PATH, discoverCluster, publicKeyHash, verifyClusterInfo } from '../src/client/cluster-info.ts';
import { requestJson } from '../src/client/http-client.ts';

const TOKEN_ID = 'abcdef';
const TOKEN_SECRET = '0123456789abcdef';
const TOKEN = `${TOKEN_ID}.${TOKEN_SECRET}`;
const FAST = { timeoutMs: 3_000, intervalMs: 100 };

/** A detached JWS (`header..signature`) of `content`. */
async function sign(content: string, key: string, header: Record<string, unknown> = { alg: 'HS256', kid: TOKEN_ID }): Promise<string> {
  const jws = await new CompactSign(new TextEncoder().encode(content)).setProtectedHeader(header as { alg: string }).sign(new TextEncoder().encode(key));
  const [h, , s] = jws.split('.');
  return `${h}..${s}`;
}

/** What kubeadm and the bootstrap signer publish: one unnamed cluster, no users. */
function clusterOrchconfig(server: string, caPem: string): string {
  return stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: '', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }], contexts: null, 'current-context': '', users: null });
}

describe('cluster-info discovery', () => {
  let dir: string;
  let own: TestServer;
  let signed: TestServer;
  const endpoint = (server: TestServer) => `127.0.0.1:${server.port}`;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-cluster-info-'));
    const auth = join(dir, 'authentication.yaml');
    writeFileSync(auth, `apiVersion: apiserver.config.orch.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  conditions:\n  - path: ${CLUSTER_INFO_PATH}\n`);
    const anonymous = ['--feature-gates=AnonymousAuthConfigurableEndpoints=true', `--authentication-config=${auth}`];
    [own, signed] = await Promise.all([startTestServer([...anonymous, '--controllers=*,-bootstrapsigner']), startTestServer([...anonymous, '--enable-bootstrap-token-auth'])]);
  });
  after(async () => {
    await Promise.all([own?.close(), signed?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Writes cluster-info on the server without a signer, with the admin's token. */
  async function publish(data: Record<string, string>): Promise<void> {
    const current = await own.request('GET', CLUSTER_INFO_PATH);
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'orch-public', ...(current.status === 200 ? { resourceVersion: current.body.metadata.resourceVersion } : {}) }, data };
    const res = current.status === 200 ? await own.request('PUT', CLUSTER_INFO_PATH, { body }) : await own.request('POST', '/api/v1/namespaces/orch-public/configmaps', { body });
    assert.ok(res.status === 200 || res.status === 201, res.text);
  }

  test('only cluster-info is open to anonymous requests; before it exists discovery names the 404', async () => {
    await assert.rejects(discoverCluster(endpoint(own), TOKEN, FAST), /^Error: failed to request the cluster-info ConfigMap: HTTP 404/);
    assert.equal((await request(own.url, own.ca, 'GET', '/api/v1/namespaces')).status, 401);
    assert.equal((await request(own.url, own.ca, 'GET', CLUSTER_INFO_PATH, { token: null })).status, 404);
  });

  test('a ConfigMap signed with the full token: trusted; the cluster comes from the verified document; pins as kubeadm checks them', async () => {
    const orchconfig = clusterOrchconfig(own.url, own.ca);
    await publish({ orchconfig, [`jws-orchconfig-${TOKEN_ID}`]: await sign(orchconfig, TOKEN) });
    const cluster = await discoverCluster(endpoint(own), TOKEN, FAST);
    assert.deepEqual(cluster, { server: own.url, caPem: own.ca });
    // What discovery returns verifies the server from then on.
    assert.equal((await requestJson({ ...cluster, token: own.token }, '/api/v1/namespaces/default')).status, 200);
    const pin = publicKeyHash(new X509Certificate(own.ca));
    assert.match(pin, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(await discoverCluster(`https://${endpoint(own)}`, TOKEN, { ...FAST, caCertHashes: ['sha256:' + '0'.repeat(64), pin.toUpperCase().replace('SHA256', 'sha256')] }), cluster);
    await assert.rejects(discoverCluster(endpoint(own), TOKEN, { ...FAST, caCertHashes: ['sha256:' + '0'.repeat(64)] }), new RegExp(`cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${pin}" are pinned`));
    for (const [hash, message] of [
      ['0'.repeat(64), /invalid hash, expected "format:hex-value"/],
      ['md5:' + '0'.repeat(32), /unknown hash format "md5"/],
      ['sha256:abcd', /expected a 32 byte SHA-256 hash, found 2 bytes/],
      ['sha256:' + 'z'.repeat(64), /could not decode SHA-256 from hex/],
    ] as const) {
      await assert.rejects(discoverCluster(endpoint(own), TOKEN, { ...FAST, caCertHashes: [hash] }), message);
    }
  });

  test('refused: the secret alone as key, a tampered orchconfig, another algorithm, another key id, an attached payload, no signature, no orchconfig, no cluster, a file', async () => {
    const orchconfig = clusterOrchconfig(own.url, own.ca);
    const good = await sign(orchconfig, TOKEN);
    const untrusted = /failed to verify JWS signature of received cluster info object, can't trust this API Server/;
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['secret alone (upstream)', { orchconfig, [`jws-orchconfig-${TOKEN_ID}`]: await sign(orchconfig, TOKEN_SECRET) }, untrusted],
      ['tampered', { orchconfig: clusterOrchconfig('https://10.0.0.1:6443', own.ca), [`jws-orchconfig-${TOKEN_ID}`]: good }, untrusted],
      ['HS512', { orchconfig, [`jws-orchconfig-${TOKEN_ID}`]: await sign(orchconfig, TOKEN, { alg: 'HS512', kid: TOKEN_ID }) }, /the JWS algorithm is "HS512", not HS256/],
      ['none', { orchconfig, [`jws-orchconfig-${TOKEN_ID}`]: `${Buffer.from(JSON.stringify({ alg: 'none', kid: TOKEN_ID })).toString('base64url')}..` }, /the JWS algorithm is "none", not HS256/],
      ['kid', { orchconfig, [`jws-orchconfig-${TOKEN_ID}`]: await sign(orchconfig, TOKEN, { alg: 'HS256', kid: 'zzzzzz' }) }, /the JWS key id is "zzzzzz", not "abcdef"/],
      ['attached', { orchconfig, [`jws-orchconfig-${TOKEN_ID}`]: good.replace('..', `.${Buffer.from(orchconfig).toString('base64url')}.`) }, /not a detached JWS/],
      ['no orchconfig', { [`jws-orchconfig-${TOKEN_ID}`]: good }, /there is no orchconfig key in the cluster-info ConfigMap/],
      ['no cluster', { orchconfig: 'apiVersion: v1\nkind: Config\n', [`jws-orchconfig-${TOKEN_ID}`]: await sign('apiVersion: v1\nkind: Config\n', TOKEN) }, /malformed orchconfig in the cluster-info ConfigMap: the orchconfig names no cluster/],
    ];
    const withFile = stringify({ clusters: [{ name: '', cluster: { server: own.url, 'certificate-authority': '/etc/ssl/certs/ca-certificates.crt' } }] });
    cases.push(['a file', { orchconfig: withFile, [`jws-orchconfig-${TOKEN_ID}`]: await sign(withFile, TOKEN) }, /only certificate-authority-data can be published/]);
    for (const [name, data, message] of cases) {
      await publish(data);
      await assert.rejects(discoverCluster(endpoint(own), TOKEN, FAST), message, name);
    }
    await publish({ orchconfig });
    await assert.rejects(discoverCluster(endpoint(own), TOKEN, FAST), /could not find a JWS signature in the cluster-info ConfigMap for token ID "abcdef"/);
    await assert.rejects(verifyClusterInfo({ orchconfig }, TOKEN), /token id "abcdef" is invalid for this cluster or it has expired/);
    await assert.rejects(discoverCluster(endpoint(own), 'ABCDEF.0123456789abcdef', FAST), /the bootstrap token was not of the form/);
  });

  test('the bootstrap signer\'s cluster-info: discovered with a pin, signed with the full token, then the token authenticates; gone with the token', async () => {
    const secret = {
      metadata: { name: `bootstrap-token-${TOKEN_ID}` },
      type: 'bootstrap.orch.io/token',
      stringData: { 'token-id': TOKEN_ID, 'token-secret': TOKEN_SECRET, 'usage-bootstrap-signing': 'true', 'usage-bootstrap-authentication': 'true' },
    };
    assert.equal((await signed.request('POST', '/api/v1/namespaces/orch-system/secrets', { body: secret })).status, 201);
    const pin = publicKeyHash(new X509Certificate(signed.ca));
    const cluster = await discoverCluster(endpoint(signed), TOKEN, { caCertHashes: [pin], timeoutMs: 10_000, intervalMs: 100 });
    assert.deepEqual(cluster, { server: signed.url, caPem: signed.ca });
    const data = (await request(signed.url, signed.ca, 'GET', CLUSTER_INFO_PATH, { token: null })).body.data;
    assert.equal(data[`jws-orchconfig-${TOKEN_ID}`], await sign(data.orchconfig, TOKEN), 'keyed with the full token');
    assert.notEqual(data[`jws-orchconfig-${TOKEN_ID}`], await sign(data.orchconfig, TOKEN_SECRET));
    // kubeadm join's next step: the same token, now over the verified connection.
    const review = await requestJson({ ...cluster, token: TOKEN }, '/apis/authentication.orch.io/v1/selfsubjectreviews', { body: { kind: 'SelfSubjectReview' } });
    assert.equal((review.body as any).status.userInfo.username, `system:bootstrap:${TOKEN_ID}`);
    assert.equal((await signed.request('DELETE', `/api/v1/namespaces/orch-system/secrets/bootstrap-token-${TOKEN_ID}`)).status, 200);
    await eventually('the signature to go', async () => ((await request(signed.url, signed.ca, 'GET', CLUSTER_INFO_PATH, { token: null })).body.data[`jws-orchconfig-${TOKEN_ID}`] === undefined ? true : undefined));
    await assert.rejects(discoverCluster(endpoint(signed), TOKEN, FAST), /could not find a JWS signature/);
  });

  test('with pins, the second read over verified TLS must carry the same orchconfig', async () => {
    const ca = makeCa('drifting-ca');
    const cert = issue(ca, { commonName: 'drifting' }, { usages: ['serverAuth'], hosts: ['127.0.0.1'] });
    let reads = 0;
    let url = '';
    const answers: string[] = [];
    const drifting: HttpsServer = createHttpsServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      const orchconfig = answers[Math.min(reads++, answers.length - 1)];
      res.setHeader('content-type', 'application/json');
      void sign(orchconfig, TOKEN).then((jws) => res.end(JSON.stringify({ kind: 'ConfigMap', data: { orchconfig, [`jws-orchconfig-${TOKEN_ID}`]: jws } })));
    });
    await new Promise<void>((r) => drifting.listen(0, '127.0.0.1', r));
    try {
      url = `https://127.0.0.1:${(drifting.address() as AddressInfo).port}`;
      answers.push(clusterOrchconfig(url, ca.certPem), clusterOrchconfig(url, ca.certPem).replace('apiVersion: v1', 'apiVersion: v1 # changed'));
      const pin = publicKeyHash(new X509Certificate(ca.certPem));
      await assert.rejects(discoverCluster(url, TOKEN, { ...FAST, caCertHashes: [pin] }), /the second orchconfig from the cluster-info ConfigMap \(using validated TLS\) was different from the first/);
      assert.equal(reads, 2);
      answers.splice(1);
      assert.deepEqual(await discoverCluster(url, TOKEN, { ...FAST, caCertHashes: [pin] }), { server: url, caPem: ca.certPem });
    } finally {
      drifting.closeAllConnections();
      drifting.close();
    }
  });
});
