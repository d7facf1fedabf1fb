/**
 * The Table cells of the named groups' kinds (SPEC 2.5, 4.7, 9.7; translated
 * from upstream kubernetes pkg/printers/internalversion/printers.go 1.31:
 * printEndpointSlice, printPodDisruptionBudget, printStorageClass,
 * printVolumeAttachment, printCSIDriver, printCSIStorageCapacity, printIngress
 * and printIngressClass). The server prints Tables wide (upstream's
 * TableConvertor asks for GenerateOptions{Wide: true}), so nothing is clipped.
 */

type Formatter = (value: unknown, obj: any) => unknown;

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

/** The annotations that make a StorageClass the default (K pkg/apis/storage/util IsDefaultAnnotation), renamed by FACTS §0. */
export const DEFAULT_STORAGE_CLASS_ANNOTATIONS = ['storageclass.orch.io/is-default-class', 'storageclass.beta.orch.io/is-default-class'];

/** listWithMoreString: at most three entries, then `+ N more...`; `<unset>` when empty. */
function listWithMore(items: string[], max = 3): string {
  const shown = items.slice(0, max).join(',');
  if (items.length > max) return `${shown} + ${items.length - max} more...`;
  return shown === '' ? '<unset>' : shown;
}

/** formatDiscoveryPorts: the port number, else its name, else `*`. */
function discoveryPorts(ports: unknown): string {
  return listWithMore(arr(ports).map((p) => (typeof p?.port === 'number' ? String(p.port) : typeof p?.name === 'string' ? p.name : '*')));
}

/** formatDiscoveryEndpoints: every address of every endpoint. */
function discoveryEndpoints(endpoints: unknown): string {
  return listWithMore(arr(endpoints).flatMap((e) => arr(e?.addresses).map(String)));
}

/** formatHosts: the rules' hosts (the first three rules), `*` when none names one; `+ N more...` counts rules. */
function ingressHosts(rules: unknown): string {
  const list = arr(rules);
  const hosts = list.slice(0, 3).flatMap((r) => (typeof r?.host === 'string' && r.host !== '' ? [r.host] : []));
  if (hosts.length === 0) return '*';
  return list.length > 3 ? `${hosts.join(',')} + ${list.length - 3} more...` : hosts.join(',');
}

/** ingressLoadBalancerStatusStringer (wide): the IPs, else hostnames, sorted and unique, comma-joined. */
function loadBalancerAddresses(ingress: unknown): string {
  const set = new Set<string>();
  for (const i of arr(ingress)) {
    if (typeof i?.ip === 'string' && i.ip !== '') set.add(i.ip);
    else if (typeof i?.hostname === 'string' && i.hostname !== '') set.add(i.hostname);
  }
  return [...set].sort().join(',');
}

/** printIngressClass: `Kind.apiGroup/name` of the parameters, `<none>` without them. */
function ingressClassParameters(parameters: any): string {
  if (!parameters || typeof parameters !== 'object') return '<none>';
  const group = typeof parameters.apiGroup === 'string' ? `.${parameters.apiGroup}` : '';
  return `${parameters.kind ?? ''}${group}/${parameters.name ?? ''}`;
}

/** The named groups' formatters; every cell is the same at any request time. */
export const groupFormatters: Record<string, Formatter> = {
  discoveryPorts: (value) => discoveryPorts(value),
  discoveryEndpoints: (value) => discoveryEndpoints(value),
  storageClassName: (value, obj) => (DEFAULT_STORAGE_CLASS_ANNOTATIONS.some((a) => obj.metadata?.annotations?.[a] === 'true') ? `${value} (default)` : value),
  tokenAudiences: (value) => (Array.isArray(value) ? value.map((t) => t?.audience ?? '').join(',') : '<unset>'),
  ingressHosts: (value) => ingressHosts(value),
  loadBalancerAddresses: (value) => loadBalancerAddresses(value),
  // formatPorts: TLS opens 443 too
  ingressPorts: (value) => (arr(value).length ? '80, 443' : '80'),
  ingressClassParameters: (value) => ingressClassParameters(value),
};
