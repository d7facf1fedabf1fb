/**
 * upstream filters/maxinflight.go WithMaxInFlightLimit:
 * --max-requests-inflight and --max-mutating-requests-inflight, a 429 with
 * Retry-After beyond them (request-limits.ts InflightLimiter); the slot is
 * given back once the request is done.
 */
import type { Filter } from './filter.ts';

export const inflightLimit: Filter = {
  run(request, { inflight }) {
    request.release = inflight.admit(request.info!, request.user!);
  },
  finish(request) {
    request.release?.();
  },
};
