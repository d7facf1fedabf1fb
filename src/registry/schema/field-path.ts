/**
 * Field paths into a structural schema (SPEC 9.7; upstream apiextensions-apiserver
 * pkg/apiserver/schema/cel/validation.go `ValidFieldPath`): the JSON path of a
 * selectable field or of an x-kubernetes-validations `fieldPath`, such as
 * `.spec.replicas` or `.spec.labels['a.b']`, resolved against the schema.
 */
import type { Structural } from './structural.ts';

export class FieldPathError extends Error {}

export interface ResolvedFieldPath {
  /** The path as field.Path renders it, e.g. `spec.labels[a.b]`; '' for the root. */
  path: string;
  /** Its first element (field.Path Root), e.g. `spec`. */
  root: string;
  schema: Structural | undefined;
}

/** Splits like upstream's scanner: `.`, `[`, `]` delimit, a single-quoted string is one token. */
function tokens(jsonPath: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < jsonPath.length) {
    if (jsonPath[i] === "'") {
      let j = i + 1;
      while (j < jsonPath.length && !(jsonPath[j] === "'" && jsonPath[j - 1] !== '\\')) j++;
      out.push(jsonPath.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if ('.[]'.includes(jsonPath[i])) {
      out.push(jsonPath[i++]);
      continue;
    }
    let j = i;
    while (j < jsonPath.length && !'.[]'.includes(jsonPath[j])) j++;
    out.push(jsonPath.slice(i, j));
    i = j;
  }
  return out;
}

const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

function unescapeSingleQuote(s: string): string {
  return s.replace(/\\./g, (m) => {
    const out = ESCAPES[m[1]];
    if (out === undefined) throw new FieldPathError(`invalid string literal: invalid escape char ${m}`);
    return out;
  });
}

/** Upstream ValidFieldPath; throws FieldPathError with upstream's messages. */
export function validFieldPath(jsonPath: string, schema: Structural | undefined, allowArrayNotation = true): ResolvedFieldPath {
  let path = '';
  let root = '';
  let current = schema;
  const step = (name: string) => {
    if (!current) throw new FieldPathError('does not refer to a valid field');
    if (current.properties) {
      if (!root) root = name;
      path = path ? `${path}.${name}` : name;
      const next = current.properties[name];
      if (!next) throw new FieldPathError('does not refer to a valid field');
      current = next;
    } else if (current.additionalProperties) {
      if (!root) root = `[${name}]`;
      path = `${path}[${name}]`;
      current = current.additionalProperties.structural;
    } else throw new FieldPathError('does not refer to a valid field');
  };
  const list = tokens(jsonPath);
  for (let i = 0; i < list.length; i++) {
    const tok = list[i];
    if (tok === '[') {
      if (!allowArrayNotation) throw new FieldPathError('array notation is not allowed');
      const quoted = list[++i];
      if (quoted === undefined) throw new FieldPathError('unexpected end of JSON path');
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) throw new FieldPathError(`expected single quoted string but got ${quoted}`);
      step(unescapeSingleQuote(quoted.slice(1, -1)));
      const close = list[++i];
      if (close === undefined) throw new FieldPathError('unexpected end of JSON path');
      if (close !== ']') throw new FieldPathError(`expected ] but got ${close}`);
    } else if (tok === '.') {
      const name = list[++i];
      if (name === undefined) throw new FieldPathError('unexpected end of JSON path');
      step(name);
    } else throw new FieldPathError(`expected [ or . but got: ${tok}`);
  }
  return { path, root, schema: current };
}
