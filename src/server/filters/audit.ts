/**
 * upstream filters/audit.go WithAudit and WithFailedAuthenticationAudit (SPEC
 * 9.5): after authentication and before impersonation, as upstream orders
 * them, the policy's decision and the event's RequestReceived stage (a
 * blocking backend is waited for); a failed authentication is audited without
 * a user, and anything thrown that is not a Status as the Panic stage
 * (upstream's recovered panic).
 */
import { StatusError } from '../../api/status-error.ts';
import type { Filter } from './filter.ts';

export const audit: Filter = {
  run(request, { auditor }) {
    if (!auditor) return;
    const audit = (request.audit = auditor.begin(request.req, request.res, request.info!, request.authenticated!, !request.awaitedByShutdown));
    if (audit?.pending) return audit.pending;
  },
  failed(request, { auditor }, err) {
    if (!auditor) return;
    const { audit, res, info } = request;
    if (!audit && info && err instanceof StatusError && err.code === 401) auditor.unauthenticated(request.req, res, info);
    else if (audit && !(err instanceof StatusError) && !res.headersSent) audit.failed(err);
  },
};
