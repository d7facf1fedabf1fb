/**
 * The static cost estimator of the expression language (SPEC 8, SPEC 2.11):
 * cel-go's checker.Cost (v0.20, Kubernetes 1.31) over the checked cel-js
 * tree, with Kubernetes' library estimator (pkg/cel/library/cost.go
 * EstimateCallCost) supplied by each library (CelLibrary.estimates). The
 * estimate is a {min, max} range: the least and the most any evaluation can
 * cost, given what the caller knows of its variables' sizes (SizeHints); the
 * write path rejects an expression whose max exceeds its limit.
 *
 * The walk is recursive: its depth is the parsed tree's, which the parser's
 * depth limit bounds, unlike client values.
 */
import { LIST_CREATE_BASE, MAP_CREATE_BASE } from './cost.ts';
import type { CompiledExpression } from './environment.ts';
import { add, fixed, multiplySaturating as mul, sum, union, unknownSize, type CostEstimate, type SizeEstimate } from './estimate-math.ts';
import { codePointCount } from './cost.ts';
import type { AstNode } from './instrument.ts';
import type { CallEstimate, EstimatedNode } from './library.ts';
import { SCALARS, standardEstimate } from './estimate-standard.ts';

export type { CostEstimate, SizeEstimate } from './estimate-math.ts';
export { UNBOUNDED } from './estimate-math.ts';

/**
 * What the caller knows of its variables (cel-go checker.CostEstimator.EstimateSize for variables):
 * `path` is the variable name followed by each step down from it: a field name, '@items' for a list's element,
 * '@values' for a map's value, '@keys' for a map's key (cel-go's AstNode.Path()). undefined when unknown.
 */
export interface SizeHints {
  size(path: readonly string[]): SizeEstimate | undefined;
}

/** Upstream cel-go checker.Cost with Kubernetes' library estimator (presence tests cost nothing, as Kubernetes configures). */
export function estimateCost(expression: CompiledExpression, hints: SizeHints): CostEstimate {
  const { root, estimates } = expression.checked;
  return new Coster(estimates, hints).cost(root);
}

/** The checked type fields the estimator reads. */
interface CheckedType {
  name: string;
  kind?: string;
  valueType?: CheckedType;
  keyType?: CheckedType;
}

const typeOf = (node: AstNode): CheckedType => (node.checkedType as CheckedType | undefined) ?? { name: 'dyn', kind: 'dyn' };


/** cel-go's selects that cost: on a map, a message or a type parameter (not on dyn). */
const SELECT_COSTS = new Set(['map', 'message', 'param']);

const SELECT_AND_IDENT = fixed(1);

/** A literal's size (cel-go astNode.ComputedSize for literals). */
function literalSize(value: unknown): SizeEstimate | undefined {
  if (typeof value === 'string') return fixed(codePointCount(value));
  if (value instanceof Uint8Array) return fixed(value.length);
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint') return fixed(1);
  return SCALARS.has(typeof value === 'object' ? (value?.constructor?.name ?? '') : '') ? fixed(1) : undefined;
}

class Coster {
  /** cel-go exprPath: the field path of each node reachable from a variable. */
  private readonly paths = new Map<AstNode, string[]>();
  /** cel-go computedSizes: the sizes of results the expression itself determines. */
  private readonly sizes = new Map<AstNode, SizeEstimate>();
  /** cel-go iterRanges: each iteration variable's range, innermost last; null for a bound (cel.bind) variable. */
  private readonly ranges = new Map<string, Array<AstNode | null>>();

  constructor(
    private readonly estimates: Readonly<Record<string, CallEstimate>>,
    private readonly hints: SizeHints,
  ) {}

