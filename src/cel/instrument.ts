/**
 * Cost accounting and cel-go semantics grafted onto a type-checked cel-js
 * expression (SPEC 2.11, 8). cel-js has no cost tracker, so each node of the
 * checked tree that cel-go would charge gets its own `evaluate` (a fixed
 * charge, then the node's own evaluation) and each operator and call its own
 * `handle` (the charge computed from the argument values, then the call).
 * Calls whose base-library declaration a library replaces run the library's
 * implementation. This module is the only one that knows cel-js's tree: nodes
 * with `op`, `args` and `meta` (alternate, macro), `handle`, `candidates`.
 */
import { CostMeter, LIST_CREATE_BASE, MAP_CREATE_BASE, operatorCost, SELECT_AND_IDENT } from './cost.ts';
import type { CallCost } from './library.ts';
import { celEquals, concatWithSemantics } from './values.ts';

type Fn = (...args: any[]) => any;

/** The parts of a cel-js tree node this module reads. */
export interface AstNode {
  op: string;
  args: any;
  pos?: number;
  start?: number;
  input: string;
  meta: { evaluate: Fn; check: Fn; alternate?: AstNode; macro?: any };
  setMeta(key: 'alternate', value: AstNode): AstNode;
  clone(op: { name: string; check: Fn; evaluate: Fn }, args: unknown): AstNode;
  evaluate: Fn;
  handle?: Fn;
  candidates?: { findFunction(types: unknown[], receiverType?: unknown): { signature: string } | undefined };
  argTypes?: Array<{ hasDynType?: boolean }>;
  checkedType?: { name: string; kind?: string; hasDynType?: boolean; hasPlaceholderType?: boolean };
}

const isNode = (x: unknown): x is AstNode => !!x && typeof x === 'object' && typeof (x as AstNode).op === 'string' && 'meta' in (x as object);

/** Every node reachable from `root`, macro expansions and constant substitutes included, each once. */
export function forEachNode(root: AstNode, visit: (node: AstNode) => void): void {
  const seen = new Set<AstNode>();
  const stack: unknown[] = [root];
  while (stack.length) {
    const x = stack.pop();
    if (isNode(x)) {
      if (seen.has(x)) continue;
      seen.add(x);
      visit(x);
      stack.push(x.args, x.meta.alternate, x.meta.macro);
    } else if (Array.isArray(x)) stack.push(...x);
    // Comprehension arguments and macro records are plain objects; contexts and registries are not.
    else if (x && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype) stack.push(...Object.values(x));
  }
}

/**
 * cel-go's checker reads a selection `a.b` as the variable `a.b` when one is
 * declared (the longest such name wins); cel-js knows no qualified names, so
 * each such selection of a parsed tree becomes that variable (its alternate).
 */
export function resolveQualifiedNames(root: AstNode, names: ReadonlySet<string>): void {
  const qualifiedName = (node: AstNode): string | undefined => {
    if (node.op === 'id') return node.args;
    if (node.op !== '.') return undefined;
    const left = qualifiedName(node.args[0]);
    return left === undefined ? undefined : `${left}.${node.args[1]}`;
  };
  // Parents come before their children, so the longest name is replaced first.
  forEachNode(root, (node) => {
    if (node.op !== '.' || node.meta.alternate) return;
    const name = qualifiedName(node);
    if (name === undefined || !names.has(name)) return;
    let id = node;
    while (id.op !== 'id') id = id.args[0];
    node.setMeta('alternate', id.clone({ name: 'id', check: id.meta.check, evaluate: id.meta.evaluate }, name));
  });
}

export interface Instrumentation {
  /** Where the running evaluation's meter is found; set only while one runs. */
  slot: { meter?: CostMeter };
  costs: Record<string, CallCost>;
  /** Implementations that replace base-library overloads, by signature. */
  replacements: Map<string, Fn>;
}

const isAggregate = (v: unknown): boolean => Array.isArray(v) || v instanceof Map;

/** `-` before a number literal: one negative literal in cel-go's grammar (`literal: sign=MINUS? NUM_INT`), a negation in cel-js's. */
export const isNegativeLiteral = (node: AstNode): boolean => node.op === '-_' && node.args?.op === 'value' && (typeof node.args.args === 'number' || typeof node.args.args === 'bigint');

const BINARY = new Set(['==', '!=', '<', '<=', '>', '>=', 'in', '+', '-', '*', '/', '%']);

/** The per-iteration charges of a quantifier expansion, as cel-go evaluates its loop condition, step and result. */
function quantifierCharges(args: any): { condition: number; step: number; result: number } {
  const init = args.init?.op === 'value' ? args.init.args : undefined;
  if (init === true) return { condition: 2, step: 1, result: 1 }; // all: @not_strictly_false(__result__), __result__ && p
  if (init === false) return { condition: 3, step: 1, result: 1 }; // exists: @not_strictly_false(!__result__), __result__ || p
  return { condition: 0, step: 0, result: 2 }; // exists_one: __result__ == 1
}

