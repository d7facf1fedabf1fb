/**
 * ValidateConfigMap and ValidateConfigMapUpdate (SPEC 2.6; upstream
 * pkg/apis/core/validation, 1.31), and the data rules a Secret shares: the
 * 1 MiB limit and what `immutable` freezes.
 */
import { forbidden, index, invalid, tooLong, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isConfigMapKey } from '../../../api/names.ts';

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** ConfigMap / Secret data limit: 1 MiB (upstream core MaxSecretSize). */
export const MAX_DATA_SIZE = 1024 * 1024;
const IMMUTABLE_SET = 'field is immutable when `immutable` is set';

/** The decoded size of a base64 value. */
export function b64Len(v: unknown): number {
  return Buffer.from(str(v), 'base64').length;
}

function mapsEqual(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null);
  const ea = Object.entries(a as object);
  const bo = b as Record<string, unknown>;
  return ea.length === Object.keys(bo).length && ea.every(([k, v]) => Object.hasOwn(bo, k) && bo[k] === v);
}

/** An object stored with `immutable: true` keeps the flag and `fields` as they are. */
export function immutableFlagErrors(obj: any, old: any, fields: string[]): FieldError[] {
  if (!old || old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj?.immutable !== true) errs.push(forbidden('immutable', IMMUTABLE_SET));
  for (const f of fields) if (!mapsEqual(obj?.[f], old[f])) errs.push(forbidden(f, IMMUTABLE_SET));
  return errs;
}

/**
 * ConfigMap (upstream ValidateConfigMap/Update): keys via isConfigMapKey at
 * `data[key]` / `binaryData[key]`, a data key also in binaryData is Invalid,
 * total size > 1 MiB is TooLong at field `[]` (upstream passes an empty path:
 * the whole object), and `immutable` freezes data, binaryData and itself.
 */
export function validateConfigMap(obj: any, old?: any): FieldError[] {
  const errs = immutableFlagErrors(obj, old, ['data', 'binaryData']);
  const data = isObj(obj?.data) ? obj.data : {};
  const bin = isObj(obj?.binaryData) ? obj.binaryData : {};
  let total = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(index('data', k), k, m));
    if (Object.hasOwn(bin, k)) errs.push(invalid(index('data', k), k, 'duplicate of key present in binaryData'));
    total += Buffer.byteLength(str(v), 'utf8');
  }
  for (const [k, v] of Object.entries(bin)) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(index('binaryData', k), k, m));
    total += b64Len(v);
  }
  if (total > MAX_DATA_SIZE) errs.push(tooLong('[]', '', MAX_DATA_SIZE));
  return errs;
}
