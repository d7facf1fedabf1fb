/**
 * The Table cells of flowcontrol.orch.io FlowSchema and
 * PriorityLevelConfiguration (SPEC 2.5; upstream K pkg/printers/internalversion
 * printers.go printFlowSchema and printPriorityLevelConfiguration).
 */
type Formatter = (value: unknown, obj: any) => unknown;

const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

export const flowcontrolFormatters: Record<string, Formatter> = {
  // printFlowSchema: the method's type, `<none>` without one.
  distinguisherMethod: (value: any) => (value ? String(value.type ?? '') : '<none>'),
  // printFlowSchema's MissingPL: the status of the Dangling condition, `?` without one.
  danglingCondition: (value) => (Array.isArray(value) ? value.find((c) => c?.type === 'Dangling') : undefined)?.status ?? '?',
  // printPriorityLevelConfiguration: a level's share count only when it is limited...
  ifLimited: (value, obj) => (obj.spec?.limited ? int(value) : '<none>'),
  // ...and its queuing figures only when it queues.
  ifQueuing: (value, obj) => (obj.spec?.limited?.limitResponse?.queuing ? int(value) : '<none>'),
};
