/**
 * The standard functions' costs (cel-go's costCall, SPEC 8) and the one
 * standard function whose library semantics differ from cel-go's: `matches`
 * reads RE2 and runs in linear time (regex.ts) instead of JavaScript's
 * backtracking engine. Literal patterns are checked at compile time, as
 * Kubernetes' ValidateRegexLiterals does. And `optional.ofNonZeroValue`,
 * which cel-go's optional types have and cel-js's lack.
 */
import { actualSize, REGEX_STRING_LENGTH_FACTOR, traversal } from './cost.ts';
import type { CelLibrary } from './library.ts';
import { compileRe2 } from './regex.ts';
import { cel } from '../util/lazy-packages.ts';
import { durationNanos, isDuration, isUint } from './values.ts';

const matches = (text: string, pattern: string): boolean => compileRe2(pattern).test(text);

/** cel-go's zero values (IsZeroValue) for optional.ofNonZeroValue. */
function isZero(v: unknown): boolean {
  if (v === null || v === false || v === '' || v === 0 || v === 0n) return true;
  if (isUint(v)) return (v as { valueOf(): bigint }).valueOf() === 0n;
  if (isDuration(v)) return durationNanos(v) === 0n;
  if (v instanceof Date) return v.getTime() === 0;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  return !!v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).length === 0;
}

export const standardLibrary: CelLibrary = {
  name: 'standard',
  functions: [
    { signature: 'string.matches(string): bool', impl: matches, replacesBuiltin: true },
    { signature: 'matches(string, string): bool', impl: matches },
    // cel-go's optional library has it; cel-js's lacks it.
    {
      signature: 'OptionalNamespace.ofNonZeroValue(A): optional<A>',
      impl: (_: unknown, v: unknown) => (isZero(v) ? cel().Optional.none() : cel().Optional.of(v)),
    },
  ],
  costs: {
    startsWith: (args) => traversal(actualSize(args[0])),
    endsWith: (args) => traversal(actualSize(args[0])),
    contains: (args) => traversal(actualSize(args[0])) * traversal(actualSize(args[1])),
    matches: (args) => traversal(1 + actualSize(args[0])) * traversal(actualSize(args[1]), REGEX_STRING_LENGTH_FACTOR),
    // Only the string <-> bytes conversions traverse; the others are 1.
    string: (args) => (args[0] instanceof Uint8Array ? traversal(actualSize(args[0])) : 1),
    bytes: (args) => (typeof args[0] === 'string' ? traversal(actualSize(args[0])) : 1),
  },
  literalArguments: {
    matches: { index: 1, check: (pattern) => void compileRe2(pattern) },
  },
};
