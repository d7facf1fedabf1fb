/**
 * The selector attributes of an access review under AuthorizeWithSelectors
 * (SPEC 2.8, 9.6; upstream pkg/registry/authorization/util and
 * pkg/apis/authorization/validation): validated as upstream, then turned into
 * the requirements an authorizer sees, with upstream's conversion errors.
 */
import type { SelectorAttribute } from '../authorization/authorizer.ts';
import { parseFieldSelector, type FieldRequirement } from '../../registry/selectors/field-selector.ts';
import { parseLabelSelector, requirementError, type LabelOperator, type LabelRequirement } from '../../registry/selectors/label-selector.ts';
import { child, forbidden, index, invalid, required, type FieldError } from '../../registry/validation/field-errors.ts';
import { goQuote } from '../../util/go-print.ts';
import { validateLabelSelectorRequirement } from '../../registry/validation/label-selector.ts';

const VERBS_WITH_SELECTORS = new Set(['list', 'watch', 'deletecollection']);

interface SelectorAttributes {
  rawSelector?: string;
  requirements?: Array<{ key?: string; operator?: string; values?: string[] }>;
}

/** upstream ValidateFieldSelectorRequirement, unknown operators allowed as for reviews. */
function fieldRequirementErrors(requirement: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!requirement?.key) errs.push(required(child(path, 'key'), 'must be specified'));
  const values = Array.isArray(requirement?.values) ? requirement.values : [];
  if ((requirement?.operator === 'In' || requirement?.operator === 'NotIn') && values.length === 0) {
    errs.push(required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
  }
  if ((requirement?.operator === 'Exists' || requirement?.operator === 'DoesNotExist') && values.length > 0) {
    errs.push(forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  }
  return errs;
}

/** validateFieldSelectorAttributes / validateLabelSelectorAttributes. */
export function selectorAttributeErrors(resourceAttributes: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, requirementErrors] of [
    ['fieldSelector', fieldRequirementErrors],
    ['labelSelector', (r: unknown, p: string) => validateLabelSelectorRequirement(r, p, { allowUnknownOperatorInRequirement: true })],
  ] as const) {
    const selector: SelectorAttributes | undefined = resourceAttributes?.[name];
    if (!selector) continue;
    const at = child(path, name);
    const requirements = Array.isArray(selector.requirements) ? selector.requirements : [];
    if (selector.rawSelector && requirements.length) errs.push(invalid(child(at, 'rawSelector'), selector.rawSelector, 'may not specified at the same time as requirements'));
    if (!selector.rawSelector && !requirements.length) errs.push(required(child(at, 'requirements'), `when ${at} is specified, requirements or rawSelector is required`));
    requirements.forEach((r, i) => errs.push(...requirementErrors(r, index(child(at, 'requirements'), i))));
  }
  return errs;
}

function withErrors<R>(requirements: R[], errors: string[]): SelectorAttribute<R> | undefined {
  if (!requirements.length && !errors.length) return undefined;
  const attribute: SelectorAttribute<R> = { requirements };
  if (errors.length) attribute.error = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
  return attribute;
}

/** A rawSelector parsed as a request's selector; a parse error is the attribute's error. */
function fromRaw<R>(text: string, parse: (text: string) => R[]): SelectorAttribute<R> | undefined {
  try {
    return withErrors(parse(text), []);
  } catch (err) {
    return { requirements: [], error: (err as Error).message };
  }
}

function exclusive(kind: 'field' | 'label', selector: SelectorAttributes): string | undefined {
  return selector.rawSelector && selector.requirements?.length ? `${kind}Selectors.rawSelector and ${kind}Selectors.requirements are mutually exclusive` : undefined;
}

/** upstream fieldSelectorAsSelector: In and NotIn with one value become = and !=. */
export function fieldSelectorAttribute(verb: string, selector: SelectorAttributes | undefined): SelectorAttribute<FieldRequirement> | undefined {
  if (!selector || !VERBS_WITH_SELECTORS.has(verb)) return undefined;
  const clash = exclusive('field', selector);
  if (clash) return { requirements: [], error: clash };
  if (selector.rawSelector) return fromRaw(selector.rawSelector, parseFieldSelector);
  const requirements: FieldRequirement[] = [];
  const errors: string[] = [];
  for (const r of selector.requirements ?? []) {
    const operator = r.operator ?? '';
    const values = r.values ?? [];
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length !== 1) errors.push(`fieldSelectors in access reviews are not supported with ${goQuote(operator)} operator and ${values.length} values`);
      else requirements.push({ field: r.key ?? '', operator: operator === 'In' ? '=' : '!=', value: values[0] });
    } else if (operator === 'Exists' || operator === 'DoesNotExist') errors.push(`fieldSelectors in access reviews do not support ${goQuote(operator)}`);
    else errors.push(`unsupported fieldSelector operator ${goQuote(operator)}`);
  }
  return withErrors(requirements, errors);
}

const LABEL_OPERATORS: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/** upstream labelSelectorAsSelector: each requirement checked as labels.NewRequirement checks it. */
export function labelSelectorAttribute(verb: string, selector: SelectorAttributes | undefined): SelectorAttribute<LabelRequirement> | undefined {
  if (!selector || !VERBS_WITH_SELECTORS.has(verb)) return undefined;
  const clash = exclusive('label', selector);
  if (clash) return { requirements: [], error: clash };
  if (selector.rawSelector) return fromRaw(selector.rawSelector, parseLabelSelector);
  const requirements: LabelRequirement[] = [];
  const errors: string[] = [];
  for (const r of selector.requirements ?? []) {
    const operator = LABEL_OPERATORS[r.operator ?? ''];
    if (!operator) {
      errors.push(`${goQuote(r.operator ?? '')} is not a valid label selector operator`);
      continue;
    }
    const problem = requirementError(r.key ?? '', operator, r.values ?? []);
    if (problem) errors.push(problem);
    else requirements.push({ key: r.key ?? '', operator, values: r.values ?? [] });
  }
  return withErrors(requirements, errors);
}
