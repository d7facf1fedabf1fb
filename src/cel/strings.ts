/**
 * The extended string functions of SPEC 2.11 with cel-go ext/strings
 * semantics (version 2, as Kubernetes 1.31 enables it): indices count code
 * points, `lowerAscii`/`upperAscii` change ASCII letters only, `trim` removes
 * Go's Unicode spaces, `split` and `replace` are Go's strings.SplitN and
 * strings.Replace, and errors carry cel-go's words. Costs are Kubernetes'
 * estimator's (pkg/cel/library/cost.go).
 */
import { actualSize, traversal, traversalCost } from './cost.ts';
import { add, byFactor, multiply, UNBOUNDED, type SizeEstimate } from './estimate-math.ts';
import { traverse } from './estimate-standard.ts';
import type { CallEstimate, CelLibrary } from './library.ts';

/** Longest string a function builds: Go would build any size; one JS string this large stalls the process. */
export const MAX_BUILT_STRING = 8 * 1024 * 1024;

const runes = (text: string): string[] => Array.from(text);
const outOfRange = (index: bigint | number): Error => new Error(`index out of range: ${index}`);

/** Go's unicode.IsSpace. */
const GO_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

function charAt(text: string, index: bigint): string {
  const chars = runes(text);
  if (index < 0n || index > BigInt(chars.length)) throw outOfRange(index);
  return index === BigInt(chars.length) ? '' : chars[Number(index)];
}

function indexOf(text: string, sub: string, offset = 0n): bigint {
  if (sub === '') return offset;
  const chars = runes(text);
  const subChars = runes(sub);
  if (offset < 0n || offset >= BigInt(chars.length)) throw outOfRange(offset);
  for (let i = Number(offset); i < chars.length - (subChars.length - 1); i++) {
    if (subChars.every((c, j) => chars[i + j] === c)) return BigInt(i);
  }
  return -1n;
}

function lastIndexOf(text: string, sub: string, offset?: bigint): bigint {
  const chars = runes(text);
  if (offset === undefined) {
    if (sub === '') return BigInt(chars.length);
    offset = BigInt(chars.length - 1);
  }
  if (sub === '') return offset;
  const subChars = runes(sub);
  if (offset < 0n || offset >= BigInt(chars.length)) throw outOfRange(offset);
  for (let i = Math.min(Number(offset), chars.length - subChars.length); i >= 0; i--) {
    if (subChars.every((c, j) => chars[i + j] === c)) return BigInt(i);
  }
  return -1n;
}

const mapAscii = (text: string, change: (c: string) => string) => text.replace(/[A-Za-z]/g, change);

/** Go's strings.Replace: n < 0 replaces all; an empty `old` inserts before every code point and at the end. */
function replace(text: string, old: string, replacement: string, n = -1n): string {
  if (old === replacement || n === 0n) return text;
  const pieces = old === '' ? ['', ...runes(text), ''] : text.split(old);
  const matches = pieces.length - 1;
  const count = n < 0n || BigInt(matches) < n ? matches : Number(n);
  if (count === 0) return text;
  const size = text.length + count * (replacement.length - old.length);
  if (size > MAX_BUILT_STRING) throw new Error(`replace: result longer than ${MAX_BUILT_STRING} characters`);
  if (old === '') return pieces.slice(0, count + 1).join(replacement) + pieces.slice(count + 1).join('');
  return pieces.slice(0, count + 1).join(replacement) + (count < matches ? old + pieces.slice(count + 1).join(old) : '');
}

/** Go's strings.SplitN (n < 0: all; 0: none; an empty separator splits into code points). */
function split(text: string, separator: string, n = -1n): string[] {
  if (n === 0n) return [];
  if (separator === '') {
    const chars = runes(text);
    const count = n < 0n || n > BigInt(chars.length) ? chars.length : Number(n);
    if (count === 0) return [];
    return [...chars.slice(0, count - 1), chars.slice(count - 1).join('')];
  }
  const parts = text.split(separator);
  if (n < 0n || BigInt(parts.length) <= n) return parts;
  const count = Number(n);
  return [...parts.slice(0, count - 1), parts.slice(count - 1).join(separator)];
}

function substring(text: string, start: bigint, end?: bigint): string {
  const chars = runes(text);
  if (end !== undefined && start > end) throw new Error(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > BigInt(chars.length)) throw outOfRange(start);
  if (end !== undefined && (end < 0n || end > BigInt(chars.length))) throw outOfRange(end);
  return chars.slice(Number(start), end === undefined ? undefined : Number(end)).join('');
}

function join(list: unknown[], separator = ''): string {
  for (const item of list) if (typeof item !== 'string') throw new Error(`join: invalid input: ${String(item)}`);
  return list.join(separator);
}

/** The result size of a join, known before it is built (Kubernetes charges for the result). */
function joinedSize(args: readonly unknown[]): number {
  const list = args[0] as unknown[];
  const separator = typeof args[1] === 'string' ? actualSize(args[1]) : 0;
  return list.reduce((sum: number, item) => sum + actualSize(item), 0) + Math.max(0, list.length - 1) * separator;
}

/** Kubernetes' estimate of a function that traverses its receiver once and returns a string no longer than it. */
const receiverTraversal: CallEstimate = ({ target }) => {
  if (!target) return undefined;
  const size = target.size();
  return { cost: traverse(size), resultSize: size };
};

