/** The Table cells of FlowSchema (SPEC 2.5; upstream K pkg/printers/internalversion printers.go printFlowSchema). */
import type { components } from '../../../generated/types/apis__flowcontrol.orch.io__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type FlowSchema = components['schemas']['io.orch.api.flowcontrol.v1.FlowSchema'];

export const cells = {
  // the method's type, `<none>` without one
  distinguisherMethod: (value: any) => (value ? String(value.type ?? '') : '<none>'),
  // MissingPL: the status of the Dangling condition, `?` without one
  danglingCondition: (value) => (Array.isArray(value) ? value.find((c) => c?.type === 'Dangling') : undefined)?.status ?? '?',
} satisfies Record<string, Cell<FlowSchema>>;
