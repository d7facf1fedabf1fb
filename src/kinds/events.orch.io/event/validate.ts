/**
 * events.orch.io/v1 Events (SPEC 9.7; K pkg/registry/core/event/strategy.go and
 * pkg/apis/core/validation ValidateEventCreate / ValidateEventUpdate with an
 * events/v1 request): core Events written through the new API meet the legacy
 * checks and the strict ones, on the internal (core) form.
 */
import type { ApiObject } from '../../../registry/strategy.ts';
import { invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { validateEvent } from '../../core/event/validate.ts';
import { toCore } from './conversion.ts';

const unset = (v: unknown) => v === undefined || v === null || v === '' || v === 0;
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** validateV1EventSeries. */
function validateSeries(event: ApiObject): FieldError[] {
  if (!event.series) return [];
  const errs: FieldError[] = [];
  if (!(event.series.count >= 2)) errs.push(invalid('series.count', '', 'should be at least 2'));
  if (unset(event.series.lastObservedTime)) errs.push(required('series.lastObservedTime'));
  return errs;
}

/** ValidateEventCreate for events/v1: the legacy rules, then the strict ones (paths are the internal form's). */
export function validateCreate(obj: ApiObject): FieldError[] {
  const event = toCore(obj);
  const errs = [...validateEvent(event), ...validateSeries(event)];
  if (unset(event.eventTime)) errs.push(required('eventTime'));
  if (event.type !== 'Normal' && event.type !== 'Warning') errs.push(invalid('type', '', `has invalid value: ${event.type ?? ''}`));
  if (!unset(event.firstTimestamp)) errs.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (!unset(event.lastTimestamp)) errs.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if (!unset(event.count)) errs.push(invalid('count', '', 'needs to be unset'));
  if (event.source?.component || event.source?.host) errs.push(invalid('source', '', 'needs to be unset'));
  return errs;
}

/** The fields ValidateEventUpdate keeps immutable, in its order. */
const IMMUTABLE = ['involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type', 'eventTime', 'action', 'related', 'reportingComponent', 'reportingInstance'];
/** The internal field names upstream's paths use where core v1's JSON name differs. */
const INTERNAL_PATH: Record<string, string> = { reportingComponent: 'reportingController' };

/** ValidateEventUpdate for events/v1: legacy rules, a changed series valid, everything else immutable. */
export function validateUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const event = toCore(obj);
  const previous = toCore(old);
  const errs = validateEvent(event);
  if (!same(event.series, previous.series)) errs.push(...validateSeries(event));
  for (const field of IMMUTABLE) {
    if (!same(event[field], previous[field])) errs.push(invalid(INTERNAL_PATH[field] ?? field, event[field] ?? null, FIELD_IMMUTABLE));
  }
  return errs;
}
