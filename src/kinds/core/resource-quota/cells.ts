/**
 * The Table cells of ResourceQuota (SPEC 2.5, 4.7; upstream
 * pkg/printers/internalversion/printers.go printResourceQuota, 1.31).
 */
import type { components } from '../../../generated/types/api__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';
import { quantityText } from '../../../api/quantity.ts';

type ResourceQuota = components['schemas']['io.orch.api.core.v1.ResourceQuota'];

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * printResourceQuota's Request or Limit cell: `name: used/hard` for each hard
 * resource in name order, the `limits.*` ones in the Limit cell, the rest in
 * the Request cell.
 */
function quotaCell(status: unknown, limits: boolean): string {
  const hard = isObj(status) && isObj(status.hard) ? status.hard : {};
  const used = isObj(status) && isObj(status.used) ? status.used : {};
  return Object.keys(hard)
    .sort()
    .filter((name) => {
      const pieces = name.split('.');
      return (pieces.length > 1 && pieces[0] === 'limits') === limits;
    })
    .map((name) => `${name}: ${quantityText(used[name])}/${quantityText(hard[name])}`)
    .join(', ');
}

export const cells = {
  quotaRequests: (status) => quotaCell(status, false),
  quotaLimits: (status) => quotaCell(status, true),
} satisfies Record<string, Cell<ResourceQuota>>;
