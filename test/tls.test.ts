/** The self-signed CA and serving certificate made at first start (src/server/tls.ts, x509.ts). */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { hasKubectl } from './helpers/kubectl.ts';
import { BIN, ROOT, startTestServer } from './helpers/server.ts';
import { issue, makeCa, type Issued } from './helpers/pki.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servingCertificate } from '../src/server/tls.ts';

test('a CA and a serving certificate for the loopback names, reused on the next start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-pki-'));
  try {
    const first = await servingCertificate({ certDir: dir, hosts: ['127.0.0.1', 'localhost', '::1', '10.1.2.3'] });
    const ca = new X509Certificate(first.ca);
    const serving = new X509Certificate(first.cert);
    assert.equal(ca.ca, true);
    assert.equal(serving.ca, false);
    assert.ok(serving.verify(ca.publicKey), 'signed by the CA');
    assert.ok(ca.verify(ca.publicKey), 'the CA is self-signed');
    assert.equal(serving.checkIssued(ca), true);
    assert.equal(serving.checkHost('localhost'), 'localhost');
    assert.equal(serving.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(serving.checkIP('::1'), '::1');
    assert.equal(serving.checkIP('10.1.2.3'), '10.1.2.3');
    assert.equal(serving.checkIP('10.9.9.9'), undefined);
    assert.deepEqual(serving.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    assert.ok(new Date(serving.validTo).getTime() > Date.now() + 365 * 24 * 3600 * 1000);
    assert.ok(serving.checkPrivateKey((await import('node:crypto')).createPrivateKey(first.key)));

    const again = await servingCertificate({ certDir: dir, hosts: ['127.0.0.1', 'localhost', '::1', '10.1.2.3'] });
    assert.equal(again.cert, first.cert, 'reused');
    const moreHosts = await servingCertificate({ certDir: dir, hosts: ['127.0.0.1', 'example.test'] });
    assert.notEqual(moreHosts.cert, first.cert, 'remade for new hosts');
    assert.equal(moreHosts.ca, first.ca, 'by the same CA');
    assert.equal(new X509Certificate(moreHosts.cert).checkHost('example.test'), 'example.test');
    assert.equal(readFileSync(join(dir, 'ca.crt'), 'utf8'), first.ca);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('the orchconfig verifies an operator certificate (--tls-cert-file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-operator-tls-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const root = makeCa('operator-root');
  const intermediate = issue(root, { commonName: 'operator-intermediate' }, { isCa: true, usages: [] });
  const serving = (issuer: Issued, name: string) => {
    const leaf = issue(issuer, { commonName: 'orch' }, { usages: ['serverAuth'], hosts: ['127.0.0.1', 'localhost'] });
    writeFileSync(join(dir, `${name}.key`), leaf.keyPem);
    return leaf;
  };
  const run = (args: string[]) => spawnSync(process.execPath, [BIN, '--secure-port=0', `--data-dir=${join(dir, `data-${args.length}-${Math.random()}`)}`, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });

  test('a chain in the file (leaf, intermediate, root): the orchconfig carries its CAs and kubectl verifies the server', { skip: !hasKubectl() && 'kubectl is not installed' }, async () => {
    const leaf = serving(intermediate, 'chain');
    writeFileSync(join(dir, 'chain.crt'), leaf.certPem + intermediate.certPem + root.certPem);
    const server = await startTestServer([`--tls-cert-file=${join(dir, 'chain.crt')}`, `--tls-private-key-file=${join(dir, 'chain.key')}`]);
    try {
      const config = parseYaml(readFileSync(server.orchconfig, 'utf8'));
      const ca = Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
      assert.ok(ca.includes(root.certPem.trim()) && ca.includes(intermediate.certPem.trim()));
      const out = execFileSync('kubectl', ['--kubeconfig', server.orchconfig, 'get', 'namespaces', '-o', 'name'], { encoding: 'utf8' });
      assert.match(out, /namespace\/default/);
    } finally {
      await server.close();
    }
  });

  test('a leaf alone: refused at start, served with --orchconfig-ca-file naming its CA', async () => {
    const leaf = serving(root, 'alone');
    writeFileSync(join(dir, 'alone.crt'), leaf.certPem);
    writeFileSync(join(dir, 'root.crt'), root.certPem);
    const refused = run([`--tls-cert-file=${join(dir, 'alone.crt')}`, `--tls-private-key-file=${join(dir, 'alone.key')}`]);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /--orchconfig-ca-file/);
    const wrongCa = run([`--tls-cert-file=${join(dir, 'alone.crt')}`, `--tls-private-key-file=${join(dir, 'alone.key')}`, `--orchconfig-ca-file=${join(dir, 'other.crt')}`]);
    assert.notEqual(wrongCa.status, 0);
    writeFileSync(join(dir, 'other.crt'), makeCa('someone-else').certPem);
    const foreign = run([`--tls-cert-file=${join(dir, 'alone.crt')}`, `--tls-private-key-file=${join(dir, 'alone.key')}`, `--orchconfig-ca-file=${join(dir, 'other.crt')}`]);
    assert.notEqual(foreign.status, 0);
    assert.match(foreign.stderr, /would not verify the serving certificate/);
    const server = await startTestServer([`--tls-cert-file=${join(dir, 'alone.crt')}`, `--tls-private-key-file=${join(dir, 'alone.key')}`, `--orchconfig-ca-file=${join(dir, 'root.crt')}`]);
    try {
      assert.equal(server.ca, root.certPem);
      assert.equal((await server.request('GET', '/api/v1/namespaces')).status, 200);
    } finally {
      await server.close();
    }
  });
});
