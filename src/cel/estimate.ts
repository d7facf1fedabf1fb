/**
 * The static cost estimator of the expression language (SPEC 8, SPEC 2.11):
 * cel-go's checker.Cost (v0.20, Kubernetes 1.31) over the checked cel-js
 * tree, with Kubernetes' library estimator (pkg/cel/library/cost.go
 * EstimateCallCost) supplied by each library (CelLibrary.estimates). The
 * estimate is a {min, max} range: the least and the most any evaluation can
 * cost, given what the caller knows of its variables' sizes (SizeHints); the
 * write path rejects an expression whose max exceeds its limit.
 *
 * The walk is iterative: a chain of operators (`a + a + ...`) nests as deep
 * as it is long, past what the call stack holds.
 */
import { codePointCount, LIST_CREATE_BASE, MAP_CREATE_BASE } from './cost.ts';
import type { CompiledExpression } from './environment.ts';
import { add, fixed, multiply, sum, union, unknownSize, type CostEstimate, type SizeEstimate } from './estimate-math.ts';
import { sizeOf, standardEstimate } from './estimate-standard.ts';
import { isNegativeLiteral, type AstNode } from './instrument.ts';
import type { CallEstimate, EstimatedNode } from './library.ts';

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

/** cel-js's namespaces (`optional.of`, `cel.bind`) are receivers of type OptionalNamespace, CelNamespace; cel-go's are qualified names. */
const isNamespace = (node: AstNode): boolean => /^[A-Za-z]+Namespace$/.test(typeOf(node).name);

/** A literal's value: cel-go's grammar reads `-1` as one literal. */
function literalOf(node: AstNode): { value: unknown } | undefined {
  if (node.op === 'value') return { value: node.args };
  if (isNegativeLiteral(node)) return { value: -node.args.args };
  return undefined;
}

/** cel-go's selects that cost: on a map, a message or a type parameter (not on dyn). */
const SELECT_COSTS = new Set(['map', 'message', 'param']);

const SELECT_AND_IDENT = fixed(1);

/** A literal's size (cel-go astNode.ComputedSize for literals): every literal but a string or bytes (a number, bool, null) is 1. */
function literalSize({ value }: { value: unknown }): SizeEstimate {
  if (typeof value === 'string') return fixed(codePointCount(value));
  if (value instanceof Uint8Array) return fixed(value.length);
  return fixed(1);
}

/** A node's estimate in the making: it yields the children it needs estimated and receives their estimates. */
type NodeEstimate = Generator<AstNode, CostEstimate, CostEstimate>;

class Coster {
  /** cel-go exprPath: the field path of each node reachable from a variable. */
  private readonly paths = new Map<AstNode, string[]>();
  /** cel-go computedSizes: the sizes of results the expression itself determines. */
  private readonly sizes = new Map<AstNode, SizeEstimate>();
  /** cel-go iterRanges: each iteration variable's range, innermost last. */
  private readonly ranges = new Map<string, AstNode[]>();

  constructor(
    private readonly estimates: Readonly<Record<string, CallEstimate>>,
    private readonly hints: SizeHints,
  ) {}

  /**
   * The walk runs on a stack of its own: each node's estimate is a generator
   * that yields the children it needs estimated, in cel-go's order (which
   * matters: paths and iteration scopes are set as the walk goes).
   */
  cost(root: AstNode): CostEstimate {
    const stack: NodeEstimate[] = [this.visit(root)];
    let last: CostEstimate = fixed(0);
    while (stack.length) {
      const next = stack[stack.length - 1].next(last);
      if (next.done) {
        stack.pop();
        last = next.value;
      } else stack.push(this.visit(next.value));
    }
    return last;
  }

