/**
 * The project's one expression environment (SPEC 2.11, 8), built on cel-js:
 * declared object types and variables (each field that holds expressions
 * declares its own), cel-go's optional types and homogeneous literals, the
 * standard library with cel-go's `matches`, the extended string functions,
 * and whatever libraries a caller adds. `compile` parses and type-checks,
 * checks the result type and literal arguments, and instruments the tree for
 * cost (instrument.ts); `evaluate` runs it under a per-expression budget.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { cel } from '../util/lazy-packages.ts';
import { authzLibrary } from './authz.ts';
import { CostLimitExceeded, CostMeter, PER_CALL_LIMIT } from './cost.ts';
import { inRound, Round, settle, type Outcome, type PendingCall } from './deferred.ts';
import { celGoMessage, celGoTypeName, compileIssue, errorOffset } from './errors.ts';
import { forEachNode, instrument, resolveQualifiedNames, type AstNode, type Instrumentation } from './instrument.ts';
import type { CallCost, CallEstimate, CelLibrary } from './library.ts';
import { listsLibrary } from './lists.ts';
import { quantityLibrary } from './quantity.ts';
import { regexLibrary } from './regex-library.ts';
import { standardLibrary } from './standard.ts';
import { stringsLibrary } from './strings.ts';
import { urlsLibrary } from './urls.ts';

/**
 * The libraries every environment has (SPEC 2.11): Kubernetes 1.31's base
 * environment. The authorizer's functions are declared everywhere, as
 * upstream's are; only fields that declare `authorizer` give them a receiver.
 * The authorizer's selectors (authzSelectorsLibrary) come with
 * AuthorizeWithSelectors, which callers know.
 */
export const BASE_LIBRARIES: readonly CelLibrary[] = [standardLibrary, stringsLibrary, listsLibrary, regexLibrary, urlsLibrary, quantityLibrary, authzLibrary];

export interface EnvironmentDeclarations {
  /**
   * Object types: name -> field -> type, in cel-js notation (`string`,
   * `list<string>`, `map<string, list<string>>`, another object type), or the
   * fields with the class of the type's values (a Map from field name to value),
   * for callers that build the values themselves. A type's fields may name
   * only types declared before it.
   */
  types?: Record<string, Record<string, string> | { fields: Record<string, string>; ctor: new (...args: any[]) => Map<string, unknown> }>;
  /** The variables expressions may read, with their types. */
  variables: Record<string, string>;
  /** Libraries beyond BASE_LIBRARIES. */
  libraries?: readonly CelLibrary[];
}