const less1 = (n: number) => (n === 0 ? 0 : n >= UNBOUNDED ? UNBOUNDED : n - 1);
const plus1 = (n: number) => (n >= UNBOUNDED ? n : n + 1);
const ceilDivide = (n: number, d: number) => (n >= UNBOUNDED ? UNBOUNDED : Math.ceil(n / d));

/**
 * Kubernetes' estimate of replace: a traversal and the construction of the
 * result, whose size is bounded by replacing as many of the shortest
 * matches as fit with the longest replacement (the most), and the longest
 * matches with the shortest replacement (the least).
 */
const replaceEstimate: CallEstimate = ({ target, args }) => {
  if (!target || args.length < 2) return undefined;
  const size = target.size();
  const old = args[0].size();
  const replacement = args[1].size();
  const count: SizeEstimate = { min: 0, max: 0 };
  const retained: SizeEstimate = { min: 0, max: 0 };
  if (old.min === 0) [count.max, retained.max] = [plus1(size.max), size.max];
  else if (replacement.max <= old.min) retained.max = size.max;
  else count.max = ceilDivide(size.max, old.min);
  if (old.max === 0) [count.min, retained.min] = [plus1(size.min), size.min];
  else if (old.max <= replacement.min) retained.min = size.min;
  else count.min = ceilDivide(size.min, old.max);
  return { cost: byFactor(size, 0.2), resultSize: add(multiply(count, replacement), retained) };
};

/** Kubernetes' estimate of split: at most one element per code point, or the literal limit (a negative one is Go's uint64 of it: unbounded). */
const splitEstimate: CallEstimate = ({ target, args }) => {
  if (!target) return undefined;
  const size = target.size();
  const limit = args[1]?.literal;
  const max = typeof limit === 'bigint' ? (limit < 0n ? UNBOUNDED : Math.min(Number(limit), UNBOUNDED)) : size.max;
  return { cost: byFactor(size, 0.2), resultSize: { min: 0, max } };
};

/** Kubernetes' estimate of join: a traversal of the result, every element at its largest, with a separator between each two. */
const joinEstimate: CallEstimate = ({ target, args }) => {
  if (!target) return undefined;
  const count = target.size();
  const element = target.element();
  let size: SizeEstimate = element ? multiply(count, element.size()) : { min: 0, max: 0 };
  if (args.length > 0) size = add(size, multiply(args[0].size(), { min: less1(count.min), max: less1(count.max) }));
  return { cost: traverse(size), resultSize: size };
};

export const stringsLibrary: CelLibrary = {
  name: 'strings',
  functions: [
    { signature: 'string.charAt(int): string', impl: charAt },
    { signature: 'string.indexOf(string): int', impl: (s: string, sub: string) => indexOf(s, sub), replacesBuiltin: true },
    { signature: 'string.indexOf(string, int): int', impl: indexOf, replacesBuiltin: true },
    { signature: 'string.lastIndexOf(string): int', impl: (s: string, sub: string) => lastIndexOf(s, sub), replacesBuiltin: true },
    { signature: 'string.lastIndexOf(string, int): int', impl: lastIndexOf, replacesBuiltin: true },
    { signature: 'string.lowerAscii(): string', impl: (s: string) => mapAscii(s, (c) => c.toLowerCase()), replacesBuiltin: true },
    { signature: 'string.upperAscii(): string', impl: (s: string) => mapAscii(s, (c) => c.toUpperCase()), replacesBuiltin: true },
    { signature: 'string.replace(string, string): string', impl: (s: string, o: string, r: string) => replace(s, o, r) },
    { signature: 'string.replace(string, string, int): string', impl: replace },
    { signature: 'string.split(string): list<string>', impl: (s: string, sep: string) => split(s, sep), replacesBuiltin: true },
    { signature: 'string.split(string, int): list<string>', impl: split, replacesBuiltin: true },
    { signature: 'string.substring(int): string', impl: (s: string, start: bigint) => substring(s, start), replacesBuiltin: true },
    { signature: 'string.substring(int, int): string', impl: substring, replacesBuiltin: true },
    { signature: 'string.trim(): string', impl: (s: string) => s.replace(GO_SPACE, ''), replacesBuiltin: true },
    { signature: 'list<string>.join(): string', impl: (l: unknown[]) => join(l), replacesBuiltin: true },
    { signature: 'list<string>.join(string): string', impl: join, replacesBuiltin: true },
  ],
  costs: {
    indexOf: (args) => traversalCost(args[0]),
    lastIndexOf: (args) => traversalCost(args[0]),
    lowerAscii: (args) => traversal(actualSize(args[0])),
    upperAscii: (args) => traversal(actualSize(args[0])),
    substring: (args) => traversal(actualSize(args[0])),
    trim: (args) => traversal(actualSize(args[0])),
    replace: (args) => traversal(actualSize(args[0]), 0.2),
    split: (args) => traversal(actualSize(args[0]), 0.2),
    join: (args) => traversal(joinedSize(args), 0.2),
  },
  // charAt has none in Kubernetes' estimator: cel-go's 1. indexOf and lastIndexOf: the lists library's.
  estimates: {
    lowerAscii: receiverTraversal,
    upperAscii: receiverTraversal,
    substring: receiverTraversal,
    trim: receiverTraversal,
    replace: replaceEstimate,
    split: splitEstimate,
    join: joinEstimate,
  },
};
