/**
 * events.orch.io/v1 Event <-> core v1 Event, the internal form and storage of
 * both (SPEC 9.7; upstream pkg/apis/events/v1/conversion.go): note <-> message,
 * regarding <-> involvedObject, reportingController <-> reportingComponent and
 * the deprecated* fields <-> source, firstTimestamp, lastTimestamp, count.
 */
import type { ApiObject } from '../../../registry/strategy.ts';
import type { KindConversion } from '../../../registry/kind-conversion.ts';

const CORE = 'v1';
const EVENTS = 'events.orch.io/v1';

/** Renames the fields one way; the rest (eventTime, series, action, reason, related, type, reportingInstance) are shared. */
function renamed(obj: ApiObject, names: ReadonlyArray<readonly [string, string]>): ApiObject {
  const out: ApiObject = structuredClone(obj);
  for (const [from, to] of names) {
    delete out[from];
    if (obj[from] !== undefined) out[to] = structuredClone(obj[from]);
  }
  return out;
}

/** events/v1 name -> core v1 name. */
const EVENTS_TO_CORE = [
  ['note', 'message'],
  ['regarding', 'involvedObject'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
] as const;
const CORE_TO_EVENTS = EVENTS_TO_CORE.map(([events, core]) => [core, events] as const);

const sameFields = (obj: ApiObject): ApiObject => structuredClone(obj);

/** The events.orch.io/v1 form's renamed fields; the core form is the internal one. */
export const toCore = (obj: ApiObject): ApiObject => renamed(obj, EVENTS_TO_CORE);

export const conversion: KindConversion = {
  toInternal: { [CORE]: sameFields, [EVENTS]: toCore },
  fromInternal: { [CORE]: sameFields, [EVENTS]: (internal) => renamed(internal, CORE_TO_EVENTS) },
};
