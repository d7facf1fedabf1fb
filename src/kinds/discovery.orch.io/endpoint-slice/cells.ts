/**
 * The Table cells of EndpointSlice (SPEC 2.5, 4.7; upstream
 * pkg/printers/internalversion/printers.go printEndpointSlice, 1.31). The
 * server prints Tables wide (upstream's TableConvertor asks for
 * GenerateOptions{Wide: true}), so nothing is clipped.
 */
import type { components } from '../../../generated/types/apis__discovery.orch.io__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type EndpointSlice = components['schemas']['io.orch.api.discovery.v1.EndpointSlice'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

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

export const cells = {
  discoveryPorts: (value) => discoveryPorts(value),
  discoveryEndpoints: (value) => discoveryEndpoints(value),
} satisfies Record<string, Cell<EndpointSlice>>;
