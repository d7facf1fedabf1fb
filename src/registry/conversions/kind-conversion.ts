/**
 * Conversions of built-in kinds served at several versions (SPEC 9.4.2: one
 * internal form per kind, lossless round trips between versions, one storage
 * version): hand-written pure functions per served apiVersion, to and from the
 * kind's internal form, as upstream's pkg/apis/<group>/<version> conversions.
 */
import { internalError } from '../../api/status-error.ts';
import type { KindDefinition } from '../kind.ts';
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

/** The object at `apiVersion`, with apiVersion, kind and metadata leading (stored JSON relies on it: withResourceVersion). */
function atVersion(obj: ApiObject, apiVersion: string): ApiObject {
  const { apiVersion: _previous, kind, metadata, ...rest } = obj;
  return { apiVersion, kind, metadata, ...rest };
}

/**
 * The `KindDefinition.convert` of a kind with in-process conversions: from
 * whatever served version the object is at, through the internal form, to
 * `apiVersion`. Synchronous work; async only to fit the hook webhooks share.
 */
export function inProcessConverter(conversion: KindConversion): NonNullable<KindDefinition['convert']> {
  return async (obj, apiVersion) => {
    const toInternal = conversion.toInternal[String(obj.apiVersion)];
    const fromInternal = conversion.fromInternal[apiVersion];
    if (!toInternal || !fromInternal) throw internalError(`converting ${String(obj.apiVersion)} to ${apiVersion}: no conversion`);
    return atVersion(fromInternal(toInternal(obj)), apiVersion);
  };
}
