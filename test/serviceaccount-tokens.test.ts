/**
 * Service-account tokens (issue 8; SPEC 5.2): serviceaccounts/token issues
 * JWTs signed with jose; they authenticate as the account only for the server's
 * audiences, while unexpired, and while the account and the bound object still
 * exist with the same uid. Keys and files the test makes.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { BIN, ROOT, startTestServer, type TestServer } from './helpers/server.ts';

const NS = '/api/v1/namespaces/default';
const SSR = '/apis/authentication.orch.io/v1/selfsubjectreviews';
const ISSUER = 'https://issuer.example';

describe('service-account tokens', () => {
  let server: TestServer;
  let dir: string;
  let otherKey: ReturnType<typeof generateKeyPairSync>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-sa-'));
    const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
    otherKey = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    writeFileSync(join(dir, 'sa.key'), signing.privateKey.export({ type: 'pkcs1', format: 'pem' }));
    // A second verification key, public only (a key being rotated in).
    writeFileSync(join(dir, 'other.pub'), otherKey.publicKey.export({ type: 'spki', format: 'pem' }));
    server = await startTestServer([
      `--service-account-issuer=${ISSUER}`,
      '--service-account-issuer=https://old-issuer.example',
      `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
      `--service-account-key-file=${join(dir, 'other.pub')}`,
      '--api-audiences=api,orch',
      '--service-account-max-token-expiration=2h',
    ]);
    for (const name of ['builder', 'deployer']) {
      assert.equal((await server.request('POST', `${NS}/serviceaccounts`, { body: { metadata: { name } } })).status, 201);
    }
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const requestToken = (account: string, spec: Record<string, unknown> = {}) =>
    server.request('POST', `${NS}/serviceaccounts/${account}/token`, { body: { apiVersion: 'authentication.orch.io/v1', kind: 'TokenRequest', spec } });
  const whoami = async (token: string) => {
    const res = await server.request('POST', SSR, { token, body: { kind: 'SelfSubjectReview' } });
    return { status: res.status, user: res.body?.status?.userInfo };
  };

  test('a token request: defaults, claims, and the identity it authenticates as', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await requestToken('builder');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.kind, 'TokenRequest');
    assert.equal(res.body.metadata.name, 'builder');
    assert.equal(res.body.metadata.namespace, 'default');
    assert.deepEqual(res.body.spec.audiences, ['api', 'orch']);
    assert.equal(res.body.spec.expirationSeconds, 3600);
    const expires = Date.parse(res.body.status.expirationTimestamp) / 1000;
    assert.ok(expires >= before + 3600 && expires <= before + 3602);
    const token = res.body.status.token;
    const header = decodeProtectedHeader(token);
    assert.equal(header.alg, 'RS256');
    assert.match(String(header.kid), /^[A-Za-z0-9_-]{43}$/);
    const claims = decodeJwt(token) as any;
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.sub, 'system:serviceaccount:default:builder');
    assert.deepEqual(claims.aud, ['api', 'orch']);
    assert.equal(claims.exp - claims.iat, 3600);
    assert.equal(claims.nbf, claims.iat);
    assert.match(claims.jti, /^[0-9a-f-]{36}$/);
    const account = (await server.request('GET', `${NS}/serviceaccounts/builder`)).body;
    assert.deepEqual(claims['orch.io'], { namespace: 'default', serviceaccount: { name: 'builder', uid: account.metadata.uid } });
    const me = await whoami(token);
    assert.equal(me.status, 201);
    assert.deepEqual(me.user, {
      username: 'system:serviceaccount:default:builder',
      uid: account.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      extra: { 'authentication.orch.io/credential-id': [`JTI=${claims.jti}`] },
    });
    const review = await server.request('POST', '/apis/authentication.orch.io/v1/tokenreviews', { body: { kind: 'TokenReview', spec: { token } } });
    assert.equal(review.body.status.authenticated, true);
    assert.deepEqual(review.body.status.audiences, ['api', 'orch']);
  });

  test('issuer discovery: the OpenID configuration and the JWKS verify the tokens', async () => {
    const discovery = await server.request('GET', '/.well-known/openid-configuration');
    assert.equal(discovery.status, 200);
    assert.equal(discovery.headers['cache-control'], 'public, max-age=3600');
    assert.deepEqual(discovery.body, {
      issuer: ISSUER,
      // Upstream's default: this server's external address, not the issuer's.
      jwks_uri: `https://127.0.0.1:${server.port}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES384', 'RS256'],
    });
    const jwks = await server.request('GET', '/openid/v1/jwks');
    assert.equal(jwks.headers['content-type'], 'application/jwk-set+json');
    assert.deepEqual(jwks.body.keys.map((k: any) => [k.kty, k.alg, k.use]), [['RSA', 'RS256', 'sig'], ['EC', 'ES384', 'sig']]);
    const token = (await requestToken('builder')).body.status.token;
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks.body), { issuer: ISSUER, audience: 'api' });
    assert.equal(payload.sub, 'system:serviceaccount:default:builder');
  });

  test('expirationSeconds: at least 10 minutes (422), at most the flag (shortened, with a warning)', async () => {
    const short = await requestToken('builder', { expirationSeconds: 599 });
    assert.equal(short.status, 422);
    assert.equal(short.body.message, 'TokenRequest.authentication.orch.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes');
    const long = await requestToken('builder', { expirationSeconds: 3 * 3600 });
    assert.equal(long.status, 201);
    assert.equal(long.body.spec.expirationSeconds, 7200);
    assert.match(String(long.headers.warning), /requested expiration of 10800 seconds shortened to 7200 seconds/);
    const claims = decodeJwt(long.body.status.token);
    assert.equal(claims.exp! - claims.iat!, 7200);
  });

  test('a missing account is 404; bad bound objects are refused', async () => {
    assert.equal((await requestToken('nobody')).status, 404);
    const cm = await requestToken('builder', { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } });
    assert.equal(cm.status, 400);
    assert.match(cm.body.message, /cannot bind token to object of type/);
    assert.equal((await requestToken('builder', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'missing' } })).status, 404);
  });

  test('audiences: a token for other audiences does not authenticate requests; TokenReview can ask for them', async () => {
    const res = await requestToken('builder', { audiences: ['vault'] });
    assert.deepEqual(decodeJwt(res.body.status.token).aud, ['vault']);
    assert.equal((await whoami(res.body.status.token)).status, 401);
    const review = await server.request('POST', '/apis/authentication.orch.io/v1/tokenreviews', { body: { kind: 'TokenReview', spec: { token: res.body.status.token, audiences: ['vault'] } } });
    assert.equal(review.body.status.authenticated, true);
    assert.deepEqual(review.body.status.audiences, ['vault']);
  });

  test('bound to a Secret: works while it exists with that uid; a uid mismatch is 409', async () => {
    const secret = (await server.request('POST', `${NS}/secrets`, { body: { metadata: { name: 'binding' } } })).body;
    const mismatch = await requestToken('builder', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'binding', uid: 'other-uid' } });
    assert.equal(mismatch.status, 409);
    const res = await requestToken('builder', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'binding', uid: secret.metadata.uid } });
    assert.equal(res.status, 201, res.text);
    const token = res.body.status.token;
    assert.deepEqual((decodeJwt(token) as any)['orch.io'].secret, { name: 'binding', uid: secret.metadata.uid });
    assert.equal((await whoami(token)).status, 201);
    await server.request('DELETE', `${NS}/secrets/binding`);
    assert.equal((await whoami(token)).status, 401);
  });

  test('bound to a Pod: pod extras; the 3607 s projected token lives a year with warnafter; deleting the pod ends it', async () => {
    const pod = await server.request('POST', `${NS}/pods`, { body: { metadata: { name: 'worker' }, spec: { serviceAccountName: 'builder', containers: [{ name: 'c', image: 'busybox' }] } } });
    assert.equal(pod.status, 201, pod.text);
    const wrongAccount = await requestToken('deployer', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker' } });
    assert.equal(wrongAccount.status, 400);
    assert.match(wrongAccount.body.message, /cannot bind token for serviceaccount "deployer" to pod running with different serviceaccount name/);
    const res = await requestToken('builder', { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker' } });
    assert.equal(res.status, 201, res.text);
    const claims = decodeJwt(res.body.status.token) as any;
    assert.equal(claims.exp - claims.iat, 365 * 24 * 3600);
    assert.equal(claims['orch.io'].warnafter, claims.iat + 3607);
    assert.equal(Date.parse(res.body.status.expirationTimestamp) / 1000 - claims.iat, 3607);
    const me = await whoami(res.body.status.token);
    assert.deepEqual(me.user.extra['authentication.orch.io/pod-name'], ['worker']);
    assert.deepEqual(me.user.extra['authentication.orch.io/pod-uid'], [pod.body.metadata.uid]);
    await server.request('DELETE', `${NS}/pods/worker`);
    assert.equal((await whoami(res.body.status.token)).status, 401);
  });

  test('a deleted account, or one re-created under the same name, ends its tokens', async () => {
    await server.request('POST', `${NS}/serviceaccounts`, { body: { metadata: { name: 'temp' } } });
    const token = (await requestToken('temp')).body.status.token;
    assert.equal((await whoami(token)).status, 201);
    await server.request('DELETE', `${NS}/serviceaccounts/temp`);
    assert.equal((await whoami(token)).status, 401);
    await server.request('POST', `${NS}/serviceaccounts`, { body: { metadata: { name: 'temp' } } });
    assert.equal((await whoami(token)).status, 401);
  });

  test('other keys, issuers and forgeries', async () => {
    const account = (await server.request('GET', `${NS}/serviceaccounts/builder`)).body;
    const now = Math.floor(Date.now() / 1000);
    const claims = { 'orch.io': { namespace: 'default', serviceaccount: { name: 'builder', uid: account.metadata.uid } } };
    const sign = (key: any, alg: string, iss: string, extra: Record<string, unknown> = {}) =>
      new SignJWT({ ...claims, ...extra })
        .setProtectedHeader({ alg })
        .setIssuer(iss)
        .setSubject('system:serviceaccount:default:builder')
        .setAudience('api')
        .setIssuedAt(now)
        .setNotBefore(now)
        .setExpirationTime(now + 600)
        .sign(key);
    // The rotated-in public key verifies, and the second issuer is accepted.
    assert.equal((await whoami(await sign(otherKey.privateKey, 'ES384', 'https://old-issuer.example'))).status, 201);
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const rejected = [
      await sign(stranger.privateKey, 'ES256', ISSUER),
      await sign(otherKey.privateKey, 'ES384', 'https://elsewhere.example'),
      await new SignJWT(claims).setProtectedHeader({ alg: 'ES384' }).setIssuer(ISSUER).setSubject('system:serviceaccount:default:builder').setAudience('api').setIssuedAt(now - 7200).setExpirationTime(now - 3600).sign(otherKey.privateKey),
      // The private claim names another account than the subject.
      await sign(otherKey.privateKey, 'ES384', ISSUER, { 'orch.io': { namespace: 'default', serviceaccount: { name: 'deployer', uid: account.metadata.uid } } }),
    ];
    const good = (await requestToken('builder')).body.status.token as string;
    const [h, p] = good.split('.');
    rejected.push(
      `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p}.`,
      good.slice(0, -10),
      `${h}.${p}`,
      `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(good), sub: 'system:serviceaccount:default:deployer' })).toString('base64url')}.${good.split('.')[2]}`,
      'a.b.c',
    );
    for (const token of rejected) {
      const res = await server.request('GET', '/api/v1/namespaces', { token });
      assert.equal(res.status, 401, token.slice(0, 40));
      assert.equal(res.body.message, 'Unauthorized');
    }
  });
});

describe('service-account flags', () => {
  const start = (args: string[]) => spawnSync(process.execPath, [BIN, '--secure-port=0', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  test('an issuer without a signing key, a bad issuer URL, a short max expiration are start-up errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-sa-flags-'));
    try {
      const key = join(dir, 'k.pem');
      writeFileSync(key, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const cases: Array<[string[], RegExp]> = [
        [['--service-account-issuer=https://x'], /--service-account-signing-key-file is required/],
        [[`--service-account-signing-key-file=${key}`], /--service-account-issuer is required/],
        [[`--service-account-signing-key-file=${key}`, '--service-account-issuer=http://x:1/a'], /was not a valid URL/],
        [[`--service-account-signing-key-file=${key}`, '--service-account-issuer=https://x', '--service-account-max-token-expiration=30m'], /at least 1 hour/],
        [[`--service-account-signing-key-file=${key}`, '--service-account-issuer=https://x', `--service-account-key-file=${join(dir, 'missing.pem')}`], /missing\.pem/],
      ];
      for (const [args, message] of cases) {
        const run = start([`--data-dir=${join(dir, 'data')}`, ...args]);
        assert.notEqual(run.status, 0, args.join(' '));
        assert.match(run.stderr, message, args.join(' '));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
