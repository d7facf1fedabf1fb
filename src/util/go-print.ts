/**
 * Go's fmt printing of decoded JSON values (unstructured content: int64 and
 * float64 numbers, map[string]interface {}, []interface {}) and Go's quoting
 * of strings (`%q`), as upstream's messages and printer cells show them.
 */

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Go's %T of a decoded JSON value (unstructured content: int64 or float64 numbers). */
export function goTypeName(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (isMap(value)) return 'map[string]interface {}';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return '<nil>';
}

/** Go's %v of a float64 (strconv 'g', shortest): the exponent form when the exponent is below -4 or 6 and above. */
function goFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  const [mantissa, exponentText] = x.toExponential().split('e');
  const exponent = Number(exponentText);
  if (x !== 0 && (exponent < -4 || exponent >= 6)) return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  return Object.is(x, -0) ? '-0' : String(x);
}

/**
 * Go's fmt.Fprint of a decoded JSON value, as jsonpath's PrintResults writes
 * a string column's cell: numbers as int64 or float64, maps as
 * `map[k:v ...]` with sorted keys, lists as `[a b]`, null as `<nil>`.
 */
export function goPrint(value: unknown): string {
  const out: string[] = [];
  // Items are values to print or literal text (wrapped), handled in order.
  const stack: Array<{ text: string } | { value: unknown }> = [{ value }];
  while (stack.length) {
    const item = stack.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const v = item.value;
    if (v === null || v === undefined) out.push('<nil>');
    else if (typeof v === 'string') out.push(v);
    else if (typeof v === 'boolean') out.push(String(v));
    else if (typeof v === 'number') out.push(Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : goFloat(v));
    else {
      const entries: Array<{ text: string } | { value: unknown }> = [];
      if (Array.isArray(v)) {
        v.forEach((element, i) => entries.push(...(i ? [{ text: ' ' }] : []), { value: element }));
        stack.push({ text: ']' }, ...entries.reverse(), { text: '[' });
      } else {
        const record = v as Record<string, unknown>;
        Object.keys(record)
          .sort()
          .forEach((key, i) => entries.push(...(i ? [{ text: ' ' }] : []), { text: `${key}:` }, { value: record[key] }));
        stack.push({ text: ']' }, ...entries.reverse(), { text: 'map[' });
      }
    }
  }
  return out.join('');
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go `strconv.Quote` (`%q`): double-quoted, Go escapes for non-printable runes (FACTS 1.1). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd';
    else if (PRINTABLE.test(ch)) out += ch;
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\v') out += '\\v';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp < 0x10000) out += '\\u' + cp.toString(16).padStart(4, '0');
    else out += '\\U' + cp.toString(16).padStart(8, '0');
  }
  return out + '"';
}

/** Go `%q` of a `[]string`: `["a" "b"]`. */
export function goQuoteList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}
