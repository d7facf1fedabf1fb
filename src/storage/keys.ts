/**
 * Storage keys: `/<group or "core">/<resource>/<namespace>/<name>` for namespaced
 * objects and `/<group>/<resource>/<name>` for cluster-scoped ones, so a byte-ordered
 * range scan lists a namespace, or every namespace, in upstream's order.
 */

/** The first key after every key that starts with `prefix`. */
export function prefixEnd(prefix: string): string {
  return prefix + '\uffff';
}

export function resourcePrefix(group: string, resource: string): string {
  return `/${group || 'core'}/${resource}/`;
}

/** The `resourcePrefix` of an object key: its first two segments. */
export function resourcePrefixOfKey(key: string): string {
  const second = key.indexOf('/', 1);
  return key.slice(0, key.indexOf('/', second + 1) + 1);
}

/** The group and resource of a `resourcePrefix`, or undefined for another key. */
export function parseResourcePrefix(prefix: string): { group: string; resource: string } | undefined {
  const match = /^\/([^/]+)\/([^/]+)\/$/.exec(prefix);
  if (!match) return undefined;
  return { group: match[1] === 'core' ? '' : match[1], resource: match[2] };
}

export function collectionPrefix(group: string, resource: string, namespace: string | undefined): string {
  return namespace ? `${resourcePrefix(group, resource)}${namespace}/` : resourcePrefix(group, resource);
}

export function objectKey(group: string, resource: string, namespace: string | undefined, name: string): string {
  return `${collectionPrefix(group, resource, namespace)}${name}`;
}
