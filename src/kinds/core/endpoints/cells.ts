/**
 * The Table cells of Endpoints (SPEC 2.5, 4.7; upstream
 * pkg/printers/internalversion/printers.go printEndpoints and formatEndpoints,
 * 1.31).
 */
import type { components } from '../../../generated/types/api__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type Endpoints = components['schemas']['io.orch.api.core.v1.Endpoints'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

/** net.JoinHostPort: an IPv6 address in brackets. */
const hostPort = (ip: string, port: unknown): string => `${ip.includes(':') ? `[${ip}]` : ip}:${port ?? 0}`;

/**
 * formatEndpoints with every port: the first three `ip:port` (or bare IPs of a
 * subset without ports), then ` + N more...`; `<none>` without subsets.
 */
function formatEndpoints(subsets: unknown): string {
  const list = arr(subsets);
  if (list.length === 0) return '<none>';
  const max = 3;
  const shown: string[] = [];
  let count = 0;
  let more = false;
  const add = (text: string): void => {
    if (shown.length === max) more = true;
    else shown.push(text);
  };
  for (const subset of list) {
    const addresses = arr(subset?.addresses);
    const ports = arr(subset?.ports);
    if (ports.length === 0) {
      count += addresses.length;
      for (const address of addresses) add(String(address?.ip ?? ''));
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const address of addresses) add(hostPort(String(address?.ip ?? ''), port?.port));
    }
  }
  const text = shown.join(',');
  if (more) return `${text} + ${count - max} more...`;
  return text || '<none>';
}

export const cells = {
  endpoints: (subsets) => formatEndpoints(subsets),
} satisfies Record<string, Cell<Endpoints>>;
