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

/** Decimal prefix of s: [value, chars consumed, ok] (Go `dtoi`, leading zeros allowed). */
function dtoi(s: string): [number, number, boolean] {
  let n = 0;
  let i = 0;
  for (; i < s.length && s[i] >= '0' && s[i] <= '9'; i++) {
    n = n * 10 + (s.charCodeAt(i) - 48);
    if (n >= BIG) return [BIG, i, false];
  }
  return i === 0 ? [0, 0, false] : [n, i, true];
}

/** Hex prefix of s (Go `xtoi`). */
function xtoi(s: string): [number, number, boolean] {
  let n = 0;
  let i = 0;
  for (; i < s.length; i++) {
    const d = parseInt(s[i], 16);
    if (Number.isNaN(d)) break;
    n = n * 16 + d;
    if (n >= BIG) return [0, i, false];
  }
  return i === 0 ? [0, i, false] : [n, i, true];
}

/** Dotted-quad IPv4, leading zeros accepted (forked Go `parseIPv4`). */
export function parseIPv4Sloppy(s: string): Uint8Array | null {
  const p = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (s.length === 0) return null;
    if (i > 0) {
      if (s[0] !== '.') return null;
      s = s.slice(1);
    }
    const [n, c, ok] = dtoi(s);
    if (!ok || n > 0xff) return null;
    s = s.slice(c);
    p[i] = n;
  }
  return s.length === 0 ? p : null;
}

/** RFC 4291 IPv6 text, with optional trailing IPv4 (Go `parseIPv6`). */
export function parseIPv6Sloppy(s: string): Uint8Array | null {
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return ip;
  }
  let i = 0;
  while (i < 16) {
    const [n, c, ok] = xtoi(s);
    if (!ok || n > 0xffff) return null;
    if (c < s.length && s[c] === '.') {
      if (ellipsis < 0 && i !== 12) return null;
      if (i + 4 > 16) return null;
      const ip4 = parseIPv4Sloppy(s);
      if (!ip4) return null;
      ip.set(ip4, i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = n >> 8;
    ip[i + 1] = n & 0xff;
    i += 2;
    s = s.slice(c);
    if (s.length === 0) break;
    if (s[0] !== ':' || s.length === 1) return null;
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return null;
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) return null;
  if (i < 16) {
    if (ellipsis < 0) return null;
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j];
    for (let j = ellipsis + n - 1; j >= ellipsis; j--) ip[j] = 0;
  } else if (ellipsis >= 0) {
    return null;
  }
  return ip;
}

function maskBytes(prefix: number, bits: number): Uint8Array {
  const m = new Uint8Array(bits / 8);
  for (let b = 0; b < prefix; b++) m[b >> 3] |= 0x80 >> (b & 7);
  return m;
}

/**
 * Parses `addr/prefix` like Go ParseCIDRSloppy; null when invalid (the
 * NetworkPolicy validator then reports `not a valid CIDR`, FACTS 6.1).
 */
export function parseCIDR(s: string): ParsedCIDR | null {
  const slash = s.indexOf('/');
  if (slash < 0) return null;
  const addr = s.slice(0, slash);
  const mask = s.slice(slash + 1);
  let family: 4 | 6 = 4;
  let ip = parseIPv4Sloppy(addr);
  if (!ip) {
    family = 6;
    ip = parseIPv6Sloppy(addr);
  }
  const bits = family === 4 ? 32 : 128;
  const [n, used, ok] = dtoi(mask);
  if (!ip || !ok || used !== mask.length || n < 0 || n > bits) return null;
  const m = maskBytes(n, bits);
  const network = ip.map((b, k) => b & m[k]);
  return { ip, prefix: n, family, network };
}

const V4_IN_V6 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** Go `IP.To4()`: 4-byte form of an IPv4 or IPv4-mapped IPv6 address, else null. */
export function to4(ip: Uint8Array): Uint8Array | null {
  if (ip.length === 4) return ip;
  if (ip.length === 16 && V4_IN_V6.every((b, k) => ip[k] === b)) return ip.slice(12);
  return null;
}

/** Go `IPNet.Contains(ip)`, including its IPv4-mapped-IPv6 handling. */
export function cidrContains(net: ParsedCIDR, addr: Uint8Array): boolean {
  let nn = to4(net.network) ?? net.network;
  let m = maskBytes(net.prefix, net.family === 4 ? 32 : 128);
  if (nn.length === 4 && m.length === 16) m = m.slice(12);
  if (nn.length === 16 && m.length === 4) return false;
  const ip = to4(addr) ?? addr;
  if (ip.length !== nn.length) return false;
  for (let k = 0; k < ip.length; k++) if ((nn[k] & m[k]) !== (ip[k] & m[k])) return false;
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
