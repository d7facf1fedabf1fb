/**
 * A built-in kind's contract enforced on every write (issue 31 item 1; DESIGN
 * "one validator for built-in and custom kinds"), in the order and shapes a
 * custom resource's schema is (upstream customResourceStrategy): the value
 * validations, the uniqueness of set and map lists, then the
 * x-kubernetes-validations rules under the object's cost budget. On an update unchanged values are
 * ratcheted (CRDValidationRatcheting): they keep passing rules they already
 * broke, and list uniqueness is checked only where the old object had it.
 * The rules run whatever the schema's errors (ContractValidator.withRules).
 *
 * The kind's own hooks run after the contract and speak last about a field:
 * a contract error at a field the hooks also report on (or a duplicate item
 * the hooks report inside) is left to the hooks, whose words are upstream's.
 */
import type { ApiObject, Strategy } from './strategy.ts';
import type { ComputedCreate } from './computed.ts';
import type { BodyKind } from './kind.ts';
import * as errors from '../api/status-error.ts';
import type { FieldError } from './validation/field-errors.ts';
import { ContractSchemas, ruleValidatorOf, type ContractGraphNode, type ContractValidationTable } from './schema/contract-schema.ts';
import { validateValueNode } from './schema/value-validation.ts';
import { validateListSetsAndMaps } from './schema/list-sets-and-maps.ts';
import { RUNTIME_CEL_COST_BUDGET, type Budget } from './schema/cel-validate.ts';
import { mapListKey } from './schema/correlation.ts';


const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class ContractValidator {
  constructor(private readonly root: ContractGraphNode) {}

  /** A new object's contract errors. */
  validate(obj: ApiObject): FieldError[] {
    const errs = [...validateValueNode('', obj, this.root), ...validateListSetsAndMaps('', this.root, obj)];
    return this.withRules(errs, obj, undefined);
  }

  /** An update's contract errors, ratcheted; `warn` takes the failures of rules ratcheting forgave. */
  validateUpdate(obj: ApiObject, old: ApiObject, warn?: (message: string) => void): FieldError[] {
    const lists = validateListSetsAndMaps('', this.root, obj);
    const listsRatcheted = lists.length > 0 && validateListSetsAndMaps('', this.root, old).length > 0;
    const errs = [...validateValueNode('', obj, this.root, { value: old }), ...(listsRatcheted ? [] : lists)];
    return this.withRules(errs, obj, old, warn ?? (() => {}));
  }

  /**
   * The rules after the schema's errors. A custom resource's rules do not run
   * over an object with a blocking error (upstream hasBlockingErr), because
   * its values may not have their types; a built-in kind's always have them
   * (its decoder refused any other), so its rules run on, as upstream's
   * declarative validation of built-in kinds does (KEP-5073): an unsupported
   * value elsewhere does not hide a rule's own error, nor add one.
   */
  private withRules(errs: FieldError[], obj: ApiObject, old: ApiObject | undefined, warn?: (message: string) => void): FieldError[] {
    if (!this.root.rulesBelow) return errs;
    const budget: Budget = { remaining: RUNTIME_CEL_COST_BUDGET };
    validateRules(this.root, '', obj, old, budget, errs, warn);
    return errs;
  }
}

/** Walks to the nodes with rules, old values correlated as the rule validator correlates them below. */
function validateRules(node: ContractGraphNode, path: string, value: unknown, old: unknown, budget: Budget, errs: FieldError[], warn: ((message: string) => void) | undefined): void {
  if (budget.remaining < 0 || value === null || value === undefined || !node.rulesBelow) return;
  const rules = ruleValidatorOf(node);
  if (rules) {
    errs.push(...rules.validate(path, value, old, budget, { ratchet: warn }));
    return;
  }
  if (Array.isArray(value)) {
    const items = node.items;
    if (!items?.rulesBelow) return;
    const keys = node.listType === 'map' && Array.isArray(old) ? (node.listMapKeys ?? []) : undefined;
    // Old items correlate by their keys in a map list only, and there is an old list only on an update.
    let oldByKey: Map<string, unknown> | undefined;
    if (keys) {
      oldByKey = new Map();
      for (const item of old as unknown[]) {
        const key = mapListKey(item, keys);
        if (key !== undefined && !oldByKey.has(key)) oldByKey.set(key, item);
      }
    }
    for (let i = 0; i < value.length; i++) {
      const key = keys && mapListKey(value[i], keys);
      validateRules(items, `${path}[${i}]`, value[i], key === undefined ? undefined : oldByKey!.get(key), budget, errs, warn);
    }
    return;
  }
  if (!isObject(value)) return;
  const oldMap = isObject(old) ? old : undefined;
  const oldOf = (k: string) => (oldMap && Object.hasOwn(oldMap, k) ? oldMap[k] : undefined);
  const ap = node.additionalProperties?.schema;
  if (ap) {
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      const sub = node.properties?.[k] ?? ap;
      if (sub.rulesBelow) validateRules(sub, node.properties?.[k] ? (path ? `${path}.${k}` : k) : `${path}[${k}]`, value[k], oldOf(k), budget, errs, warn);
    }
    return;
  }
  for (const k in node.properties) {
    const sub = node.properties[k];
    if (sub.rulesBelow && Object.hasOwn(value, k)) validateRules(sub, path ? `${path}.${k}` : k, value[k], oldOf(k), budget, errs, warn);
  }
}

/** Whether the hooks' errors already speak of the contract's error's field (or, for a duplicate item, inside it). */
function coveredByHooks(contract: FieldError, hooks: readonly FieldError[]): boolean {
  return hooks.some(
    (e) => e.field === contract.field || (contract.type === 'FieldValueDuplicate' && (e.field.startsWith(`${contract.field}.`) || e.field.startsWith(`${contract.field}[`))),
  );
}

