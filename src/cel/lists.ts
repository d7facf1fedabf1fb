/**
 * Kubernetes' list library (SPEC 2.11; upstream pkg/cel/library/lists.go, as
 * Kubernetes 1.31 enables it): `isSorted`, `sum`, `min`, `max` for lists of
 * the comparable types (sum: int, uint, double, duration), and `indexOf`,
 * `lastIndexOf` for any element type, with cel-go's ordering and equality
 * (values.ts). Each is one traversal, costed as upstream's estimator counts it
 * (SPEC 8, cost.go: traversalCost of the list).
 */
import { traversalCost } from './cost.ts';
import { add, fixed, multiply } from './estimate-math.ts';
import { traverse } from './estimate-standard.ts';
import type { CallEstimate, CelFunction, CelLibrary } from './library.ts';
import { celEquals, compareValues, duration, durationNanos, uint } from './values.ts';

const COMPARABLE = ['int', 'uint', 'double', 'bool', 'string', 'bytes', 'google.protobuf.Duration', 'google.protobuf.Timestamp'];

const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);
const MAX_UINT64 = 2n ** 64n - 1n;

/** A comparison that is an error in cel-go (NaN) is not the result it looks for, and the walk goes on. */
function isSorted(list: unknown[]): boolean {
  for (let i = 1; i < list.length; i++) if (compareValues(list[i - 1], list[i]) === 1) return false;
  return true;
}

/** cel-go's min (prefer: 1, a later smaller element) and max (prefer: -1); the first of equals wins. */
const extreme = (name: string, prefer: number) => (list: unknown[]) => {
  if (list.length === 0) throw new Error(`${name} called on empty list`);
  let result = list[0];
  for (let i = 1; i < list.length; i++) if (compareValues(result, list[i]) === prefer) result = list[i];
  return result;
};

/** Checked sums with cel-go's overflow errors. */
const SUMS: Record<string, (list: any[]) => unknown> = {
  int: (list: bigint[]) => {
    let total = 0n;
    for (const v of list) {
      total += v;
      if (total > MAX_INT64 || total < MIN_INT64) throw new Error('integer overflow');
    }
    return total;
  },
  uint: (list: Array<{ valueOf(): bigint }>) => {
    let total = 0n;
    for (const v of list) {
      total += v.valueOf();
      if (total > MAX_UINT64) throw new Error('unsigned integer overflow');
    }
    return uint(total);
  },
  double: (list: number[]) => list.reduce((a, b) => a + b, 0),
  'google.protobuf.Duration': (list: Array<{ seconds: bigint; nanos: number }>) => {
    let total = 0n;
    for (const v of list) {
      total += durationNanos(v);
      if (total > MAX_INT64 || total < MIN_INT64) throw new Error('duration overflow');
    }
    return duration(total);
  },
};

function indexOf(list: unknown[], item: unknown): bigint {
  for (let i = 0; i < list.length; i++) if (celEquals(list[i], item)) return BigInt(i);
  return -1n;
}

function lastIndexOf(list: unknown[], item: unknown): bigint {
  for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i], item)) return BigInt(i);
  return -1n;
}

/**
 * Kubernetes' estimate of one traversal (EstimateCallCost for isSorted, sum,
 * min, max, indexOf, lastIndexOf): 1 per element, plus a traversal of each
 * element that is a string or bytes; of a string receiver (indexOf,
 * lastIndexOf of the strings library), one traversal.
 */
const traversalEstimate: CallEstimate = ({ target }) => {
  if (!target) return undefined;
  const element = target.element();
  if (!element) return { cost: traverse(target.size()) };
  const perElement = element.type === 'string' || element.type === 'bytes' ? add(fixed(1), traverse(element.size())) : fixed(1);
  return { cost: multiply(target.size(), perElement) };
};

const perType = (types: string[], make: (t: string) => CelFunction): CelFunction[] => types.map(make);

export const listsLibrary: CelLibrary = {
  name: 'kubernetes.lists',
  functions: [
    ...perType(COMPARABLE, (t) => ({ signature: `list<${t}>.isSorted(): bool`, impl: isSorted })),
    ...perType(Object.keys(SUMS), (t) => ({ signature: `list<${t}>.sum(): ${t}`, impl: SUMS[t] })),
    ...perType(COMPARABLE, (t) => ({ signature: `list<${t}>.min(): ${t}`, impl: extreme('min', 1) })),
    ...perType(COMPARABLE, (t) => ({ signature: `list<${t}>.max(): ${t}`, impl: extreme('max', -1) })),
    { signature: 'list<A>.indexOf(A): int', impl: indexOf },
    { signature: 'list<A>.lastIndexOf(A): int', impl: lastIndexOf },
  ],
  // One traversal each (cost.go: "these O(n) operations all cost roughly the cost of a single traversal").
  costs: {
    isSorted: (args) => traversalCost(args[0]),
    sum: (args) => traversalCost(args[0]),
    min: (args) => traversalCost(args[0]),
    max: (args) => traversalCost(args[0]),
    indexOf: (args) => traversalCost(args[0]),
    lastIndexOf: (args) => traversalCost(args[0]),
  },
  // indexOf and lastIndexOf of strings too: Kubernetes' estimator tells them apart by the receiver only.
  estimates: Object.fromEntries(['isSorted', 'sum', 'min', 'max', 'indexOf', 'lastIndexOf'].map((name) => [name, traversalEstimate])),
};
