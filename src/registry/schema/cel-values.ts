/**
 * A custom object's JSON as expression values (SPEC 2.11 "Type mapping";
 * upstream apiserver pkg/cel/common/values.go `UnstructuredToVal`): integers
 * as cel-js ints (bigint), numbers as doubles, formatted strings parsed
 * (bytes, timestamps, durations), objects as instances of their type's class
 * keyed by escaped field names, maps as Maps, lists as arrays, list-type
 * `set` and `map` lists marked so that they compare ignoring order.
 *
 * As upstream's object values, a property that is null or absent is not
 * there (`has()` is false); properties the type does not expose (unknown
 * fields, names that cannot be identifiers) are not either. A value the
 * schema would have rejected (schema validation runs first and stops the
 * rules) is left out of its object, or null in a list or map.
 */
import { duration, withListSemantics } from '../../cel/values.ts';
import { parseGoDuration } from '../../util/go-duration.ts';
import { escapeName } from './cel-escaping.ts';
import type { DeclType, SimpleDecl } from './cel-types.ts';

const SCALA_DURATION = /^([1-9]\d*)\s?(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$/i;
const SCALA_UNIT_NANOS: Record<string, bigint> = {
  ns: 1n,
  nanosecond: 1n,
  us: 1_000n,
  µs: 1_000n,
  microsecond: 1_000n,
  ms: 1_000_000n,
  millisecond: 1_000_000n,
  s: 1_000_000_000n,
  second: 1_000_000_000n,
  m: 60_000_000_000n,
  minute: 60_000_000_000n,
  h: 3_600_000_000_000n,
  hour: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
  day: 86_400_000_000_000n,
  w: 604_800_000_000_000n,
  week: 604_800_000_000_000n,
};

/** kube-openapi strfmt.ParseDuration: a Go duration, or `<n> <unit>` as the format check accepts it. */
function durationNanos(text: string): bigint | undefined {
  try {
    return BigInt(Math.round(parseGoDuration(text) * 1e6));
  } catch {
    const m = SCALA_DURATION.exec(text);
    if (!m) return undefined;
    const unit = m[2].toLowerCase();
    const nanos = SCALA_UNIT_NANOS[unit] ?? SCALA_UNIT_NANOS[unit.replace(/s$/, '')];
    return nanos === undefined ? undefined : BigInt(m[1]) * nanos;
  }
}

const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** One scalar, or undefined where the value does not have the node's type. */
function scalar(value: unknown, t: SimpleDecl): unknown {
  switch (t.conversion) {
    case 'int-or-string':
      return typeof value === 'string' ? value : typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : undefined;
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : undefined;
    case 'double':
      return typeof value === 'number' ? value : undefined;
    case 'bool':
      return typeof value === 'boolean' ? value : undefined;
  }
  if (typeof value !== 'string') return undefined;
  switch (t.conversion) {
    case 'string':
      return value;
    case 'bytes':
      return /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? new Uint8Array(Buffer.from(value, 'base64')) : undefined;
    case 'date': {
      const m = FULL_DATE.exec(value);
      if (!m) return undefined;
      const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
      return Number.isNaN(date.getTime()) ? undefined : date;
    }
    case 'date-time': {
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? undefined : date;
    }
    case 'duration': {
      const nanos = durationNanos(value);
      return nanos === undefined ? undefined : duration(nanos);
    }
  }
}

/**
 * Upstream UnstructuredToVal for a node of type `t`. The walk follows the
 * type, so its depth is the schema's whatever the value's.
 */
export function toCelValue(value: unknown, t: DeclType): unknown {
  if (value === null || value === undefined) return null;
  switch (t.kind) {
    case 'simple':
      return scalar(value, t) ?? null;
    case 'list': {
      if (!Array.isArray(value)) return null;
      const list = value.map((item) => toCelValue(item, t.elem));
      const listType = t.schema.extensions.xListType;
      if (listType === 'set') return withListSemantics(list, { type: 'set' });
      if (listType === 'map') {
        const keys = (t.schema.extensions.xListMapKeys ?? []).map((k) => escapeName(k) ?? k);
        return withListSemantics(list, { type: 'map', keys });
      }
      return list;
    }
    case 'map': {
      if (typeof value !== 'object' || Array.isArray(value)) return null;
      const map = new Map<string, unknown>();
      for (const k of Object.keys(value)) map.set(k, toCelValue((value as Record<string, unknown>)[k], t.elem));
      return map;
    }
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return null;
      const obj = new t.ctor();
      const json = value as Record<string, unknown>;
      for (const [field, { property, type }] of t.fields) {
        if (!Object.hasOwn(json, property) || json[property] === null) continue;
        const v = toCelValue(json[property], type);
        if (v !== null) obj.set(field, v);
      }
      return obj;
    }
  }
}
