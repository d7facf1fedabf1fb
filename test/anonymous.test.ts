/**
 * Anonymous requests (issue 8; SPEC 5.3): on by default unless AlwaysAllow,
 * off with --anonymous-auth=false, or limited to paths by an
 * AuthenticationConfiguration under AnonymousAuthConfigurableEndpoints.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, ROOT, startTestServer } from './helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'orch-anonymous-'));
const config = (name: string, body: string) => {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
};
const GATE = '--feature-gates=AnonymousAuthConfigurableEndpoints=true';

describe('anonymous requests', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('default: anonymous is system:anonymous in system:unauthenticated; an invalid token is still 401', async () => {
    const server = await startTestServer(['--authorization-mode=AlwaysDeny']);
    try {
      const res = await server.request('GET', '/api/v1/namespaces', { token: null });
      assert.equal(res.status, 403);
      assert.match(res.body.message, /User "system:anonymous"/);
      assert.equal((await server.request('GET', '/api/v1/namespaces', { token: 'wrong' })).status, 401);
    } finally {
      await server.close();
    }
  });

  test('--anonymous-auth=false: 401 without credentials', async () => {
    const server = await startTestServer(['--authorization-mode=AlwaysDeny', '--anonymous-auth=false']);
    try {
      assert.equal((await server.request('GET', '/api/v1/namespaces', { token: null })).status, 401);
      assert.equal((await server.request('GET', '/livez', { token: null })).status, 401);
    } finally {
      await server.close();
    }
  });

  test('AuthenticationConfiguration: anonymous only for the listed paths', async () => {
    const file = config('paths.yaml', 'apiVersion: apiserver.config.orch.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n  - path: /readyz\n');
    // RBAC's default roles open the probes to everyone; the configuration decides who is anonymous.
    const server = await startTestServer(['--authorization-mode=RBAC', GATE, `--authentication-config=${file}`]);
    try {
      assert.equal((await server.request('GET', '/livez', { token: null })).status, 200);
      assert.equal((await server.request('GET', '/readyz', { token: null })).status, 200);
      assert.equal((await server.request('GET', '/healthz', { token: null })).status, 401);
      assert.equal((await server.request('GET', '/api/v1/namespaces', { token: null })).status, 401);
    } finally {
      await server.close();
    }
  });

  test('start-up errors: without the gate, with --anonymous-auth, conditions while disabled, jwt authenticators', () => {
    const good = config('good.yaml', 'apiVersion: apiserver.config.orch.io/v1alpha1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n');
    const cases: Array<[string[], RegExp]> = [
      [[`--authentication-config=${good}`], /AnonymousAuthConfigurableEnpoints feature gate is disabled/],
      [[GATE, `--authentication-config=${good}`, '--anonymous-auth=true'], /anonymous is not supported when --anonymous-auth is set/],
      [[GATE, `--authentication-config=${config('cond.yaml', 'apiVersion: apiserver.config.orch.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: false\n  conditions:\n  - path: /livez\n')}`], /conditions must not be set/],
      [[GATE, `--authentication-config=${config('jwt.yaml', 'apiVersion: apiserver.config.orch.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: https://x\n')}`], /JWT authenticators are not supported/],
      [[GATE, `--authentication-config=${config('kind.yaml', 'apiVersion: apiserver.config.orch.io/v1beta1\nkind: Nope\n')}`], /is not AuthenticationConfiguration/],
    ];
    for (const [args, message] of cases) {
      const run = spawnSync(process.execPath, [BIN, '--secure-port=0', `--data-dir=${join(dir, 'data')}`, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
      assert.notEqual(run.status, 0, args.join(' '));
      assert.match(run.stderr, message, args.join(' '));
    }
  });
});
