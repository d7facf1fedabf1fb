/**
 * --permit-port-sharing (kube-apiserver's SO_REUSEPORT): two servers bind one
 * address and port and both serve it. Node sets SO_REUSEPORT from 22.12; on an
 * older runtime the flag stops the server at start rather than being ignored.
 * The sharing test runs on this runtime when it can, or on the Node named by
 * ORCH_TEST_NODE22 when node_modules' native modules (better-sqlite3) were
 * built for that Node.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runtimeHasReusePort } from '../src/cli/flags.ts';
import { freePort } from './helpers/etcd.ts';
import { BIN, ROOT, startTestServer, type TestServer } from './helpers/server.ts';

const capableNode = runtimeHasReusePort() ? process.execPath : process.env.ORCH_TEST_NODE22;

describe('--permit-port-sharing', () => {
  test('which runtimes can set SO_REUSEPORT', () => {
    assert.equal(runtimeHasReusePort('20.19.5'), false);
    assert.equal(runtimeHasReusePort('22.11.0'), false);
    assert.equal(runtimeHasReusePort('22.12.0'), true);
    assert.equal(runtimeHasReusePort('23.0.0'), false);
    assert.equal(runtimeHasReusePort('23.1.0'), true);
    assert.equal(runtimeHasReusePort('24.0.0'), true);
  });

  test('on a runtime without SO_REUSEPORT the server refuses to start, naming the flag', { skip: runtimeHasReusePort() ? 'this runtime can share ports' : false }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-port-sharing-'));
    try {
      const run = spawnSync(process.execPath, [BIN, '--secure-port=0', `--data-dir=${dir}`, '--permit-port-sharing'], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, /--permit-port-sharing needs SO_REUSEPORT, which Node [\d.]+ cannot set on a listening socket: use Node 22\.12\.0 or later/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('two servers on one port', { skip: capableNode ? false : 'needs a Node 22.12+ runtime with node_modules built for it (ORCH_TEST_NODE22)' }, () => {
    const servers: TestServer[] = [];
    after(async () => {
      for (const server of servers) await server.close();
    });

    test('with the flag both bind and serve; without it the second cannot bind', async () => {
      const port = String(await freePort());
      const shared = ['--permit-port-sharing', `--secure-port=${port}`, '--min-workers=1', '--workers=1'];
      servers.push(await startTestServer(shared, { node: capableNode }));
      servers.push(await startTestServer(shared, { node: capableNode }));
      const [first, second] = servers;
      assert.equal(first.port, second.port);
      // Each server has its own CA and token: a request verified and answered 200 was served by that server.
      // The kernel spreads new connections over both sockets, so each is reached within a few tries.
      const seen = new Set<string>();
      for (let i = 0; i < 40 && seen.size < 2; i++) {
        for (const server of servers) {
          const answer = await server.request('GET', '/api/v1/namespaces/default').catch(() => undefined);
          if (answer?.status === 200) seen.add(server.dataDir);
        }
      }
      assert.equal(seen.size, 2);
      await first.close();
      servers.shift();
      assert.equal((await second.request('GET', '/readyz')).status, 200);
      const refused = spawnSync(capableNode!, [BIN, `--secure-port=${port}`, `--data-dir=${mkdtempSync(join(tmpdir(), 'orch-no-sharing-'))}`], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
      assert.notEqual(refused.status, 0);
      assert.match(refused.stderr + refused.stdout, /EADDRINUSE/);
    });
  });
});
