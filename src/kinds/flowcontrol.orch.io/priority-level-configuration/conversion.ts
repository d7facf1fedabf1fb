/**
 * flowcontrol.orch.io PriorityLevelConfiguration between v1 and v1beta3
 * through its internal form (SPEC 9.4.2, 9.7; upstream
 * pkg/apis/flowcontrol/v1beta3/conversion.go and the generated conversions).
 * Both versions have the same fields; a v1beta3 object says
 * "nominalConcurrencyShares is really 0" with a round-trip annotation, which
 * the internal form (and so v1, the storage version) never carries.
 */
import type { KindConversion } from '../../../registry/kind-conversion.ts';
import type { ApiObject } from '../../../registry/strategy.ts';
import { sameFields, V1, V1BETA3 } from '../flow-schema/conversion.ts';

/** k8s.io/api flowcontrol/v1beta3 PriorityLevelPreserveZeroConcurrencySharesKey, renamed (FACTS §0). */
export const PRESERVE_ZERO_SHARES_ANNOTATION = 'flowcontrol.orch.io/v1beta3-preserve-zero-concurrency-shares';

/** Convert_v1beta3_PriorityLevelConfiguration_To_flowcontrol_PriorityLevelConfiguration: the annotation is dropped. */
function priorityLevelFromV1beta3(obj: ApiObject): ApiObject {
  const out = structuredClone(obj);
  const annotations = out.metadata?.annotations;
  if (annotations && PRESERVE_ZERO_SHARES_ANNOTATION in annotations) {
    delete annotations[PRESERVE_ZERO_SHARES_ANNOTATION];
    // Go's copy of an emptied map is an empty map, which JSON omits.
    if (Object.keys(annotations).length === 0) delete out.metadata.annotations;
  }
  return out;
}

/** Convert_flowcontrol_PriorityLevelConfiguration_To_v1beta3_PriorityLevelConfiguration: a zero share count gets the annotation (value ""). */
function priorityLevelToV1beta3(internal: ApiObject): ApiObject {
  const out = structuredClone(internal);
  const limited = out.spec?.limited;
  if (limited && !limited.nominalConcurrencyShares) {
    limited.nominalConcurrencyShares = 0;
    const annotations = (out.metadata.annotations ??= {});
    if (!(PRESERVE_ZERO_SHARES_ANNOTATION in annotations)) annotations[PRESERVE_ZERO_SHARES_ANNOTATION] = '';
  }
  return out;
}

/** Convert_flowcontrol_*_To_v1_*: v1's pointer field is always set from the internal int32. */
function priorityLevelToV1(internal: ApiObject): ApiObject {
  const out = structuredClone(internal);
  if (out.spec?.limited && out.spec.limited.nominalConcurrencyShares === undefined) out.spec.limited.nominalConcurrencyShares = 0;
  return out;
}

export const conversion: KindConversion = {
  toInternal: { [V1]: sameFields, [V1BETA3]: priorityLevelFromV1beta3 },
  fromInternal: { [V1]: priorityLevelToV1, [V1BETA3]: priorityLevelToV1beta3 },
};
