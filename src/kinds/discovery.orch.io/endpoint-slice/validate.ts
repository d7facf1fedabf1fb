/**
 * EndpointSlice validation (SPEC 9.7; translated from upstream kubernetes
 * pkg/apis/discovery/validation ValidateEndpointSlice and
 * ValidateEndpointSliceUpdate, 1.31): the address type, each endpoint's
 * addresses checked against it, the endpoint and port limits, port names and
 * protocols. ObjectMeta is the store's (a DNS subdomain, namespaced).
 */
import { child, duplicate, index, invalid, notSupported, required, tooMany, type FieldError } from '../../../registry/validation/field-errors.ts';
import { validateLabels } from '../../../registry/validation/label-selector.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../../api/names.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { parseIPSloppy } from '../../../registry/validation/ip-address.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ADDRESSES = 100;
// The API's doc still says 100; validation allows 20000 since 1.21.
const MAX_PORTS = 20000;
const MAX_ENDPOINTS = 1000;
const MAX_ZONE_HINTS = 8;

/** net.IP.To4: a 4-byte address or an IPv4-mapped IPv6 one. */
function isIPv4(ip: Uint8Array): boolean {
  return ip.length === 4 || (ip.slice(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff);
}

/** IsValidIPv4Address / IsValidIPv6Address, then ValidateNonSpecialIP. */
function validateAddressOfFamily(address: string, v4: boolean, path: string): FieldError[] {
  const ip = parseIPSloppy(address);
  const errs: FieldError[] = [];
  if (!ip || isIPv4(ip) !== v4) errs.push(invalid(path, address, v4 ? 'must be a valid IPv4 address' : 'must be a valid IPv6 address'));
  if (!ip) return [...errs, invalid(path, address, 'must be a valid IP address')];
  const v4bytes = isIPv4(ip) ? ip.slice(-4) : undefined;
  if (v4bytes ? v4bytes.every((b) => b === 0) : ip.every((b) => b === 0)) errs.push(invalid(path, address, `may not be unspecified (${address})`));
  if (v4bytes ? v4bytes[0] === 127 : ip.slice(0, 15).every((b) => b === 0) && ip[15] === 1) errs.push(invalid(path, address, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (v4bytes ? v4bytes[0] === 169 && v4bytes[1] === 254 : ip[0] === 0xfe && (ip[1] & 0xc0) === 0x80) errs.push(invalid(path, address, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (v4bytes ? v4bytes[0] === 224 && v4bytes[1] === 0 && v4bytes[2] === 0 : ip[0] === 0xff && (ip[1] & 0x0f) === 0x02) {
    errs.push(invalid(path, address, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return errs;
}

/** IsFullyQualifiedDomainName: a DNS subdomain (one trailing dot allowed) of at least two labels. */
export function validateFQDN(name: string, path: string): FieldError[] {
  if (name === '') return [required(path)];
  const trimmed = name.endsWith('.') ? name.slice(0, -1) : name;
  const subdomain = isDNS1123Subdomain(trimmed);
  if (subdomain.length) return subdomain.map((m) => invalid(path, trimmed, m));
  const labels = trimmed.split('.');
  if (labels.length < 2) return [invalid(path, trimmed, 'should be a domain with at least two segments separated by dots')];
  return labels.flatMap((label) => isDNS1123Label(label).map((m) => invalid(path, label, m)));
}

function validateEndpoints(endpoints: any[], addressType: unknown): FieldError[] {
  if (endpoints.length > MAX_ENDPOINTS) return [tooMany('endpoints', endpoints.length, MAX_ENDPOINTS)];
  const errs: FieldError[] = [];
  endpoints.forEach((endpoint, i) => {
    const path = index('endpoints', i);
    const addressPath = child(path, 'addresses');
    const addresses = arr(endpoint?.addresses);
    if (addresses.length === 0) errs.push(required(addressPath, 'must contain at least 1 address'));
    else if (addresses.length > MAX_ADDRESSES) errs.push(tooMany(addressPath, addresses.length, MAX_ADDRESSES));
    addresses.forEach((address, j) => {
      const p = index(addressPath, j);
      // Unknown address types fall through unvalidated, as upstream.
      if (addressType === 'IPv4' || addressType === 'IPv6') errs.push(...validateAddressOfFamily(String(address), addressType === 'IPv4', p));
      else if (addressType === 'FQDN') errs.push(...validateFQDN(String(address), p));
    });
    if (typeof endpoint?.nodeName === 'string') errs.push(...isDNS1123Subdomain(endpoint.nodeName).map((m) => invalid(child(path, 'nodeName'), endpoint.nodeName, m)));
    const topology = endpoint?.deprecatedTopology;
    if (topology && typeof topology === 'object' && Object.keys(topology).length > MAX_TOPOLOGY_LABELS) {
      errs.push(tooMany(child(path, 'deprecatedTopology'), Object.keys(topology).length, MAX_TOPOLOGY_LABELS));
    }
    errs.push(...validateLabels(topology, child(path, 'deprecatedTopology')));
    if (typeof endpoint?.hostname === 'string') errs.push(...isDNS1123Label(endpoint.hostname).map((m) => invalid(child(path, 'hostname'), endpoint.hostname, m)));
    if (endpoint?.hints) errs.push(...validateHints(endpoint.hints, child(path, 'hints')));
  });
  return errs;
}

/** validateHints: at most eight zones, each named once and a label value. */
function validateHints(hints: any, path: string): FieldError[] {
  const zones = arr(hints.forZones);
  const zonesPath = child(path, 'forZones');
  if (zones.length > MAX_ZONE_HINTS) return [tooMany(zonesPath, zones.length, MAX_ZONE_HINTS)];
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  zones.forEach((zone, i) => {
    const p = child(index(zonesPath, i), 'name');
    const name = String(zone?.name ?? '');
    if (seen.has(name)) errs.push(duplicate(p, name));
    seen.add(name);
    errs.push(...isValidLabelValue(name).map((m) => invalid(p, name, m)));
  });
  return errs;
}

function validatePorts(ports: any[]): FieldError[] {
  if (ports.length > MAX_PORTS) return [tooMany('ports', ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const path = index('ports', i);
    const name = String(port?.name ?? '');
    if (name !== '') errs.push(...isDNS1123Label(name).map((m) => invalid(child(path, 'name'), name, m)));
    if (names.has(name)) errs.push(duplicate(child(path, 'name'), name));
    names.add(name);
    // The protocol's values are the contract's (EndpointSlice.yaml).
    if (typeof port?.protocol !== 'string') errs.push(required(child(path, 'protocol')));
    if (typeof port?.appProtocol === 'string') errs.push(...isQualifiedName(port.appProtocol).map((m) => invalid(child(path, 'appProtocol'), port.appProtocol, m)));
  });
  return errs;
}

/** ValidateEndpointSlice, and on update ValidateEndpointSliceUpdate's immutable address type. */
export function validateEndpointSlice(slice: any, old?: any): FieldError[] {
  const errs: FieldError[] = [];
  const addressType = slice.addressType ?? '';
  if (addressType === '') errs.push(required('addressType'));
  else if (!ADDRESS_TYPES.includes(addressType)) errs.push(notSupported('addressType', addressType, ADDRESS_TYPES));
  errs.push(...validateEndpoints(arr(slice.endpoints), addressType), ...validatePorts(arr(slice.ports)));
  if (old && (old.addressType ?? '') !== addressType) errs.push(invalid('addressType', addressType, FIELD_IMMUTABLE));
  return errs;
}
