/**
 * Runtime evaluation of x-kubernetes-validations rules (SPEC 2.11, 8; upstream
 * apiextensions-apiserver pkg/apiserver/schema/cel/validation.go `Validator`).
 * `newRuleValidator` compiles every rule of a version's schema once, into a
 * tree that mirrors the schema where rules are; `validate` runs the rules at
 * every node of an object with `self` bound to the node's value and, on
 * update, `oldSelf` to the correlated old value (object properties by name,
 * map entries by key, list-type=map items by their keys), each expression
 * under the per-call limit and all of them under the object's budget.
 */
import { cel } from '../../util/lazy-packages.ts';
import { ExpiringCache } from '../../util/expiring-cache.ts';
import { child, fieldErrorText, index, invalid, type FieldError } from '../validation/field-errors.ts';
import { evaluate, evaluateMessageExpression, fieldErrorForReason, ruleErrorString, ruleMessageOrDefault, shownPath, type Budget } from './cel-rule-results.ts';
import { escapeName } from './cel-escaping.ts';
import { compileRules, type CompiledRule } from './cel-compile.ts';
import { schemaDeclType, type DeclType } from './cel-types.ts';
import { toCelValue } from './cel-values.ts';
import type { NestedValueValidation, Structural } from './structural.ts';
import { jsonEqual, mapListKey } from './correlation.ts';

export { shownPath, type Budget } from './cel-rule-results.ts';

/** Upstream celconfig.RuntimeCELCostBudget: what all the rules of one object may spend. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** One node of the tree: the node's compiled rules and the validators of its children that have rules. */
export class RuleValidator {
  items?: RuleValidator;
  additionalProperties?: RuleValidator;
  properties = new Map<string, RuleValidator>();
  allOf: RuleValidator[] = [];
  rules: CompiledRule[] = [];
  compilationError?: string;

  constructor(
    readonly schema: Structural,
    readonly declType: DeclType | undefined,
  ) {}

  /**
   * Upstream Validator.Validate: the rules' errors for `obj` (and `oldObj` on
   * update); what they spend is taken from `budget`, below 0 once it ran out.
   */
  validate(fldPath: string, obj: unknown, oldObj: unknown, budget: Budget = { remaining: RUNTIME_CEL_COST_BUDGET }, options: { ratchet?: (warning: string) => void } = {}): FieldError[] {
    const walk: Walk = { budget, errs: [], ratchet: oldObj === undefined || oldObj === null ? undefined : options.ratchet };
    validateNode(this, fldPath, obj, oldObj ?? undefined, walk, NEVER_UNCHANGED);
    return walk.errs;
  }
}

/** Upstream hasXValidations: whether any node of `s` has rules. Bounded by the schema's depth. */
export function hasValidationRules(s: Structural | undefined): boolean {
  if (!s) return false;
  if (s.xValidations.length > 0) return true;
  if (hasValidationRules(s.items) || hasValidationRules(s.additionalProperties?.structural)) return true;
  return Object.values(s.properties ?? {}).some(hasValidationRules);
}

/** Upstream NewValidator: undefined when the schema has no rules at all. */
export function newRuleValidator(s: Structural, isResourceRoot: boolean): RuleValidator | undefined {
  if (!hasValidationRules(s)) return undefined;
  return buildValidator(s, s, schemaDeclType(s, isResourceRoot));
}

/** Compiled rule trees by schema text: a definition's status updates and a process's every reconcile reuse them. */
const compiledSchemas = new ExpiringCache<string, { validator: RuleValidator | undefined }>(64);
const COMPILED_SCHEMA_TTL_MS = 10 * 60 * 1000;

/**
 * newRuleValidator for the root of a custom resource whose schema is `schema`
 * (decoded JSON, `s` its structural form), reused while the schema's text is
 * the same: compiling costs some milliseconds a node.
 */
export function resourceRuleValidator(schema: unknown, s: Structural): RuleValidator | undefined {
  const key = JSON.stringify(schema);
  const cached = compiledSchemas.get(key);
  if (cached) return cached.validator;
  const validator = newRuleValidator(s, true);
  compiledSchemas.set(key, { validator }, COMPILED_SCHEMA_TTL_MS);
  return validator;
}

/** Upstream nestedToStructural: an allOf entry read as a schema, for its rules. */
function nestedToStructural(nested: NestedValueValidation): Structural {
  const s: Structural = {
    ...nested.forbiddenGenerics,
    extensions: nested.forbiddenExtensions,
    xValidations: nested.xValidations,
    valueValidation: nested.valueValidation,
  };
  if (nested.items) s.items = nestedToStructural(nested.items);
  if (nested.properties) s.properties = Object.fromEntries(Object.entries(nested.properties).map(([k, v]) => [k, nestedToStructural(v)]));
  if (nested.additionalProperties) s.additionalProperties = { structural: nestedToStructural(nested.additionalProperties), bool: true };
  return s;
}

