/**
 * The request path (ARCHITECTURE "One request, one direction"; upstream
 * DefaultBuildHandlerChain, outermost first): the filters in their one order,
 * then the router. Audit comes after authentication and before
 * impersonation; the in-flight limit sees the impersonated user;
 * authorization is last, so a forbidden invalid request is 403.
 */
import { writeError } from '../../http/respond.ts';
import type { ApiRequest } from './api-request.ts';
import { audit } from './audit.ts';
import { authentication } from './authentication.ts';
import { authorization } from './authorization.ts';
import { connectionGuard } from './connection-verdict.ts';
import { deadline } from './deadline.ts';
import type { Filter, FilterServices } from './filter.ts';
import { impersonation } from './impersonation.ts';
import { inflightLimit } from './inflight-limit.ts';
import { requestInfo } from './request-info.ts';
import { shutdownRefusal } from './shutdown-refusal.ts';
import { waitGroup } from './wait-group.ts';

export const FILTERS: readonly Filter[] = [
  shutdownRefusal,
  connectionGuard,
  requestInfo,
  waitGroup,
  deadline,
  authentication,
  audit,
  impersonation,
  inflightLimit,
  authorization,
];

/** The filters that see failures, in the list's order. */
const FAILURE_WATCHERS = FILTERS.filter((filter) => filter.failed);
/** The filters that undo something, last first: upstream's deferred calls unwind from the innermost filter out. */
const FINISHERS = FILTERS.filter((filter) => filter.finish).reverse();

/**
 * Runs one request through the filters, then `handler` (the router). A
 * failure anywhere is answered once, here; a failure while answering it ends
 * that request alone, never the server, like upstream's panic recovery.
 * Indexed loops: the lists are constant, and an iterator would be one more
 * object per request.
 */
export async function serveThroughChain(request: ApiRequest, services: FilterServices, handler: (request: ApiRequest) => Promise<void>): Promise<void> {
  try {
    for (let i = 0; i < FILTERS.length; i++) {
      const passing = FILTERS[i].run(request, services);
      if (passing) await passing;
      if (request.answered) return;
    }
    await handler(request);
  } catch (err) {
    for (let i = 0; i < FAILURE_WATCHERS.length; i++) FAILURE_WATCHERS[i].failed!(request, services, err);
    try {
      writeError(request.res, err, request.encode);
    } catch (failure) {
      console.error('could not answer a request:', failure, 'after:', err);
      request.res.destroy();
    }
  } finally {
    for (let i = 0; i < FINISHERS.length; i++) FINISHERS[i].finish!(request, services);
  }
}
