/**
 * Impersonation (issue 8; SPEC 5.4): every Impersonate-* header is checked
 * with the `impersonate` verb, and the request then runs as the identity the
 * headers name, authorization included.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';

const SSR = '/apis/authentication.orch.io/v1/selfsubjectreviews';

describe('impersonation', () => {
  let allow: TestServer;
  let deny: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-impersonation-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'alice-token,alice,alice-uid,"dev"\n');
    [allow, deny] = await Promise.all([
      startTestServer([`--token-auth-file=${tokens}`, '--authorization-mode=AlwaysAllow']),
      startTestServer([`--token-auth-file=${tokens}`, '--authorization-mode=AlwaysDeny']),
    ]);
  });
  after(async () => {
    await Promise.all([allow?.close(), deny?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const review = (server: TestServer, headers: Record<string, string | string[]>, token = 'alice-token') =>
    server.request('POST', SSR, { token, headers: headers as Record<string, string>, body: { kind: 'SelfSubjectReview' } });

  test('a user, groups, a uid and extras, as the headers name them (AlwaysAllow)', async () => {
    const res = await review(allow, {
      'Impersonate-User': 'bob',
      'Impersonate-Group': 'qa',
      'Impersonate-Uid': 'bob-uid',
      'Impersonate-Extra-Scopes': 'view',
      'Impersonate-Extra-Acme.com%2Fproject': 'x',
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.status.userInfo, {
      username: 'bob',
      uid: 'bob-uid',
      groups: ['qa', 'system:authenticated'],
      extra: { scopes: ['view'], 'acme.com/project': ['x'] },
    });
  });

  test('a service account gets its groups unless groups are given; anonymous is unauthenticated', async () => {
    const sa = await review(allow, { 'Impersonate-User': 'system:serviceaccount:default:builder' });
    assert.deepEqual(sa.body.status.userInfo, {
      username: 'system:serviceaccount:default:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
    const anonymous = await review(allow, { 'Impersonate-User': 'system:anonymous' });
    assert.deepEqual(anonymous.body.status.userInfo, { username: 'system:anonymous', groups: ['system:unauthenticated'] });
    const explicit = await review(allow, { 'Impersonate-User': 'carol', 'Impersonate-Group': 'system:unauthenticated' });
    assert.deepEqual(explicit.body.status.userInfo.groups, ['system:unauthenticated']);
  });

  test('the rest of the request runs as the impersonated identity', async () => {
    // system:masters may impersonate anyone, even under AlwaysDeny; the impersonated user may then do nothing.
    const asBob = await deny.request('GET', '/api/v1/namespaces', { headers: { 'Impersonate-User': 'bob' } });
    assert.equal(asBob.status, 403);
    assert.match(asBob.body.message, /^namespaces is forbidden: User "bob" cannot list resource "namespaces"/);
    const asMaster = await deny.request('GET', '/api/v1/namespaces', { headers: { 'Impersonate-User': 'root', 'Impersonate-Group': 'system:masters' } });
    assert.equal(asMaster.status, 200);
  });

  test('each header is authorized: a denial is 403 naming what was refused, and writes nothing', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ 'Impersonate-User': 'bob' }, /^users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden\.$/],
      [{ 'Impersonate-User': 'system:serviceaccount:kube:sa' }, /^serviceaccounts "sa" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube": Everything is forbidden\.$/],
    ];
    for (const [headers, message] of cases) {
      const res = await deny.request('POST', '/api/v1/namespaces/default/configmaps', { token: 'alice-token', headers, body: { metadata: { name: 'as-other' } } });
      assert.equal(res.status, 403);
      assert.match(res.body.message, message);
    }
    assert.equal((await deny.request('GET', '/api/v1/namespaces/default/configmaps/as-other')).status, 404);
  });

  test('groups, uid or extras without a user are 400, never a 5xx', async () => {
    for (const header of ['Impersonate-Group', 'Impersonate-Uid', 'Impersonate-Extra-Scopes']) {
      const res = await review(allow, { [header]: 'x' });
      assert.equal(res.status, 400, header);
      assert.match(res.body.message, /without impersonating a user$/);
    }
  });
});
