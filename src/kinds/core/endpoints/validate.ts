/**
 * Validation of core/v1 Endpoints (SPEC 9.7), translated from K
 * pkg/apis/core/validation/validation.go 1.31 validateEndpointSubsets,
 * validateEndpointAddress, ValidateEndpointIP and validateEndpointPort.
 */
import { invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPortNum } from '../../../api/names.ts';
import { parseIPSloppy, validateIP } from '../../../registry/validation/ip-address.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
/** sets.List(supportedPortProtocols). */

/**
 * ValidateEndpointIP: an address, and none of the unspecified, loopback or
 * link-local ones (nonsensical, or used for node-centric purposes).
 */
function validateEndpointIP(ip: string, path: string): FieldError[] {
  const bytes = parseIPSloppy(ip);
  if (!bytes) return [invalid(path, ip, 'must be a valid IP address')];
  // an IPv4 address in its IPv4-mapped IPv6 form behaves as the IPv4 address (Go's net.IP methods)
  const v4 = bytes.length === 4 ? bytes : bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff ? bytes.slice(12) : null;
  const errs: FieldError[] = [];
  const unspecified = v4 ? v4.every((b) => b === 0) : bytes.every((b) => b === 0);
  const loopback = v4 ? v4[0] === 127 : bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1;
  const linkLocal = v4 ? v4[0] === 169 && v4[1] === 254 : bytes[0] === 0xfe && (bytes[1] & 0xc0) === 0x80;
  const linkLocalMulticast = v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : bytes[0] === 0xff && (bytes[1] & 0x0f) === 0x02;
  if (unspecified) errs.push(invalid(path, ip, `may not be unspecified (${ip})`));
  if (loopback) errs.push(invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (linkLocal) errs.push(invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (linkLocalMulticast) errs.push(invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return errs;
}

/** validateEndpointAddress. */
function validateAddress(address: any, path: string): FieldError[] {
  const ip = String(address?.ip ?? '');
  const errs = validateIP(ip, `${path}.ip`);
  if (address?.hostname) errs.push(...isDNS1123Label(address.hostname).map((m) => invalid(`${path}.hostname`, address.hostname, m)));
  if (typeof address?.nodeName === 'string') errs.push(...isDNS1123Subdomain(address.nodeName).map((m) => invalid(`${path}.nodeName`, address.nodeName, m)));
  errs.push(...validateEndpointIP(ip, `${path}.ip`));
  return errs;
}

/** validateEndpointPort: a name when the subset has several ports, 1..65535, a supported protocol. */
function validatePort(port: any, requireName: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = String(port?.name ?? '');
  if (requireName && !name) errs.push(required(`${path}.name`));
  else if (name) errs.push(...isDNS1123Label(name).map((m) => invalid(`${path}.name`, name, m)));
  errs.push(...isValidPortNum(port?.port ?? 0).map((m) => invalid(`${path}.port`, port?.port ?? 0, m)));
  // The protocol's values are the contract's (Endpoints.yaml).
  if (!port?.protocol) errs.push(required(`${path}.protocol`));
  if (typeof port?.appProtocol === 'string') errs.push(...isQualifiedName(port.appProtocol).map((m) => invalid(`${path}.appProtocol`, port.appProtocol, m)));
  return errs;
}

/** ValidateEndpoints / ValidateEndpointsUpdate: every subset has addresses, every address and port is valid. */
export function validateEndpoints(endpoints: any): FieldError[] {
  const errs: FieldError[] = [];
  arr(endpoints.subsets).forEach((subset, i) => {
    const path = `subsets[${i}]`;
    const addresses = arr(subset?.addresses);
    const notReady = arr(subset?.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0) errs.push(required(path, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((a, j) => errs.push(...validateAddress(a, `${path}.addresses[${j}]`)));
    notReady.forEach((a, j) => errs.push(...validateAddress(a, `${path}.notReadyAddresses[${j}]`)));
    const ports = arr(subset?.ports);
    ports.forEach((p, j) => errs.push(...validatePort(p, ports.length > 1, `${path}.ports[${j}]`)));
  });
  return errs;
}
