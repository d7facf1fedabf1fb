/**
 * IP addresses as upstream's validation reads them (k8s.io/utils/net
 * ParseIPSloppy, pkg/apis/core/validation IsValidIP, 1.31): the family the
 * first separator names, IPv4 components with leading zeros accepted. Pods,
 * Endpoints, EndpointSlices and Ingresses validate their addresses with it.
 */
import { invalid, type FieldError } from './field-errors.ts';
import { parseIPv4Sloppy, parseIPv6Sloppy } from './cidr.ts';

/** Upstream netutils.ParseIPSloppy: the family the first separator names. */
export function parseIPSloppy(s: string): Uint8Array | null {
  for (const ch of s) {
    if (ch === '.') return parseIPv4Sloppy(s);
    if (ch === ':') return parseIPv6Sloppy(s);
  }
  return null;
}

/** Upstream validation.IsValidIP. */
export function validateIP(value: string, path: string): FieldError[] {
  return parseIPSloppy(value) ? [] : [invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}
