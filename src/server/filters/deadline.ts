/**
 * upstream filters/request_deadline.go and filters/timeout.go: a request that
 * is not long-running gets a deadline, --request-timeout or a shorter
 * `timeout` (an unparsable one is 400), after which the client gets 504 and
 * the request's writes stop reaching storage (request-limits.ts).
 */
import * as errors from '../../api/status-error.ts';
import { writeError } from '../../http/respond.ts';
import { deadlineFor, isLongRunning } from '../request-limits.ts';
import type { Filter } from './filter.ts';

export const deadline: Filter = {
  run(request, { limits, deadlines }) {
    const { res, encode } = request;
    if (isLongRunning(request.info!)) return;
    const ms = deadlineFor(request.target!.query, limits.requestTimeoutMs);
    request.deadline = deadlines.start(res, ms, () => writeError(res, errors.requestTimeout(), encode));
  },
  finish(request) {
    request.deadline?.clear();
  },
};
