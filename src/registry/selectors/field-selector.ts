/**
 * Field selectors (SPEC 4.3 `fieldSelector`; FACTS 1.1, 6.3). Translated from
 * upstream apimachinery pkg/fields/selector.go `ParseSelector`: terms split on
 * unescaped `,`, sorted, each `field=value`, `field==value` or `field!=value`;
 * values unescape `\\`, `\,`, `\=`.
 */
import { byteCompare, SelectorParseError } from './label-selector.ts';

export { SelectorParseError };

export interface FieldRequirement {
  field: string;
  /** `=` also stands for `==` (upstream selection.Equals) */
  operator: '=' | '!=';
  value: string;
}

/** Upstream fields.UnescapeValue; throws with upstream's message. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go prints the rune with %v, i.e. its code point number.
      throw new SelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new SelectorParseError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Upstream fields.EscapeValue. */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

function splitTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

function splitTerm(term: string): [string, '!=' | '==' | '=', string] | null {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return null;
}

/**
 * Parses a field selector string. Empty terms are skipped; requirements come
 * back in upstream's order (terms sorted as strings). Throws
 * SelectorParseError, e.g. `invalid selector: 'x'; can't understand 'x'`.
 */
export function parseFieldSelector(s: string): FieldRequirement[] {
  const parts = splitTerms(s).sort(byteCompare);
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw new SelectorParseError(`invalid selector: '${s}'; can't understand '${part}'`);
    const [field, op, rhs] = split;
    const value = unescapeFieldValue(rhs);
    if (field === '' && value === '') continue; // upstream Transform turns an empty term into Everything()
    reqs.push({ field, operator: op === '!=' ? '!=' : '=', value });
  }
  return reqs;
}

/** All requirements hold; a missing field reads as `""` (upstream Fields.Get). */
export function matchesFields(reqs: readonly FieldRequirement[], fields: Record<string, string>): boolean {
  return reqs.every((r) => {
    const v = Object.hasOwn(fields, r.field) ? fields[r.field] : '';
    return r.operator === '=' ? v === r.value : v !== r.value;
  });
}

/** The distinct field names a selector refers to, in order (for "is not a known field selector" checks). */
export function requirementFields(reqs: readonly FieldRequirement[]): string[] {
  return [...new Set(reqs.map((r) => r.field))];
}

/** The exact value a selector requires for `field` (upstream RequiresExactMatch), else undefined. */
export function requiresExactMatch(reqs: readonly FieldRequirement[], field: string): string | undefined {
  return reqs.find((r) => r.field === field && r.operator === '=')?.value;
}

/** Upstream selector String(): `f=v,f!=v` with values escaped. */
export function formatFieldSelector(reqs: readonly FieldRequirement[]): string {
  return reqs.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
}
