/**
 * The address this server tells clients to reach it at (upstream's
 * ExternalAddress): --external-hostname, else --advertise-address, else the
 * bind address, or for a wildcard bind the host's first non-loopback IPv4
 * address, as upstream's DefaultAdvertiseAddress picks the default interface.
 * The listening port is added when the name carries none. Discovery's
 * serverAddressByClientCIDRs and the default jwks_uri of the service-account
 * issuer's OpenID configuration name it.
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

export interface ExternalAddressOptions {
  externalHostname?: string;
  advertiseAddress?: string;
  bindAddress?: string;
}

function defaultInterfaceAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return found.address;
  }
  return undefined;
}

function isWildcard(address: string | undefined): boolean {
  return address === undefined || address === '' || address === '0.0.0.0' || address === '::';
}

/** host:port, with an IPv6 host in brackets. */
export function externalAddress(options: ExternalAddressOptions, port: number): string {
  const given = options.externalHostname || options.advertiseAddress;
  const host = given || (isWildcard(options.bindAddress) ? (defaultInterfaceAddress() ?? '127.0.0.1') : options.bindAddress!);
  if (isIP(host) === 6) return `[${host}]:${port}`;
  // A hostname already naming its port (`api.example:443`) is taken as it is.
  if (isIP(host) === 0 && /:\d+$/.test(host)) return host;
  return `${host}:${port}`;
}
