/**
 * Regular expressions of the expression language (SPEC 2.11, 8): RE2 syntax,
 * as cel-go's `matches` reads it, run in linear time. Node's own engine
 * backtracks, so a pattern like `^(a+)+$` against a hostile input could hold
 * the event loop for minutes; V8's experimental linear engine (the `l` flag)
 * never does, and refuses what it cannot run in linear time. That engine has
 * no `i`, `s`, `m` or `u` flags, so the RE2 pattern is rewritten: `(?i)` into
 * case-folded classes, `.` and negated classes into explicit alternatives
 * that step over a surrogate pair as one character (RE2 matches code points),
 * `\s` into RE2's ASCII spaces, POSIX classes into ranges.
 *
 * Not supported, refused with an error naming the pattern: Unicode classes
 * (`\pL`), `(?U)`, `(?m)` anywhere but at the start, classes with characters
 * beyond U+FFFF, and what V8's linear engine refuses (large bounded repeats).
 */
import { setFlagsFromString } from 'node:v8';

import { ASCII_SPACE, classText, complement, DIGIT, fail, foldRanges, literal, POSIX, RegexError, SURROGATE_PAIR, WORD } from './regex-classes.ts';

export { RegexError } from './regex-classes.ts';

// The bin sets it before compiling the bundle (BUNDLE_V8_FLAGS): V8 rejects a code cache made under other flags.
setFlagsFromString('--enable-experimental-regexp-engine');

interface Flags {
  i: boolean;
  s: boolean;
}

class Translator {
  private at = 0;
  multiline = false;

  constructor(private readonly src: string) {}

  translate(): string {
    const leading = /^\(\?([imsU]+)\)/.exec(this.src);
    const flags: Flags = { i: false, s: false };
    if (leading?.[1].includes('m')) this.multiline = true;
    const out = this.sequence(flags, 0);
    if (this.at < this.src.length) fail('unexpected )', this.src);
    return out;
  }

  private peek(offset = 0): string {
    return this.src[this.at + offset] ?? '';
  }

  private codePoint(): number {
    const cp = this.src.codePointAt(this.at)!;
    this.at += cp > 0xffff ? 2 : 1;
    return cp;
  }

