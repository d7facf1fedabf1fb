/**
 * upstream filters/waitgroup.go WithWaitGroup: every request that is not
 * long-running is counted until it is done, so a graceful shutdown can wait
 * for them (ShutdownGate.refuseNewRequests). Counted before its deadline is
 * read, so a request whose `timeout` is refused is counted and let go too.
 */
import { isLongRunning } from '../request-limits.ts';
import type { Filter } from './filter.ts';

export const waitGroup: Filter = {
  run(request, { shutdown }) {
    if (isLongRunning(request.info!)) return;
    shutdown.add();
    request.awaitedByShutdown = true;
  },
  finish(request, { shutdown }) {
    if (request.awaitedByShutdown) shutdown.done();
  },
};
