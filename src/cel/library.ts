/**
 * What a function library of the expression language brings (SPEC 2.11): its
 * functions with their cel-go semantics, and their runtime cost (SPEC 8) as
 * upstream's cost estimator counts it. Libraries are plain data, so a later
 * one (lists, URLs, the authorizer, quantities) is added by listing it.
 */
import type { CostEstimate, SizeEstimate } from './estimate-math.ts';

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

/**
 * A call's static estimate (cel-go checker.CallEstimate, SPEC 8): the call's
 * own cost, without its arguments' (the estimator adds those), and the size
 * of its result when the call builds a string, bytes or list.
 */
export type CallEstimate = (call: EstimatedCall) => { cost: CostEstimate; resultSize?: SizeEstimate } | undefined;

/** What a call estimator sees of a call (cel-go's target and argument AstNodes). */
export interface EstimatedCall {
  /** The receiver, for a member call. */
  target?: EstimatedNode;
  args: readonly EstimatedNode[];
}

/** cel-go checker.AstNode: a node's size as the estimator knows it, its element, its literal value. */
export interface EstimatedNode {
  /** The checked type's name, as cel-js writes it (`list<string>`). */
  type: string;
  /** The node's size when known: computed from the expression (cel-go ComputedSize), else from the caller's hints (EstimateSize). */
  knownSize(): SizeEstimate | undefined;
  /** Kubernetes' sizeEstimate: the known size, else unknown. */
  size(): SizeEstimate;
  /** A list's element (Kubernetes' listElementNode), or undefined for another type. */
  element(): EstimatedNode | undefined;
  /** The node's value when it is a literal. */
  literal?: unknown;
}

/** An opaque type a library brings (cel-go's ObjectType without fields): values are instances of `ctor`. */
export interface CelType {
  /** The type's name as cel-go prints it (`kubernetes.URL`). */
  name: string;
  ctor: new (...args: any[]) => object;
}

export interface CelLibrary {
  name: string;
  /** Opaque types, registered before the functions that use them. */
  types?: CelType[];
  functions: CelFunction[];
  /** Operator overloads in cel-js notation (`kubernetes.Quantity == kubernetes.Quantity`); `!=` follows `==`. */
  operators?: Array<{ signature: string; impl: (...args: any[]) => unknown }>;
  /** Runtime cost by function name; a function without one costs 1, as in cel-go. */
  costs?: Record<string, CallCost>;
  /** Static estimates by function name (Kubernetes' EstimateCallCost); a function without one is cel-go's standard estimate. */
  estimates?: Record<string, CallEstimate>;
  /**
   * Checks of literal arguments at compile time, by function name (cel-go's
   * ValidateRegexLiterals): the check throws when the literal is unusable, and
   * the compile error reads `invalid <function> argument`, or `detail(error)`
   * where upstream reports it when the program is built (cel-go's
   * RegexOptimization: `program instantiation failed: ...`).
   */
  literalArguments?: Record<string, { index: number; check: (value: string) => void; detail?: (error: Error) => string }>;
}
