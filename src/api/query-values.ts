/**
 * Query-string values as upstream's parameter codec converts them (SPEC 4.3;
 * apimachinery runtime/conversion.go): the rules are the server's, not the
 * client's, so the python client's `force=True` and curl's `watch` (no value)
 * mean what they mean to kube-apiserver.
 */
import { badRequest } from './status-error.ts';

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);

/**
 * A boolean parameter: absent is undefined; `0` and `false` in any case are
 * false; every other value, the empty one included, is true
 * (Convert_Slice_string_To_bool).
 */
export function queryBoolean(value: string | null): boolean | undefined {
  if (value === null) return undefined;
  return !(value === '0' || value.toLowerCase() === 'false');
}

/**
 * An int64 parameter: absent is undefined; anything strconv.ParseInt(v, 10, 64)
 * refuses, the empty value included, is a 400 with Go's message. Values beyond
 * 2^53 lose precision, which only matters to limits and timers that are
 * effectively infinite there.
 */
export function queryInt64(value: string | null): number | undefined {
  if (value === null) return undefined;
  const quoted = JSON.stringify(value);
  if (!/^[+-]?\d+$/.test(value)) throw badRequest(`strconv.ParseInt: parsing ${quoted}: invalid syntax`);
  const parsed = BigInt(value);
  if (parsed > MAX_INT64 || parsed < MIN_INT64) throw badRequest(`strconv.ParseInt: parsing ${quoted}: value out of range`);
  return Number(parsed);
}

/**
 * Go's strconv.ParseBool, which upstream uses for `pretty` and ignores the error
 * of: undefined for a value it does not know.
 */
export function goParseBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}
