/**
 * The server's authorizer chain lent to expressions (SPEC 2.11): the
 * activation of a field that declares `authorizer`, whose checks
 * (cel/authz.ts) reach the chain as a request's attributes. A check's
 * selectors, which the expression wrote as text, are parsed here as request
 * info parses a request's (http/request-info.ts): their requirements, or why
 * they did not parse; a check without one has none.
 */
import type { UserInfo } from '../../api/user.ts';
import { authorizerVariables, type CheckAttributes, type CheckAuthorizer, type RequestResource } from '../../cel/authz.ts';
import { parseFieldSelector } from '../../registry/selectors/field-selector.ts';
import { parseLabelSelector } from '../../registry/selectors/label-selector.ts';
import { selectorAttribute, type AuthorizationAttributes, type Authorizer } from './authorizer.ts';

/** A check as the chain's attributes. */
function authorizationAttributes({ fieldSelector, labelSelector, ...check }: CheckAttributes): AuthorizationAttributes {
  const attributes: AuthorizationAttributes = check;
  const fields = fieldSelector ? selectorAttribute(fieldSelector, parseFieldSelector) : undefined;
  const labels = labelSelector ? selectorAttribute(labelSelector, parseLabelSelector) : undefined;
  if (fields) attributes.fieldSelector = fields;
  if (labels) attributes.labelSelector = labels;
  return attributes;
}

/**
 * The activation entries of an authorizer (`authorizer`, and with `request`
 * `authorizer.requestResource`) for `user` against `authorizer`.
 */
export function authorizerActivation(user: UserInfo, authorizer: Authorizer, request?: RequestResource): Record<string, unknown> {
  const checks: CheckAuthorizer = { authorize: (check) => authorizer.authorize(authorizationAttributes(check)) };
  return authorizerVariables(user, checks, request);
}