/** An expression that does not compile; `detail` is upstream's validation detail (`compilation failed: ERROR: ...`). */
export class CelCompileError extends Error {
  constructor(
    readonly expression: string,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** An evaluation that failed or ran out of budget; the message is cel-go's. */
export class CelEvaluationError extends Error {
  constructor(
    message: string,
    readonly costExceeded = false,
    /** What the evaluation had spent when it stopped (SPEC 8 units). */
    readonly cost = 0,
  ) {
    super(message);
  }
}

export interface EvaluationResult {
  value: unknown;
  /** The cost the evaluation spent (SPEC 8 units). */
  cost: number;
}

/** How many rounds evaluateAsync runs at most (deferred.ts); the cost budget usually stops it sooner (an authorization check costs 350000). */
export const MAX_ROUNDS = 32;

/** What the static cost estimator (estimate.ts) reads of a compiled expression. */
export interface CheckedExpression {
  root: AstNode;
  /** Call estimators by function name, from the environment's libraries (CelLibrary.estimates). */
  estimates: Readonly<Record<string, CallEstimate>>;
}

export class CompiledExpression {
  constructor(
    readonly expression: string,
    /** The checked result type, as cel-go prints it. */
    readonly resultType: string,
    /** Every field name the expression selects (`a.b`, `a.?b`), for callers that build only what is read. */
    readonly selectedFields: ReadonlySet<string>,
    /** Every identifier the expression names (variables, and iteration variables of its macros). */
    readonly identifiers: ReadonlySet<string>,
    private readonly run: (activation: Record<string, unknown>) => unknown,
    private readonly slot: Instrumentation['slot'],
    /** The checked tree and the environment's call estimators, for the static cost estimator (estimate.ts). */
    readonly checked: CheckedExpression,
  ) {}

  /**
   * Runs the expression; past `costLimit` units it stops with cel-go's cost
   * error. An expression that reaches an asynchronous call (an authorization
   * check) fails: it needs evaluateAsync.
   */
  evaluate(activation: Record<string, unknown>, costLimit = PER_CALL_LIMIT): EvaluationResult {
    const { result } = this.round(activation, costLimit, undefined);
    return result!;
  }

  /**
   * Runs the expression in rounds (deferred.ts): each round that halts at an
   * asynchronous call (an authorization check) awaits it, and the expression
   * runs again with the answers so far, until a round completes. The result
   * and the cost are that round's, so each call is charged once. More than
   * `maxRounds` rounds is an error.
   */
  async evaluateAsync(activation: Record<string, unknown>, costLimit = PER_CALL_LIMIT, options: { maxRounds?: number } = {}): Promise<EvaluationResult> {
    const maxRounds = options.maxRounds ?? MAX_ROUNDS;
    const known = new Map<string, Outcome>();
    for (let round = 1; ; round++) {
      const { result, pending } = this.round(activation, costLimit, known);
      if (!pending) return result!;
      if (round >= maxRounds) throw new CelEvaluationError(`evaluation needs more than ${maxRounds} rounds of asynchronous calls`);
      known.set(pending.key, await settle(pending));
    }
  }

  /** One synchronous run: its result, or the call it halted at (evaluateAsync only). */
  private round(activation: Record<string, unknown>, costLimit: number, known: ReadonlyMap<string, Outcome> | undefined): { result?: EvaluationResult; pending?: PendingCall } {
    const meter = new CostMeter(costLimit);
    const round = new Round(meter, known);
    // Each round is synchronous (no library function is async), so one slot per expression suffices.
    this.slot.meter = meter;
    let value: unknown;
    let failed = false;
    let failure: unknown;
    try {
      value = inRound(round, () => this.run(activation));
    } catch (err) {
      failed = true;
      failure = err;
    } finally {
      this.slot.meter = undefined;
    }
    // A halt is final whatever the run made of it (`||` may have absorbed it).
    if (meter.halted) {
      if (round.pending) return { pending: round.pending };
      throw new CelEvaluationError(meter.halted.message);
    }
    if (!failed && !meter.exceeded) return { result: { value, cost: meter.spent } };
    if (failure instanceof CostLimitExceeded || meter.exceeded) throw new CelEvaluationError(new CostLimitExceeded().message, true, meter.spent);
    throw new CelEvaluationError(celGoMessage(failure as Error), false, meter.spent);
  }
}

export class CelEnvironment {
  private readonly env: Environment;
  private readonly costs: Record<string, CallCost> = {};
  private readonly estimates: Record<string, CallEstimate> = {};
  private readonly replacements = new Map<string, (...args: any[]) => unknown>();
  private readonly literalArguments: NonNullable<CelLibrary['literalArguments']> = {};
  /** Variables whose names are qualified (`authorizer.requestResource`). */
  private readonly qualifiedVariables = new Set<string>();

  constructor(declarations: EnvironmentDeclarations) {
    this.env = new (cel().Environment)({ enableOptionalTypes: true, homogeneousAggregateLiterals: true });
    for (const [name, decl] of Object.entries(declarations.types ?? {})) {
      const typed = typeof decl.ctor === 'function' ? (decl as { fields: Record<string, string>; ctor: new (...args: any[]) => Map<string, unknown> }) : undefined;
      this.env.registerType(name, typed ? { fields: typed.fields, ctor: typed.ctor } : { fields: decl as Record<string, string> });
    }
    const builtins = builtinSignatures();
    for (const library of [...BASE_LIBRARIES, ...(declarations.libraries ?? [])]) {
      // No fields: a library's opaque value exposes none of its properties to expressions.
      for (const type of library.types ?? []) this.env.registerType(type.name, { ctor: type.ctor, fields: {} });
      for (const fn of library.functions) {
        const signature = normalizeSignature(fn.signature);
        if (!fn.replacesBuiltin) this.env.registerFunction(fn.signature, fn.impl);
        else if (builtins.has(signature)) this.replacements.set(signature, fn.impl);
        else throw new Error(`library ${library.name}: ${fn.signature} replaces no base overload`);
      }
      for (const op of library.operators ?? []) this.env.registerOperator(op.signature, op.impl);
      Object.assign(this.costs, library.costs);
      Object.assign(this.estimates, library.estimates);
      Object.assign(this.literalArguments, library.literalArguments);
    }
    // After the libraries, whose opaque types a variable may have (`authorizer`).
    for (const [name, type] of Object.entries(declarations.variables)) {
      this.env.registerVariable(name, type);
      if (name.includes('.')) this.qualifiedVariables.add(name);
    }
  }

  /**
   * Parses and type-checks `expression`; with `resultType`, the checked type
   * must be exactly it (upstream: `must evaluate to bool but got string`).
   */
  compile(expression: string, options: { resultType?: string } = {}): CompiledExpression {
    let program: ReturnType<Environment['parse']>;
    const failed = (err: unknown) => {
      const issue = compileIssue(expression, errorOffset(err as Error), celGoMessage(err as Error));
      return new CelCompileError(expression, `compilation failed: ${issue}`);
    };
    try {
      program = this.env.parse(expression);
    } catch (err) {
      throw failed(err);
    }
    if (this.qualifiedVariables.size) resolveQualifiedNames(program.ast as unknown as AstNode, this.qualifiedVariables);
    checkPresenceTests(program.ast as unknown as AstNode);
    const checked = program.check();
    if (!checked.valid) throw failed(checked.error);
    const root = program.ast as unknown as AstNode;
    this.checkLiteralArguments(expression, root);
    const resultType = celGoTypeName(root.checkedType?.name ?? 'dyn');
    if (options.resultType && resultType !== options.resultType) {
      throw new CelCompileError(expression, `must evaluate to ${options.resultType} but got ${resultType}`);
    }
    const selected = new Set<string>();
    const identifiers = new Set<string>();
    forEachNode(root, (node) => {
      if ((node.op === '.' || node.op === '.?') && typeof node.args[1] === 'string') selected.add(node.args[1]);
      if (node.op === 'id' && typeof node.args === 'string') identifiers.add(node.args);
    });
    const slot: Instrumentation['slot'] = {};
    instrument(root, { slot, costs: this.costs, replacements: this.replacements });
    return new CompiledExpression(expression, resultType, selected, identifiers, (activation) => program(activation), slot, { root, estimates: this.estimates });
  }

  /** cel-go's literal validators: a literal argument the function could never use is a compile error. */
  private checkLiteralArguments(expression: string, root: AstNode): void {
    forEachNode(root, (node) => {
      if (node.op !== 'call' && node.op !== 'rcall') return;
      const rule = this.literalArguments[node.args[0]];
      if (!rule) return;
      const args: AstNode[] = node.op === 'rcall' ? [node.args[1], ...node.args[2]] : node.args[1];
      const literal = args[rule.index];
      if (literal?.op !== 'value' || typeof literal.args !== 'string') return;
      try {
        rule.check(literal.args);
      } catch (err) {
        if (rule.detail) throw new CelCompileError(expression, rule.detail(err as Error));
        throw new CelCompileError(expression, `compilation failed: ${compileIssue(expression, literal.pos, `invalid ${node.args[0]} argument`)}`);
      }
    });
  }
}

/**
 * cel-go type-checks the selection a `has()` tests (`has(self.nope)` on an
 * object type without `nope` is `undefined field 'nope'`); cel-js checks only
 * the variable it starts from, so each presence test also checks its
 * selection, after the macro's own check.
 */
function checkPresenceTests(root: AstNode): void {
  forEachNode(root, (node) => {
    const macro = node.meta.macro;
    if (node.op !== 'call' || node.args[0] !== 'has' || typeof macro?.typeCheck !== 'function') return;
    const typeCheck = macro.typeCheck;
    macro.typeCheck = (checker: { check(n: unknown, ctx: unknown): unknown }, m: { args: unknown[] }, ctx: unknown) => {
      const type = typeCheck(checker, m, ctx);
      const selection = m.args[0] as AstNode;
      // A map or dyn operand checks whatever the key; an object type must have the field.
      if (selection?.op === '.') checker.check(selection, ctx);
      return type;
    };
  });
}

let builtins: ReadonlySet<string> | undefined;

/**
 * The base library's overloads, read from an environment of their own: an
 * environment whose definitions are read before it registers a function of
 * its own would register that function into the base registry, which every
 * later environment shares (cel-js 8: the clone shares its parent's overload
 * index until it copies its own list, and getDefinitions copies the list
 * without the index), so a second environment would find the first one's
 * overloads already declared.
 */
function builtinSignatures(): ReadonlySet<string> {
  return (builtins ??= new Set(new (cel().Environment)({ enableOptionalTypes: true, homogeneousAggregateLiterals: true }).getDefinitions().functions.map((f) => f.signature)));
}

/** cel-js writes a signature with its own spacing (`string.indexOf(string, int): int`). */
function normalizeSignature(signature: string): string {
  return signature.replace(/\s*,\s*/g, ', ').replace(/\s*:\s*/g, ': ');
}
