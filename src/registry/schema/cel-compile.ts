/**
 * Compilation of one schema node's x-kubernetes-validations rules (SPEC 2.11;
 * upstream apiextensions-apiserver pkg/apiserver/schema/cel/compilation.go
 * `Compile`, `compileRule`): each rule with `self` of the node's type and
 * `oldSelf` of the same type (optional with optionalOldSelf), its result a
 * bool; its messageExpression a string; its fieldPath resolved. Errors carry
 * upstream's details (`compilation failed: ERROR: <input>:1:6: ...`).
 */
import { CelCompileError, CelEnvironment, type CompiledExpression } from '../../cel/environment.ts';
import { estimateCost, type SizeHints } from '../../cel/estimate.ts';
import type { CelLibrary } from '../../cel/library.ts';
import { celEquals } from '../../cel/values.ts';
import { MAX_REQUEST_SIZE_BYTES, typeDeclarations, type DeclType, type TypeDeclarations } from './cel-types.ts';
import { validFieldPath } from './field-path.ts';
import type { Structural, ValidationRule } from './structural.ts';

export const SCOPED_VAR_NAME = 'self';
export const OLD_SCOPED_VAR_NAME = 'oldSelf';

/** Upstream apiservercel.Error: its type decides the field error. */
export interface RuleError {
  type: 'invalid' | 'required' | 'internal';
  detail: string;
}

/** Upstream CompilationResult. */
export interface CompiledRule {
  rule: ValidationRule;
  /** Undefined for an empty rule (nothing to run) or one that failed (`error`). */
  program?: CompiledExpression;
  error?: RuleError;
  usesOldSelf: boolean;
  /** The rule's estimated cost at most, for one evaluation (SPEC 8). */
  maxCost: number;
  /** The largest number of times the rule can run in one object: the request size over the node's smallest serialized size. */
  maxCardinality: number;
  messageExpression?: CompiledExpression;
  messageExpressionError?: RuleError;
  messageExpressionMaxCost: number;
  /** The rule's fieldPath as a field path (`spec.field`), '' when it has none. */
  normalizedFieldPath: string;
}

/** The environments of one node, built on first need: most nodes never see an optionalOldSelf rule. */
class NodeEnvironments {
  private plain?: CelEnvironment;
  private optional?: CelEnvironment;
  readonly declarations: TypeDeclarations;
  readonly sizes: SizeHints;
  private readonly equality: CelLibrary;

  constructor(declType: DeclType) {
    this.sizes = sizeHints(declType);
    // Upstream names the type selfType<nanoseconds>; a counter is as unique and reproducible.
    this.declarations = typeDeclarations(declType, `selfType${++typeNameCounter}`);
    // Objects compare field by field (upstream's unstructuredMap Equal), so each object type has `==`.
    this.equality = {
      name: 'schema-object-equality',
      functions: [],
      operators: Object.keys(this.declarations.types).map((name) => ({ signature: `${name} == ${name}`, impl: celEquals })),
    };
  }

  get(optionalOldSelf: boolean): CelEnvironment {
    if (optionalOldSelf) return (this.optional ??= this.build(`optional<${this.declarations.selfType}>`));
    return (this.plain ??= this.build(this.declarations.selfType));
  }

  private build(oldSelfType: string): CelEnvironment {
    return new CelEnvironment({
      types: this.declarations.types,
      variables: { [SCOPED_VAR_NAME]: this.declarations.selfType, [OLD_SCOPED_VAR_NAME]: oldSelfType },
      libraries: [this.equality],
    });
  }
}

let typeNameCounter = 0;

/**
 * Upstream sizeEstimator.EstimateSize: a variable's path (the variable, then
 * field names, '@items', '@values', '@keys') walked down the node's type; the
 * size is from none to the type's largest number of elements.
 */
function sizeHints(root: DeclType): SizeHints {
  return {
    size(path) {
      if (path.length === 0) return undefined;
      let t: DeclType = root;
      for (const step of path.slice(1)) {
        let next: DeclType | undefined;
        if (step === '@items' || step === '@values') next = t.kind === 'list' || t.kind === 'map' ? t.elem : undefined;
        // A map's keys are strings of no declared bound (upstream's StringType: MaxElements 0).
        else if (step === '@keys') return t.kind === 'map' ? { min: 0, max: 0 } : undefined;
        else next = t.kind === 'object' ? t.fields.get(step)?.type : undefined;
        if (!next) return undefined;
        t = next;
      }
      return { min: 0, max: t.maxElements };
    },
  };
}

