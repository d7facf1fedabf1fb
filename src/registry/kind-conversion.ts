/**
 * Conversions of built-in kinds served at several versions (SPEC 9.4.2: one
 * internal form per kind, lossless round trips between versions, one storage
 * version): hand-written pure functions per served apiVersion, to and from the
 * kind's internal form, as upstream's pkg/apis/<group>/<version> conversions.
 * A kind's folder states its own (src/kinds/<group>/<kind>/conversion.ts).
 */
import type { ApiObject } from './strategy.ts';

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
