/**
 * --shutdown-send-retry-after (upstream filters/with_retry_after.go): once a
 * shutdown has begun, every new request but the probes and metrics is
 * answered 429 with Retry-After and its connection closed, so clients go to
 * another replica. First in the chain: nothing else is done for it.
 */
import { writeText } from '../../http/respond.ts';
import type { Filter } from './filter.ts';

/** Probes and metrics keep being served while a shutdown refuses other requests (upstream's exempt path prefixes). */
const EXEMPT_FROM_RETRY_AFTER = /^\/(readyz|livez|healthz|metrics)/;

export const shutdownRefusal: Filter = {
  run(request, { shutdown }) {
    if (!shutdown.refusing || EXEMPT_FROM_RETRY_AFTER.test(request.req.url ?? '')) return;
    // Upstream's answer: try another replica in 5 s.
    writeText(request.res, 429, 'The apiserver is shutting down, please try again later.\n', { 'Retry-After': '5', Connection: 'close' });
    request.answered = true;
  },
};
