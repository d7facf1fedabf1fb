/**
 * What the HTTPS listener presents (k8s.io/apiserver dynamiccertificates):
 * the default serving certificate, the --tls-sni-cert-key certificates chosen
 * by the name a client asks for, and the settings every context shares
 * (--tls-min-version, --tls-cipher-suites, the client CAs). Certificates read
 * from files are read again by `reload()`, as upstream's dynamic serving
 * content picks up renewed files without a restart.
 */
import { readFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { createSecureContext, type SecureContext, type SecureContextOptions } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { NamedCertKey, TlsMinVersion } from './tls-settings.ts';

export interface ServingCertificateSettings {
  /** The default pair, PEM. */
  cert: string;
  key: string;
  /** Where the default pair is read from again on reload; undefined for a pair made and kept by this server. */
  files?: { certFile: string; keyFile: string };
  sni: NamedCertKey[];
  minVersion?: TlsMinVersion;
  ciphers?: string;
}

interface Pair {
  cert: string;
  key: string;
}

/** DNS-1123 subdomain: lower-case labels of letters, digits and '-', dot-separated, at most 253 characters. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The names a certificate is chosen by when its flag names none (upstream
 * getCertificateNames): its CN when that is a domain name (never an IP), and
 * its DNS subject alternative names. IP addresses are never SNI names.
 */
export function certificateNames(certPem: string): string[] {
  const cert = new X509Certificate(certPem);
  const names: string[] = [];
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1];
  // An IPv6 address is no DNS subdomain either; node:net's IPv6 check costs a start 10 ms to compile.
  if (cn !== undefined && !isIPv4(cn)) {
    const domain = cn.startsWith('*.') ? cn.slice(2) : cn;
    if (cn === '*' || (domain.length <= 253 && DNS_SUBDOMAIN.test(domain))) names.push(cn);
  }
  for (const entry of (cert.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) names.push(entry.slice(4));
  }
  return names;
}

function readPair(certFile: string, keyFile: string): Pair {
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

export class ServingCertificates {
  private defaultPair: Pair;
  private sniPairs: Pair[];
  private byName = new Map<string, SecureContext>();

  /** Throws, as upstream's start does, when an SNI pair cannot be read or does not match. */
  constructor(
    private readonly settings: ServingCertificateSettings,
    /** The client CAs every context verifies client certificates with (they change on reload). */
    private readonly clientCa: () => string | undefined,
  ) {
    this.defaultPair = { cert: settings.cert, key: settings.key };
    this.sniPairs = settings.sni.map((s, i) => {
      try {
        return readPair(s.certFile, s.keyFile);
      } catch (err) {
        throw new Error(`failed to load SNI cert and key [${i}/"${s.certFile}"]: ${(err as Error).message}`);
      }
    });
    this.rebuildNamed();
  }

  /** The default context's options: for the listener, and for setSecureContext after a change. */
  options(): SecureContextOptions {
    return { ...this.defaultPair, ...this.shared() };
  }

  private shared(): SecureContextOptions {
    const options: SecureContextOptions = { ca: this.clientCa() };
    if (this.settings.minVersion) options.minVersion = this.settings.minVersion;
    if (this.settings.ciphers) options.ciphers = this.settings.ciphers;
    return options;
  }

  /**
   * Builds the name → context map as upstream's BuildNamedCertificates: later
   * flags first so earlier ones win a shared name, and explicit names over the
   * names read from certificates.
   */
  private rebuildNamed(): void {
    const extracted = new Map<string, SecureContext>();
    const explicit = new Map<string, SecureContext>();
    for (let i = this.sniPairs.length - 1; i >= 0; i--) {
      const pair = this.sniPairs[i]!;
      let context: SecureContext;
      try {
        context = createSecureContext({ ...pair, ...this.shared() });
      } catch (err) {
        throw new Error(`invalid SNI cert keypair [${i}/"${this.settings.sni[i]!.certFile}"]: ${(err as Error).message}`);
      }
      const names = this.settings.sni[i]!.names;
      for (const name of names) explicit.set(name, context);
      if (names.length === 0) for (const name of certificateNames(pair.cert)) extracted.set(name, context);
    }
    this.byName = new Map([...extracted, ...explicit]);
  }

  /**
   * The context for the name a client sent (Go's getCertificate over
   * NameToCertificate): the exact name, then the name with its first label as
   * `*`; undefined means the default certificate.
   */
  contextFor(serverName: string): SecureContext | undefined {
    const name = serverName.toLowerCase();
    const exact = this.byName.get(name);
    if (exact) return exact;
    if (name === '') return undefined;
    const dot = name.indexOf('.');
    return this.byName.get(dot < 0 ? '*' : `*${name.slice(dot)}`);
  }

  /** Node's SNICallback. */
  readonly sniCallback = (serverName: string, done: (err: Error | null, context?: SecureContext) => void): void => {
    done(null, this.contextFor(serverName));
  };

  /**
   * Reads the certificate files again; a pair that changed and loads is
   * served from now on, one that does not load keeps the previous pair
   * (logged), as upstream's controller keeps serving its last good content.
   * Returns whether the default context must be replaced. SNI contexts are
   * rebuilt when a pair or the client CAs changed (`caChanged`).
   */
  reload(caChanged: boolean): boolean {
    let defaultChanged = caChanged;
    const files = this.settings.files;
    if (files) {
      const next = this.readIfValid(files.certFile, files.keyFile, 'serving certificate');
      if (next && (next.cert !== this.defaultPair.cert || next.key !== this.defaultPair.key)) {
        this.defaultPair = next;
        defaultChanged = true;
      }
    }
    let sniChanged = caChanged;
    this.sniPairs = this.sniPairs.map((pair, i) => {
      const { certFile, keyFile } = this.settings.sni[i]!;
      const next = this.readIfValid(certFile, keyFile, `SNI certificate [${i}]`);
      if (!next || (next.cert === pair.cert && next.key === pair.key)) return pair;
      sniChanged = true;
      return next;
    });
    if (sniChanged) this.rebuildNamed();
    return defaultChanged;
  }

  private readIfValid(certFile: string, keyFile: string, what: string): Pair | undefined {
    try {
      const pair = readPair(certFile, keyFile);
      createSecureContext(pair);
      return pair;
    } catch (err) {
      console.error(`${what}: keeping the loaded pair, ${certFile} and ${keyFile} do not load: ${(err as Error).message}`);
      return undefined;
    }
  }
}
