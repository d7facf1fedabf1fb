/**
 * kube-apiserver's TLS serving flags (k8s.io/apiserver options/serving.go,
 * component-base cli/flag/ciphersuites_flag.go, named_certkey_flag.go):
 * --tls-min-version, --tls-cipher-suites and --tls-sni-cert-key, translated
 * from Go's crypto/tls to Node's OpenSSL.
 */
import { getCiphers } from 'node:tls';
import type { SecureContextOptions } from 'node:tls';

/** --tls-min-version values and Node's names for them. Unset, Node's default is TLS 1.2, upstream's too. */
const TLS_VERSIONS: Record<string, NonNullable<SecureContextOptions['minVersion']>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

export type TlsMinVersion = NonNullable<SecureContextOptions['minVersion']>;

/** cliflag.TLSVersion: one of TLS_VERSIONS' names. */
export function parseTlsMinVersion(name: string): TlsMinVersion {
  const version = TLS_VERSIONS[name];
  if (!version) throw new Error(`unknown tls version ${JSON.stringify(name)}`);
  return version;
}

export const TLS_VERSION_NAMES = Object.keys(TLS_VERSIONS);

/**
 * Go's cipher suite names (tls.CipherSuites(), plus the two legacy ChaCha20
 * names upstream keeps) and OpenSSL's for them. TLS 1.3 suites map to
 * undefined: Go does not let them be configured and always offers all three,
 * so naming one changes nothing, upstream's behaviour.
 */
const SECURE_SUITES: Record<string, string | undefined> = {
  TLS_AES_128_GCM_SHA256: undefined,
  TLS_AES_256_GCM_SHA384: undefined,
  TLS_CHACHA20_POLY1305_SHA256: undefined,
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
};

/** tls.InsecureCipherSuites(): accepted with a warning, as upstream logs "Use of insecure cipher". */
const INSECURE_SUITES: Record<string, string> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
};

export const PREFERRED_CIPHER_NAMES = Object.keys(SECURE_SUITES).sort();
export const INSECURE_CIPHER_NAMES = Object.keys(INSECURE_SUITES).sort();

/** Go offers every TLS 1.3 suite whatever the configuration. */
const TLS13_SUITES = 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256';

export interface CipherSettings {
  /** Node's `ciphers`: the TLS 1.3 suites, then the named TLS 1.2 ones in the order given. */
  ciphers: string;
  /** The insecure suites named (the caller warns, as upstream does). */
  insecure: string[];
}

/**
 * cliflag.TLSCipherSuites: every name must be one of Go's; an unknown one is
 * upstream's error. A suite Go has but this server's OpenSSL does not (RC4) is
 * refused at start rather than silently dropped.
 */
export function parseCipherSuites(names: readonly string[]): CipherSettings {
  const available = new Set(getCiphers().map((c) => c.toUpperCase()));
  const openssl: string[] = [];
  const insecure: string[] = [];
  for (const name of names) {
    let mapped: string | undefined;
    if (name in SECURE_SUITES) mapped = SECURE_SUITES[name];
    else if (name in INSECURE_SUITES) {
      mapped = INSECURE_SUITES[name];
      insecure.push(name);
    } else throw new Error(`Cipher suite ${name} not supported or doesn't exist`);
    if (mapped === undefined) continue;
    if (!available.has(mapped)) throw new Error(`Cipher suite ${name} is not available in this server's TLS library (OpenSSL ${process.versions.openssl})`);
    if (!openssl.includes(mapped)) openssl.push(mapped);
  }
  return { ciphers: [TLS13_SUITES, ...openssl].join(':'), insecure };
}

/**
 * The `ciphers` option for a minimum version and optional suites. OpenSSL 3
 * refuses TLS 1.0 and 1.1 at its default security level (their handshakes
 * sign with SHA-1), so a minimum below 1.2 lowers the level, which is what
 * enabling them in Go amounts to.
 */
export function cipherOption(minVersion: TlsMinVersion | undefined, suites: CipherSettings | undefined): string | undefined {
  const legacy = minVersion === 'TLSv1' || minVersion === 'TLSv1.1';
  if (!suites && !legacy) return undefined;
  const base = suites?.ciphers ?? 'DEFAULT';
  return legacy ? `${base}:@SECLEVEL=0` : base;
}

/** One --tls-sni-cert-key: `cert,key` or `cert,key:name1,name2` (cliflag.NamedCertKey). */
export interface NamedCertKey {
  certFile: string;
  keyFile: string;
  /** Explicit domain patterns; empty: the certificate's own names. */
  names: string[];
}

export function parseNamedCertKey(value: string): NamedCertKey {
  const colon = value.indexOf(':');
  let names: string[] = [];
  let pair = value.trim();
  if (colon >= 0) {
    pair = value.slice(0, colon).trim();
    const list = value.slice(colon + 1).trim();
    if (list === '') throw new Error('empty names list is not allowed');
    names = list.split(',').map((n) => n.trim());
  }
  const files = pair.split(',');
  if (files.length !== 2) throw new Error('expected comma separated certificate and key file paths');
  return { certFile: files[0].trim(), keyFile: files[1].trim(), names };
}
