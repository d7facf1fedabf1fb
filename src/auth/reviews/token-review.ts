/**
 * TokenReview (SPEC 2.8, 5.2): asks this server's bearer-token authenticators
 * about a token, as upstream's registry/authentication/tokenreview does:
 * audiences default to the server's, and an answer for other audiences is
 * not an authentication.
 */
import * as errors from '../../api/status-error.ts';
import type { ComputedCreate } from '../../registry/computed.ts';
import type { AuthenticationResult } from '../authentication/authenticator.ts';
import { userInfoStatus } from './self-subject-review.ts';
import { goQuoteList } from '../../util/go-print.ts';

export interface TokenReviewOptions {
  /** Every configured token authenticator, as a bearer token in a request would meet them. */
  authenticateToken(token: string, audiences: string[]): Promise<AuthenticationResult | null>;
  /** --api-audiences: the audiences when the review names none. */
  apiAudiences: string[];
}

export function tokenReview(options: TokenReviewOptions): ComputedCreate {
  return async ({ body }) => {
    if (body.metadata?.namespace) throw errors.badRequest(`namespace is not allowed on this type: ${body.metadata.namespace}`);
    const token = typeof body.spec?.token === 'string' ? body.spec.token : '';
    if (!token) throw errors.badRequest('token is required for TokenReview in authentication');
    const requested: string[] = Array.isArray(body.spec?.audiences) && body.spec.audiences.length ? body.spec.audiences : options.apiAudiences;
    const status: Record<string, unknown> = { authenticated: false };
    let result: AuthenticationResult | null = null;
    try {
      result = await options.authenticateToken(token, requested);
    } catch (err) {
      status.error = err instanceof Error ? err.message : String(err);
    }
    if (!result && status.error === undefined) status.error = 'invalid bearer token';
    if (result) {
      // An authenticator that does not know audiences (a token file) answers for the ones asked about.
      const audiences = result.audiences ?? requested;
      if (requested.length && !audiences.some((a) => requested.includes(a))) {
        status.error = `token audiences ${goQuoteList(audiences)} is invalid for the target audiences ${goQuoteList(requested)}`;
      } else {
        status.authenticated = true;
        status.user = userInfoStatus(result.user);
        if (audiences.length) status.audiences = audiences;
      }
    }
    return { ...body, status };
  };
}
