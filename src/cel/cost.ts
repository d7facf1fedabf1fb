/**
 * The runtime cost of an expression (SPEC 8), in cel-go's units, counted while
 * the expression runs so that a budget halts it with an error instead of
 * letting it run on.
 *
 * What is counted (cel-go interpreter/runtimecost.go, with Kubernetes'
 * options: a `has()` test costs nothing):
 * - a constant 0; a variable, an iteration variable or accumulator 1; each
 *   field selection or index 1;
 * - a list literal LIST_CREATE_BASE (SPEC 8 says 40; cel-go's own constant is
 *   10), a map literal 30;
 * - `&&`, `||`, `?:` nothing beyond their operands;
 * - `==`, `!=` and ordering of strings or bytes ceil(0.1 x the shorter size);
 *   other comparisons, arithmetic and `!`, `-` 1; `+` of strings or bytes
 *   ceil(0.1 x both sizes); `in` a list its size;
 * - a function call its library's cost (CelLibrary.costs: `matches` is
 *   ceil(0.1 x (1 + input length)) x ceil(0.25 x regex length), the string
 *   functions Kubernetes' estimator's), otherwise 1;
 * - each iteration of a macro what cel-go's expansion evaluates besides the
 *   predicate: `all` 3, `exists` 4 (the loop condition and the accumulator),
 *   `exists_one` 1 or 2, `map` and `filter` the accumulator, a one-element list
 *   literal and the list concatenation; the result 1 (`exists_one` 2).
 * Sizes are code points for strings, bytes, elements and entries; anything
 * else has size 1. Call costs are charged before the call runs (they depend on
 * the arguments only), so no call starts beyond the budget.
 */

export const SELECT_AND_IDENT = 1;
export const LIST_CREATE_BASE = 40;
export const MAP_CREATE_BASE = 30;
export const STRING_TRAVERSAL_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_FACTOR = 0.25;

/** Kubernetes' per-expression budget (celconfig.PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;

/** cel-go's message when the budget is spent. */
export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';

export class CostLimitExceeded extends Error {
  constructor() {
    super(COST_LIMIT_MESSAGE);
  }
}

/** The cost spent by one evaluation, against its budget. */
export class CostMeter {
  spent = 0;
  /**
   * Sticky: CEL's `||`, `&&` and quantifiers absorb errors, so the throw alone
   * could be swallowed; cel-go's cancellation cannot be, and neither is this.
   */
  exceeded = false;

  /**
   * Set when the evaluation must stop for another reason than the budget (an
   * asynchronous value it needs, deferred.ts); sticky for the same reason, so
   * every later charge throws it again.
   */
  halted?: Error;

  constructor(readonly limit: number) {}

  halt(error: Error): void {
    this.halted ??= error;
  }

  charge(units: number): void {
    if (this.halted) throw this.halted;
    this.spent += units;
    if (this.spent > this.limit) {
      this.exceeded = true;
      throw new CostLimitExceeded();
    }
  }
}

/** cel-go's actualSize: a Sizer's size, otherwise 1. */
export function actualSize(value: unknown): number {
  if (typeof value === 'string') return codePointCount(value);
  if (value instanceof Uint8Array || Array.isArray(value)) return value.length;
  if (value instanceof Map || value instanceof Set) return value.size;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return Object.keys(value).length;
  return 1;
}

export function codePointCount(text: string): number {
  let count = text.length;
  // Each surrogate pair is one code point.
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** One traversal of a string of `size` units. */
export const traversal = (size: number, factor = STRING_TRAVERSAL_FACTOR): number => Math.ceil(size * factor);

const isSized = (v: unknown) => typeof v === 'string' || v instanceof Uint8Array;

/** An operator's cost from its operands (cel-go's costCall for the operator overloads). */
export function operatorCost(op: string, left: unknown, right: unknown): number {
  switch (op) {
    case '==':
    case '!=':
      return traversal(Math.min(actualSize(left), actualSize(right)));
    case '<':
    case '<=':
    case '>':
    case '>=':
      return isSized(left) && isSized(right) ? traversal(Math.min(actualSize(left), actualSize(right))) : 1;
    case '+':
      return isSized(left) && isSized(right) ? traversal(actualSize(left) + actualSize(right)) : 1;
    case 'in':
      return Array.isArray(right) || right instanceof Set ? actualSize(right) : 1;
    default:
      return 1;
  }
}

/** Kubernetes' traversalCost: 0.1 per UTF-8 byte of every string inside, 1 for anything else. */
export function traversalCost(value: unknown): number {
  if (typeof value === 'string') return Math.floor(Buffer.byteLength(value) * STRING_TRAVERSAL_FACTOR);
  if (value instanceof Uint8Array) return Math.floor(value.length * STRING_TRAVERSAL_FACTOR);
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + traversalCost(v), 0);
  if (value instanceof Map) return [...value].reduce((sum: number, [k, v]) => sum + traversalCost(k) + traversalCost(v), 0);
  return 1;
}
