/**
 * ServiceAccount admission for pods (issue 8; SPEC 5.2): `default` when none is
 * named, a missing account refuses the pod, the projected token volume in
 * every container unless automount is off, imagePullSecrets from the account.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';

const NS = '/api/v1/namespaces/default';
const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], initContainers: [{ name: 'init', image: 'busybox:1' }], ...spec },
});

describe('ServiceAccount admission', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    // The serviceaccount controller makes `default`; wait for it.
    for (let i = 0; i < 100 && (await server.request('GET', `${NS}/serviceaccounts/default`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
    await server.request('POST', `${NS}/serviceaccounts`, { body: { metadata: { name: 'quiet' }, automountServiceAccountToken: false, imagePullSecrets: [{ name: 'regcred' }] } });
    await server.request('POST', `${NS}/serviceaccounts`, { body: { metadata: { name: 'strict', annotations: { 'orch.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'allowed' }] } });
  });
  after(async () => server?.close());

  test('default account, projected token volume mounted read-only in every container', async () => {
    const res = await server.request('POST', `${NS}/pods`, { body: pod('plain') });
    assert.equal(res.status, 201, res.text);
    const spec = res.body.spec;
    assert.equal(spec.serviceAccountName, 'default');
    assert.equal(spec.volumes.length, 1);
    const volume = spec.volumes[0];
    assert.match(volume.name, /^orch-api-access-[a-z0-9]{5}$/);
    assert.deepEqual(volume.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
        { configMap: { name: 'orch-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    for (const container of [...spec.containers, ...spec.initContainers]) {
      assert.deepEqual(container.volumeMounts, [{ name: volume.name, readOnly: true, mountPath: '/var/run/secrets/orch.io/serviceaccount' }], container.name);
    }
  });

  test('a missing account refuses the pod (403) and stores nothing', async () => {
    const res = await server.request('POST', `${NS}/pods`, { body: pod('orphan', { serviceAccountName: 'ghost' }) });
    assert.equal(res.status, 403);
    assert.equal(res.body.message, 'pods "orphan" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found');
    assert.equal((await server.request('GET', `${NS}/pods/orphan`)).status, 404);
  });

  test('automount off on the account or the pod; the pod wins; imagePullSecrets copied when the pod has none', async () => {
    const quiet = (await server.request('POST', `${NS}/pods`, { body: pod('quiet', { serviceAccountName: 'quiet' }) })).body;
    assert.equal(quiet.spec.volumes, undefined);
    assert.equal(quiet.spec.containers[0].volumeMounts, undefined);
    assert.deepEqual(quiet.spec.imagePullSecrets, [{ name: 'regcred' }]);
    const own = (await server.request('POST', `${NS}/pods`, { body: pod('own', { serviceAccountName: 'quiet', automountServiceAccountToken: true, imagePullSecrets: [{ name: 'mine' }] }) })).body;
    assert.equal(own.spec.volumes.length, 1);
    assert.deepEqual(own.spec.imagePullSecrets, [{ name: 'mine' }]);
    const off = (await server.request('POST', `${NS}/pods`, { body: pod('off', { automountServiceAccountToken: false }) })).body;
    assert.equal(off.spec.volumes, undefined);
  });

  test('a container that mounts something at the token path keeps it', async () => {
    const body = pod('custom', {
      volumes: [{ name: 'mine', emptyDir: {} }],
      containers: [
        { name: 'a', image: 'nginx:1.27', volumeMounts: [{ name: 'mine', mountPath: '/var/run/secrets/orch.io/serviceaccount' }] },
        { name: 'b', image: 'nginx:1.27' },
      ],
      initContainers: [],
    });
    const res = await server.request('POST', `${NS}/pods`, { body });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.spec.containers[0].volumeMounts.map((m: any) => m.name), ['mine']);
    assert.match(res.body.spec.containers[1].volumeMounts[0].name, /^orch-api-access-/);
  });

  test('orch.io/enforce-mountable-secrets limits the Secrets a pod may use', async () => {
    const refused = await server.request('POST', `${NS}/pods`, { body: pod('leaky', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'other' } }] }) });
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /volume with secret.secretName="other" is not allowed because service account strict does not reference that secret/);
    const allowed = await server.request('POST', `${NS}/pods`, { body: pod('tidy', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'allowed' } }] }) });
    assert.equal(allowed.status, 201, allowed.text);
  });
});
