/**
 * Serving certificates: a self-signed CA and a serving certificate for the
 * loopback names, made on first start under <data-dir>/pki and reused after,
 * unless --tls-cert-file/--tls-private-key-file are given. ECDSA P-256 keeps
 * first start well under a second.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { createCertificate } from './x509.ts';

const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

export interface ServingCertificate {
  cert: string;
  key: string;
  /** PEM of the CA that signed `cert`, for the orchconfig. */
  ca: string;
}

function newKeyPair() {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

function validity(): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - 3600_000), notAfter: new Date(now + TEN_YEARS_MS) };
}

function createCa(): { certPem: string; keyPem: string } {
  const { publicKey, privateKey } = newKeyPair();
  const subject = `orch-apiserver-ca@${Math.floor(Date.now() / 1000)}`;
  const certPem = createCertificate({ subject, issuer: subject, publicKey, signingKey: privateKey, issuerPublicKey: publicKey, ...validity(), isCa: true });
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}

function createServing(caPem: string, caKeyPem: string, hosts: string[]): { certPem: string; keyPem: string } {
  const { publicKey, privateKey } = newKeyPair();
  const ca = new X509Certificate(caPem);
  const issuer = /CN=([^\n,]+)/.exec(ca.subject)?.[1] ?? 'orch-apiserver-ca';
  const certPem = createCertificate({
    subject: 'orch-apiserver',
    issuer,
    publicKey,
    signingKey: createPrivateKey(caKeyPem),
    issuerPublicKey: createPublicKey(caPem),
    ...validity(),
    isCa: false,
    hosts: [...new Set(hosts)],
  });
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}

/**
 * Returns the serving certificate: the operator's files when given, else the
 * ones under `pkiDir`, made now if missing or not covering `hosts`.
 */
export async function servingCertificate(options: {
  pkiDir: string;
  hosts: string[];
  certFile?: string;
  keyFile?: string;
}): Promise<ServingCertificate> {
  if (options.certFile || options.keyFile) {
    if (!options.certFile || !options.keyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    const cert = readFileSync(options.certFile, 'utf8');
    // The chain's last certificate stands in for the CA when the operator brings their own.
    const chain = cert.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    return { cert, key: readFileSync(options.keyFile, 'utf8'), ca: (chain[chain.length - 1] ?? cert) + '\n' };
  }
  const dir = options.pkiDir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = (name: string) => join(dir, name);
  if (!existsSync(file('ca.crt')) || !existsSync(file('ca.key'))) {
    const ca = createCa();
    writeFileSync(file('ca.key'), ca.keyPem, { mode: 0o600 });
    writeFileSync(file('ca.crt'), ca.certPem);
  }
  const caPem = readFileSync(file('ca.crt'), 'utf8');
  const hostsFile = file('serving.hosts');
  const wanted = [...new Set(options.hosts)].sort().join(',');
  if (!existsSync(file('serving.crt')) || !existsSync(hostsFile) || readFileSync(hostsFile, 'utf8') !== wanted) {
    const serving = createServing(caPem, readFileSync(file('ca.key'), 'utf8'), options.hosts);
    writeFileSync(file('serving.key'), serving.keyPem, { mode: 0o600 });
    writeFileSync(file('serving.crt'), serving.certPem);
    writeFileSync(hostsFile, wanted);
  }
  return { cert: readFileSync(file('serving.crt'), 'utf8'), key: readFileSync(file('serving.key'), 'utf8'), ca: caPem };
}
