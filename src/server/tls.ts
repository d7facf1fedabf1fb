/**
 * Serving certificates: a self-signed CA and a serving certificate for the
 * loopback names, made on first start under <data-dir>/pki and reused after,
 * unless --tls-cert-file/--tls-private-key-file are given. ECDSA P-256 keeps
 * first start well under a second.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { createCertificate } from './x509.ts';
import { CertificateBundle, SERVER_AUTH } from '../auth/authentication/client-certificate.ts';

const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

export interface ServingCertificate {
  cert: string;
  key: string;
  /** The operator's files the pair was read from (reloaded when they change); undefined for a pair this server made. */
  files?: { certFile: string; keyFile: string };
  /**
   * The PEM bundle clients must trust to verify `cert`: written into the
   * orchconfigs (admin, cluster-info), orch-root-ca.crt and token Secrets.
   */
  ca: string;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The authority that verifies an operator's serving certificate: `--orchconfig-ca-file`
 * when given, else the CA certificates the cert file carries after its leaf. An
 * orchconfig that would not verify the server is refused at start rather than
 * written (issue 8).
 */
export function clientTrustBundle(certPem: string, caFile: string | undefined, host: string): string {
  const chain = certPem.match(PEM_CERTIFICATE) ?? [];
  if (chain.length === 0) throw new Error('--tls-cert-file holds no certificate');
  const leaf = new X509Certificate(chain[0]!);
  const intermediates = chain.slice(1).map((c) => new X509Certificate(c));
  const bundlePem = caFile ? readFileSync(caFile, 'utf8') : intermediates.filter((c) => c.ca).map((c) => c.toString()).join('');
  if (!bundlePem.trim()) {
    throw new Error('--tls-cert-file carries no CA certificate after its leaf: name the CA that signed it with --orchconfig-ca-file, so the orchconfigs this server writes verify it');
  }
  try {
    new CertificateBundle(caFile ?? '--tls-cert-file', bundlePem).verify([leaf, ...intermediates], new Date(), SERVER_AUTH);
  } catch (err) {
    throw new Error(`the orchconfig would not verify the serving certificate (${(err as Error).message}): name the CA that signed --tls-cert-file with --orchconfig-ca-file`);
  }
  const matches = isIP(host) ? leaf.checkIP(host) : leaf.checkHost(host);
  if (!matches) throw new Error(`the serving certificate in --tls-cert-file is not valid for ${host}, the address the orchconfigs name`);
  return bundlePem.endsWith('\n') ? bundlePem : `${bundlePem}\n`;
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

/** The pair upstream reads from --cert-dir before making one (its PairName "apiserver"). */
const CERT_DIR_PAIR = { cert: 'apiserver.crt', key: 'apiserver.key' };

/**
 * Returns the serving certificate: the operator's files when given, else
 * `apiserver.crt` and `apiserver.key` in `certDir` when both are there (as
 * upstream's --cert-dir), else the CA and serving pair this server keeps in
 * `certDir`, made now if missing or not covering `hosts`.
 */
export async function servingCertificate(options: {
  certDir: string;
  hosts: string[];
  certFile?: string;
  keyFile?: string;
  /** --orchconfig-ca-file. */
  caFile?: string;
  /** The address clients are told to use, which an operator's certificate must cover (default 127.0.0.1). */
  clientHost?: string;
}): Promise<ServingCertificate> {
  const operatorPair = (certFile: string, keyFile: string): ServingCertificate => {
    const cert = readFileSync(certFile, 'utf8');
    return { cert, key: readFileSync(keyFile, 'utf8'), ca: clientTrustBundle(cert, options.caFile, options.clientHost ?? '127.0.0.1'), files: { certFile, keyFile } };
  };
  if (options.certFile || options.keyFile) {
    if (!options.certFile || !options.keyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    return operatorPair(options.certFile, options.keyFile);
  }
  const dir = options.certDir;
  const given = { certFile: join(dir, CERT_DIR_PAIR.cert), keyFile: join(dir, CERT_DIR_PAIR.key) };
  if (existsSync(given.certFile) && existsSync(given.keyFile)) return operatorPair(given.certFile, given.keyFile);
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
