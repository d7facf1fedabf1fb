/**
 * Serving certificates: a self-signed CA and a serving certificate for the
 * loopback names, made on first start under <data-dir>/pki and reused after,
 * unless --tls-cert-file/--tls-private-key-file are given. ECDSA P-256 keeps
 * first start well under a second.
 */
import 'reflect-metadata';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

export interface ServingCertificate {
  cert: string;
  key: string;
  /** PEM of the CA that signed `cert`, for the orchconfig. */
  ca: string;
}

function toPem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  return toPem(await webcrypto.subtle.exportKey('pkcs8', key as any), 'PRIVATE KEY');
}

async function importKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  return webcrypto.subtle.importKey('pkcs8', der, ALGORITHM, true, ['sign']) as unknown as Promise<CryptoKey>;
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1');
}

async function createCa(): Promise<{ cert: x509.X509Certificate; keyPem: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const now = new Date();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=orch-apiserver-ca@${Math.floor(now.getTime() / 1000)}`,
    notBefore: new Date(now.getTime() - 3600_000),
    notAfter: new Date(now.getTime() + TEN_YEARS_MS),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keyPem: await privateKeyPem(keys.privateKey) };
}

async function createServing(ca: x509.X509Certificate, caKey: CryptoKey, hosts: string[]): Promise<{ certPem: string; keyPem: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const now = new Date();
  const names = [...new Set(hosts)].map((h) => (/^[\d.]+$|:/.test(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h }));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=orch-apiserver',
    issuer: ca.subject,
    notBefore: new Date(now.getTime() - 3600_000),
    notAfter: new Date(now.getTime() + TEN_YEARS_MS),
    signingKey: caKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.AuthorityKeyIdentifierExtension.create(ca, false),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await privateKeyPem(keys.privateKey) };
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
    const ca = await createCa();
    writeFileSync(file('ca.key'), ca.keyPem, { mode: 0o600 });
    writeFileSync(file('ca.crt'), ca.cert.toString('pem') + '\n');
  }
  const caPem = readFileSync(file('ca.crt'), 'utf8');
  const hostsFile = file('serving.hosts');
  const wanted = [...new Set(options.hosts)].sort().join(',');
  if (!existsSync(file('serving.crt')) || !existsSync(hostsFile) || readFileSync(hostsFile, 'utf8') !== wanted) {
    const ca = new x509.X509Certificate(caPem);
    const serving = await createServing(ca, await importKey(readFileSync(file('ca.key'), 'utf8')), options.hosts);
    writeFileSync(file('serving.key'), serving.keyPem, { mode: 0o600 });
    writeFileSync(file('serving.crt'), serving.certPem);
    writeFileSync(hostsFile, wanted);
  }
  return { cert: readFileSync(file('serving.crt'), 'utf8'), key: readFileSync(file('serving.key'), 'utf8'), ca: caPem };
}