  private *visit(node: AstNode): NodeEstimate {
    const { alternate, macro } = node.meta;
    if (alternate) return yield alternate;
    if (macro?.macroHasProps) return yield macro.macroHasProps[1];
    // cel-js makes `or` and `orValue` macros (their argument runs only when needed); cel-go calls them, at cost 1.
    if (macro?.functionDesc) return sum([yield macro.receiver, yield macro.arg, fixed(1)]);
    // cel.bind(v, init, e): cel-go v0.20 expands it to a comprehension over an empty list whose accumulator is `v`,
    // so `v` is no iteration variable: it has the path [v], or an enclosing iteration variable's of its name.
    if (macro) return sum([fixed(LIST_CREATE_BASE), yield macro.val, yield macro.exp]);
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
        return add(yield node.args, fixed(1 + LIST_CREATE_BASE + 1));
      case '.': {
        const [operand, field] = node.args as [AstNode, string];
        const cost = yield operand;
        this.paths.set(node, [...(this.pathOf(operand) ?? []), field]);
        return SELECT_COSTS.has(typeOf(operand).kind ?? '') ? add(cost, SELECT_AND_IDENT) : cost;
      }
      case '.?':
        // cel-go's `_?._(a, "b")` call: the operand, the constant and the call.
        return add(yield node.args[0], fixed(1));
      case '[]':
      case '[?]':
        return yield* this.costIndex(node);
      case 'list':
      case 'map': {
        this.sizes.set(node, fixed(node.args.length));
        const parts: AstNode[] = node.op === 'list' ? node.args : node.args.flat();
        let cost = fixed(node.op === 'list' ? LIST_CREATE_BASE : MAP_CREATE_BASE);
        for (const part of parts) cost = add(cost, yield part);
        return cost;
      }
      case 'comprehension':
        return yield* this.costComprehension(node);
      case '?:': {
        const [condition, left, right] = node.args as AstNode[];
        const cost = add(yield condition, union(yield left, yield right));
        this.sizes.set(node, union(this.sizeEstimate(left), this.sizeEstimate(right)));
        return cost;
      }
      case '&&':
      case '||': {
        // The right side may not run: the least is the left side's.
        const left = yield node.args[0];
        const right = yield node.args[1];
        return { min: left.min, max: add(left, right).max };
      }
      case '!_':
      case '-_':
        return isNegativeLiteral(node) ? fixed(0) : add(yield node.args, fixed(1));
      case 'call':
        return yield* this.costCall(node, node.args[0], undefined, node.args[1], false);
      case 'rcall': {
        const receiver: AstNode = node.args[1];
        return yield* this.costCall(node, node.args[0], isNamespace(receiver) ? undefined : receiver, node.args[2], false);
      }
      default:
        return yield* this.costCall(node, node.op, undefined, node.args, true);
    }
  }

  private costIdent(node: AstNode): CostEstimate {
    const name: string = node.args;
    const scope = this.ranges.get(name);
    if (scope?.length) {
      const range = scope[scope.length - 1];
      const kind = typeOf(range).kind;
      // cel-go appends to the range's path, even an absent one; over dyn, the variable has none.
      if (kind === 'list') this.paths.set(node, [...(this.pathOf(range) ?? []), '@items']);
      if (kind === 'map') this.paths.set(node, [...(this.pathOf(range) ?? []), '@keys']);
    } else this.paths.set(node, [name]);
    return SELECT_AND_IDENT;
  }

  private *costIndex(node: AstNode): NodeEstimate {
    const [operand, index] = node.args as [AstNode, AstNode];
    const cost = sum([yield operand, yield index, fixed(1)]);
    if (node.op === '[]') {
      const kind = typeOf(operand).kind;
      if (kind === 'list') this.paths.set(node, [...(this.pathOf(operand) ?? []), '@items']);
      if (kind === 'map') this.paths.set(node, [...(this.pathOf(operand) ?? []), '@values']);
    }
    return cost;
  }

  /** cel-go costCall: the arguments, the target, then the function's own estimate (Kubernetes' first, then cel-go's). */
  private *costCall(node: AstNode, name: string, target: AstNode | undefined, args: AstNode[], isOperator: boolean): NodeEstimate {
    let cost = fixed(0);
    for (const arg of args) cost = add(cost, yield arg);
    if (target) cost = add(cost, yield target);
    const call = { target: target && this.estimatedNode(target), args: args.map((a) => this.estimatedNode(a)) };
    const own = (isOperator ? undefined : this.estimates[name]?.(call)) ?? standardEstimate(name, call, isOperator);
    if (own.resultSize) this.sizes.set(node, own.resultSize);
    return add(cost, own.cost);
  }

  /** cel-go costComprehension, with the loop condition, step and result of cel-go's macro expansions. */
  private *costComprehension(node: AstNode): NodeEstimate {
    const { iterable, iterVarName, init, step, kind } = node.args as { iterable: AstNode; iterVarName: string; init: AstNode; step: AstNode; kind?: string };
    let cost = add(yield iterable, yield init);
    const scope = this.ranges.get(iterVarName) ?? [];
    this.ranges.set(iterVarName, [...scope, iterable]);
    const loop = kind === 'quantifier' ? yield* this.quantifierLoop(init, step) : yield step;
    this.ranges.set(iterVarName, scope);
    // exists_one's result is `__result__ == 1`; the others' the accumulator.
    const exactlyOne = kind === 'quantifier' && init.args === 0;
    cost = add(cost, fixed(exactlyOne ? 2 : 1));
    const count = this.sizeEstimate(iterable);
    this.sizes.set(node, count);
    return add(cost, multiply(count, loop));
  }

  /**
   * One iteration of `all` (`@not_strictly_false(__result__)`, `__result__ && p`),
   * `exists` (`@not_strictly_false(!__result__)`, `__result__ || p`) and
   * `exists_one` (no condition, `p ? __result__ + 1 : __result__`).
   */
  private *quantifierLoop(init: AstNode, step: AstNode): NodeEstimate {
    if (init.args === 0) return yield step;
    const predicate = yield step.args[0];
    const condition = init.args === true ? 2 : 3;
    return add({ min: 1, max: add(SELECT_AND_IDENT, predicate).max }, fixed(condition));
  }

  private pathOf(node: AstNode): string[] | undefined {
    return node.meta.alternate ? this.pathOf(node.meta.alternate) : this.paths.get(node);
  }

  /** The size the expression itself determines (cel-go ComputedSize), or what the caller knows (EstimateSize). */
  private knownSize(node: AstNode): SizeEstimate | undefined {
    if (node.meta.alternate) return this.knownSize(node.meta.alternate);
    const literal = literalOf(node);
    const computed = this.sizes.get(node) ?? (literal && literalSize(literal));
    if (computed) return computed;
    const path = this.pathOf(node);
    return path?.length ? this.hints.size(path) : undefined;
  }

  /** cel-go coster.sizeEstimate. */
  private sizeEstimate(node: AstNode): SizeEstimate {
    return sizeOf(this.estimatedNode(node));
  }

  /** cel-go's AstNode for a library estimator (Kubernetes' sizeEstimate: known, else unknown). */
  private estimatedNode(node: AstNode): EstimatedNode {
    const type = typeOf(node);
    return {
      type: type.name,
      literal: literalOf(node.meta.alternate ?? node)?.value,
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
