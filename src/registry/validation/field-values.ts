/**
 * The rules of one field's value that upstream's validations share
 * (apimachinery pkg/api/validation ValidateNonnegativeField and
 * ValidateImmutableField, K pkg/apis/apps/validation
 * ValidatePositiveIntOrPercent and IsNotMoreThan100Percent, 1.31), with
 * upstream's words.
 */
import { invalid, type FieldError } from './field-errors.ts';
import { FIELD_IMMUTABLE } from './object-meta.ts';

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** ValidateNonnegativeField. */
export function nonNegative(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** ValidateImmutableField. */
export function immutable(value: unknown, old: unknown, path: string): FieldError[] {
  return same(value, old) ? [] : [invalid(path, value ?? null, FIELD_IMMUTABLE)];
}

const PERCENT = /^[0-9]+%$/;

/** ValidatePositiveIntOrPercent. */
export function intOrPercent(value: unknown, path: string): FieldError[] {
  if (typeof value === 'string') {
    return PERCENT.test(value) ? [] : [invalid(path, value, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  }
  return nonNegative(value, path);
}

/** getIntOrPercentValue. */
export const intOrPercentValue = (value: unknown): number => (typeof value === 'string' ? (PERCENT.test(value) ? Number(value.slice(0, -1)) : 0) : typeof value === 'number' ? value : 0);

/** IsNotMoreThan100Percent. */
export function notOver100(value: unknown, path: string): FieldError[] {
  return typeof value === 'string' && PERCENT.test(value) && intOrPercentValue(value) > 100 ? [invalid(path, value, 'must not be greater than 100%')] : [];
}