/** Upstream validator(): rules from `validationSchema`, structure and types from `nodeSchema`. */
function buildValidator(validationSchema: Structural, nodeSchema: Structural, declType: DeclType | undefined): RuleValidator | undefined {
  const v = new RuleValidator(nodeSchema, declType);
  const compiled = compileRules(nodeSchema, declType, validationSchema.xValidations);
  if ('error' in compiled) v.compilationError = compiled.error;
  else v.rules = compiled.results;
  const elemType = declType?.kind === 'list' || declType?.kind === 'map' ? declType.elem : undefined;
  if (validationSchema.items && nodeSchema.items) v.items = buildValidator(validationSchema.items, nodeSchema.items, elemType);
  for (const [k, validationProperty] of Object.entries(validationSchema.properties ?? {})) {
    const nodeProperty = nodeSchema.properties?.[k];
    if (!nodeProperty) continue;
    let fieldType: DeclType | undefined;
    const escaped = escapeName(k);
    if (escaped !== undefined) {
      fieldType = declType?.kind === 'object' ? declType.fields.get(escaped)?.type : undefined;
      if (!fieldType) continue;
    } else {
      fieldType = schemaDeclType(nodeProperty, nodeProperty.extensions.xEmbeddedResource);
      if (!fieldType) continue;
    }
    const p = buildValidator(validationProperty, nodeProperty, fieldType);
    if (p) v.properties.set(k, p);
  }
  const validationAp = validationSchema.additionalProperties?.structural;
  const nodeAp = nodeSchema.additionalProperties?.structural;
  if (validationAp && nodeAp) v.additionalProperties = buildValidator(validationAp, nodeAp, elemType);
  for (const nested of validationSchema.valueValidation?.allOf ?? []) {
    const allOf = buildValidator(nestedToStructural(nested), nodeSchema, declType);
    if (allOf) v.allOf.push(allOf);
  }
  const used = v.rules.length > 0 || v.compilationError !== undefined || v.items || v.additionalProperties || v.properties.size > 0 || v.allOf.length > 0;
  return used ? v : undefined;
}

/**
 * One validation's state: the budget, the errors, and with ratcheting (upstream
 * WithRatcheting, CRDValidationRatcheting) where the failures of rules that do
 * not use oldSelf go when their value did not change: warnings.
 */
interface Walk {
  budget: Budget;
  errs: FieldError[];
  ratchet?: (warning: string) => void;
}

/** Whether the node's value equals its correlated old value (upstream CorrelatedObject.CachedDeepEqual), computed on first need. */
type Unchanged = () => boolean;
const NEVER_UNCHANGED: Unchanged = () => false;

