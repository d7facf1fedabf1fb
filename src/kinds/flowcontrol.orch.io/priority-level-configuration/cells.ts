/** The Table cells of PriorityLevelConfiguration (SPEC 2.5; upstream K pkg/printers/internalversion printers.go printPriorityLevelConfiguration). */
import type { components } from '../../../generated/types/apis__flowcontrol.orch.io__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type PriorityLevelConfiguration = components['schemas']['io.orch.api.flowcontrol.v1.PriorityLevelConfiguration'];

const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

export const cells = {
  // a level's share count only when it is limited...
  ifLimited: (value, obj) => (obj.spec?.limited ? int(value) : '<none>'),
  // ...and its queuing figures only when it queues
  ifQueuing: (value, obj) => (obj.spec?.limited?.limitResponse?.queuing ? int(value) : '<none>'),
} satisfies Record<string, Cell<PriorityLevelConfiguration>>;
