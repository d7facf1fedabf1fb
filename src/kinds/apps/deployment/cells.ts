/**
 * The Table cells of Deployment, and the one a StatefulSet prints alike (SPEC
 * 2.5, 4.7; upstream pkg/printers/internalversion/printers.go
 * printDeployment and printStatefulSet, 1.31).
 */
import type { Cell } from '../../../registry/printer-cells.ts';

const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

export const cells = {
  // `ready/desired`
  readyOfReplicas: (_v, obj) => `${int(obj.status?.readyReplicas)}/${int(obj.spec?.replicas)}`,
} satisfies Record<string, Cell>;
