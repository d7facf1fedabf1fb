/**
 * The arithmetic of static cost estimates (SPEC 8): cel-go's CostEstimate and
 * SizeEstimate ranges (checker/cost.go), whose uint64 sums and products
 * saturate at math.MaxUint64 instead of wrapping. Here the saturation point is
 * UNBOUNDED (Number.MAX_SAFE_INTEGER): every value above it is "unbounded",
 * so far beyond Kubernetes' limits (10^7 per rule, 10^8 per definition) that
 * any comparison with them answers as cel-go's would.
 */

/** cel-go checker.CostEstimate: the least and the most an evaluation can cost, in SPEC 8 units; UNBOUNDED when unknown. */
export interface CostEstimate {
  min: number;
  max: number;
}

/** cel-go checker.SizeEstimate: the least and most size (string/bytes length, list or map element count) a value can have. */
export interface SizeEstimate {
  min: number;
  max: number;
}

/** cel-go's math.MaxUint64 of an estimate: unknown, unbounded. */
export const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** cel-go's UnknownSizeEstimate. */
export const unknownSize = (): SizeEstimate => ({ min: 0, max: UNBOUNDED });

/** cel-go's FixedCostEstimate / FixedSizeEstimate. */
export const fixed = (n: number): CostEstimate => ({ min: n, max: n });

/** cel-go addUint64NoOverflow. */
export const addSaturating = (x: number, y: number): number => (x >= UNBOUNDED || y >= UNBOUNDED ? UNBOUNDED : Math.min(x + y, UNBOUNDED));

/** cel-go multiplyUint64NoOverflow: zero times anything is zero, even unbounded. */
export const multiplySaturating = (x: number, y: number): number => {
  if (x === 0 || y === 0) return 0;
  return x >= UNBOUNDED || y >= UNBOUNDED ? UNBOUNDED : Math.min(x * y, UNBOUNDED);
};

/** cel-go multiplyByCostFactor: the product rounded up, unbounded staying unbounded. */
export const multiplyByFactor = (x: number, factor: number): number => {
  if (x >= UNBOUNDED && factor > 0) return UNBOUNDED;
  return Math.min(Math.ceil(x * factor), UNBOUNDED);
};

/** CostEstimate.Add / SizeEstimate.Add. */
export const add = (a: CostEstimate, b: CostEstimate): CostEstimate => ({ min: addSaturating(a.min, b.min), max: addSaturating(a.max, b.max) });

/** CostEstimate.Multiply / SizeEstimate.Multiply / SizeEstimate.MultiplyByCost. */
export const multiply = (a: CostEstimate, b: CostEstimate): CostEstimate => ({ min: multiplySaturating(a.min, b.min), max: multiplySaturating(a.max, b.max) });

/** MultiplyByCostFactor of a cost or a size. */
export const byFactor = (a: CostEstimate, factor: number): CostEstimate => ({ min: multiplyByFactor(a.min, factor), max: multiplyByFactor(a.max, factor) });

/** Union: the range covering both. */
export const union = (a: CostEstimate, b: CostEstimate): CostEstimate => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });

/** The sum of several estimates. */
export const sum = (estimates: readonly CostEstimate[]): CostEstimate => estimates.reduce(add, fixed(0));