/** A field path's steps: `spec.rules[0].labels[a.b/c]` -> spec, rules, 0, labels, a.b/c (a bracket holds an index or a key). */
export function pathSteps(path: string): Array<string | number> {
  const steps: Array<string | number> = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '.') i++;
    if (path[i] === '[') {
      const end = path.indexOf(']', i);
      const inside = path.slice(i + 1, end < 0 ? path.length : end);
      steps.push(/^\d+$/.test(inside) ? Number(inside) : inside);
      i = end < 0 ? path.length : end + 1;
      continue;
    }
    let end = i;
    while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
    steps.push(path.slice(i, end));
    i = end;
  }
  return steps;
}

/**
 * Where a path's field stands in the object: per step, the property's place
 * among its object's keys (decoded objects keep upstream's field order, which
 * upstream's validation follows) or the item's index; an absent property
 * stands after the present ones.
 */
function placeOf(obj: unknown, path: string): number[] {
  const place: number[] = [];
  let value: unknown = obj;
  for (const step of pathSteps(path)) {
    if (Array.isArray(value) && typeof step === 'number') {
      place.push(step);
      value = value[step];
    } else if (isObject(value)) {
      const keys = Object.keys(value);
      const at = keys.indexOf(String(step));
      place.push(at < 0 ? keys.length : at);
      value = at < 0 ? undefined : value[String(step)];
    } else place.push(0);
  }
  return place;
}

/** Field order: by place; a field inside another comes first, as an object's own rules are checked after its fields'. */
function comparePlaces(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return b.length - a.length;
}

/**
 * Whether a contract error goes before a hook error: when it stands at an
 * earlier field. One inside the other, the contract error goes after: a hook
 * error at an object opens its checks (a PodDisruptionBudget's `spec: ...
 * cannot be both set`), and a contract rule at an object closes them (a
 * NetworkPolicy peer's `must specify a peer`).
 */
function contractGoesFirst(contract: readonly number[], hook: readonly number[]): boolean {
  for (let i = 0; i < Math.min(contract.length, hook.length); i++) if (contract[i] !== hook[i]) return contract[i] < hook[i];
  return false;
}

/**
 * The contract's errors the hooks do not speak of, among the hooks': the
 * hooks' keep their order (upstream's), each contract error goes before the
 * first hook error that comes after it in the object's field order, as
 * upstream's validation of that rule in Go would have reported it.
 */
export function mergeFieldErrors(contract: readonly FieldError[], hooks: readonly FieldError[], obj?: unknown): FieldError[] {
  const kept = contract.filter((e) => !coveredByHooks(e, hooks));
  if (kept.length === 0) return [...hooks];
  if (hooks.length === 0 || obj === undefined) return [...kept, ...hooks];
  const placed = kept.map((error) => ({ error, place: placeOf(obj, error.field) })).sort((a, b) => comparePlaces(a.place, b.place));
  const merged: FieldError[] = [];
  let next = 0;
  for (const hook of hooks) {
    const place = placeOf(obj, hook.field);
    while (next < placed.length && contractGoesFirst(placed[next].place, place)) merged.push(placed[next++].error);
    merged.push(hook);
  }
  while (next < placed.length) merged.push(placed[next++].error);
  return merged;
}

/** The validators of a generated table, one per kind schema, made on first use. */
export class ContractValidators {
  private readonly schemas: ContractSchemas;
  private readonly validators = new Map<string, ContractValidator | null>();

  constructor(table: ContractValidationTable) {
    this.schemas = new ContractSchemas(table);
  }

  /** The validator of a kind's schema; undefined when its contract holds nothing the decoders leave to validation. */
  forSchema(schemaName: string): ContractValidator | undefined {
    let validator = this.validators.get(schemaName);
    if (validator === undefined) {
      const root = this.schemas.node(schemaName);
      if (root) this.schemas.markBelow(root);
      validator = root ? new ContractValidator(root) : null;
      this.validators.set(schemaName, validator);
    }
    return validator ?? undefined;
  }
}

/**
 * The kind's strategy with its contract in front of its hooks' validation, on
 * create, update and status update (a status update validates the whole
 * object: the rest is the stored object's, unchanged, so ratcheting passes it).
 */
export function withContractValidation(strategy: Strategy, contract: ContractValidator | undefined): Strategy {
  if (!contract) return strategy;
  const wrapped: Strategy = {
    ...strategy,
    validate: (obj) => mergeFieldErrors(contract.validate(obj), strategy.validate?.(obj) ?? [], obj),
    validateUpdate: (obj, old, warn) => mergeFieldErrors(contract.validateUpdate(obj, old, warn), strategy.validateUpdate?.(obj, old, warn) ?? [], obj),
  };
  const status = strategy.validateStatusUpdate;
  if (status) wrapped.validateStatusUpdate = (obj, old, warn) => mergeFieldErrors(contract.validateUpdate(obj, old, warn), status(obj, old, warn), obj);
  return wrapped;
}

/**
 * A computed create (a review, a token request) whose body the contract
 * validates first, all but its status: the status is the answer the server
 * computes, and upstream's validation of these bodies reads the rest alone.
 */
export function withValidatedBody(kind: BodyKind, contract: ContractValidator | undefined, compute: ComputedCreate): ComputedCreate {
  if (!contract) return compute;
  return (request) => {
    const { status: _status, ...input } = request.body;
    const errs = contract.validate(input as ApiObject);
    if (errs.length > 0) throw errors.invalid(kind.kind, kind.group, String(request.body.metadata?.name ?? ''), errs);
    return compute(request);
  };
}
