/**
 * A minimal X.509 v3 certificate writer (DER, RFC 5280) on node:crypto, for the
 * self-signed CA and serving certificate made at first start. Written here
 * because the X.509 libraries on npm cost ~170 ms to load, a third of the
 * start-up budget; node:crypto signs and parses certificates but cannot build them.
 */
import { createHash, createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { parseIPv4Sloppy, parseIPv6Sloppy, to4 } from '../registry/validation/cidr.ts';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const octetString = (b: Buffer) => tlv(0x04, b);
const bitString = (b: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), b]));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const boolean = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const explicit = (n: number, content: Buffer) => tlv(0xa0 | n, content);

function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && b[1] < 0x80) b = b.subarray(1);
  if (b[0] >= 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes = [parts[0] * 40 + parts[1]];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let v = part >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').replace(/\.\d+Z$/, 'Z');
  // UTCTime through 2049, GeneralizedTime after (RFC 5280 4.1.2.5).
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2))) : tlv(0x18, Buffer.from(iso));
}

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

/** A distinguished name: organizations (each its own RDN, as Go's pkix writes them), then the common name. */
function name(subject: string | { commonName: string; organizations?: string[] }): Buffer {
  const { commonName, organizations = [] } = typeof subject === 'string' ? { commonName: subject } : subject;
  return sequence(
    ...organizations.map((o) => set(sequence(oid(OID.organization), utf8(o)))),
    set(sequence(oid(OID.commonName), utf8(commonName))),
  );
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

/** keyUsage bits: digitalSignature(0), keyEncipherment(2), keyCertSign(5), cRLSign(6). */
function keyUsage(bits: number[]): Buffer {
  let value = 0;
  for (const bit of bits) value |= 0x80 >> bit;
  const unused = value === 0 ? 0 : Math.min(...bits.map((b) => 7 - b));
  return tlv(0x03, Buffer.from([unused, value]));
}

/**
 * A host's IP address SAN bytes, or undefined for a DNS name: netutils.ParseIPSloppy
 * as client-go's certificate helpers read hosts, and 4 bytes for an IPv4 address as
 * Go marshals it. Not node:net's isIP: its first IPv6 checks compile a regular
 * expression for 10 ms of a start.
 */
function ipSanBytes(host: string): Buffer | undefined {
  const ip = parseIPv4Sloppy(host) ?? parseIPv6Sloppy(host);
  return ip ? Buffer.from(to4(ip) ?? ip) : undefined;
}

export interface CertificateRequest {
  /** A common name, or a common name with organizations (a client certificate's user and groups, SPEC 5.2). */
  subject: string | { commonName: string; organizations?: string[] };
  issuer: string | { commonName: string; organizations?: string[] };
  publicKey: KeyObject;
  signingKey: KeyObject;
  /** The issuer's public key, for the authority key identifier (itself when self-signed). */
  issuerPublicKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  isCa: boolean;
  /** DNS names and IP addresses for subjectAltName (server certificates). */
  hosts?: string[];
  /** Extended key usages of a leaf (default serverAuth); `[]` leaves the extension out. */
  usages?: Array<'serverAuth' | 'clientAuth'>;
}

function spki(key: KeyObject): Buffer {
  return (key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' });
}

function keyIdentifier(key: KeyObject): Buffer {
  return createHash('sha1').update(spki(key)).digest();
}

/** Builds and signs (ECDSA with SHA-256) a certificate; returns PEM. */
export function createCertificate(request: CertificateRequest): string {
  const extensions = [
    extension(OID.basicConstraints, true, sequence(...(request.isCa ? [boolean(true), integer(Buffer.from([0]))] : []))),
    extension(OID.keyUsage, true, request.isCa ? keyUsage([0, 5, 6]) : keyUsage([0, 2])),
    extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(request.publicKey))),
    extension(OID.authorityKeyIdentifier, false, sequence(tlv(0x80, keyIdentifier(request.issuerPublicKey)))),
  ];
  if (!request.isCa) {
    const usages = request.usages ?? ['serverAuth'];
    if (usages.length) extensions.push(extension(OID.extKeyUsage, false, sequence(...usages.map((u) => oid(OID[u])))));
    const names = (request.hosts ?? []).map((h) => {
      const ip = ipSanBytes(h);
      return ip ? tlv(0x87, ip) : tlv(0x82, Buffer.from(h, 'ascii'));
    });
    if (names.length) extensions.push(extension(OID.subjectAltName, false, sequence(...names)));
  }
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    algorithm,
    name(request.issuer),
    sequence(time(request.notBefore), time(request.notAfter)),
    name(request.subject),
    spki(request.publicKey),
    explicit(3, sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, request.signingKey);
  const der = sequence(tbs, algorithm, bitString(signature));
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
}
