/**
 * The real kubectl on a custom resource (issue 11; SPEC 4.1, 4.5): a
 * definition created with kubectl is listed by plural, short name and
 * category, a custom object is server-side applied and changed, explain reads
 * the schema from /openapi/v3, and once the definition is deleted the
 * resource type is gone. On SQLite, and on two replicas sharing one etcd,
 * where every write goes through one replica and every read through the
 * other. Skipped when kubectl is not on PATH (and the etcd run when etcd is
 * not installed).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { etcdAvailable, startEtcd, type TestEtcd } from './helpers/etcd.ts';
import { eventually } from './helpers/eventually.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const CRD = `apiVersion: apiextensions.orch.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: CronTab runs a command on a schedule.
        properties:
          spec:
            type: object
            description: The desired schedule of the CronTab.
            required: [cronSpec]
            properties:
              cronSpec:
                type: string
                description: When to run, in cron syntax.
              image:
                type: string
                description: The image the job runs.
              replicas:
                type: integer
                description: How many copies run at once.
`;

function cronTab(replicas: number): string {
  return `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: nightly
  namespace: default
spec:
  cronSpec: "0 3 * * *"
  image: backup:1
  replicas: ${replicas}
`;
}

const SETUPS = [
  { name: 'on SQLite', replicas: 1, etcd: false },
  { name: 'on two replicas over one etcd', replicas: 2, etcd: true },
] as const;

for (const setup of SETUPS) describe(`kubectl on custom resources ${setup.name}`, { skip: (!hasKubectl() && 'kubectl is not on PATH') || (setup.etcd && !etcdAvailable() && 'etcd is not installed') }, () => {
  let servers: TestServer[] = [];
  let etcd: TestEtcd | undefined;
  let dir: string;
  let cacheRun = 0;
  /** Writes go through the first replica, */
  const writer = (...args: string[]) => runKubectl(servers[0].orchconfig, dir, args);
  /** reads through the last (the same one on SQLite). */
  const kubectl = (...args: string[]) => runKubectl(servers[servers.length - 1].orchconfig, dir, args);
  /** A run with a discovery cache of its own, so it sees the server's current resources. */
  const fresh = (run: typeof kubectl) => (...args: string[]) => run('--cache-dir', join(dir, `cache-${cacheRun++}`), ...args);
  const freshKubectl = fresh(kubectl);
  const freshWriter = fresh(writer);

  before(async () => {
    const flags = ['--authorization-mode=AlwaysAllow'];
    if (setup.etcd) {
      etcd = await startEtcd();
      flags.push('--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`);
    }
    servers = await Promise.all(Array.from({ length: setup.replicas }, () => startTestServer(flags)));
    dir = mkdtempSync(join(tmpdir(), 'orch-crd-kubectl-'));
    writeFileSync(join(dir, 'crd.yaml'), CRD);
    writeFileSync(join(dir, 'crontab-1.yaml'), cronTab(1));
    writeFileSync(join(dir, 'crontab-2.yaml'), cronTab(2));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await etcd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('kubectl creates the definition; get by plural, short name and category', async () => {
    const created = await writer('create', '-f', join(dir, 'crd.yaml'));
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim(), 'customresourcedefinition.apiextensions.orch.io/crontabs.stable.example.com created');
    const waited = await kubectl('wait', '--for=condition=Established', '--timeout=10s', 'crd/crontabs.stable.example.com');
    assert.equal(waited.code, 0, waited.stderr);
    const empty = await eventually('crontabs listed', async () => {
      const out = await freshKubectl('get', 'crontabs');
      return out.code === 0 ? out : undefined;
    });
    assert.equal(empty.stdout, '');
    assert.equal(empty.stderr.trim(), 'No resources found in default namespace.');
    await eventually('crontabs listed by the writer', async () => ((await freshWriter('get', 'crontabs')).code === 0 ? true : undefined));
  });

  test('kubectl apply --server-side creates, then changes, the custom object', async () => {
    const first = await freshWriter('apply', '--server-side', '-f', join(dir, 'crontab-1.yaml'));
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trim(), 'crontab.stable.example.com/nightly serverside-applied');
    const second = await writer('apply', '--server-side', '-f', join(dir, 'crontab-2.yaml'));
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout.trim(), 'crontab.stable.example.com/nightly serverside-applied');
    const got = await kubectl('get', 'crontab', 'nightly', '-o', 'json', '--show-managed-fields');
    assert.equal(got.code, 0, got.stderr);
    const obj = JSON.parse(got.stdout);
    assert.deepEqual(obj.spec, { cronSpec: '0 3 * * *', image: 'backup:1', replicas: 2 });
    assert.equal(obj.metadata.generation, 2);
    assert.deepEqual(obj.metadata.managedFields.map((e: any) => [e.manager, e.operation]), [['kubectl', 'Apply']]);
    assert.deepEqual(obj.metadata.managedFields[0].fieldsV1, { 'f:spec': { 'f:cronSpec': {}, 'f:image': {}, 'f:replicas': {} } });
  });

  test('get by plural, short name and the all category', async () => {
    for (const resource of ['crontabs', 'ct', 'crontabs.stable.example.com']) {
      const out = await kubectl('get', resource, '--no-headers');
      assert.equal(out.code, 0, `${resource}: ${out.stderr}`);
      assert.match(out.stdout, /^nightly\s+\d+s\s*$/, resource);
    }
    const headed = await kubectl('get', 'ct');
    assert.match(headed.stdout, /^NAME\s+AGE\n/);
    const all = await kubectl('get', 'all', '-o', 'name');
    assert.equal(all.code, 0, all.stderr);
    assert.ok(all.stdout.split('\n').includes('crontab.stable.example.com/nightly'), all.stdout);
  });

  test('explain prints the schema\'s fields and descriptions from /openapi/v3', async () => {
    const kind = await kubectl('explain', 'crontabs');
    assert.equal(kind.code, 0, kind.stderr);
    assert.match(kind.stdout, /^GROUP:\s+stable\.example\.com\nKIND:\s+CronTab\nVERSION:\s+v1\n/);
    assert.match(kind.stdout, /DESCRIPTION:\n\s+CronTab runs a command on a schedule\./);
    assert.match(kind.stdout, /FIELDS:\n\s+apiVersion\s+<string>\n\s+APIVersion defines the versioned schema/);
    assert.match(kind.stdout, /\n\s+metadata\s+<ObjectMeta>\n\s+Standard object's metadata\./);
    assert.match(kind.stdout, /\n\s+spec\s+<Object>\n\s+The desired schedule of the CronTab\./);

    const spec = await kubectl('explain', 'crontabs.spec');
    assert.equal(spec.code, 0, spec.stderr);
    assert.match(spec.stdout, /FIELD: spec <Object>/);
    assert.match(spec.stdout, /\n\s+cronSpec\s+<string> -required-\n\s+When to run, in cron syntax\./);
    assert.match(spec.stdout, /\n\s+image\s+<string>\n\s+The image the job runs\./);
    assert.match(spec.stdout, /\n\s+replicas\s+<integer>\n\s+How many copies run at once\./);

    const missing = await kubectl('explain', 'crontabs.spec.nothing');
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /field "nothing" does not exist/);
  });

  test('after kubectl delete crd, the resource type is gone', async () => {
    const deleted = await writer('delete', 'crd', 'crontabs.stable.example.com');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout.trim(), 'customresourcedefinition.apiextensions.orch.io "crontabs.stable.example.com" deleted');
    const gone = await eventually('crontabs gone', async () => {
      const out = await freshKubectl('get', 'crontabs');
      return out.code !== 0 ? out : undefined;
    });
    assert.equal(gone.stderr.trim(), 'error: the server doesn\'t have a resource type "crontabs"');
    for (const server of servers) {
      const api = await eventually('404 on every process', async () => {
        for (let i = 0; i < 6; i++) if ((await server.request('GET', '/apis/stable.example.com/v1/namespaces/default/crontabs')).status !== 404) return undefined;
        return true;
      });
      assert.equal(api, true);
    }
  });
});
