/**
 * upstream filters/authorization.go WithAuthorization (SPEC 5.1): the
 * request's attributes asked of the authorizer chain, last before the
 * handler, so a forbidden invalid request is 403; an allow passes, anything
 * else is the 403 or 500 of src/auth/authorization/forbidden.ts.
 */
import type { AuthorizationAttributes } from '../../auth/authorization/authorizer.ts';
import { authorizeRequest } from '../../auth/authorization/forbidden.ts';
import type { UserInfo } from '../../api/user.ts';
import type { RequestInfo } from '../../http/request-info.ts';
import type { Filter } from './filter.ts';

/**
 * The attributes of SPEC 5.1 item 2 (upstream GetAuthorizerAttributes): a
 * collection read narrowed to one name by its field selector is authorized as
 * that name; the selectors go along under AuthorizeWithSelectors.
 */
export function attributesFor(user: UserInfo, info: RequestInfo): AuthorizationAttributes {
  const attributes: AuthorizationAttributes = {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    group: info.group,
    version: info.version,
    namespace: info.namespace,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name || info.selectedName,
  };
  if (info.fieldSelector) attributes.fieldSelector = info.fieldSelector;
  if (info.labelSelector) attributes.labelSelector = info.labelSelector;
  return attributes;
}

export const authorization: Filter = {
  run(request, { authorizer }) {
    return authorizeRequest(authorizer, attributesFor(request.user!, request.info!), request.audit);
  },
};
