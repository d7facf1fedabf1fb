/**
 * Kubernetes' regex library (SPEC 2.11; upstream pkg/cel/library/regex.go):
 * `find` and `findAll` with Go's RE2 semantics, run in linear time by the
 * same engine as `matches` (regex.ts). A literal pattern that does not
 * compile fails when the program is built, as cel-go's RegexOptimization
 * does; another fails the call with `Illegal regex: ...`. Costs are
 * upstream's estimator's (SPEC 8, cost.go): the input traversal times the
 * pattern length factor.
 */
import { actualSize, REGEX_STRING_LENGTH_FACTOR, traversal } from './cost.ts';
import { regexCost as regexEstimate } from './estimate-standard.ts';
import type { CallEstimate, CelLibrary } from './library.ts';
import { compileRe2, findAllRe2 } from './regex.ts';

function findAll(text: string, pattern: string, limit = -1n): string[] {
  try {
    compileRe2(pattern);
  } catch (err) {
    throw new Error(`Illegal regex: ${(err as Error).message}`);
  }
  if (limit === 0n) return [];
  // Go's int: a limit past any possible match count is as good as all.
  return findAllRe2(pattern, text, limit < 0n || limit > BigInt(text.length + 1) ? -1 : Number(limit));
}

const find = (text: string, pattern: string): string => findAll(text, pattern, 1n)[0] ?? '';

const regexCost = (args: readonly unknown[]) => traversal(1 + actualSize(args[0])) * traversal(actualSize(args[1]), REGEX_STRING_LENGTH_FACTOR);

/** Kubernetes' estimate: cel-go's regex cost; at worst every code point is a match of its own. */
const findEstimate: CallEstimate = ({ target, args }) => {
  if (!target || args.length < 1) return undefined;
  const input = target.size();
  return { cost: regexEstimate(input, args[0].size()), resultSize: { min: 0, max: input.max } };
};

const programCheck = { index: 1, check: (pattern: string) => void compileRe2(pattern), detail: (err: Error) => `program instantiation failed: ${err.message}` };

export const regexLibrary: CelLibrary = {
  name: 'kubernetes.regex',
  functions: [
    { signature: 'string.find(string): string', impl: find },
    { signature: 'string.findAll(string): list<string>', impl: (text: string, pattern: string) => findAll(text, pattern) },
    { signature: 'string.findAll(string, int): list<string>', impl: findAll },
  ],
  costs: { find: regexCost, findAll: regexCost },
  estimates: { find: findEstimate, findAll: findEstimate },
  literalArguments: { find: programCheck, findAll: programCheck },
};
