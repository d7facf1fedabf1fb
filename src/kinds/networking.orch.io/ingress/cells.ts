/**
 * The Table cells of Ingress (SPEC 2.5, 4.7; upstream
 * pkg/printers/internalversion/printers.go printIngress, 1.31). The server
 * prints Tables wide, so the address is not clipped.
 */
import type { components } from '../../../generated/types/apis__networking.orch.io__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type Ingress = components['schemas']['io.orch.api.networking.v1.Ingress'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

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

export const cells = {
  ingressHosts: (value) => ingressHosts(value),
  loadBalancerAddresses: (value) => loadBalancerAddresses(value),
  // formatPorts: TLS opens 443 too
  ingressPorts: (value) => (arr(value).length ? '80, 443' : '80'),
} satisfies Record<string, Cell<Ingress>>;
