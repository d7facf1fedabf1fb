/**
 * Character classes for the RE2 translation (regex.ts): code point ranges,
 * RE2's POSIX and Perl classes, case folding, and their rendering for V8's
 * linear engine, which has no `u` flag: a negated class steps over a whole
 * surrogate pair, so it matches code points as RE2 does.
 */

export class RegexError extends Error {}

export const fail = (what: string, snippet: string): never => {
  throw new RegexError(`error parsing regexp: ${what}: \`${snippet}\``);
};

export const SURROGATE_PAIR = '[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]';
export const ASCII_SPACE: Array<[number, number]> = [[9, 10], [12, 13], [32, 32]];
export const DIGIT: Array<[number, number]> = [[48, 57]];
export const WORD: Array<[number, number]> = [[48, 57], [65, 90], [95, 95], [97, 122]];
export const POSIX: Record<string, Array<[number, number]>> = {
  alnum: [[48, 57], [65, 90], [97, 122]],
  alpha: [[65, 90], [97, 122]],
  ascii: [[0, 127]],
  blank: [[9, 9], [32, 32]],
  cntrl: [[0, 31], [127, 127]],
  digit: DIGIT,
  graph: [[33, 126]],
  lower: [[97, 122]],
  print: [[32, 126]],
  punct: [[33, 47], [58, 64], [91, 96], [123, 126]],
  space: [[9, 13], [32, 32]],
  upper: [[65, 90]],
  word: WORD,
  xdigit: [[48, 57], [65, 70], [97, 102]],
};

const hex4 = (cp: number) => `\\u${cp.toString(16).padStart(4, '0')}`;

/** One code point as JS pattern text (a surrogate pair as a group, so a quantifier takes both halves). */
export function literal(cp: number): string {
  if (cp <= 0xffff) return hex4(cp);
  const s = String.fromCodePoint(cp);
  return `(?:${hex4(s.charCodeAt(0))}${hex4(s.charCodeAt(1))})`;
}

/** RE2's simple case folding for ASCII letters (with the Kelvin sign and long s, as Go folds them), and single BMP characters otherwise. */
export function foldRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const out = [...ranges];
  const add = (cp: number) => out.push([cp, cp]);
  for (const [lo, hi] of ranges) {
    for (let cp = lo; cp <= Math.min(hi, lo + 2048); cp++) {
      const ch = String.fromCodePoint(cp);
      for (const other of [ch.toLowerCase(), ch.toUpperCase()]) if (other !== ch && [...other].length === 1) add(other.codePointAt(0)!);
      if (cp === 0x6b || cp === 0x4b) add(0x212a);
      if (cp === 0x73 || cp === 0x53) add(0x17f);
      if (cp === 0x212a) add(0x6b), add(0x4b);
      if (cp === 0x17f) add(0x73), add(0x53);
    }
  }
  return out;
}

export function classText(ranges: Array<[number, number]>, negate: boolean, pattern: string): string {
  if (ranges.some(([, hi]) => hi > 0xffff)) fail('character class beyond U+FFFF is not supported by this server', pattern);
  const body = ranges.map(([lo, hi]) => (lo === hi ? hex4(lo) : `${hex4(lo)}-${hex4(hi)}`)).join('');
  if (!negate) return ranges.length ? `[${body}]` : '[^\\s\\S]';
  // A negated class matches any code point outside it: a whole surrogate pair, or one BMP character.
  return `(?:${SURROGATE_PAIR}|[^${body}\\uD800-\\uDFFF])`;
}

/** The code points of the BMP outside `ranges` (enough for negated classes inside a class). */
export function complement(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= 0xffff) out.push([next, 0xffff]);
  return out;
}
