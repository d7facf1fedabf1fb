/** The Table cells of CSIDriver (SPEC 2.5, 4.7; upstream pkg/printers/internalversion/printers.go printCSIDriver, 1.31). */
import type { Cell } from '../../../registry/printer-cells.ts';

export const cells = {
  tokenAudiences: (value) => (Array.isArray(value) ? value.map((t) => t?.audience ?? '').join(',') : '<unset>'),
} satisfies Record<string, Cell>;