/** The estimate's upper bound, or upstream's internal error. */
function maxCostOf(program: CompiledExpression, sizes: SizeHints, what: string): { max: number } | { error: RuleError } {
  try {
    return { max: estimateCost(program, sizes).max };
  } catch (err) {
    return { error: { type: 'internal', detail: `${what}: ${(err as Error).message}` } };
  }
}

/** Upstream maxCardinality: how many values of `minSize` bytes fit in one request, with a comma between each. */
export function maxCardinality(minSize: number): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSize + 1));
}

function compileError(err: unknown, prefix?: { from: string; to: string }[]): RuleError {
  if (!(err instanceof CelCompileError)) return { type: 'internal', detail: `unexpected compilation error: ${(err as Error).message}` };
  let detail = err.detail;
  for (const { from, to } of prefix ?? []) if (detail.startsWith(from)) detail = to + detail.slice(from.length);
  return { type: 'invalid', detail };
}

const MESSAGE_PREFIXES = [
  { from: 'compilation failed: ', to: 'messageExpression compilation failed: ' },
  { from: 'program instantiation failed: ', to: 'messageExpression instantiation failed: ' },
];

/**
 * Upstream Compile for the node schema `s` whose rules are `rules` (its own,
 * or those of an allOf entry over it). Without a type (the node is not exposed
 * to expressions) nothing compiles: upstream's error.
 */
export function compileRules(s: Structural, declType: DeclType | undefined, rules: readonly ValidationRule[]): { results: CompiledRule[] } | { error: string } {
  if (rules.length === 0) return { results: [] };
  if (!declType) return { error: 'failed to convert to declType for CEL validation rules' };
  const envs = new NodeEnvironments(declType);
  const cardinality = maxCardinality(declType.minSerializedSize);
  return { results: rules.map((rule) => compileRule(s, rule, envs, cardinality)) };
}

function compileRule(s: Structural, rule: ValidationRule, envs: NodeEnvironments, cardinality: number): CompiledRule {
  const result: CompiledRule = { rule, usesOldSelf: false, maxCost: 0, maxCardinality: cardinality, messageExpressionMaxCost: 0, normalizedFieldPath: '' };
  if (rule.rule.trim().length === 0) return result;
  let program: CompiledExpression;
  let env: CelEnvironment;
  try {
    env = envs.get(rule.optionalOldSelf === true);
  } catch (err) {
    result.error = { type: 'internal', detail: `unexpected compilation error: ${(err as Error).message}` };
    return result;
  }
  try {
    program = env.compile(rule.rule);
  } catch (err) {
    result.error = compileError(err);
    return result;
  }
  if (program.resultType !== 'bool') {
    result.error = { type: 'invalid', detail: 'cel expression must evaluate to a bool' };
    return result;
  }
  result.usesOldSelf = program.identifiers.has(OLD_SCOPED_VAR_NAME);
  const cost = maxCostOf(program, envs.sizes, 'cost estimation failed');
  if ('error' in cost) {
    result.error = cost.error;
    return result;
  }
  result.maxCost = cost.max;
  result.program = program;
  if (rule.messageExpression) {
    try {
      const message = env.compile(rule.messageExpression);
      const messageCost = message.resultType === 'string' ? maxCostOf(message, envs.sizes, 'cost estimation failed for messageExpression') : undefined;
      if (!messageCost) result.messageExpressionError = { type: 'invalid', detail: 'messageExpression must evaluate to a string' };
      else if ('error' in messageCost) result.messageExpressionError = messageCost.error;
      else {
        result.messageExpression = message;
        result.messageExpressionMaxCost = messageCost.max;
      }
    } catch (err) {
      result.messageExpressionError = compileError(err, MESSAGE_PREFIXES);
    }
    if (result.messageExpressionError) return result;
  }
  if (rule.fieldPath) {
    try {
      result.normalizedFieldPath = validFieldPath(rule.fieldPath, s).path;
    } catch {
      // An invalid fieldPath is the CRD's validation error, reported there.
    }
  }
  return result;
}
