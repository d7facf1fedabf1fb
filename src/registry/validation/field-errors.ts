/**
 * Field-level validation errors (FACTS 1.1; translated from upstream
 * apimachinery util/validation/field/errors.go). A `FieldError` is one cause of
 * a 422 `Invalid` status: `type` becomes the cause `reason`, `field` the cause
 * `field` and `message` the cause `message` (the error body without the field).
 */
import { goQuote } from '../../util/go-print.ts';

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueDuplicate'
  | 'FieldValueNotFound'
  | 'FieldValueTypeInvalid'
  | 'InternalError';

/** One field validation failure (FACTS 1.1). */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** the cause message: error body without the field, e.g. 'Invalid value: "x": not a valid CIDR' */
  message: string;
}

/**
 * A value rendered verbatim in an error body. Used where upstream prints a Go
 * value with `%#v` (e.g. `[]string{"a", "b"}`) so the text matches exactly.
 */
export class GoRepr {
  constructor(readonly text: string) {}
}

/** Wraps pre-rendered Go syntax so `formatValue` prints it as is. */
export function goRepr(text: string): GoRepr {
  return new GoRepr(text);
}

/** Go `%#v` of a string slice: `[]string{"a", "b"}` (or another element type name). */
export function goStringSlice(values: readonly string[], typeName = '[]string'): GoRepr {
  return new GoRepr(`${typeName}{${values.map(goQuote).join(', ')}}`);
}

/**
 * Renders a bad value like upstream `ErrorBody`: strings `%q`-quoted, numbers
 * and booleans bare, null/undefined as `null`, `GoRepr` verbatim, anything else
 * as compact JSON (upstream prints Go syntax there; see FACTS 1.1).
 */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof GoRepr) return value.text;
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

function withDetail(body: string, detail: string | undefined): string {
  return detail ? `${body}: ${detail}` : body;
}

function valued(type: FieldErrorType, label: string, field: string, value: unknown, detail?: string): FieldError {
  return { type, field, message: withDetail(`${label}: ${formatValue(value)}`, detail) };
}

/** `Required value[: detail]` (FACTS 1.1). */
export function required(field: string, detail?: string): FieldError {
  return { type: 'FieldValueRequired', field, message: withDetail('Required value', detail) };
}

/** `Invalid value: {v}: {detail}` (FACTS 1.1). */
export function invalid(field: string, value: unknown, detail: string): FieldError {
  return valued('FieldValueInvalid', 'Invalid value', field, value, detail);
}

/** `Unsupported value: {v}: supported values: "a", "b"` (FACTS 1.1). */
export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length ? 'supported values: ' + supported.map(goQuote).join(', ') : '';
  return valued('FieldValueNotSupported', 'Unsupported value', field, value, detail);
}

/** `Forbidden[: detail]` (FACTS 1.1). */
export function forbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, message: withDetail('Forbidden', detail) };
}

/** `Too long: must have at most {n} bytes` — the value is never printed (FACTS 1.1). */
export function tooLong(field: string, _value: unknown, max: number): FieldError {
  return { type: 'FieldValueTooLong', field, message: `Too long: must have at most ${max} bytes` };
}

/** `Too many: {n}: must have at most {max} items` (upstream field.TooMany). */
export function tooMany(field: string, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} items` : 'has too many items';
  if (actual < 0) return { type: 'FieldValueTooMany', field, message: `Too many: ${detail}` };
  return valued('FieldValueTooMany', 'Too many', field, actual, detail);
}

/** `Duplicate value: {v}` (FACTS 1.1). */
export function duplicate(field: string, value: unknown): FieldError {
  return valued('FieldValueDuplicate', 'Duplicate value', field, value);
}

/** `Not found: {v}` (FACTS 1.1). */
export function notFound(field: string, value: unknown): FieldError {
  return valued('FieldValueNotFound', 'Not found', field, value);
}

/** `Invalid value: {v}: {detail}` with reason FieldValueTypeInvalid (upstream field.TypeInvalid). */
export function typeInvalid(field: string, value: unknown, detail: string): FieldError {
  return valued('FieldValueTypeInvalid', 'Invalid value', field, value, detail);
}

/** `Internal error: {detail}` (upstream field.InternalError). */
export function internalError(field: string, detail: string): FieldError {
  return { type: 'InternalError', field, message: withDetail('Internal error', detail) };
}

/** Full error text `{field}: {body}` as used in the Invalid status message (FACTS 1.1). */
export function fieldErrorText(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

/**
 * Aggregate text as upstream `ToAggregate().Error()`: one error → its text,
 * several → `[e1, e2, ...]`, duplicates (by text) dropped (FACTS 1.1).
 */
export function aggregateText(errs: readonly FieldError[]): string {
  const seen = dedupeFieldErrors(errs).map(fieldErrorText);
  return seen.length === 1 ? seen[0] : `[${seen.join(', ')}]`;
}

/** Drops errors whose `{field}: {body}` text already appeared (keeps first-seen order). */
export function dedupeFieldErrors(errs: readonly FieldError[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errs) {
    const t = fieldErrorText(e);
    if (seen.has(t)) continue;
    seen.add(t);
    out.push(e);
  }
  return out;
}

/** Field path helpers mirroring upstream field.Path rendering (`a.b[0][key]`). */
export function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

export function index(path: string, i: number | string): string {
  return `${path}[${i}]`;
}

/** Go `%#v` of a decoded JSON value held in an `interface{}`. */
export function jsonRepr(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(jsonRepr).join(', ')}}`;
  return `map[string]interface {}{${Object.keys(v).sort().map((k) => `${goQuote(k)}:${jsonRepr((v as any)[k])}`).join(', ')}}`;
}

/** A bad value as upstream's ErrorBody prints a JSON value: scalars plainly, maps and lists in Go syntax. */
export function jsonValue(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? goRepr(jsonRepr(v)) : v;
}
