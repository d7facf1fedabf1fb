/**
 * The Table cells of Deployment, and the one a StatefulSet prints alike (SPEC
 * 2.5, 4.7; upstream pkg/printers/internalversion/printers.go
 * printDeployment and printStatefulSet, 1.31).
 */
import type { components } from '../../../generated/types/apis__apps__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type Deployment = components['schemas']['io.orch.api.apps.v1.Deployment'];

const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

export const cells = {
  // `ready/desired`
  readyOfReplicas: (_v, obj) => `${int(obj.status?.readyReplicas)}/${int(obj.spec?.replicas)}`,
} satisfies Record<string, Cell<Deployment>>;
