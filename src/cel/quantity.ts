/**
 * Kubernetes' quantity library (SPEC 2.11; upstream pkg/cel/library/
 * quantity.go, pkg/cel/quantity.go and apimachinery's resource.Quantity):
 * `isQuantity`, `quantity` and the functions of the opaque type
 * `kubernetes.Quantity`, on the project's resource.Quantity parser
 * (api/quantity.ts). Arithmetic and comparison are exact
 * (decimal digits and BigInt, never floats). As upstream, a quantity is
 * either an int64 amount (what the parser's fast path and int64 arithmetic
 * give) or an arbitrary decimal, and only an int64 amount with a
 * non-negative scale is an integer (`quantity("1000m").isInteger()` is false
 * there too). `sign` is a global function, as upstream declares it. Two
 * quantities are equal when their values are. Costs (SPEC 8, cost.go):
 * `quantity` and `isQuantity` one traversal of the text, the rest 1.
 */
import { actualSize, traversal } from './cost.ts';
import { nominalEstimate, traverse } from './estimate-standard.ts';
import type { CallEstimate, CelLibrary } from './library.ts';
import { compareQuantities, parseQuantity, type Quantity } from '../api/quantity.ts';

const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);
/** The widest exponent gap exact arithmetic aligns (10^gap is built); beyond it the call fails rather than stall. */
const MAX_ALIGNMENT = 100_000;
const NANO = -9;

const inInt64 = (v: bigint) => v >= MIN_INT64 && v <= MAX_INT64;

/** A `kubernetes.Quantity` value: ±digits × 10^exponent, an int64 amount when `fast`. */
export class CelQuantity {
  readonly #q: Quantity;

  constructor(q: Quantity) {
    this.#q = q;
  }

  get quantity(): Quantity {
    return this.#q;
  }

  equals(other: unknown): boolean {
    return other instanceof CelQuantity && compareQuantities(this.#q, other.#q) === 0;
  }
}

const mantissa = (q: Quantity): bigint => (q.negative ? -BigInt(q.digits) : BigInt(q.digits));

function make(value: bigint, exponent: number, fast: boolean): CelQuantity {
  const negative = value < 0n;
  return new CelQuantity({ negative, digits: String(negative ? -value : value), exponent, format: 'DecimalSI', fast });
}

/** value × 10^scale when it fits an int64 (upstream positiveScaleInt64). */
function scaleUp(value: bigint, scale: number): bigint | undefined {
  if (value === 0n) return 0n;
  if (scale > 19) return undefined;
  const scaled = value * 10n ** BigInt(scale);
  return inInt64(scaled) ? scaled : undefined;
}

/** Upstream int64Amount.Add: the sum as an int64 amount, or undefined where it would overflow. */
function addInt64(a: Quantity, bValue: bigint, bExponent: number): CelQuantity | undefined {
  const aValue = mantissa(a);
  if (bValue === 0n) return new CelQuantity({ ...a, cached: undefined });
  if (aValue === 0n) return make(bValue, bExponent, true);
  const exponent = Math.min(a.exponent, bExponent);
  const x = scaleUp(aValue, a.exponent - exponent);
  const y = scaleUp(bValue, bExponent - exponent);
  if (x === undefined || y === undefined || !inInt64(x + y)) return undefined;
  return make(x + y, exponent, true);
}

/** inf.Dec addition: exact, at the finer of the two scales. */
function addExact(a: Quantity, bValue: bigint, bExponent: number): CelQuantity {
  const exponent = Math.min(a.exponent, bExponent);
  const aValue = mantissa(a);
  const gap = Math.max(aValue === 0n ? 0 : a.exponent - exponent, bValue === 0n ? 0 : bExponent - exponent);
  if (gap > MAX_ALIGNMENT) throw new Error('quantity arithmetic out of range');
  const x = aValue === 0n ? 0n : aValue * 10n ** BigInt(a.exponent - exponent);
  const y = bValue === 0n ? 0n : bValue * 10n ** BigInt(bExponent - exponent);
  return make(x + y, exponent, false);
}

function add(a: CelQuantity, b: CelQuantity | bigint): CelQuantity {
  const [value, exponent, fast] = typeof b === 'bigint' ? [b, 0, true] : [mantissa(b.quantity), b.quantity.exponent, !!b.quantity.fast];
  return (a.quantity.fast && fast && addInt64(a.quantity, value, exponent)) || addExact(a.quantity, value, exponent);
}

function sub(a: CelQuantity, b: CelQuantity | bigint): CelQuantity {
  const [value, exponent, fast] = typeof b === 'bigint' ? [b, 0, true] : [mantissa(b.quantity), b.quantity.exponent, !!b.quantity.fast];
  // Upstream int64Amount.Sub adds the negated int64, which wraps for the most negative one.
  const fastResult = a.quantity.fast && fast && addInt64(a.quantity, BigInt.asIntN(64, -value), exponent);
  return fastResult || addExact(a.quantity, -value, exponent);
}

/** Upstream Quantity.AsInt64: an int64 amount at a non-negative scale that fits. */
function asInt64(q: CelQuantity): bigint | undefined {
  const { fast, exponent } = q.quantity;
  if (!fast || exponent < 0) return undefined;
  return scaleUp(mantissa(q.quantity), exponent);
}

function asInteger(q: CelQuantity): bigint {
  const value = asInt64(q);
  if (value === undefined) throw new Error('cannot convert value to integer');
  return value;
}

const POW10 = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = [1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288];
const POW10_NEG32 = [1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320];

/** Go's math.Pow10, table for table, so that products round as Go's do. */
function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_POS32[n >>> 5] * POW10[n & 31];
  if (n <= 0 && n >= -323) return POW10_NEG32[-n >>> 5] / POW10[-n & 31];
  return n > 0 ? Infinity : 0;
}

