/**
 * The access reviews (SPEC 2.8, 4.11; upstream registry/authorization): ask the
 * server's own authorization chain whether an identity may do something.
 * SubjectAccessReview for any identity, SelfSubjectAccessReview for the
 * caller, LocalSubjectAccessReview inside one namespace; the answer is the
 * chain's real decision.
 */
import * as errors from '../../api/status-error.ts';
import type { ComputedCreate } from '../../registry/computed.ts';
import type { ApiObject } from '../../registry/strategy.ts';
import { invalid, type FieldError } from '../../registry/validation/field-errors.ts';
import type { AuthorizationAttributes, Authorizer } from '../authorization/authorizer.ts';
import type { UserInfo } from '../../api/user.ts';
import { fieldSelectorAttribute, labelSelectorAttribute, selectorAttributeErrors } from './review-selectors.ts';

/** Feature gates the reviews follow. */
export interface ReviewOptions {
  /** AuthorizeWithSelectors (SPEC 9.6): resourceAttributes.fieldSelector and labelSelector reach the authorizers. */
  authorizeWithSelectors?: boolean;
}

const GROUP = 'authorization.orch.io';

/** ValidateSubjectAccessReviewSpec's rule: exactly one kind of attributes. */
function attributeErrors(spec: any): FieldError[] {
  if (spec?.resourceAttributes && spec?.nonResourceAttributes) {
    return [invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes')];
  }
  if (!spec?.resourceAttributes && !spec?.nonResourceAttributes) {
    return [invalid('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  }
  return [];
}

/** metadata must be empty (a namespace aside, for the local review), as upstream validates it. */
function metadataErrors(metadata: Record<string, unknown> | undefined, allowNamespace: boolean): FieldError[] {
  const rest = Object.entries(metadata ?? {}).filter(([k, v]) => !(k === 'managedFields' || (allowNamespace && k === 'namespace')) && v !== undefined && v !== '' && v !== null);
  return rest.length ? [invalid('metadata', Object.fromEntries(rest), 'must be empty')] : [];
}

/**
 * The selectors are alpha: without the gate they are dropped from the review, as
 * upstream drops disabled fields; with it they are validated as upstream.
 */
function selectorGate(spec: any, options: ReviewOptions): FieldError[] {
  const r = spec?.resourceAttributes;
  if (!r) return [];
  if (options.authorizeWithSelectors) return selectorAttributeErrors(r, 'spec.resourceAttributes');
  delete r.fieldSelector;
  delete r.labelSelector;
  return [];
}

/** upstream authorizationutil.AuthorizationAttributesFrom. */
function attributesFrom(spec: any, user: UserInfo): AuthorizationAttributes {
  const r = spec.resourceAttributes;
  if (r) {
    const attributes: AuthorizationAttributes = {
      user, isResourceRequest: true, path: '', verb: r.verb ?? '', group: r.group ?? '', version: r.version ?? '',
      namespace: r.namespace ?? '', resource: r.resource ?? '', subresource: r.subresource ?? '', name: r.name ?? '',
    };
    // Only present with the gate on (selectorGate drops them otherwise).
    const fieldSelector = fieldSelectorAttribute(attributes.verb, r.fieldSelector);
    const labelSelector = labelSelectorAttribute(attributes.verb, r.labelSelector);
    if (fieldSelector) attributes.fieldSelector = fieldSelector;
    if (labelSelector) attributes.labelSelector = labelSelector;
    return attributes;
  }
  const n = spec.nonResourceAttributes;
  return { user, isResourceRequest: false, path: n.path ?? '', verb: n.verb ?? '', group: '', version: '', namespace: '', resource: '', subresource: '', name: '' };
}

async function decide(authorizer: Authorizer, attributes: AuthorizationAttributes): Promise<Record<string, unknown>> {
  const status: Record<string, unknown> = { allowed: false };
  try {
    const { decision, reason, error } = await authorizer.authorize(attributes);
    status.allowed = decision === 'Allow';
    if (decision === 'Deny') status.denied = true;
    if (reason) status.reason = reason;
    if (error) status.evaluationError = error;
  } catch (err) {
    status.evaluationError = (err as Error).message;
  }
  return status;
}

function specUser(spec: any): UserInfo {
  const user: UserInfo = { name: spec.user ?? '', groups: Array.isArray(spec.groups) ? spec.groups : [] };
  if (spec.uid) user.uid = spec.uid;
  if (spec.extra && Object.keys(spec.extra).length) user.extra = spec.extra;
  return user;
}

function refuse(kind: string, problems: FieldError[]): void {
  if (problems.length) throw errors.invalid(kind, GROUP, '', problems);
}

/** POST subjectaccessreviews: any identity (spec.user, groups, uid, extra). */
export function subjectAccessReview(authorizer: Authorizer, options: ReviewOptions = {}): ComputedCreate {
  return async ({ body }) => {
    const spec = body.spec ?? {};
    const problems = [...attributeErrors(spec), ...selectorGate(spec, options), ...metadataErrors(body.metadata, false)];
    if (!spec.user && !(spec.groups?.length > 0)) problems.push(invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
    refuse('SubjectAccessReview', problems);
    return { ...body, status: await decide(authorizer, attributesFrom(spec, specUser(spec))) };
  };
}

/** POST selfsubjectaccessreviews: the caller, after impersonation. */
export function selfSubjectAccessReview(authorizer: Authorizer, options: ReviewOptions = {}): ComputedCreate {
  return async ({ body, user }) => {
    const spec = body.spec ?? {};
    refuse('SelfSubjectAccessReview', [...attributeErrors(spec), ...selectorGate(spec, options), ...metadataErrors(body.metadata, false)]);
    return { ...body, status: await decide(authorizer, attributesFrom(spec, user)) };
  };
}

/** POST namespaces/{ns}/localsubjectaccessreviews: a SubjectAccessReview inside the path's namespace. */
export function localSubjectAccessReview(authorizer: Authorizer, options: ReviewOptions = {}): ComputedCreate {
  return async ({ body, namespace }) => {
    if (!namespace) throw errors.badRequest('namespace is required on this type: ');
    const metadata: ApiObject['metadata'] = { ...(body.metadata ?? {}) };
    if (metadata.namespace && metadata.namespace !== namespace) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    metadata.namespace = namespace;
    const spec = body.spec ?? {};
    const problems = [...attributeErrors(spec), ...selectorGate(spec, options), ...metadataErrors(metadata, true)];
    if (spec.nonResourceAttributes) problems.push(invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
    if (!spec.user && !(spec.groups?.length > 0)) problems.push(invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
    refuse('LocalSubjectAccessReview', problems);
    if (spec.resourceAttributes?.namespace !== namespace) throw errors.badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
    return { ...body, metadata, status: await decide(authorizer, attributesFrom(spec, specUser(spec))) };
  };
}

/** POST selfsubjectrulesreviews: what the caller may do in spec.namespace, as the chain lists it. */
export function selfSubjectRulesReview(authorizer: Authorizer): ComputedCreate {
  return async ({ body, user }) => {
    const namespace = body.spec?.namespace;
    if (!namespace) throw errors.badRequest('no namespace on request');
    const status: Record<string, unknown> = { resourceRules: [], nonResourceRules: [], incomplete: true };
    try {
      const { error, ...rules } = await authorizer.rulesFor!(user, namespace);
      Object.assign(status, rules);
      if (error) status.evaluationError = error;
    } catch (err) {
      status.evaluationError = (err as Error).message;
    }
    // upstream answers a new object: the status alone.
    return { metadata: {}, spec: {}, status };
  };
}
