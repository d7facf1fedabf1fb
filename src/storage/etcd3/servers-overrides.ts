/**
 * --etcd-servers-overrides: per-resource etcd servers (apiserver's
 * options/etcd.go ParseEtcdServersOverrides, applied as kube-apiserver's
 * default_storage_factory_builder.go applies them with SetEtcdLocation).
 */
import { resourcePrefix } from '../keys.ts';

/** Upstream's message for every malformed entry. */
export const OVERRIDES_INVALID = '--etcd-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated';

export interface EtcdServersOverride {
  group: string;
  resource: string;
  servers: string[];
}

/**
 * Each entry `group/resource#servers`, servers separated by semicolons, the core
 * group empty (`/events#http://etcd:2379`). Like upstream since 1.34, an empty
 * server (`/events#`, `a;;b`) is malformed too: 1.31 let it through to fail
 * later at connecting.
 */
export function parseEtcdServersOverrides(entries: readonly string[]): EtcdServersOverride[] {
  return entries.map((entry) => {
    const tokens = entry.split('#');
    if (tokens.length !== 2) throw new Error(OVERRIDES_INVALID);
    const groupResource = tokens[0].split('/');
    if (groupResource.length !== 2) throw new Error(OVERRIDES_INVALID);
    const servers = tokens[1].split(';');
    if (servers.some((server) => server === '')) throw new Error(OVERRIDES_INVALID);
    return { group: groupResource[0], resource: groupResource[1], servers };
  });
}

/** The resources that share one etcd (one server list, in any order), by their key prefixes. */
export interface EtcdLocation {
  servers: string[];
  resourcePrefixes: string[];
}

/**
 * Groups the overrides by server list, as upstream's Configs dedupes them: one
 * client per distinct list, whatever order the list is written in. A resource
 * named twice takes its last entry, as upstream's SetEtcdLocation overwrites.
 */
export function etcdLocations(overrides: readonly EtcdServersOverride[]): EtcdLocation[] {
  const serversByPrefix = new Map<string, string[]>();
  for (const override of overrides) serversByPrefix.set(resourcePrefix(override.group, override.resource), override.servers);
  const locations = new Map<string, EtcdLocation>();
  for (const [prefix, servers] of serversByPrefix) {
    const id = [...servers].sort().join(';');
    const location = locations.get(id) ?? { servers, resourcePrefixes: [] };
    location.resourcePrefixes.push(prefix);
    locations.set(id, location);
  }
  return [...locations.values()];
}
