/**
 * Configuration files decoded as apimachinery's strict universal decoder
 * decodes them into a Go struct: YAML or JSON, duplicate keys refused, a value
 * of the wrong JSON type reported as encoding/json words it (`json: cannot
 * unmarshal number into Go struct field AuthorizerConfiguration.authorizers.name
 * of type string`), and every field the struct lacks collected into one
 * `strict decoding error: unknown field "a[0].b", ...`.
 */
import { yaml } from './lazy-packages.ts';
import { goQuote } from './go-print.ts';
import { DurationError, parseGoDuration } from './go-duration.ts';
import { OutcomeError } from './outcome-error.ts';

/** The shape of a Go struct field as JSON sees it. */
export type Shape =
  | { kind: 'string' }
  | { kind: 'bool' }
  /** metav1.Duration: a Go duration string, returned in milliseconds. */
  | { kind: 'duration' }
  | { kind: 'list'; goType: string; of: Shape }
  | { kind: 'struct'; goType: string; fields: Record<string, Shape> };

export class DecodeError extends OutcomeError {}

/** Go's name of a JSON value's kind in an UnmarshalTypeError. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  return typeof value === 'string' ? 'string' : 'object';
}

/** The YAML (or JSON) document as a value; duplicate keys as goyaml's strict mode reports them. */
export function parseConfigDocument(text: string): unknown {
  const doc = yaml().parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  const error = doc.errors[0];
  if (!error) return doc.toJS();
  const line = text.slice(0, error.pos[0]).split('\n').length;
  if (error.code === 'DUPLICATE_KEY') {
    // The error points at the repeated key: read it as written (quoted or plain).
    const key = /^"((?:[^"\\]|\\.)*)"|^'((?:[^']|'')*)'|^([^:,{}\n]*?)\s*:/.exec(text.slice(error.pos[0]));
    const name = key?.[1] ?? key?.[2]?.replace(/''/g, "'") ?? key?.[3] ?? text.slice(error.pos[0], error.pos[1]);
    throw new DecodeError(`error converting YAML to JSON: yaml: unmarshal errors:\n  line ${line}: key ${goQuote(name)} already set in map`);
  }
  throw new DecodeError(`error converting YAML to JSON: yaml: line ${line}: ${error.message.split('\n')[0]}`);
}

/**
 * Decodes `value` into `shape`: nulls are the zero value (left undefined),
 * type mismatches throw, unknown fields (outside `allowed` at the top) throw
 * together once decoding succeeded.
 */
export function decodeStrict(value: unknown, shape: Extract<Shape, { kind: 'struct' }>, allowed: string[] = []): any {
  const unknown: string[] = [];
  const decode = (v: unknown, s: Shape, path: string, jsonPath: string, struct: string | undefined): unknown => {
    if (v === null || v === undefined) return undefined;
    const mismatch = (goType: string) => {
      const where = struct ? `Go struct field ${struct}.${jsonPath}` : 'Go value';
      return new DecodeError(`json: cannot unmarshal ${jsonKind(v)} into ${where} of type ${goType}`);
    };
    switch (s.kind) {
      case 'string':
        if (typeof v !== 'string') throw mismatch('string');
        return v;
      case 'bool':
        if (typeof v !== 'boolean') throw mismatch('bool');
        return v;
      case 'duration':
        // metav1.Duration decodes a string itself, so its errors carry no field.
        if (typeof v !== 'string') throw new DecodeError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type string`);
        try {
          return parseGoDuration(v);
        } catch (err) {
          if (err instanceof DurationError) throw new DecodeError(err.message);
          throw err;
        }
      case 'list':
        if (!Array.isArray(v)) throw mismatch(s.goType);
        return v.map((item, i) => decode(item, s.of, `${path}[${i}]`, jsonPath, struct));
      case 'struct': {
        if (typeof v !== 'object' || Array.isArray(v)) throw mismatch(s.goType);
        const out: Record<string, unknown> = {};
        const structName = s.goType.replace(/^.*\./, '');
        for (const [key, item] of Object.entries(v as Record<string, unknown>)) {
          const field = s.fields[key];
          const fieldPath = path ? `${path}.${key}` : key;
          if (!field) {
            if (!(path === '' && allowed.includes(key))) unknown.push(`unknown field ${goQuote(fieldPath)}`);
            continue;
          }
          out[key] = decode(item, field, fieldPath, jsonPath ? `${jsonPath}.${key}` : key, structName);
        }
        return out;
      }
    }
  };
  const out = decode(value ?? {}, shape, '', '', undefined);
  if (unknown.length) throw new DecodeError(`strict decoding error: ${unknown.join(', ')}`);
  return out ?? {};
}
