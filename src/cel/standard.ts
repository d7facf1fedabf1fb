/**
 * The standard functions' costs (cel-go's costCall, SPEC 8) and the one
 * standard function whose library semantics differ from cel-go's: `matches`
 * reads RE2 and runs in linear time (regex.ts) instead of JavaScript's
 * backtracking engine. Literal patterns are checked at compile time, as
 * Kubernetes' ValidateRegexLiterals does.
 */
import { actualSize, REGEX_STRING_LENGTH_FACTOR, traversal } from './cost.ts';
import type { CelLibrary } from './library.ts';
import { compileRe2 } from './regex.ts';

const matches = (text: string, pattern: string): boolean => compileRe2(pattern).test(text);

export const standardLibrary: CelLibrary = {
  name: 'standard',
  functions: [
    { signature: 'string.matches(string): bool', impl: matches, replacesBuiltin: true },
    { signature: 'matches(string, string): bool', impl: matches },
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
