/**
 * upstream filters/impersonation.go WithImpersonation (SPEC 5.4): each
 * Impersonate-* header authorized with `impersonate` (src/auth/impersonation.ts);
 * the rest of the request runs as the identity they name, which its audit
 * event records.
 */
import { impersonate } from '../../auth/impersonation.ts';
import type { Filter } from './filter.ts';

export const impersonation: Filter = {
  async run(request, { authorizer }) {
    const authenticated = request.authenticated!;
    const user = (request.user = await impersonate(request.req, authenticated, authorizer));
    if (request.audit && user !== authenticated) request.audit.impersonated(user);
  },
};
