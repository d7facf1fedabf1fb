/**
 * flowcontrol.orch.io FlowSchema between v1 and v1beta3 through its internal
 * form (SPEC 9.4.2, 9.7; upstream pkg/apis/flowcontrol/v1beta3 and the
 * generated conversions): both versions have the same fields.
 */
import type { KindConversion } from '../../../registry/kind-conversion.ts';
import type { ApiObject } from '../../../registry/strategy.ts';

/** Go's generated conversion: the same fields at another version. */
export const sameFields = (obj: ApiObject): ApiObject => structuredClone(obj);

export const V1 = 'flowcontrol.orch.io/v1';
export const V1BETA3 = 'flowcontrol.orch.io/v1beta3';

export const conversion: KindConversion = {
  toInternal: { [V1]: sameFields, [V1BETA3]: sameFields },
  fromInternal: { [V1]: sameFields, [V1BETA3]: sameFields },
};
