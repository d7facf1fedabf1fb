/**
 * cel-go's own call estimates (SPEC 8; checker/cost.go functionCost, v0.20):
 * what a call of the standard library costs beyond its arguments, and the
 * size of what it builds, for the calls no library estimator (Kubernetes'
 * EstimateCallCost, CelLibrary.estimates) answers. Every other call is O(1):
 * cost 1. A call on dyn operands may resolve to any of its overloads, so its
 * estimate covers them all, as cel-go's union over the checked overloads.
 */
import { REGEX_STRING_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR } from './cost.ts';
import { add, byFactor, fixed, multiply, union, unknownSize, UNBOUNDED, type CostEstimate, type SizeEstimate } from './estimate-math.ts';
import type { CallEstimate, EstimatedCall, EstimatedNode } from './library.ts';

/** cel-go isScalar: the types whose values all have size 1. */
const SCALARS = new Set(['bool', 'double', 'int', 'uint', 'google.protobuf.Duration', 'google.protobuf.Timestamp']);

/** A call's own estimate: what CelLibrary.estimates answers. */
export type Estimate = NonNullable<ReturnType<CallEstimate>>;

const O1: Estimate = { cost: fixed(1) };

/** A library function of nominal cost (Kubernetes' accessors and builders): 1. */
export const nominalEstimate: CallEstimate = () => O1;

/** cel-go coster.sizeEstimate: known, else 1 for scalars, else unknown. */
export const sizeOf = (node: EstimatedNode): SizeEstimate => node.knownSize() ?? (SCALARS.has(node.type) ? fixed(1) : unknownSize());

const isString = (n: EstimatedNode) => n.type === 'string';
const isBytes = (n: EstimatedNode) => n.type === 'bytes';
const isList = (n: EstimatedNode) => n.type.startsWith('list<') || n.type === 'list';
const isDyn = (n: EstimatedNode) => n.type === 'dyn';

/** One traversal of a string: 0.1 per code point (StringTraversalCostFactor). */
export const traverse = (size: SizeEstimate): CostEstimate => byFactor(size, STRING_TRAVERSAL_FACTOR);

/** cel-go's equality and string/bytes ordering: a traversal of the shorter side, at least 1 unless both may be empty. */
function comparison(left: EstimatedNode, right: EstimatedNode): Estimate {
  const smallestMax = Math.min(sizeOf(left).max, sizeOf(right).max);
  return { cost: traverse({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }) };
}

/** `+` of strings or bytes (a traversal of the result) or lists (1): the result's size is the sum. */
function concatenation(left: EstimatedNode, right: EstimatedNode, list: boolean): Estimate {
  const resultSize = add(sizeOf(left), sizeOf(right));
  return { cost: list ? fixed(1) : traverse(resultSize), resultSize };
}

/** cel-go's union over every overload a call may resolve to. */
function unionOf(estimates: Estimate[]): Estimate {
  const cost = estimates.map((e) => e.cost).reduce(union);
  const sizes = estimates.flatMap((e) => (e.resultSize ? [e.resultSize] : []));
  return sizes.length ? { cost, resultSize: sizes.reduce(union) } : { cost };
}

function operator(op: string, [left, right]: readonly EstimatedNode[]): Estimate {
  const dyn = isDyn(left) || isDyn(right);
  switch (op) {
    case '==':
    case '!=':
      return comparison(left, right);
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const sized = (isString(left) && isString(right)) || (isBytes(left) && isBytes(right));
      if (sized) return comparison(left, right);
      return dyn ? unionOf([comparison(left, right), O1]) : O1;
    }
    case '+': {
      const possible: Estimate[] = [];
      const either = (test: (n: EstimatedNode) => boolean) => (test(left) || isDyn(left)) && (test(right) || isDyn(right));
      if (either(isString) || either(isBytes)) possible.push(concatenation(left, right, false));
      if (either(isList)) possible.push(concatenation(left, right, true));
      if (dyn || !possible.length) possible.push(O1);
      return unionOf(possible);
    }
    case 'in': {
      // A list's containment is linear in its size (even a list of constants), a map's constant.
      const linear: Estimate = { cost: byFactor(sizeOf(right), 1) };
      if (isList(right)) return linear;
      return isDyn(right) ? unionOf([linear, O1]) : O1;
    }
    default:
      return O1;
  }
}

/** cel-go's estimate of an operator (`==`, `in`, `+`, ...) or a standard call `name`, beyond its target's and arguments' costs. */
export function standardEstimate(name: string, call: EstimatedCall, isOperator: boolean): Estimate {
  const { target, args } = call;
  if (isOperator) return operator(name, args);
  switch (name) {
    case 'startsWith':
    case 'endsWith':
      // cel-go charges the prefix or suffix, not the receiver.
      if (target && args.length === 1) return { cost: traverse(sizeOf(args[0])) };
      break;
    case 'contains':
      if (target && args.length === 1) return { cost: multiply(traverse(sizeOf(target)), traverse(sizeOf(args[0]))) };
      break;
    case 'matches':
      // The member form only: cel-go's global `matches(s, re)` is another overload, estimated O(1).
      if (target && args.length === 1) return { cost: regexCost(sizeOf(target), sizeOf(args[0])) };
      break;
    case 'bytes':
    case 'string':
      if (args.length === 1) return conversion(name, args[0]);
  }
  return O1;
}

/** string(bytes) and bytes(string) traverse their argument; the other conversions are O(1); a dyn argument may be either. */
function conversion(name: string, arg: EstimatedNode): Estimate {
  const size = sizeOf(arg);
  const traversing: Estimate =
    name === 'bytes'
      ? // Each code point is up to 4 bytes.
        { cost: traverse(size), resultSize: { min: size.min, max: size.max >= UNBOUNDED ? UNBOUNDED : size.max * 4 } }
      : { cost: traverse(size), resultSize: { min: Math.floor(size.min / 4), max: size.max } };
  if (isDyn(arg)) return unionOf([traversing, O1]);
  return (name === 'bytes' ? isString(arg) : isBytes(arg)) ? traversing : O1;
}

/**
 * RE2 matching (cel-go MatchesString, Kubernetes' find/findAll): a traversal
 * of the input, one longer so that an empty input still costs, times a
 * quarter of the pattern's length (a guess of its number of states).
 */
export function regexCost(input: SizeEstimate, pattern: SizeEstimate): CostEstimate {
  return multiply(traverse(add(input, fixed(1))), byFactor(pattern, REGEX_STRING_LENGTH_FACTOR));
}
