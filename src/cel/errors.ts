/**
 * Expression errors in cel-go's words (SPEC 2.11): compile issues as
 * `ERROR: <input>:line:column: message` with the source line and a caret, the
 * common messages translated from cel-js's to cel-go's (undeclared
 * references, undefined fields, missing overloads, syntax errors), type names
 * as cel-go prints them (`list(string)`), evaluation errors as cel-go's
 * (`no such key: x`).
 */
import { cel } from '../util/lazy-packages.ts';

/** A CEL type as cel-go's FormatCELType prints it: `list(string)`, `map(string, int)`, `optional_type(T)`. */
export function celGoTypeName(name: string): string {
  return name
    .replace(/\bnull_type\b|\bnull\b/g, 'null_type')
    .replace(/optional</g, 'optional_type<')
    .replace(/</g, '(')
    .replace(/>/g, ')');
}

interface CelJsError extends Error {
  code?: string;
  summary?: string;
  node?: { pos?: number; start?: number };
  range?: { start: number; end: number };
}

/** cel-go's message for one of cel-js's error codes; other messages as cel-js words them. */
export function celGoMessage(error: CelJsError): string {
  const summary = error.summary ?? error.message;
  const quoted = (re: RegExp) => re.exec(summary);
  switch (error.code) {
    case 'unknown_variable':
      return `undeclared reference to '${summary.replace(/^Unknown variable: /, '')}' (in container '')`;
    case 'no_such_key': {
      const key = summary.replace(/^No such key: /, '');
      // At type-check time it is a field the type lacks; at run time a key the value lacks.
      return error.name === 'TypeError' ? `undefined field '${key}'` : `no such key: ${key}`;
    }
    case 'no_matching_overload': {
      const m = quoted(/^found no matching overload for '(?:(.+)\.)?(\w+)\((.*)\)'$/);
      if (m) return `found no matching overload for '${m[2]}' applied to '${m[1] ? `${celGoTypeName(m[1])}.` : ''}(${celGoTypeName(m[3])})'`;
      return summary;
    }
    case 'no_such_overload': {
      const binary = quoted(/^no such overload: (\S+) (\S+) (\S+)$/);
      if (binary) return `found no matching overload for '_${binary[2]}_' applied to '(${celGoTypeName(binary[1])}, ${celGoTypeName(binary[3])})'`;
      const unary = quoted(/^no such overload: ([!-])(\S+)$/);
      if (unary) return `found no matching overload for '${unary[1]}_' applied to '(${celGoTypeName(unary[2])})'`;
      return summary;
    }
    case 'index_out_of_bounds': {
      // cel-go's list Get: `index out of bounds: <index>`.
      const index = quoted(/index out of bounds, index (-?\d+)/);
      return index ? `index out of bounds: ${index[1]}` : summary;
    }
    case 'optional_value_missing':
      return 'optional.none() dereference';
    default:
      return error instanceof cel().ParseError ? `Syntax error: ${summary}` : summary;
  }
}

/** cel-go's Error.ToDisplayString: location, message, the source line and a caret under the column. */
export function compileIssue(expression: string, offset: number | undefined, message: string): string {
  if (offset === undefined) return `ERROR: <input>:-1:0: ${message}`;
  const before = expression.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineEnd = expression.indexOf('\n', offset);
  const column = Array.from(expression.slice(lineStart, offset));
  const source = expression.slice(lineStart, lineEnd < 0 ? undefined : lineEnd).replace(/\t/g, ' ');
  // Wide characters get wide dots, as cel-go draws them.
  const dots = column.map((c) => (Buffer.byteLength(c) > 1 ? '\uff0e' : '.')).join('');
  const at = Array.from(expression.slice(offset))[0] ?? '';
  const caret = Buffer.byteLength(at) > 1 ? '\uff3e' : '^';
  return `ERROR: <input>:${line}:${column.length + 1}: ${message}\n | ${source}\n | ${dots}${caret}`;
}

/** Where cel-js located an error, as an offset into the expression. */
export function errorOffset(error: CelJsError): number | undefined {
  return error.node?.pos ?? error.node?.start ?? error.range?.start;
}
