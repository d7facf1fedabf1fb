/**
 * The SubjectAccessReview the authorization webhook sends and reads (SPEC
 * 5.1.6; upstream plugin/pkg/authorizer/webhook): the spec built from the
 * request's attributes as upstream's Authorize builds it, the wire object as
 * Go marshals it (field order, omitempty, sorted extra keys, v1beta1's `group`
 * for `groups`), and the answer's status decoded with Go's type errors.
 */
import type { AuthorizationAttributes, SelectorAttribute } from './authorizer.ts';
import type { FieldRequirement } from '../../registry/selectors/field-selector.ts';
import type { LabelRequirement } from '../../registry/selectors/label-selector.ts';

export interface SelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: { requirements: SelectorRequirement[] };
  labelSelector?: { requirements: SelectorRequirement[] };
}

/** authorization.orch.io/v1 SubjectAccessReviewSpec, with Go's omitempty applied. */
export interface SubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
  evaluationError: string;
}

/** Only what is set, in the order given: Go's omitempty for strings and lists (structs behind pointers stay, even empty). */
function compact<T extends object>(fields: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    out[key] = value;
  }
  return out as T;
}

/** upstream fieldSelectorToAuthorizationAPI: =, == and in as In, != and notin as NotIn; nothing when none convert. */
function fieldRequirements(selector: SelectorAttribute<FieldRequirement> | undefined): SelectorRequirement[] {
  return (selector?.requirements ?? []).map((r) => ({ key: r.field, operator: r.operator === '!=' ? 'NotIn' : 'In', values: [r.value] }));
}

const LABEL_OPERATORS: Partial<Record<LabelRequirement['operator'], string>> = {
  '=': 'In',
  '==': 'In',
  in: 'In',
  '!=': 'NotIn',
  notin: 'NotIn',
  exists: 'Exists',
  '!': 'DoesNotExist',
};

/** upstream labelSelectorToAuthorizationAPI: gt and lt are dropped (requirements narrow, so dropping one only broadens the check). */
function labelRequirements(selector: SelectorAttribute<LabelRequirement> | undefined): SelectorRequirement[] {
  const out: SelectorRequirement[] = [];
  for (const r of selector?.requirements ?? []) {
    const operator = LABEL_OPERATORS[r.operator];
    if (operator) out.push(compact({ key: r.key, operator, values: r.values }));
  }
  return out;
}

/** upstream's Authorize: the review's spec for these attributes. */
export function specFor(a: AuthorizationAttributes): SubjectAccessReviewSpec {
  // Go marshals a map with its keys sorted, and omitempty drops an empty one.
  const extraKeys = Object.keys(a.user.extra ?? {}).sort();
  const extra = extraKeys.length ? Object.fromEntries(extraKeys.map((k) => [k, a.user.extra![k]])) : undefined;
  let resourceAttributes: ResourceAttributes | undefined;
  if (a.isResourceRequest) {
    const fields = fieldRequirements(a.fieldSelector);
    const labels = labelRequirements(a.labelSelector);
    resourceAttributes = compact({
      namespace: a.namespace,
      verb: a.verb,
      group: a.group,
      version: a.version,
      resource: a.resource,
      subresource: a.subresource,
      name: a.name,
      fieldSelector: fields.length ? { requirements: fields } : undefined,
      labelSelector: labels.length ? { requirements: labels } : undefined,
    });
  }
  return compact({
    resourceAttributes,
    nonResourceAttributes: a.isResourceRequest ? undefined : compact({ path: a.path, verb: a.verb }),
    user: a.user.name,
    groups: a.user.groups,
    extra,
    uid: a.user.uid,
  });
}

/** The object POSTed, as Go's encoder writes a SubjectAccessReview of `version`. */
export function reviewObject(spec: SubjectAccessReviewSpec, version: 'v1' | 'v1beta1'): object {
  const wire = version === 'v1' ? spec : Object.fromEntries(Object.entries(spec).map(([k, v]) => [k === 'groups' ? 'group' : k, v]));
  return {
    kind: 'SubjectAccessReview',
    apiVersion: `authorization.orch.io/${version}`,
    metadata: { creationTimestamp: null },
    spec: wire,
    status: { allowed: false },
  };
}

/** The answer's status as Go decodes it into the typed review; a field of the wrong type is Go's json error. */
export function decodeStatus(answer: Record<string, unknown>, version: 'v1' | 'v1beta1'): SubjectAccessReviewStatus {
  const status = answer.status ?? null;
  const goType = (v: unknown) => (Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v);
  if (status !== null && (typeof status !== 'object' || Array.isArray(status))) {
    throw new Error(`json: cannot unmarshal ${goType(status)} into Go struct field SubjectAccessReview.status of type ${version}.SubjectAccessReviewStatus`);
  }
  const s = (status ?? {}) as Record<string, unknown>;
  const field = <T>(name: string, type: 'boolean' | 'string', zero: T): T => {
    const v = s[name];
    if (v === undefined || v === null) return zero;
    if (typeof v !== type) {
      throw new Error(`json: cannot unmarshal ${goType(v)} into Go struct field SubjectAccessReviewStatus.status.${name} of type ${type === 'boolean' ? 'bool' : 'string'}`);
    }
    return v as T;
  };
  return { allowed: field('allowed', 'boolean', false), denied: field('denied', 'boolean', false), reason: field('reason', 'string', ''), evaluationError: field('evaluationError', 'string', '') };
}
