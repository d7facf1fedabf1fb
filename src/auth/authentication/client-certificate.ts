/**
 * Client certificates (SPEC 5.2, `--client-ca-file`), verified as Go's
 * x509.Verify with ExtKeyUsageClientAuth verifies them for upstream's x509
 * authenticator: a chain from the leaf through the intermediates the client
 * sent to a root of the bundle, every certificate within its validity period,
 * every issuer a CA, and client authentication allowed by every extended key
 * usage on the way. The common name is the user, each organization a group.
 *
 * The TLS listener only requests a certificate and verifies nothing (one
 * listener serves several bundles: this one and the authenticating proxy's),
 * so each authenticator verifies against its own bundle here.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket, DetailedPeerCertificate } from 'node:tls';
import type { UserInfo } from '../../api/user.ts';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_USAGE = '2.5.29.37.0';
const MAX_CHAIN = 10;

/** The roots of one bundle file. */
export class CertificateBundle {
  private roots: X509Certificate[];
  private pem: string;

  /** Reads `file`, or takes `pem` as given (then `file` only names it in errors and reload keeps it). */
  constructor(
    readonly file: string,
    pem?: string,
  ) {
    this.pem = pem ?? readFileSync(file, 'utf8');
    this.roots = parseBundle(this.pem, file);
  }

  /** The bundle's PEM, for the TLS listener's list of acceptable issuers. */
  get text(): string {
    return this.pem;
  }

  /** Re-reads the file, as upstream's dynamic CA content does; true when it changed. A broken file keeps the old roots. */
  reload(): boolean {
    let pem: string;
    try {
      pem = readFileSync(this.file, 'utf8');
      if (pem === this.pem) return false;
      this.roots = parseBundle(pem, this.file);
    } catch (err) {
      console.error(`${this.file}: keeping the previous certificates: ${(err as Error).message}`);
      return false;
    }
    this.pem = pem;
    return true;
  }

  /**
   * The verified chain's leaf, or an error saying why the presented certificates
   * do not verify for `usage` (client authentication unless told otherwise).
   */
  verify(presented: X509Certificate[], now = new Date(), usage = CLIENT_AUTH): X509Certificate {
    const [leaf, ...intermediates] = presented;
    let current = leaf;
    const usageError = 'x509: certificate specifies an incompatible key usage';
    for (let depth = 0; depth < MAX_CHAIN; depth++) {
      checkValidity(current, now);
      if (!allowsUsage(current, usage)) throw new Error(usageError);
      const root = this.roots.find((r) => issued(r, current));
      if (root) {
        checkValidity(root, now);
        return leaf;
      }
      const next = intermediates.find((c) => c !== current && c.ca && issued(c, current));
      if (!next) break;
      current = next;
    }
    throw new Error('x509: certificate signed by unknown authority');
  }
}

function parseBundle(pem: string, file: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${file}: no certificate found`);
  return blocks.map((b) => new X509Certificate(b));
}

function issued(issuer: X509Certificate, cert: X509Certificate): boolean {
  return issuer.ca && cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
}

function checkValidity(cert: X509Certificate, now: Date): void {
  if (now < new Date(cert.validFrom) || now > new Date(cert.validTo)) {
    throw new Error(`x509: certificate has expired or is not yet valid: current time ${now.toISOString()} is outside ${cert.validFrom} - ${cert.validTo}`);
  }
}

function allowsUsage(cert: X509Certificate, usage: string): boolean {
  const usages = cert.keyUsage;
  return !usages || usages.length === 0 || usages.includes(usage) || usages.includes(ANY_USAGE);
}

export const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

/** The certificates a TLS client presented, leaf first; none when it sent none. */
export function presentedCertificates(req: IncomingMessage): X509Certificate[] {
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function') return [];
  const cached = presentedBySocket.get(socket);
  if (cached) return cached;
  const chain: X509Certificate[] = [];
  let peer = socket.getPeerCertificate(true) as DetailedPeerCertificate | undefined;
  const seen = new Set<string>();
  while (peer && peer.raw && !seen.has(peer.fingerprint256) && chain.length < MAX_CHAIN) {
    seen.add(peer.fingerprint256);
    chain.push(new X509Certificate(peer.raw));
    peer = peer.issuerCertificate;
  }
  presentedBySocket.set(socket, chain);
  return chain;
}

/** A connection presents its certificates once: parse them once per connection. */
const presentedBySocket = new WeakMap<TLSSocket, X509Certificate[]>();

/** Subject fields as upstream reads them: CN is the user, every O a group (in order). */
export function subjectOf(cert: X509Certificate): { commonName: string; organizations: string[] } {
  let commonName = '';
  const organizations: string[] = [];
  for (const line of cert.subject.split('\n')) {
    const at = line.indexOf('=');
    const key = line.slice(0, at);
    const value = line.slice(at + 1);
    if (key === 'CN') commonName = value;
    else if (key === 'O') organizations.push(value);
  }
  return { commonName, organizations };
}

/**
 * The `--client-ca-file` authenticator: null when no certificate was presented,
 * a user when the chain verifies, an error (so 401, never anonymous) when it does not.
 */
export function clientCertificateAuthenticator(bundle: CertificateBundle) {
  return (req: IncomingMessage): UserInfo | null => {
    const presented = presentedCertificates(req);
    if (presented.length === 0) return null;
    const leaf = bundle.verify(presented);
    const { commonName, organizations } = subjectOf(leaf);
    if (!commonName) throw new Error('x509: certificate has no common name');
    return { name: commonName, groups: organizations };
  };
}