  cost(node: AstNode): CostEstimate {
    const { alternate, macro } = node.meta;
    if (alternate) return this.cost(alternate);
    if (macro?.macroHasProps) return this.cost(macro.macroHasProps[1]);
    // cel-js makes `or` and `orValue` macros (their argument runs only when needed); cel-go calls them, at cost 1.
    if (macro?.functionDesc) return sum([this.cost(macro.receiver), this.cost(macro.arg), fixed(1)]);
    if (macro) return this.costBind(macro);
    switch (node.op) {
      case 'value':
        return fixed(0);
      case 'id':
        return this.costIdent(node);
      case 'accuValue':
        return SELECT_AND_IDENT;
      case 'accuInc':
        // `__result__ + 1`: the accumulator and the addition.
        return fixed(2);
      case 'accuPush':
        // `__result__ + [e]`: the accumulator, a one-element list and the concatenation.
        return add(this.cost(node.args), fixed(1 + LIST_CREATE_BASE + 1));
      case '.':
        return this.costSelect(node);
      case '.?':
        // cel-go's `_?._(a, "b")` call: the operand, the constant and the call.
        return add(this.cost(node.args[0]), fixed(1));
      case '[]':
      case '[?]':
        return this.costIndex(node);
      case 'list':
        this.sizes.set(node, fixed(node.args.length));
        return add(sum(node.args.map((e: AstNode) => this.cost(e))), fixed(LIST_CREATE_BASE));
      case 'map':
        this.sizes.set(node, fixed(node.args.length));
        return add(sum(node.args.flatMap(([k, v]: AstNode[]) => [this.cost(k), this.cost(v)])), fixed(MAP_CREATE_BASE));
      case 'comprehension':
        return this.costComprehension(node);
      case '?:': {
        const [condition, left, right] = node.args as AstNode[];
        const cost = add(this.cost(condition), union(this.cost(left), this.cost(right)));
        this.sizes.set(node, union(this.sizeEstimate(left), this.sizeEstimate(right)));
        return cost;
      }
      case '&&':
      case '||': {
        // The right side may not run: the least is the left side's.
        const [left, right] = node.args.map((a: AstNode) => this.cost(a));
        return { min: left.min, max: add(left, right).max };
      }
      case '!_':
      case '-_':
        return add(this.cost(node.args), fixed(1));
      case 'call':
        return this.costCall(node, node.args[0], undefined, node.args[1], false);
      case 'rcall': {
        // `optional.of(x)` is a global function in cel-go: its namespace is no receiver.
        const receiver: AstNode = node.args[1];
        const namespace = /Namespace$/.test(typeOf(receiver).name);
        return this.costCall(node, node.args[0], namespace ? undefined : receiver, node.args[2], false);
      }
      default:
        return this.costCall(node, node.op, undefined, node.args, true);
    }
  }

  private costIdent(node: AstNode): CostEstimate {
    const name: string = node.args;
    const scope = this.ranges.get(name);
    if (scope?.length) {
      const range = scope[scope.length - 1];
      const kind = range && typeOf(range).kind;
      // cel-go appends to the range's path, even an absent one.
      if (range && kind === 'list') this.paths.set(node, [...(this.paths.get(range) ?? []), '@items']);
      if (range && kind === 'map') this.paths.set(node, [...(this.paths.get(range) ?? []), '@keys']);
      if (!range) this.paths.set(node, [name]);
    } else this.paths.set(node, [name]);
    return SELECT_AND_IDENT;
  }

  private costSelect(node: AstNode): CostEstimate {
    const [operand, field] = node.args as [AstNode, string];
    let cost = this.cost(operand);
    if (SELECT_COSTS.has(typeOf(operand).kind ?? '')) cost = add(cost, SELECT_AND_IDENT);
    this.paths.set(node, [...(this.pathOf(operand) ?? []), field]);
    return cost;
  }

  private costIndex(node: AstNode): CostEstimate {
    const [operand, index] = node.args as [AstNode, AstNode];
    const cost = sum([this.cost(operand), this.cost(index), fixed(1)]);
    if (node.op === '[]') {
      const kind = typeOf(operand).kind;
      if (kind === 'list') this.paths.set(node, [...(this.pathOf(operand) ?? []), '@items']);
      if (kind === 'map') this.paths.set(node, [...(this.pathOf(operand) ?? []), '@values']);
    }
    return cost;
  }

  /** cel-go costCall: the target, the arguments, then the function's own estimate (Kubernetes' first, then cel-go's). */
  private costCall(node: AstNode, name: string, target: AstNode | undefined, args: AstNode[], isOperator: boolean): CostEstimate {
    const argCosts = args.map((a) => this.cost(a));
    const targetCost = target ? this.cost(target) : fixed(0);
    const call = { target: target && this.estimatedNode(target), args: args.map((a) => this.estimatedNode(a)) };
    const own = (isOperator ? undefined : this.estimates[name]?.(call)) ?? standardEstimate(name, call, isOperator);
    if (own.resultSize) this.sizes.set(node, own.resultSize);
    return sum([targetCost, ...argCosts, own.cost]);
  }

