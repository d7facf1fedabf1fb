/**
 * Go `encoding/json` error texts: its nesting limit (request bodies, ABAC
 * policy lines) and its syntax messages (the dockercfg secret checks, as
 * upstream core ValidateSecret reports `json.Unmarshal`'s error as the detail;
 * ABAC policy lines). Pure re-implementation of the Go scanner's messages.
 */
import { goQuote } from '../../util/go-print.ts';

/** Go encoding/json's maxNestingDepth: a JSON document nested deeper is refused. */
export const MAX_JSON_DEPTH = 10_000;

/**
 * Where a JSON text nests deeper than `limit`, the bracket that does, as Go's
 * scanner reports it (`invalid character '[' exceeded max depth`); one linear
 * pass, skipped for texts too short to nest that deep.
 */
export function jsonDepthError(text: string, limit = MAX_JSON_DEPTH): string | undefined {
  if (text.length <= limit) return undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string: to the next quote that no backslash escapes.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return `invalid character '${text[i]}' exceeded max depth`;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return undefined;
}

/**
 * The error Go `json.Unmarshal(data, &map[string]interface{}{})` returns, or
 * null when it succeeds (dockercfg secret checks): Go scanner syntax messages,
 * then the type mismatch for a non-object top-level value.
 */
export function goJSONObjectError(text: string): string | null {
  const b = Buffer.from(text, 'utf8');
  let i = 0;
  const q = (c: number) => (c === 39 ? "'\\''" : c === 34 ? `'"'` : `'${goQuote(String.fromCharCode(c)).slice(1, -1)}'`);
  const fail = (ctx: string): never => {
    throw new Error(i >= b.length ? 'unexpected end of JSON input' : `invalid character ${q(b[i])} ${ctx}`);
  };
  const ws = () => {
    while (b[i] === 32 || b[i] === 9 || b[i] === 10 || b[i] === 13) i++;
  };
  const digit = () => b[i] >= 48 && b[i] <= 57;
  const digits = () => {
    while (digit()) i++;
  };
  const string = () => {
    for (i++; ; i++) {
      if (i >= b.length) fail('');
      if (b[i] === 34) return void i++;
      if (b[i] < 0x20) fail('in string literal');
      if (b[i] !== 92) continue;
      i++;
      if (b[i] === 117) {
        for (let k = 0; k < 4; k++) if (!/[0-9a-fA-F]/.test(String.fromCharCode(b[++i] ?? 0))) fail('in \\u hexadecimal character escape');
      } else if (i >= b.length || !'"\\/bfnrt'.includes(String.fromCharCode(b[i]))) fail('in string escape code');
    }
  };
  const value = (): string => {
    ws();
    const c = b[i];
    if (c === 123 || c === 91) {
      const obj = c === 123;
      i++;
      ws();
      if (b[i] === (obj ? 125 : 93)) return i++, obj ? 'object' : 'array';
      for (;;) {
        if (obj) {
          ws();
          if (b[i] !== 34) fail('looking for beginning of object key string');
          string();
          ws();
          if (b[i] !== 58) fail('after object key');
          i++;
        }
        value();
        ws();
        if (b[i] === 44) i++;
        else if (b[i] === (obj ? 125 : 93)) return i++, obj ? 'object' : 'array';
        else fail(obj ? 'after object key:value pair' : 'after array element');
      }
    }
    if (c === 34) return string(), 'string';
    if (c === 45 || digit()) {
      if (c === 45 && (i++, !digit())) fail('in numeric literal');
      if (b[i] === 48) i++;
      else digits();
      if (b[i] === 46) {
        i++;
        if (!digit()) fail('after decimal point in numeric literal');
        digits();
      }
      if (b[i] === 101 || b[i] === 69) {
        i++;
        if (b[i] === 43 || b[i] === 45) i++;
        if (!digit()) fail('in exponent of numeric literal');
        digits();
      }
      return 'number';
    }
    for (const lit of ['true', 'false', 'null']) {
      if (c !== lit.charCodeAt(0)) continue;
      for (let k = 1; k < lit.length; k++) if (b[++i] !== lit.charCodeAt(k)) fail(`in literal ${lit} (expecting '${lit[k]}')`);
      return i++, lit === 'null' ? 'null' : 'bool';
    }
    return fail('looking for beginning of value');
  };
  try {
    const kind = value();
    ws();
    if (i < b.length) fail('after top-level value');
    return kind === 'object' || kind === 'null' ? null : `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
  } catch (e) {
    return (e as Error).message;
  }
}
