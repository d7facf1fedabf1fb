/** The Table cells of CSIDriver (SPEC 2.5, 4.7; upstream pkg/printers/internalversion/printers.go printCSIDriver, 1.31). */
import type { components } from '../../../generated/types/apis__storage.orch.io__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type CSIDriver = components['schemas']['io.orch.api.storage.v1.CSIDriver'];

export const cells = {
  tokenAudiences: (value) => (Array.isArray(value) ? value.map((t) => t?.audience ?? '').join(',') : '<unset>'),
} satisfies Record<string, Cell<CSIDriver>>;