  private sequence(flags: Flags, depth: number): string {
    let out = '';
    let canRepeat = false;
    let lastQuantifier = '';
    while (this.at < this.src.length) {
      const c = this.peek();
      if (c === ')') {
        if (depth === 0) fail('unexpected )', this.src);
        return out;
      }
      if (c === '|') {
        this.at++;
        out += '|';
        canRepeat = false;
        lastQuantifier = '';
        continue;
      }
      if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(,\d*)?\}/.test(this.src.slice(this.at)))) {
        const q = c === '{' ? /^\{(\d+)(?:,(\d*))?\}/.exec(this.src.slice(this.at))! : null;
        const text = q ? q[0] : c;
        if (!canRepeat) fail(lastQuantifier ? 'invalid nested repetition operator' : 'missing argument to repetition operator', lastQuantifier + text);
        if (q && (Number(q[1]) > 1000 || (q[2] && Number(q[2]) > 1000) || (q[2] && Number(q[2]) < Number(q[1])))) fail('invalid repeat count', text);
        this.at += text.length;
        out += text;
        lastQuantifier = text;
        if (this.peek() === '?') {
          this.at++;
          out += '?';
          lastQuantifier += '?';
        }
        canRepeat = false;
        continue;
      }
      canRepeat = true;
      lastQuantifier = '';
      if (c === '(') out += this.group(flags, depth);
      else if (c === '[') out += this.bracket(flags);
      else if (c === '\\') out += this.escape(flags);
      else if (c === '.') {
        this.at++;
        out += flags.s ? `(?:${SURROGATE_PAIR}|[^\\uD800-\\uDFFF])` : `(?:${SURROGATE_PAIR}|[^\\n\\uD800-\\uDFFF])`;
      } else if (c === '^' || c === '$') {
        this.at++;
        out += c;
        canRepeat = false;
      } else out += this.char(this.codePoint(), flags);
    }
    return out;
  }

  private char(cp: number, flags: Flags): string {
    if (!flags.i) return literal(cp);
    const folded = foldRanges([[cp, cp]]);
    return folded.length > 1 ? classText(folded, false, this.src) : literal(cp);
  }

  private group(flags: Flags, depth: number): string {
    const start = this.at;
    this.at++;
    let open = '(';
    const inner: Flags = { ...flags };
    if (this.peek() === '?') {
      const rest = this.src.slice(this.at);
      const named = /^\?P?<([A-Za-z0-9_]*)>/.exec(rest);
      const flagged = /^\?([imsU-]*)([:)])/.exec(rest);
      if (named) {
        if (!named[1]) fail('invalid named capture', this.src.slice(start, this.at + named[0].length));
        open = `(?<${named[1]}>`;
        this.at += named[0].length;
      } else if (flagged) {
        this.at += flagged[0].length;
        let on = true;
        for (const f of flagged[1]) {
          if (f === '-') on = false;
          else if (f === 'i' || f === 's') inner[f] = on;
          else if (f === 'U' || (f === 'm' && start !== 0)) fail('flag not supported by this server', this.src.slice(start, this.at));
        }
        if (flagged[2] === ')') {
          // (?flags) changes the rest of the enclosing group.
          Object.assign(flags, inner);
          return '';
        }
        open = '(?:';
      } else fail('invalid or unsupported Perl syntax', this.src.slice(start, start + 3));
    }
    const body = this.sequence(inner, depth + 1);
    if (this.peek() !== ')') fail('missing closing )', this.src);
    this.at++;
    return `${open}${body})`;
  }

  /** One escape outside a class. */
  private escape(flags: Flags): string {
    const start = this.at;
    this.at++;
    const c = this.peek();
    if (c === 'Q') {
      this.at++;
      const end = this.src.indexOf('\\E', this.at);
      const text = end < 0 ? this.src.slice(this.at) : this.src.slice(this.at, end);
      this.at = end < 0 ? this.src.length : end + 2;
      return [...text].map((ch) => this.char(ch.codePointAt(0)!, flags)).join('');
    }
    if (c === 'A' || c === 'z') {
      this.at++;
      if (this.multiline) fail('text anchors with (?m) are not supported by this server', this.src.slice(start, this.at));
      return c === 'A' ? '^' : '$';
    }
    if (c === 'b' || c === 'B') {
      this.at++;
      return `\\${c}`;
    }
    const ranges = this.classEscape(start);
    if (ranges) return classText(ranges.ranges, ranges.negate, this.src);
    return this.char(this.escapedCodePoint(start), flags);
  }

  /** `\d \s \w` and their negations as ranges, or undefined for another escape. */
  private classEscape(start: number): { ranges: Array<[number, number]>; negate: boolean } | undefined {
    const c = this.peek();
    const sets: Record<string, Array<[number, number]>> = { d: DIGIT, s: ASCII_SPACE, w: WORD };
    if (sets[c.toLowerCase()] && /[dswDSW]/.test(c)) {
      this.at++;
      return { ranges: sets[c.toLowerCase()], negate: c !== c.toLowerCase() };
    }
    if (c === 'p' || c === 'P') fail('Unicode classes are not supported by this server', this.src.slice(start, this.at + 2));
    return undefined;
  }

  /** A single-character escape: \n, \x41, \x{1F600}, \101, \. */
  private escapedCodePoint(start: number): number {
    const c = this.peek();
    const simple: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
    if (c in simple) {
      this.at++;
      return simple[c];
    }
    if (c === 'x') {
      const m = /^x(?:\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{2}))/.exec(this.src.slice(this.at));
      if (!m || parseInt(m[1] ?? m[2], 16) > 0x10ffff) fail('invalid escape sequence', this.src.slice(start, this.at + 2));
      this.at += m![0].length;
      return parseInt(m![1] ?? m![2], 16);
    }
    const octal = /^(?:0[0-7]{0,2}|[1-7][0-7]{1,2})/.exec(this.src.slice(this.at));
    if (octal) {
      this.at += octal[0].length;
      return parseInt(octal[0], 8);
    }
    if (c && /[!-/:-@[-`{-~]/.test(c)) {
      this.at++;
      return c.charCodeAt(0);
    }
    return fail('invalid escape sequence', this.src.slice(start, this.at + 1));
  }

  private bracket(flags: Flags): string {
    const start = this.at;
    this.at++;
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.at++;
    }
    let ranges: Array<[number, number]> = [];
    let first = true;
    while (this.peek() !== ']' || first) {
      if (this.at >= this.src.length) fail('missing closing ]', this.src.slice(start));
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.at));
      if (posix) {
        if (!POSIX[posix[2]]) fail('invalid character class range', posix[0]);
        this.at += posix[0].length;
        ranges.push(...(posix[1] ? complement(POSIX[posix[2]]) : POSIX[posix[2]]));
        continue;
      }
      if (this.peek() === '\\') {
        const escapeStart = this.at;
        this.at++;
        const set = this.classEscape(escapeStart);
        if (set) {
          ranges.push(...(set.negate ? complement(set.ranges) : set.ranges));
          continue;
        }
        this.at = escapeStart;
      }
      const lo = this.classAtom();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== '') {
        this.at++;
        const hi = this.classAtom();
        if (hi < lo) fail('invalid character class range', `${String.fromCodePoint(lo)}-${String.fromCodePoint(hi)}`);
        ranges.push([lo, hi]);
      } else ranges.push([lo, lo]);
    }
    this.at++;
    if (flags.i) ranges = foldRanges(ranges);
    return classText(ranges, negate, this.src);
  }

  private classAtom(): number {
    if (this.peek() !== '\\') return this.codePoint();
    const start = this.at;
    this.at++;
    return this.escapedCodePoint(start);
  }
}

const cache = new Map<string, RegExp>();
const CACHE_SIZE = 256;

/** A linear-time RegExp for an RE2 pattern; errors read as Go's `error parsing regexp: ...`. */
export function compileRe2(pattern: string): RegExp {
  const hit = cache.get(pattern);
  if (hit) return hit;
  const translator = new Translator(pattern);
  const source = translator.translate();
  let regex: RegExp;
  try {
    regex = new RegExp(source, translator.multiline ? 'lm' : 'l');
  } catch (err) {
    const why = /linear time/.test((err as Error).message) ? 'pattern cannot be matched in linear time by this server' : (err as Error).message;
    throw new RegexError(`error parsing regexp: ${why}: \`${pattern}\``);
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(pattern, regex);
  return regex;
}

const globalCache = new Map<string, RegExp>();

/**
 * Go's (*Regexp).FindAllString: the leftmost-first matches from left to
 * right, at most `limit` (negative: all); an empty match right after the
 * previous match is skipped, and after an empty match the search moves on by
 * one code point. Linear in the input per match, as `compileRe2` is.
 */
export function findAllRe2(pattern: string, text: string, limit: number): string[] {
  const base = compileRe2(pattern);
  let regex = globalCache.get(pattern);
  if (!regex) {
    regex = new RegExp(base.source, `${base.flags}g`);
    if (globalCache.size >= CACHE_SIZE) globalCache.delete(globalCache.keys().next().value!);
    globalCache.set(pattern, regex);
  }
  const found: string[] = [];
  let prevEnd = -1;
  for (let pos = 0; (limit < 0 || found.length < limit) && pos <= text.length; ) {
    regex.lastIndex = pos;
    const match = regex.exec(text);
    if (!match) break;
    const start = match.index;
    const end = start + match[0].length;
    let accept = true;
    if (end === pos) {
      if (start === prevEnd) accept = false;
      pos += pos < text.length ? (text.codePointAt(pos)! > 0xffff ? 2 : 1) : 1;
    } else pos = end;
    prevEnd = end;
    if (accept) found.push(match[0]);
  }
  return found;
}
