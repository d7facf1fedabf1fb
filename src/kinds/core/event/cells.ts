/**
 * The Table cells of Events (upstream pkg/printers/internalversion/printers.go
 * printEvent, 1.31), read from the core form: events.orch.io/v1 Events print
 * their stored (core) form too.
 */
import type { components } from '../../../generated/types/api__v1.ts';
import type { Cell, TimedCell } from '../../../registry/printer-cells.ts';
import { ageCell } from '../../../registry/table-time.ts';

type Event = components['schemas']['io.orch.api.core.v1.Event'];

export const cells = {
  // the series' count, else the legacy count, else 1
  eventCount: (_v, obj) => obj.series?.count ?? obj.count ?? 1,
  eventObject: (_v, obj) => `${(obj.involvedObject?.kind ?? '').toLowerCase()}/${obj.involvedObject?.name ?? ''}`,
  eventSource: (_v, obj) => {
    const component = obj.source?.component || obj.reportingComponent || '';
    const host = obj.source?.host || obj.reportingInstance || '';
    return host ? `${component}, ${host}` : component;
  },
} satisfies Record<string, Cell<Event>>;

export const timedCells = {
  eventFirstSeen: ageCell((_v, obj: Event) => obj.firstTimestamp ?? obj.eventTime),
  eventLastSeen: ageCell((_v, obj: Event) => obj.series?.lastObservedTime ?? obj.lastTimestamp ?? obj.eventTime),
} satisfies Record<string, TimedCell<Event>>;
