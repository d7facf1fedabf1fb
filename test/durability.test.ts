/**
 * An acknowledged write survives kill -9 of the server (issue 2, Storage).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from './helpers/server.ts';

const POLICY = (name: string) => ({
  apiVersion: 'networking.orch.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name },
  spec: { podSelector: { matchLabels: { app: name } }, ingress: [{ ports: [{ port: 80 }] }] },
});

test('every acknowledged create is there after kill -9 and restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-kill-'));
  try {
    const first = await startTestServer([], { dataDir });
    const acknowledged: string[] = [];
    // Writes keep flowing while the process is killed, so some are in flight at that moment.
    let killed = false;
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; !killed; i++) {
        const name = `np-${w}-${i}`;
        try {
          const res = await first.request('POST', '/apis/networking.orch.io/v1/namespaces/default/networkpolicies', { body: POLICY(name) });
          if (res.status === 201) acknowledged.push(name);
        } catch {
          return; // the connection died with the process
        }
      }
    });
    await new Promise((r) => setTimeout(r, 1500));
    killed = true;
    first.process.kill('SIGKILL');
    await Promise.all(writers);
    await first.stop();
    assert.ok(acknowledged.length > 50, `expected a steady stream of writes, got ${acknowledged.length}`);

    const second = await startTestServer([], { dataDir });
    try {
      const list = await second.request('GET', '/apis/networking.orch.io/v1/namespaces/default/networkpolicies');
      assert.equal(list.status, 200);
      const stored = new Set(list.body.items.map((i: any) => i.metadata.name));
      const lost = acknowledged.filter((name) => !stored.has(name));
      assert.deepEqual(lost, [], 'acknowledged writes lost');
      for (const item of list.body.items) {
        assert.equal(item.spec.ingress[0].ports[0].protocol, 'TCP', 'no half-written object');
      }
      // The store keeps serving writes after recovery, with revisions past every recovered one.
      const maxRevision = Math.max(...list.body.items.map((i: any) => Number(i.metadata.resourceVersion)));
      const after = await second.request('POST', '/apis/networking.orch.io/v1/namespaces/default/networkpolicies', { body: POLICY('after-restart') });
      assert.equal(after.status, 201);
      assert.ok(Number(after.body.metadata.resourceVersion) > maxRevision);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
