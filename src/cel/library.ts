/**
 * What a function library of the expression language brings (SPEC 2.11): its
 * functions with their cel-go semantics, and their runtime cost (SPEC 8) as
 * upstream's cost estimator counts it. Libraries are plain data, so a later
 * one (lists, URLs, the authorizer, quantities) is added by listing it.
 */

/** One overload. */
export interface CelFunction {
  /**
   * The overload in cel-js's notation: `string.charAt(int): string` (receiver
   * type, name, argument types, result type), `isURL(string): bool`.
   */
  signature: string;
  /** The implementation; a receiver comes first. A thrown Error is the call's CEL error. */
  impl: (...args: any[]) => unknown;
  /**
   * The base library already declares this overload with other semantics
   * (JavaScript's string indices, its regular expressions): this implementation
   * runs instead, the declaration (and so type checking) stays.
   */
  replacesBuiltin?: boolean;
}

/** A call's cost from its argument values (receiver first), as cel-go's CallCost computes it. */
export type CallCost = (args: readonly unknown[]) => number;

export interface CelLibrary {
  name: string;
  functions: CelFunction[];
  /** Runtime cost by function name; a function without one costs 1, as in cel-go. */
  costs?: Record<string, CallCost>;
  /**
   * Checks of literal arguments at compile time, by function name (cel-go's
   * ValidateRegexLiterals): the check throws when the literal is unusable, and
   * the compile error reads `invalid <function> argument`.
   */
  literalArguments?: Record<string, { index: number; check: (value: string) => void }>;
}
