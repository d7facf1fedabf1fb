/**
 * Default values in a CRD schema (SPEC 9.7; upstream apiextensions-apiserver
 * pkg/apiserver/schema/defaulting/validation.go `ValidateDefaults`): every
 * `default` must be pruned (no fields the schema does not specify), must give
 * valid apiVersion/kind/metadata where it lands in a resource's metadata,
 * must validate against its own schema, and must pass the node's
 * x-kubernetes-validations rules (with oldSelf the default itself, then
 * without it), all of them under one runtime budget.
 */
import { aggregateText, child, invalid, type FieldError } from '../../../registry/validation/field-errors.ts';
import { asResourceRoot, type Structural } from '../../../registry/schema/structural.ts';
import { prune } from '../../../registry/schema/prune.ts';
import { coerceError, validateEmbeddedResources } from '../../../registry/schema/objectmeta.ts';
import { validateValue } from '../../../registry/schema/value-validation.ts';
import { key } from '../../../registry/schema/structural-validation.ts';
import { jsonValue } from '../../../registry/validation/field-errors.ts';
import { newRuleValidator, RUNTIME_CEL_COST_BUDGET, type Budget } from '../../../registry/schema/cel-validate.ts';

const META = new Set(['metadata', 'apiVersion', 'kind']);
const TYPE_META = { apiVersion: 'validation/v1', kind: 'Validation' };

/** Where a default inside metadata lands: the keys and list positions from the resource root. */
type Step = { key: string } | { index: true };

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as any)[k])]));
  return v;
}

/** The upstream surrounding object: the default placed at its path in a root object with TypeMeta. */
function surrounding(steps: Step[], value: unknown): { obj?: Record<string, unknown>; error?: string } {
  let x: unknown = value;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i];
    x = 'key' in step ? { [step.key]: x } : [x];
  }
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return { error: 'object root default value must be of object type' };
  const obj = x as Record<string, unknown>;
  if (!Object.hasOwn(obj, 'kind')) obj.kind = TYPE_META.kind;
  if (!Object.hasOwn(obj, 'apiVersion')) obj.apiVersion = TYPE_META.apiVersion;
  return { obj };
}

/** Upstream ValidateDefaults for the schema of a resource (the root is a resource root). */
export function validateDefaults(path: string, ss: Structural, requirePrunedDefaults: boolean): FieldError[] {
  const s = asResourceRoot(ss);
  return walk(path, s, s, false, [], requirePrunedDefaults, { remaining: RUNTIME_CEL_COST_BUDGET });
}

/**
 * The rules of `s` over its default (upstream: once with the default as its
 * own old value, so that transition rules run, then, if that passes, without).
 */
function ruleErrors(defPath: string, s: Structural, isResourceRoot: boolean, def: unknown, budget: Budget): FieldError[] {
  const validator = newRuleValidator(s, isResourceRoot);
  if (!validator) return [];
  const withOld: Budget = { remaining: budget.remaining };
  const errs = validator.validate(defPath, def, def, withOld);
  let remaining = withOld.remaining;
  if (errs.length === 0) {
    const withoutOld: Budget = { remaining: budget.remaining };
    errs.push(...validator.validate(defPath, def, undefined, withoutOld));
    remaining = Math.min(remaining, withoutOld.remaining);
  }
  budget.remaining = remaining;
  return errs;
}

function walk(path: string, s: Structural, root: Structural, insideMeta: boolean, steps: Step[], requirePruned: boolean, budget: Budget): FieldError[] {
  if (s.extensions.xEmbeddedResource) {
    insideMeta = false;
    root = s;
    steps = [];
  }
  const errs: FieldError[] = [];
  if (s.default !== undefined) {
    const def = s.default;
    const defPath = child(path, 'default');
    if (insideMeta) {
      const { obj, error } = surrounding(steps, structuredClone(def));
      if (error) throw new Error(`failed to validate default value inside metadata: ${error}`);
      const coerced = coerceError('', obj, root, true);
      const metaErrs = coerced ? [] : validateEmbeddedResources('', obj, root, true);
      if (coerced) errs.push(invalid(defPath, jsonValue(def), `must result in valid metadata: ${coerced.field}: ${coerced.message}`));
      else if (metaErrs.length > 0) errs.push(invalid(defPath, jsonValue(def), `must result in valid metadata: ${aggregateText(metaErrs)}`));
      else {
        const valueErrs = validateValue(defPath, def, s);
        errs.push(...(valueErrs.length > 0 ? valueErrs : ruleErrors(defPath, s, s === root, def, budget)));
      }
    } else {
      if (requirePruned) {
        const pruned = structuredClone(def);
        prune(pruned, s, s.extensions.xEmbeddedResource);
        if (!deepEqual(pruned, def)) errs.push(invalid(defPath, jsonValue(def), 'must not have unknown fields'));
      }
      const coerced = coerceError(defPath, def, s, s.extensions.xEmbeddedResource);
      const metaErrs = coerced ? [] : validateEmbeddedResources(defPath, def, s, s.extensions.xEmbeddedResource);
      if (coerced) errs.push(coerced);
      else if (metaErrs.length > 0) errs.push(...metaErrs);
      else {
        const valueErrs = validateValue(defPath, def, s);
        errs.push(...(valueErrs.length > 0 ? valueErrs : ruleErrors(defPath, s, s === root, def, budget)));
      }
    }
    if (budget.remaining < 0) return errs;
  }
  // additionalProperties are not followed: defaults are forbidden there.
  if (s.items) errs.push(...walk(child(path, 'items'), s.items, root, insideMeta, [...steps, { index: true }], requirePruned, budget));
  for (const k of Object.keys(s.properties ?? {}).sort()) {
    if (budget.remaining < 0) return errs;
    const subInsideMeta = insideMeta || (s.extensions.xEmbeddedResource && META.has(k));
    errs.push(...walk(key(child(path, 'properties'), k), s.properties![k], root, subInsideMeta, [...steps, { key: k }], requirePruned, budget));
  }
  return errs;
}