  /** cel-go costComprehension, with the macro expansions' loop condition, step and result of cel-go's parser. */
  private costComprehension(node: AstNode): CostEstimate {
    const { iterable, iterVarName, init, step, kind } = node.args as { iterable: AstNode; iterVarName: string; init: AstNode; step: AstNode; kind?: string };
    let cost = add(this.cost(iterable), this.cost(init));
    const scope = this.ranges.get(iterVarName) ?? [];
    this.ranges.set(iterVarName, [...scope, iterable]);
    let loop: CostEstimate;
    try {
      loop = kind === 'quantifier' ? this.quantifierLoop(init, step) : this.cost(step);
    } finally {
      this.ranges.set(iterVarName, scope);
    }
    // exists_one's result is `__result__ == 1`; the others' the accumulator.
    const exactlyOne = kind === 'quantifier' && init.args === 0;
    cost = add(cost, fixed(exactlyOne ? 2 : 1));
    const count = this.sizeEstimate(iterable);
    this.sizes.set(node, count);
    return add(cost, { min: mul(count.min, loop.min), max: mul(count.max, loop.max) });
  }

  /**
   * One iteration of `all` (`@not_strictly_false(__result__)`, `__result__ && p`),
   * `exists` (`@not_strictly_false(!__result__)`, `__result__ || p`) and
   * `exists_one` (no condition, `p ? __result__ + 1 : __result__`).
   */
  private quantifierLoop(init: AstNode, step: AstNode): CostEstimate {
    if (init.args === 0) return this.cost(step);
    const predicate = this.cost(step.args[0]);
    const condition = init.args === true ? 2 : 3;
    return add({ min: 1, max: add(SELECT_AND_IDENT, predicate).max }, fixed(condition));
  }

  /** cel.bind(v, init, e): cel-go v0.20 expands it to a comprehension over an empty list. */
  private costBind(macro: { var: string; val: AstNode; exp: AstNode }): CostEstimate {
    const scope = this.ranges.get(macro.var) ?? [];
    const init = this.cost(macro.val);
    this.ranges.set(macro.var, [...scope, null]);
    try {
      return sum([fixed(LIST_CREATE_BASE), init, this.cost(macro.exp)]);
    } finally {
      this.ranges.set(macro.var, scope);
    }
  }

  private pathOf(node: AstNode): string[] | undefined {
    return node.meta.alternate ? this.pathOf(node.meta.alternate) : this.paths.get(node);
  }

  /** The size the expression itself determines (cel-go ComputedSize), or what the caller knows (EstimateSize). */
  private knownSize(node: AstNode): SizeEstimate | undefined {
    if (node.meta.alternate) return this.knownSize(node.meta.alternate);
    const computed = this.sizes.get(node) ?? (node.op === 'value' ? literalSize(node.args) : undefined);
    if (computed) return computed;
    const path = this.pathOf(node);
    return path?.length ? this.hints.size(path) : undefined;
  }

  /** cel-go coster.sizeEstimate: known, else 1 for scalars, else unknown. */
  private sizeEstimate(node: AstNode): SizeEstimate {
    return this.knownSize(node) ?? (SCALARS.has(typeOf(node).name) ? fixed(1) : unknownSize());
  }

  /** cel-go's AstNode for a library estimator (Kubernetes' sizeEstimate: known, else unknown). */
  private estimatedNode(node: AstNode): EstimatedNode {
    const type = typeOf(node);
    const resolved = node.meta.alternate ?? node;
    return {
      type: type.name,
      literal: resolved.op === 'value' ? resolved.args : undefined,
      knownSize: () => this.knownSize(node),
      size: () => this.knownSize(node) ?? unknownSize(),
      element: () => (type.kind === 'list' && type.valueType ? this.elementNode(type.valueType, this.pathOf(node)) : undefined),
    };
  }

  /** Kubernetes' listElementNode: the element type, at the list's path and '@items' when the list has a path. */
  private elementNode(type: CheckedType, listPath: string[] | undefined): EstimatedNode {
    const path = listPath && [...listPath, '@items'];
    return {
      type: type.name,
      knownSize: () => (path?.length ? this.hints.size(path) : undefined),
      size: () => (path?.length ? this.hints.size(path) : undefined) ?? unknownSize(),
      element: () => (type.kind === 'list' && type.valueType ? this.elementNode(type.valueType, path) : undefined),
    };
  }
}
