/**
 * Conversions of built-in kinds served at several versions (SPEC 9.4.2: one
 * internal form per kind, lossless round trips between versions, one storage
 * version): hand-written pure functions per served apiVersion, to and from the
 * kind's internal form, as upstream's pkg/apis/<group>/<version> conversions.
 */
import { internalError } from '../../api/status-error.ts';
import type { DecodeContext, Decoder, KindDefinition } from '../kind.ts';
import type { ApiObject } from '../strategy.ts';

/**
 * One kind's conversions, keyed by apiVersion (the storage version may be
 * another group's: events.orch.io/v1 Events are stored as core `v1` Events).
 * Each returns a new object and leaves its argument alone.
 */
export interface KindConversion {
  toInternal: Record<string, (obj: ApiObject) => ApiObject>;
  fromInternal: Record<string, (internal: ApiObject) => ApiObject>;
}

/** The object in the kind's internal form, as upstream validates it: converted from the version it is at (as is when that version has none). */
export function internalForm(conversion: KindConversion, obj: ApiObject): ApiObject {
  const toInternal = conversion.toInternal[String(obj.apiVersion)];
  return toInternal ? toInternal(obj) : obj;
}

/** The object at `apiVersion`, with apiVersion, kind and metadata leading (stored JSON relies on it: withResourceVersion). */
function atVersion(obj: ApiObject, apiVersion: string): ApiObject {
  const { apiVersion: _previous, kind, metadata, ...rest } = obj;
  return { apiVersion, kind, metadata, ...rest };
}

/** A converted object is one the conversion built: decoding it cannot fail, the context only has to exist. */
const CANONICAL: DecodeContext = {
  unknown: () => {},
  fail: (path) => {
    throw internalError(`conversion made a value of the wrong type at ${path}`);
  },
  invalidValue: (path, message) => {
    throw internalError(`conversion made an invalid value at ${path}: ${message}`);
  },
};

/**
 * The `KindDefinition.convert` of a kind with in-process conversions: from
 * whatever served version the object is at, through the internal form, to
 * `apiVersion`, then through that version's decoder, so the result has the
 * canonical field order a write of it would have (an unchanged object read
 * at one version and written back is no change). Synchronous work; async
 * only to fit the hook webhooks share.
 */
export function inProcessConverter(conversion: KindConversion, decoders: ReadonlyMap<string, Decoder>): NonNullable<KindDefinition['convert']> {
  return async (obj, apiVersion) => {
    const toInternal = conversion.toInternal[String(obj.apiVersion)];
    const fromInternal = conversion.fromInternal[apiVersion];
    const decode = decoders.get(apiVersion);
    if (!toInternal || !fromInternal || !decode) throw internalError(`converting ${String(obj.apiVersion)} to ${apiVersion}: no conversion`);
    return atVersion(decode(fromInternal(toInternal(obj)), '', CANONICAL), apiVersion);
  };
}