export function instrument(root: AstNode, how: Instrumentation): void {
  const charge = (units: number) => how.slot.meter?.charge(units);

  const chargeOnEvaluate = (node: AstNode, units: number) => {
    const { meta } = node;
    node.evaluate = (ev: unknown, ast: AstNode, ctx: unknown) => {
      charge(units);
      if (meta.alternate) return meta.alternate.evaluate(ev, meta.alternate, ctx);
      if (meta.macro) return meta.macro.evaluate(ev, meta.macro, ctx);
      return meta.evaluate(ev, ast, ctx);
    };
  };

  const wrapCall = (node: AstNode, receiver: boolean) => {
    const original = node.handle!;
    const name: string = node.args[0];
    const argNodes: AstNode[] = receiver ? [node.args[1], ...node.args[2]] : node.args[1];
    const cost = how.costs[name];
    // cel-js binds the checked overload unless an argument is dyn (the receiver: dyn itself, or with a type parameter).
    const [first, ...rest] = argNodes;
    const receiverIsStatic = first.checkedType?.kind !== 'dyn' && !first.checkedType?.hasPlaceholderType;
    const isStatic = receiver ? receiverIsStatic && rest.every((a) => !a.checkedType?.hasDynType) : argNodes.every((a) => !a.checkedType?.hasDynType);
    const staticDecl = isStatic ? resolve(node, argNodes, receiver, undefined, []) : undefined;
    node.handle = (values: unknown[], a: unknown, b: unknown) => {
      const decl = staticDecl ?? resolve(node, argNodes, receiver, receiver ? a : b, values);
      // No overload: cel-js reports it, and nothing ran to be charged.
      if (!decl) return original(values, a, b);
      charge(cost ? cost(values) : 1);
      const replacement = how.replacements.get(decl.signature);
      return replacement ? replacement(...values) : original(values, a, b);
    };
  };

  forEachNode(root, (node) => {
    const { meta } = node;
    if (meta.alternate) return;
    if (meta.macro) {
      // has(a.b.c): cel-go charges the variable and each select but the tested one.
      const props: unknown[] | undefined = meta.macro.macroHasProps;
      if (props && props.length > 2) chargeOnEvaluate(node, props.length - 2);
      return;
    }
    switch (node.op) {
      case 'id':
      case 'accuValue':
      case '.':
      case '.?':
      case '[]':
      case '[?]':
        return chargeOnEvaluate(node, SELECT_AND_IDENT);
      case 'accuInc':
        return chargeOnEvaluate(node, SELECT_AND_IDENT + 1);
      case 'accuPush':
        return chargeOnEvaluate(node, SELECT_AND_IDENT + LIST_CREATE_BASE + 1);
      case 'list':
        return chargeOnEvaluate(node, LIST_CREATE_BASE);
      case 'map':
        return chargeOnEvaluate(node, MAP_CREATE_BASE);
      case 'comprehension': {
        const args = node.args;
        const { condition, step, result } = args.kind === 'quantifier' ? quantifierCharges(args) : { condition: 0, step: 0, result: 1 };
        if (args.condition && condition) {
          const test = args.condition;
          args.condition = (accu: unknown) => (charge(condition), test(accu));
        }
        const finish = args.result;
        args.result = (accu: unknown) => (charge(result), finish(accu));
        if (step) chargeOnEvaluate(args.step, step);
        return;
      }
      case '!_':
      case '-_': {
        // cel-go's grammar reads `-1` as one literal, which costs nothing.
        if (isNegativeLiteral(node)) return;
        const original = node.handle!;
        node.handle = (value: unknown, a: unknown, b: unknown) => (charge(1), original(value, a, b));
        return;
      }
      case 'call':
      case 'rcall':
        if (node.handle) wrapCall(node, node.op === 'rcall');
        return;
      default:
        if (BINARY.has(node.op) && node.handle) {
          const original = node.handle;
          const equality = node.op === '==' ? true : node.op === '!=' ? false : undefined;
          node.handle = (l: unknown, r: unknown, a: unknown, b: unknown) => {
            charge(operatorCost(node.op, l, r));
            // Lists and maps compare as cel-go's Equal does, through their elements (a set or map list ignoring order, values.ts).
            if (equality !== undefined && isAggregate(l) && isAggregate(r)) return celEquals(l, r) === equality;
            // A set or map list merges what is added to it (values.ts).
            if (node.op === '+' && Array.isArray(l) && Array.isArray(r)) {
              const merged = concatWithSemantics(l, r);
              if (merged) return merged;
            }
            return original(l, r, a, b);
          };
        }
    }
  });
}

/** The overload a call resolves to: from checked types, or (`ev` given) from the values' runtime types, as cel-js dispatches. */
function resolve(node: AstNode, argNodes: AstNode[], receiver: boolean, ev: any, values: unknown[]): { signature: string } | undefined {
  const types = ev ? argNodes.map((a, i) => ev.debugRuntimeType(values[i], a.checkedType)) : argNodes.map((a) => a.checkedType);
  if (!receiver) return node.candidates?.findFunction(types);
  const [receiverType, ...rest] = types;
  return node.candidates?.findFunction(rest, receiverType);
}
