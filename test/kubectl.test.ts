/**
 * kubectl against a real server (issue 2): apply -f, get, get -o yaml, describe,
 * delete, explain, api-resources. Skipped when kubectl is not on PATH.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';

const POLICY = `apiVersion: networking.orch.io/v1
kind: NetworkPolicy
metadata:
  name: web
  namespace: default
  labels: {app: web}
spec:
  podSelector:
    matchLabels: {app: web}
  ingress:
  - from:
    - podSelector: {matchLabels: {role: frontend}}
    - ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}
    ports:
    - port: 8080
      endPort: 8090
`;

describe('kubectl', { skip: !hasKubectl() && 'kubectl is not on PATH' }, () => {
  let server: TestServer;
  let dir: string;
  const kubectl = (...args: string[]) => runKubectl(server.orchconfig, dir, args);

  before(async () => {
    server = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'orch-kubectl-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('get namespaces lists the system namespaces', async () => {
    const out = await kubectl('get', 'namespaces', '-o', 'name');
    assert.equal(out.code, 0, out.stderr);
    assert.deepEqual(out.stdout.trim().split('\n').sort(), ['namespace/default', 'namespace/orch-node-lease', 'namespace/orch-public', 'namespace/orch-system']);
  });

  test('api-resources lists our kinds with short names', async () => {
    const out = await kubectl('api-resources', '--no-headers');
    assert.equal(out.code, 0, out.stderr);
    const netpol = out.stdout.split('\n').find((l) => l.startsWith('networkpolicies'));
    assert.ok(netpol, out.stdout);
    assert.match(netpol, /networkpolicies\s+netpol\s+networking\.orch\.io\/v1\s+true\s+NetworkPolicy/);
    assert.match(out.stdout, /^namespaces\s+ns\s+v1\s+false\s+Namespace/m);
  });

  test('apply -f creates, get -o yaml shows the defaulted object, describe and delete work', async () => {
    const applied = await kubectl('apply', '-f', join(dir, 'policy.yaml'));
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /networkpolicy.networking.orch.io\/web created/);

    const yaml = await kubectl('get', 'netpol', 'web', '-n', 'default', '-o', 'yaml');
    assert.equal(yaml.code, 0, yaml.stderr);
    const obj = parseYaml(yaml.stdout);
    assert.equal(obj.apiVersion, 'networking.orch.io/v1');
    assert.deepEqual(obj.spec.policyTypes, ['Ingress']);
    assert.equal(obj.spec.ingress[0].ports[0].protocol, 'TCP');
    assert.ok(obj.metadata.uid && obj.metadata.resourceVersion && obj.metadata.creationTimestamp);

    const listed = await kubectl('get', 'networkpolicies', '-A');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /default\s+web/);

    const described = await kubectl('describe', 'netpol', 'web');
    assert.equal(described.code, 0, described.stderr);
    assert.match(described.stdout, /Name:\s+web/);
    assert.match(described.stdout, /Namespace:\s+default/);

    const deleted = await kubectl('delete', '-f', join(dir, 'policy.yaml'));
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /"web" deleted/);
    const gone = await kubectl('get', 'netpol', 'web');
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /NotFound|not found/);
  });

  test('an invalid policy is refused with the field named', async () => {
    writeFileSync(join(dir, 'bad.yaml'), POLICY.replace('endPort: 8090', 'endPort: 80'));
    const out = await kubectl('apply', '-f', join(dir, 'bad.yaml'));
    assert.notEqual(out.code, 0);
    assert.match(out.stderr, /spec\.ingress\[0\]\.ports\[0\]\.endPort: Invalid value: 8080: must be greater than or equal to `port`/);
  });

  test('explain reads the published OpenAPI', async () => {
    const out = await kubectl('explain', 'networkpolicy.spec.ingress');
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /GROUP:\s+networking\.orch\.io/);
    assert.match(out.stdout, /FIELD: ingress <\[\]NetworkPolicyIngressRule>/);
    assert.match(out.stdout, /ports\s+<\[\]NetworkPolicyPort>/);
  });

  test('apply --server-side by two field managers: the second conflicts, --force-conflicts takes over', async () => {
    const ssa = POLICY.replace('name: web', 'name: ssa');
    writeFileSync(join(dir, 'ssa.yaml'), ssa);
    writeFileSync(join(dir, 'ssa-bob.yaml'), ssa.replace('port: 8080', 'port: 9090').replace('endPort: 8090', 'endPort: 9095'));
    const alice = await kubectl('apply', '--server-side', '--field-manager=alice', '-f', join(dir, 'ssa.yaml'));
    assert.equal(alice.code, 0, alice.stderr);
    assert.match(alice.stdout, /serverside-applied/);
    const bob = await kubectl('apply', '--server-side', '--field-manager=bob', '-f', join(dir, 'ssa-bob.yaml'));
    assert.notEqual(bob.code, 0);
    assert.match(bob.stderr, /Apply failed with 1 conflict: conflict with "alice": \.spec\.ingress/);
    const forced = await kubectl('apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', join(dir, 'ssa-bob.yaml'));
    assert.equal(forced.code, 0, forced.stderr);
    const obj = parseYaml((await kubectl('get', 'netpol', 'ssa', '-o', 'yaml', '--show-managed-fields')).stdout);
    assert.equal(obj.spec.ingress[0].ports[0].port, 9090);
    const managers = obj.metadata.managedFields.map((m: any) => `${m.manager}/${m.operation}`).sort();
    assert.deepEqual(managers, ['alice/Apply', 'bob/Apply']);
    assert.equal((await kubectl('delete', 'netpol', 'ssa')).code, 0);
  });

  test('client-side apply, then diff shows the change and apply configures it', async () => {
    const csa = POLICY.replace('name: web', 'name: csa');
    writeFileSync(join(dir, 'csa.yaml'), csa);
    assert.equal((await kubectl('apply', '-f', join(dir, 'csa.yaml'))).code, 0);
    const same = await kubectl('diff', '-f', join(dir, 'csa.yaml'));
    assert.equal(same.code, 0, `no difference expected: ${same.stdout}${same.stderr}`);
    writeFileSync(join(dir, 'csa2.yaml'), csa.replace('role: frontend', 'role: backend'));
    const diff = await kubectl('diff', '-f', join(dir, 'csa2.yaml'));
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /^-\s+role: frontend$/m);
    assert.match(diff.stdout, /^\+\s+role: backend$/m);
    assert.equal((await kubectl('get', 'netpol', 'csa', '-o', 'jsonpath={.spec.ingress[0].from[0].podSelector.matchLabels.role}')).stdout, 'frontend', 'diff wrote nothing');
    const applied = await kubectl('apply', '-f', join(dir, 'csa2.yaml'));
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /configured/);
    assert.equal((await kubectl('get', 'netpol', 'csa', '-o', 'jsonpath={.spec.ingress[0].from[0].podSelector.matchLabels.role}')).stdout, 'backend');
    assert.equal((await kubectl('label', 'netpol', 'csa', 'tier=x')).code, 0);
    assert.equal((await kubectl('get', 'netpol', 'csa', '-o', 'jsonpath={.metadata.labels.tier}')).stdout, 'x');
  });

  test('create and get config maps, secrets and namespaces', async () => {
    assert.equal((await kubectl('create', 'namespace', 'team-a')).code, 0);
    const cm = await kubectl('create', 'configmap', 'settings', '-n', 'team-a', '--from-literal=mode=fast');
    assert.equal(cm.code, 0, cm.stderr);
    const data = await kubectl('get', 'configmap', 'settings', '-n', 'team-a', '-o', 'jsonpath={.data.mode}');
    assert.equal(data.stdout, 'fast');
    const secret = await kubectl('create', 'secret', 'generic', 'creds', '-n', 'team-a', '--from-literal=password=hunter2');
    assert.equal(secret.code, 0, secret.stderr);
    const value = await kubectl('get', 'secret', 'creds', '-n', 'team-a', '-o', 'jsonpath={.data.password}');
    assert.equal(Buffer.from(value.stdout, 'base64').toString(), 'hunter2');
    const missing = await kubectl('create', 'configmap', 'x', '-n', 'no-such-namespace');
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /namespaces "no-such-namespace" not found/);
  });
});