/** Upstream AsApproximateFloat64: float64(unscaled) × Pow10(exponent), so it rounds where Go's does. */
function asApproximateFloat(q: CelQuantity): number {
  const base = Number(mantissa(q.quantity));
  return q.quantity.exponent === 0 ? base : base * goPow10(q.quantity.exponent);
}

/**
 * A parsed quantity as upstream holds it: a decimal (off the fast path) is
 * rounded to nano scale, so its unscaled value carries the digits down to
 * 10^-9 (what asApproximateFloat reads, and what later sums align to).
 */
function fromText(text: string): CelQuantity {
  const q = parseQuantity(text);
  if (q.fast || q.digits === '0' || q.exponent <= NANO || q.exponent - NANO > MAX_ALIGNMENT) return new CelQuantity(q);
  return new CelQuantity({ ...q, digits: q.digits + '0'.repeat(q.exponent - NANO), exponent: NANO });
}

function sign(q: CelQuantity): bigint {
  const { digits, negative } = q.quantity;
  return digits === '0' ? 0n : negative ? -1n : 1n;
}

function isQuantity(text: string): boolean {
  try {
    parseQuantity(text);
    return true;
  } catch {
    return false;
  }
}

const compare = (a: CelQuantity, b: CelQuantity): number => compareQuantities(a.quantity, b.quantity);

const Q = 'kubernetes.Quantity';

/** Kubernetes' estimate of a parse: one traversal of the text. */
const parseEstimate: CallEstimate = ({ args }) => (args.length >= 1 ? { cost: traverse(args[0].size()) } : undefined);

export const quantityLibrary: CelLibrary = {
  name: 'kubernetes.quantity',
  types: [{ name: Q, ctor: CelQuantity }],
  functions: [
    { signature: `quantity(string): ${Q}`, impl: fromText },
    { signature: 'isQuantity(string): bool', impl: isQuantity },
    { signature: `sign(${Q}): int`, impl: sign },
    { signature: `${Q}.isGreaterThan(${Q}): bool`, impl: (a: CelQuantity, b: CelQuantity) => compare(a, b) === 1 },
    { signature: `${Q}.isLessThan(${Q}): bool`, impl: (a: CelQuantity, b: CelQuantity) => compare(a, b) === -1 },
    { signature: `${Q}.compareTo(${Q}): int`, impl: (a: CelQuantity, b: CelQuantity) => BigInt(compare(a, b)) },
    { signature: `${Q}.asApproximateFloat(): double`, impl: asApproximateFloat },
    { signature: `${Q}.asInteger(): int`, impl: asInteger },
    { signature: `${Q}.isInteger(): bool`, impl: (q: CelQuantity) => asInt64(q) !== undefined },
    { signature: `${Q}.add(${Q}): ${Q}`, impl: add },
    { signature: `${Q}.add(int): ${Q}`, impl: add },
    { signature: `${Q}.sub(${Q}): ${Q}`, impl: sub },
    { signature: `${Q}.sub(int): ${Q}`, impl: sub },
  ],
  operators: [{ signature: `${Q} == ${Q}`, impl: (a: CelQuantity, b: CelQuantity) => a.equals(b) }],
  costs: {
    quantity: (args) => traversal(actualSize(args[0])),
    isQuantity: (args) => traversal(actualSize(args[0])),
  },
  estimates: {
    quantity: parseEstimate,
    isQuantity: parseEstimate,
    ...Object.fromEntries(['sign', 'asInteger', 'isInteger', 'asApproximateFloat', 'isGreaterThan', 'isLessThan', 'compareTo', 'add', 'sub'].map((name) => [name, nominalEstimate])),
  },
};
