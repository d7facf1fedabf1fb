/**
 * CIDR parsing with the semantics of upstream `netutils.ParseCIDRSloppy`
 * (k8s.io/utils forked pre-1.17 Go net.ParseCIDR), which Kubernetes 1.31 uses
 * for NetworkPolicy ipBlock validation (FACTS 6.1): host bits allowed, IPv4
 * components with leading zeros accepted (`010.0.0.1` = 10.0.0.1), full IPv6
 * syntax including `::` and a trailing dotted IPv4 part, no zones.
 */

export interface ParsedCIDR {
  /** the address as written: 4 bytes for dotted IPv4 text, 16 bytes for IPv6 text */
  ip: Uint8Array;
  /** prefix length, in bits of the address's own family */
  prefix: number;
  family: 4 | 6;
  /** ip with host bits cleared (same length as ip) */
  network: Uint8Array;
}

const BIG = 0xffffff;

/*
 * The scanners work on index ranges of the caller's string and return the end
 * of what they read, leaving the number in `scanned`: NetworkPolicy validation
 * parses every ipBlock of every write, and slices and result tuples were most
 * of what it allocated (issue 10, create path).
 */
let scanned = 0;

/** Go `dtoi` over s[from, to): the end of the decimal digits read (from when none), -1 on overflow. */
function decimalEnd(s: string, from: number, to: number): number {
  let n = 0;
  let i = from;
  for (; i < to; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    n = n * 10 + d;
    if (n >= BIG) return -1;
  }
  scanned = n;
  return i;
}

/** Go `xtoi` over s[from, to): the end of the hex digits read (from when none), -1 on overflow. */
function hexEnd(s: string, from: number, to: number): number {
  let n = 0;
  let i = from;
  for (; i < to; i++) {
    const c = s.charCodeAt(i);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (d < 0) break;
    n = n * 16 + d;
    if (n >= BIG) return -1;
  }
  scanned = n;
  return i;
}

/** Dotted-quad IPv4 in s[from, to) into out[at..at+4), leading zeros accepted (forked Go `parseIPv4`). */
function readIPv4(s: string, from: number, to: number, out: Uint8Array, at: number): boolean {
  let i = from;
  for (let part = 0; part < 4; part++) {
    if (i >= to) return false;
    if (part > 0) {
      if (s.charCodeAt(i) !== 0x2e) return false;
      i++;
    }
    const end = decimalEnd(s, i, to);
    if (end <= i || scanned > 0xff) return false;
    out[at + part] = scanned;
    i = end;
  }
  return i === to;
}

/** RFC 4291 IPv6 in s[from, to), with optional trailing IPv4, into out (Go `parseIPv6`). */
function readIPv6(s: string, from: number, to: number, out: Uint8Array): boolean {
  let ellipsis = -1;
  let i = from;
  if (to - i >= 2 && s.charCodeAt(i) === 0x3a && s.charCodeAt(i + 1) === 0x3a) {
    ellipsis = 0;
    i += 2;
    if (i === to) return true;
  }
  let b = 0;
  while (b < 16) {
    const end = hexEnd(s, i, to);
    if (end <= i || scanned > 0xffff) return false;
    if (end < to && s.charCodeAt(end) === 0x2e) {
      if ((ellipsis < 0 && b !== 12) || b + 4 > 16) return false;
      if (!readIPv4(s, i, to, out, b)) return false;
      i = to;
      b += 4;
      break;
    }
    out[b] = scanned >> 8;
    out[b + 1] = scanned & 0xff;
    b += 2;
    i = end;
    if (i === to) break;
    if (s.charCodeAt(i) !== 0x3a || i + 1 === to) return false;
    i++;
    if (s.charCodeAt(i) === 0x3a) {
      if (ellipsis >= 0) return false;
      ellipsis = b;
      i++;
      if (i === to) break;
    }
  }
  if (i !== to) return false;
  if (b < 16) {
    if (ellipsis < 0) return false;
    const n = 16 - b;
    for (let j = b - 1; j >= ellipsis; j--) out[j + n] = out[j];
    for (let j = ellipsis + n - 1; j >= ellipsis; j--) out[j] = 0;
  } else if (ellipsis >= 0) {
    return false;
  }
  return true;
}