function unchangedAt(obj: unknown, oldObj: unknown, parent: Unchanged): Unchanged {
  // A node without a correlated old value takes its nearest correlated ancestor's answer (upstream nearestParentCorrelation).
  if (oldObj === undefined) return parent;
  let result: boolean | undefined;
  return () => (result ??= jsonEqual(obj, oldObj));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Upstream validate(): the node's rules, its allOf entries, then its children. Depth is bounded by the tree's, which is the schema's. */
function validateNode(v: RuleValidator, fldPath: string, obj: unknown, oldObj: unknown, walk: Walk, parentUnchanged: Unchanged): void {
  if (obj === null || obj === undefined) return;
  const unchanged = unchangedAt(obj, oldObj, parentUnchanged);
  validateExpressions(v, fldPath, obj, oldObj, walk, unchanged);
  if (walk.budget.remaining < 0) return;
  for (const allOf of v.allOf) {
    validateNode(allOf, fldPath, obj, oldObj, walk, parentUnchanged);
    if (walk.budget.remaining < 0) return;
  }
  if (Array.isArray(obj)) validateArray(v, fldPath, obj, Array.isArray(oldObj) ? oldObj : undefined, walk, unchanged);
  else if (isObject(obj)) validateMap(v, fldPath, obj, isObject(oldObj) ? oldObj : undefined, walk, unchanged);
}

/** Upstream MapIsCorrelatable: granular and atomic maps correlate by key (every map type there is). */
export const mapIsCorrelatable = (mapType: string | undefined) => mapType === undefined || mapType === 'granular' || mapType === 'atomic';

function validateMap(v: RuleValidator, fldPath: string, obj: Record<string, unknown>, oldObj: Record<string, unknown> | undefined, walk: Walk, unchanged: Unchanged): void {
  const correlatable = mapIsCorrelatable(v.schema.extensions.xMapType);
  const oldValue = (k: string) => (correlatable && oldObj && Object.hasOwn(oldObj, k) ? oldObj[k] : undefined);
  if (v.additionalProperties) {
    for (const k of Object.keys(obj)) {
      validateNode(v.additionalProperties, index(fldPath, k), obj[k], oldValue(k), walk, unchanged);
      if (walk.budget.remaining < 0) return;
    }
  }
  if (v.properties.size > 0) {
    for (const k of Object.keys(obj)) {
      const sub = v.properties.get(k);
      if (!sub) continue;
      validateNode(sub, child(fldPath, k), obj[k], oldValue(k), walk, unchanged);
      if (walk.budget.remaining < 0) return;
    }
  }
}

/** Upstream validateArray with makeMapList: old items correlate to new ones by their list-map keys, in list-type=map lists only. */
function validateArray(v: RuleValidator, fldPath: string, obj: unknown[], oldObj: unknown[] | undefined, walk: Walk, unchanged: Unchanged): void {
  if (!v.items) return;
  const keys = v.schema.extensions.xListType === 'map' ? (v.schema.extensions.xListMapKeys ?? []) : undefined;
  const keyOf = (item: unknown) => mapListKey(item, keys!);
  const oldByKey = new Map<string, unknown>();
  if (keys && oldObj) {
    for (const item of oldObj) {
      const key = keyOf(item);
      if (key !== undefined && !oldByKey.has(key)) oldByKey.set(key, item);
    }
  }
  for (let i = 0; i < obj.length; i++) {
    const key = keys ? keyOf(obj[i]) : undefined;
    validateNode(v.items, index(fldPath, i), obj[i], key === undefined ? undefined : oldByKey.get(key), walk, unchanged);
    if (walk.budget.remaining < 0) return;
  }
}

/** Upstream validateExpressions: the node's own rules. */
function validateExpressions(v: RuleValidator, path: string, obj: unknown, oldObj: unknown, walk: Walk, unchanged: Unchanged): void {
  const { budget, errs } = walk;
  const type = v.schema.type;
  const fldPath = shownPath(path);
  if (v.compilationError !== undefined) {
    errs.push(invalid(fldPath, type, `rule compiler initialization error: ${v.compilationError}`));
    return;
  }
  if (v.rules.length === 0 || !v.declType) return;
  if (budget.remaining <= 0) {
    errs.push(invalid(fldPath, type, OUT_OF_BUDGET));
    budget.remaining = -1;
    return;
  }
  const self = toCelValue(obj, v.declType);
  const hasOld = oldObj !== null && oldObj !== undefined;
  const oldSelf = hasOld ? toCelValue(oldObj, v.declType) : undefined;
  const activation: Record<string, unknown> = hasOld ? { self, oldSelf } : { self };
  // Only a rule with optionalOldSelf needs oldSelf as an optional: made on first need.
  let optionalActivation: Record<string, unknown> | undefined;
  const optional = () => {
    const Optional = cel().Optional;
    return (optionalActivation ??= { self, oldSelf: hasOld ? Optional.of(oldSelf) : Optional.none() });
  };
  for (const compiled of v.rules) {
    const rule = compiled.rule;
    if (compiled.error) {
      errs.push(invalid(fldPath, type, `rule compile error: ${compiled.error.detail}`));
      continue;
    }
    if (!compiled.program) continue;
    const optionalOldSelf = rule.optionalOldSelf === true;
    // A transition rule runs only where there is an old value, unless it takes oldSelf as optional.
    if (compiled.usesOldSelf && !hasOld && !optionalOldSelf) continue;
    const { value, cost, error } = evaluate(compiled.program, optionalOldSelf ? optional() : activation);
    if (cost > budget.remaining) {
      errs.push(invalid(fldPath, type, OUT_OF_BUDGET));
      budget.remaining = -1;
      return;
    }
    budget.remaining -= cost;
    if (error) {
      if (/^(no such overload|found no matching overload)/.test(error.message)) {
        errs.push(invalid(fldPath, type, `'${error.message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`));
      } else if (error.costExceeded) {
        errs.push(invalid(fldPath, type, `'${error.message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`));
        budget.remaining = -1;
        return;
      } else {
        errs.push(invalid(fldPath, type, `${error.message} evaluating rule: ${ruleErrorString(rule)}`));
      }
      continue;
    }
    if (value === true) continue;
    const errPath = compiled.normalizedFieldPath ? child(path, compiled.normalizedFieldPath) : fldPath;
    // Upstream ratcheting: a rule without oldSelf failing on a value that did not change warns instead.
    const ratchet = walk.ratchet && !compiled.usesOldSelf && unchanged() ? walk.ratchet : undefined;
    const report = (e: FieldError) => (ratchet ? ratchet(fieldErrorText(e)) : errs.push(e));
    if (!compiled.messageExpression) {
      report(fieldErrorForReason(errPath, type, ruleMessageOrDefault(rule), rule.reason));
      continue;
    }
    const message = evaluateMessageExpression(compiled.messageExpression, activation, budget);
    if (message.fatal) {
      report(invalid(errPath, type, message.fatal));
      budget.remaining = -1;
      return;
    }
    report(fieldErrorForReason(errPath, type, message.text ?? ruleMessageOrDefault(rule), rule.reason));
  }
}
