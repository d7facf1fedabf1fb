/** The Table cells of IngressClass (SPEC 2.5, 4.7; upstream pkg/printers/internalversion/printers.go printIngressClass, 1.31). */
import type { components } from '../../../generated/types/apis__networking.orch.io__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type IngressClass = components['schemas']['io.orch.api.networking.v1.IngressClass'];

/** printIngressClass: `Kind.apiGroup/name` of the parameters, `<none>` without them. */
function ingressClassParameters(parameters: any): string {
  if (!parameters || typeof parameters !== 'object') return '<none>';
  const group = typeof parameters.apiGroup === 'string' ? `.${parameters.apiGroup}` : '';
  return `${parameters.kind ?? ''}${group}/${parameters.name ?? ''}`;
}

export const cells = {
  ingressClassParameters: (value) => ingressClassParameters(value),
} satisfies Record<string, Cell<IngressClass>>;
