/**
 * upstream filters/authentication.go WithAuthentication (SPEC 5.2, 5.3): who
 * sent the request, from the authenticators `../authentication.ts` assembled;
 * a failure is the authenticator's 401.
 */
import type { Filter } from './filter.ts';

export const authentication: Filter = {
  async run(request, { authenticate }) {
    request.authenticated = await authenticate(request.req, request.info!.path);
  },
};
