/**
 * Webhook token authentication (issue 8; SPEC 5.2): a real loopback HTTPS
 * webhook, named by an orchconfig with its CA and a client certificate, asked
 * with TokenReviews; answers cached for the TTL; failures are 401.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { stringify } from 'yaml';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { issue, makeCa } from './helpers/pki.ts';

const SSR = '/apis/authentication.orch.io/v1/selfsubjectreviews';

interface Seen {
  apiVersion: string;
  token: string;
  audiences?: string[];
  clientCn?: string;
}

describe('webhook token authentication', () => {
  let dir: string;
  let webhook: Server;
  let server: TestServer;
  let v1: TestServer;
  const seen: Seen[] = [];
  let failures = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-webhook-'));
    const ca = makeCa('webhook-ca');
    const serving = issue(ca, { commonName: 'webhook' }, { usages: ['serverAuth'], hosts: ['127.0.0.1'] });
    const client = issue(ca, { commonName: 'orch-apiserver' });
    webhook = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString());
        const token: string = review.spec.token;
        seen.push({ apiVersion: review.apiVersion, token, audiences: review.spec.audiences, clientCn: String((req.socket as TLSSocket).getPeerCertificate().subject?.CN) });
        const answer = (status: object) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
        };
        if (token === 'flaky' && failures++ < 2) {
          res.writeHead(500);
          res.end('try again');
        } else if (token === 'broken') {
          res.writeHead(500);
          res.end();
        } else if (token === 'garbage') {
          res.writeHead(200);
          res.end('<html>');
        } else if (token === 'huge') {
          res.writeHead(200);
          res.end(`{"status":{"authenticated":true,"user":{"username":"${'x'.repeat(4 * 1024 * 1024)}"}}}`);
        } else if (token.startsWith('good') || token === 'flaky') {
          answer({ authenticated: true, user: { username: `web-${token}`, uid: 'w-1', groups: ['webdevs'], extra: { scopes: ['a', 'b'] } } });
        } else if (token === 'elsewhere') {
          answer({ authenticated: true, user: { username: 'web-elsewhere' }, audiences: ['some-other-api'] });
        } else {
          answer({ authenticated: false, error: 'no such token' });
        }
      });
    });
    await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', () => r()));
    const port = (webhook.address() as AddressInfo).port;
    const config = join(dir, 'webhook.orchconfig');
    writeFileSync(join(dir, 'client.crt'), client.certPem);
    writeFileSync(join(dir, 'client.key'), client.keyPem);
    writeFileSync(
      config,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'hook', cluster: { server: `https://127.0.0.1:${port}/authenticate`, 'certificate-authority-data': Buffer.from(ca.certPem).toString('base64') } }],
        // Files relative to the orchconfig's directory.
        users: [{ name: 'apiserver', user: { 'client-certificate': 'client.crt', 'client-key': 'client.key' } }],
        contexts: [{ name: 'hook', context: { cluster: 'hook', user: 'apiserver' } }],
        'current-context': 'hook',
      }),
    );
    [server, v1] = await Promise.all([
      // One process: each worker keeps its own cache, as each kube-apiserver replica does, and the test counts calls.
      startTestServer(['--workers=1', `--authentication-token-webhook-config-file=${config}`, '--authentication-token-webhook-cache-ttl=1s', '--api-audiences=orch-api']),
      startTestServer([`--authentication-token-webhook-config-file=${config}`, '--authentication-token-webhook-version=v1', '--authentication-token-webhook-cache-ttl=0s']),
    ]);
  });
  after(async () => {
    await Promise.all([server?.close(), v1?.close()]);
    webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const whoami = async (target: TestServer, token: string) => {
    const res = await target.request('POST', SSR, { token, body: { kind: 'SelfSubjectReview' } });
    return { status: res.status, user: res.body?.status?.userInfo, text: res.text };
  };
  const calls = (token: string) => seen.filter((s) => s.token === token).length;

  test('an accepted token: the webhook gets a v1beta1 TokenReview with the audiences and our client certificate', async () => {
    const me = await whoami(server, 'good-1');
    assert.equal(me.status, 201, me.text);
    assert.deepEqual(me.user, { username: 'web-good-1', uid: 'w-1', groups: ['webdevs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } });
    const request = seen.find((s) => s.token === 'good-1')!;
    assert.equal(request.apiVersion, 'authentication.orch.io/v1beta1');
    assert.deepEqual(request.audiences, ['orch-api']);
    assert.equal(request.clientCn, 'orch-apiserver');
    assert.equal((await whoami(v1, 'good-v1')).status, 201);
    assert.equal(seen.find((s) => s.token === 'good-v1')!.apiVersion, 'authentication.orch.io/v1');
  });

  test('answers are cached for the TTL, then asked again; a TTL of 0 asks every time', async () => {
    await whoami(server, 'good-2');
    await whoami(server, 'good-2');
    assert.equal(calls('good-2'), 1);
    assert.equal((await whoami(server, 'unknown')).status, 401);
    assert.equal((await whoami(server, 'unknown')).status, 401);
    assert.equal(calls('unknown'), 1, 'refusals are cached too');
    await new Promise((r) => setTimeout(r, 1100));
    await whoami(server, 'good-2');
    assert.equal(calls('good-2'), 2);
    await whoami(v1, 'good-3');
    await whoami(v1, 'good-3');
    assert.equal(calls('good-3'), 2);
  });

  test('a 500 is retried with backoff; garbage, huge or failing answers and foreign audiences are 401', async () => {
    assert.equal((await whoami(server, 'flaky')).status, 201);
    assert.equal(calls('flaky'), 3);
    for (const token of ['garbage', 'huge', 'elsewhere', 'broken']) {
      const started = Date.now();
      const res = await whoami(server, token);
      assert.equal(res.status, 401, token);
      assert.doesNotMatch(res.text, new RegExp(token));
      assert.ok(Date.now() - started < 15_000, `${token} answered in bounded time`);
    }
    assert.equal(calls('garbage'), 1, 'a malformed answer is not retried');
    assert.equal(calls('broken'), 5, "upstream's five tries");
  });

  test('TokenReview asks the webhook too', async () => {
    const review = await server.request('POST', '/apis/authentication.orch.io/v1/tokenreviews', { body: { kind: 'TokenReview', spec: { token: 'good-4' } } });
    assert.equal(review.body.status.authenticated, true);
    assert.equal(review.body.status.user.username, 'web-good-4');
    assert.deepEqual(review.body.status.audiences, ['orch-api']);
  });
});
