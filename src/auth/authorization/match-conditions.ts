/**
 * A webhook's matchConditions (SPEC 2.11, 5.1.6 table, 8; upstream
 * pkg/authorization/cel and ValidateAndCompileMatchConditions): expressions
 * over `request`, the v1 SubjectAccessReviewSpec, compiled once with their
 * field errors, and evaluated in order: the first false skips the webhook,
 * errors with no false are reported together.
 */
import { authzSelectorsLibrary } from '../../cel/authz.ts';
import { CelCompileError, CelEnvironment, type CompiledExpression } from '../../cel/environment.ts';
import { duplicate, invalid, required, tooMany, type FieldError } from '../../registry/validation/field-errors.ts';
import type { SubjectAccessReviewSpec } from './subject-access-review.ts';

export const MAX_MATCH_CONDITIONS = 64;

const RESOURCE_FIELDS = { namespace: 'string', verb: 'string', group: 'string', version: 'string', resource: 'string', subresource: 'string', name: 'string' };
const SELECTOR = { rawSelector: 'string', requirements: 'list<orch.SelectorRequirement>' };

/**
 * upstream buildRequestType, `kubernetes.` renamed `orch.`; selectors only
 * under AuthorizeWithSelectors. As upstream's (pkg/authorization/cel
 * mustBuildEnv), the only variable is `request`: no `authorizer`. The base
 * environment declares the authorizer's functions, and under the gate its
 * selectors, as upstream's base environment does.
 */
function requestEnvironment(selectors: boolean): CelEnvironment {
  return new CelEnvironment({
    types: {
      ...(selectors
        ? {
            'orch.SelectorRequirement': { key: 'string', operator: 'string', values: 'list<string>' },
            'orch.FieldSelectorAttributes': SELECTOR,
            'orch.LabelSelectorAttributes': SELECTOR,
          }
        : {}),
      'orch.ResourceAttributes': selectors ? { ...RESOURCE_FIELDS, fieldSelector: 'orch.FieldSelectorAttributes', labelSelector: 'orch.LabelSelectorAttributes' } : RESOURCE_FIELDS,
      'orch.NonResourceAttributes': { path: 'string', verb: 'string' },
      'orch.SubjectAccessReviewSpec': {
        resourceAttributes: 'orch.ResourceAttributes',
        nonResourceAttributes: 'orch.NonResourceAttributes',
        user: 'string',
        groups: 'list<string>',
        extra: 'map<string, list<string>>',
        uid: 'string',
      },
    },
    variables: { request: 'orch.SubjectAccessReviewSpec' },
    libraries: selectors ? [authzSelectorsLibrary] : [],
  });
}

const environments = new Map<boolean, CelEnvironment>();
const environmentFor = (selectors: boolean) => environments.get(selectors) ?? environments.set(selectors, requestEnvironment(selectors)).get(selectors)!;

export interface MatchConditions {
  expressions: CompiledExpression[];
  usesFieldSelector: boolean;
  usesLabelSelector: boolean;
}

/**
 * upstream compileMatchConditions: at most 64, each non-empty, unique and
 * compiling to bool; errors under `path` (`authorizers[0]` in the file,
 * nothing for the webhook's own check). Undefined when there is nothing to match.
 */
export function compileMatchConditions(conditions: ReadonlyArray<{ expression: string }>, path: string, selectors: boolean): { matcher?: MatchConditions; errors: FieldError[] } {
  const field = path ? `${path}.matchConditions` : 'matchConditions';
  if (conditions.length > MAX_MATCH_CONDITIONS) return { errors: [tooMany(field, conditions.length, MAX_MATCH_CONDITIONS)] };
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const expressions: CompiledExpression[] = [];
  conditions.forEach(({ expression }, i) => {
    const at = `${field}[${i}].expression`;
    if (expression.trim() === '') return void errors.push(required(at));
    if (seen.has(expression)) return void errors.push(duplicate(at, expression));
    seen.add(expression);
    try {
      expressions.push(environmentFor(selectors).compile(expression, { resultType: 'bool' }));
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err;
      errors.push(invalid(at, expression, err.detail));
    }
  });
  if (!expressions.length) return { errors };
  const uses = (name: string) => expressions.some((e) => e.selectedFields.has(name));
  return { matcher: { expressions, usesFieldSelector: uses('fieldSelector'), usesLabelSelector: uses('labelSelector') }, errors };
}

/** upstream convertObjectToUnstructured: every string field present (empty or not), selectors only when read. */
function requestValue(spec: SubjectAccessReviewSpec, matcher: MatchConditions): Record<string, unknown> {
  const value: Record<string, unknown> = { user: spec.user ?? '', groups: spec.groups ?? [], uid: spec.uid ?? '', extra: spec.extra ?? {} };
  const r = spec.resourceAttributes;
  if (r) {
    const attributes: Record<string, unknown> = {
      namespace: r.namespace ?? '',
      verb: r.verb ?? '',
      group: r.group ?? '',
      version: r.version ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      name: r.name ?? '',
    };
    const requirements = (reqs: Array<{ key: string; operator: string; values?: string[] }>) => ({ requirements: reqs.map((q) => ({ key: q.key, operator: q.operator, values: q.values ?? [] })) });
    if (matcher.usesFieldSelector && r.fieldSelector) attributes.fieldSelector = requirements(r.fieldSelector.requirements);
    if (matcher.usesLabelSelector && r.labelSelector) attributes.labelSelector = requirements(r.labelSelector.requirements);
    value.resourceAttributes = attributes;
  }
  if (spec.nonResourceAttributes) value.nonResourceAttributes = { verb: spec.nonResourceAttributes.verb ?? '', path: spec.nonResourceAttributes.path ?? '' };
  return value;
}

/** upstream CELMatcher.Eval: false at the first false; otherwise the errors (aggregated), otherwise true. */
export function matches(matcher: MatchConditions, spec: SubjectAccessReviewSpec): boolean {
  const activation = { request: requestValue(spec, matcher) };
  const errors: string[] = [];
  for (const compiled of matcher.expressions) {
    let result: unknown;
    try {
      result = compiled.evaluate(activation).value;
    } catch (err) {
      errors.push(`cel evaluation error: expression '${compiled.expression}' resulted in error: ${(err as Error).message}`);
      continue;
    }
    if (result === false) return false;
  }
  if (errors.length) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  return true;
}
