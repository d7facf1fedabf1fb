/** The 403 of SPEC 5.1 with upstream's message (FACTS 1.2), and the check that throws it. */
import * as errors from '../../api/status-error.ts';
import type { AuthorizationAttributes, Authorizer } from './authorizer.ts';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function forbiddenError(a: AuthorizationAttributes, reason: string): errors.StatusError {
  const user = escapeHtml(a.user.name);
  let text: string;
  if (!a.isResourceRequest) {
    text = `User "${user}" cannot ${a.verb} path "${escapeHtml(a.path)}"`;
    return errors.forbidden(undefined, '', reason ? `${text}: ${reason}` : text);
  }
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${escapeHtml(a.namespace)}"` : 'at the cluster scope';
  text = `User "${user}" cannot ${a.verb} resource "${escapeHtml(resource)}" in API group "${a.group}" ${scope}`;
  return errors.forbidden({ group: a.group, resource: a.resource }, a.name, reason ? `${text}: ${reason}` : text);
}

/** Where the decision is recorded: the request's audit event (upstream audit.AddAuditAnnotations). */
export interface AuditAnnotations {
  annotate(key: string, value: string): void;
}

const DECISION = 'authorization.orch.io/decision';
const REASON = 'authorization.orch.io/reason';

/**
 * upstream's WithAuthorization filter: an allow passes; an authorizer error
 * with no allow is a 500 (the decision could not be made); anything else 403.
 */
export async function authorizeRequest(authorizer: Authorizer, attributes: AuthorizationAttributes, audit?: AuditAnnotations): Promise<void> {
  const { decision, reason, error } = await authorizer.authorize(attributes);
  if (decision === 'Allow') {
    audit?.annotate(DECISION, 'allow');
    audit?.annotate(REASON, reason);
    return;
  }
  if (error) {
    audit?.annotate(REASON, 'internal error');
    throw errors.internalError(new Error(error));
  }
  audit?.annotate(DECISION, 'forbid');
  audit?.annotate(REASON, reason);
  throw forbiddenError(attributes, reason);
}
