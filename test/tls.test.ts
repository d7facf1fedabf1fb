/** The self-signed CA and serving certificate made at first start (src/server/tls.ts, x509.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servingCertificate } from '../src/server/tls.ts';

test('a CA and a serving certificate for the loopback names, reused on the next start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-pki-'));
  try {
    const first = await servingCertificate({ pkiDir: dir, hosts: ['127.0.0.1', 'localhost', '::1', '10.1.2.3'] });
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

    const again = await servingCertificate({ pkiDir: dir, hosts: ['127.0.0.1', 'localhost', '::1', '10.1.2.3'] });
    assert.equal(again.cert, first.cert, 'reused');
    const moreHosts = await servingCertificate({ pkiDir: dir, hosts: ['127.0.0.1', 'example.test'] });
    assert.notEqual(moreHosts.cert, first.cert, 'remade for new hosts');
    assert.equal(moreHosts.ca, first.ca, 'by the same CA');
    assert.equal(new X509Certificate(moreHosts.cert).checkHost('example.test'), 'example.test');
    assert.equal(readFileSync(join(dir, 'ca.crt'), 'utf8'), first.ca);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