/** Dotted-quad IPv4, leading zeros accepted (forked Go `parseIPv4`). */
export function parseIPv4Sloppy(s: string): Uint8Array | null {
  const ip = new Uint8Array(4);
  return readIPv4(s, 0, s.length, ip, 0) ? ip : null;
}

/** RFC 4291 IPv6 text, with optional trailing IPv4 (Go `parseIPv6`). */
export function parseIPv6Sloppy(s: string): Uint8Array | null {
  const ip = new Uint8Array(16);
  return readIPv6(s, 0, s.length, ip) ? ip : null;
}

/** Byte `index` of a `prefix`-bit mask. */
function maskByte(prefix: number, index: number): number {
  const bits = prefix - index * 8;
  return bits >= 8 ? 0xff : bits <= 0 ? 0 : (0xff00 >> bits) & 0xff;
}

/**
 * Parses `addr/prefix` like Go ParseCIDRSloppy; null when invalid (the
 * NetworkPolicy validator then reports `not a valid CIDR`, FACTS 6.1).
 */
export function parseCIDR(s: string): ParsedCIDR | null {
  const slash = s.indexOf('/');
  if (slash < 0) return null;
  let family: 4 | 6 = 4;
  let ip = new Uint8Array(4);
  if (!readIPv4(s, 0, slash, ip, 0)) {
    family = 6;
    ip = new Uint8Array(16);
    if (!readIPv6(s, 0, slash, ip)) return null;
  }
  const end = decimalEnd(s, slash + 1, s.length);
  if (end <= slash + 1 || end !== s.length || scanned > ip.length * 8) return null;
  const prefix = scanned;
  const network = new Uint8Array(ip.length);
  for (let k = 0; k < ip.length; k++) network[k] = ip[k] & maskByte(prefix, k);
  return { ip, prefix, family, network };
}

/** Where an IPv4 address starts in ip: 0 for 4 bytes, 12 for IPv4-mapped IPv6 (Go `IP.To4()`), -1 otherwise. */
function v4Offset(ip: Uint8Array): number {
  if (ip.length === 4) return 0;
  if (ip.length !== 16) return -1;
  for (let k = 0; k < 10; k++) if (ip[k] !== 0) return -1;
  return ip[10] === 0xff && ip[11] === 0xff ? 12 : -1;
}

/** Go `IP.To4()`: 4-byte form of an IPv4 or IPv4-mapped IPv6 address, else null. */
export function to4(ip: Uint8Array): Uint8Array | null {
  const at = v4Offset(ip);
  return at < 0 ? null : at === 0 ? ip : ip.slice(12);
}

/** Go `IPNet.Contains(ip)`, including its IPv4-mapped-IPv6 handling. */
export function cidrContains(net: ParsedCIDR, addr: Uint8Array): boolean {
  // Go's networkNumberAndMask: the network in its 4-byte form when it has one, the mask cut to match.
  const netAt = Math.max(v4Offset(net.network), 0);
  const netLength = net.network.length - netAt;
  const maskLength = net.family === 4 ? 4 : 16;
  if (netLength === 16 && maskLength === 4) return false;
  const maskAt = netLength === 4 && maskLength === 16 ? 12 : 0;
  const addrV4 = v4Offset(addr);
  const addrAt = Math.max(addrV4, 0);
  if (addr.length - addrAt !== netLength) return false;
  for (let k = 0; k < netLength; k++) {
    const m = maskByte(net.prefix, k + maskAt);
    if ((net.network[netAt + k] & m) !== (addr[addrAt + k] & m)) return false;
  }
  return true;
}

/**
 * The ipBlock `except` rule (FACTS 6.1): inner's network address must lie in
 * outer and inner's prefix must be longer than outer's; false for either
 * string that does not parse.
 */
export function isStrictSubset(inner: ParsedCIDR | string, outer: ParsedCIDR | string): boolean {
  const i = typeof inner === 'string' ? parseCIDR(inner) : inner;
  const o = typeof outer === 'string' ? parseCIDR(outer) : outer;
  if (!i || !o) return false;
  return cidrContains(o, i.network) && o.prefix < i.prefix;
}
