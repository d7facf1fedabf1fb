/**
 * Validation of LimitRange (SPEC 9.7), translated from K
 * pkg/apis/core/validation/validation.go ValidateLimitRange and K
 * pkg/apis/core/helper IsOvercommitAllowed. A quantity's value is printed as
 * its text where upstream prints the Go struct (as validateResources does).
 */
import { duplicate, forbidden, invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isQualifiedName } from '../../../api/names.ts';
import { validateContainerResourceName, validateResourceName } from '../pod/validate-containers.ts';
import { compareQuantities, formatQuantity, parseQuantity, type Quantity } from '../../../api/quantity.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
const entries = (list: unknown): Array<[string, string]> => (isObj(list) ? Object.entries(list).map(([k, v]) => [k, String(v)]) : []);
const isHugePages = (name: string) => /^(requests\.|limits\.)?hugepages-/.test(name);

const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];
const text = (q: Quantity) => formatQuantity(q);

/** validateLimitRangeTypeName: a qualified name, a standard type when it has no domain. */
function validateLimitType(type: string, path: string): FieldError[] {
  const errs = isQualifiedName(type).map((m) => invalid(path, type, m));
  if (!errs.length && !type.includes('/') && !LIMIT_TYPES.includes(type)) errs.push(invalid(path, type, 'must be a standard limit type or fully qualified'));
  return errs;
}

/** IsOvercommitAllowed: native resources other than hugepages. */
const overcommitAllowed = (name: string) => (!name.includes('/') || name.includes('orch.io/')) && !isHugePages(name);

/** Go %f of a float64. */
const goFloat = (n: number) => (Number.isFinite(n) ? n.toFixed(6) : n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN');

/** ValidateLimitRange: per item, types once, and min ≤ defaultRequest ≤ default ≤ max with the ratio between. */
export function validateLimitRange(limitRange: any): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (Array.isArray(limitRange.spec?.limits) ? limitRange.spec.limits : []).forEach((item: any, i: number) => {
    const p = `spec.limits[${i}]`;
    const type = String(item?.type ?? '');
    errs.push(...validateLimitType(type, `${p}.type`));
    // validateLimitRangeResourceName: container resource names for Pod and Container limits
    const validateName = type === 'Pod' || type === 'Container' ? validateContainerResourceName : validateResourceName;
    if (seen.has(type)) errs.push(duplicate(`${p}.type`, type));
    seen.add(type);
    const lists: Record<string, Map<string, Quantity>> = {};
    const collect = (key: string) => {
      lists[key] = new Map();
      for (const [name, value] of entries(item?.[key])) {
        errs.push(...validateName(name, `${p}.${key}[${name}]`));
        lists[key].set(name, parseQuantity(value));
      }
    };
    collect('max');
    collect('min');
    if (type === 'Pod') {
      lists.default = new Map();
      lists.defaultRequest = new Map();
      if (entries(item?.default).length) errs.push(forbidden(`${p}.default`, "may not be specified when `type` is 'Pod'"));
      if (entries(item?.defaultRequest).length) errs.push(forbidden(`${p}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    } else {
      collect('default');
      collect('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !lists.min.has('storage') && !lists.max.has('storage')) {
      errs.push(required(`${p}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
    }
    collect('maxLimitRequestRatio');
    const keys = new Set(Object.values(lists).flatMap((m) => [...m.keys()]));
    for (const k of keys) {
      const [min, max, dflt, request, ratio] = ['min', 'max', 'default', 'defaultRequest', 'maxLimitRequestRatio'].map((key) => lists[key].get(k));
      const gt = (a?: Quantity, b?: Quantity) => !!a && !!b && compareQuantities(a, b) > 0;
      if (gt(min, max)) errs.push(invalid(`${p}.min[${k}]`, text(min!), `min value ${text(min!)} is greater than max value ${text(max!)}`));
      if (gt(min, request)) errs.push(invalid(`${p}.defaultRequest[${k}]`, text(request!), `min value ${text(min!)} is greater than default request value ${text(request!)}`));
      if (gt(request, max)) errs.push(invalid(`${p}.defaultRequest[${k}]`, text(request!), `default request value ${text(request!)} is greater than max value ${text(max!)}`));
      if (gt(request, dflt)) errs.push(invalid(`${p}.defaultRequest[${k}]`, text(request!), `default request value ${text(request!)} is greater than default limit value ${text(dflt!)}`));
      if (gt(min, dflt)) errs.push(invalid(`${p}.default[${k}]`, text(min!), `min value ${text(min!)} is greater than default value ${text(dflt!)}`));
      if (gt(dflt, max)) errs.push(invalid(`${p}.default[${k}]`, text(max!), `default value ${text(dflt!)} is greater than max value ${text(max!)}`));
      if (ratio && compareQuantities(ratio, parseQuantity('1')) < 0) errs.push(invalid(`${p}.maxLimitRequestRatio[${k}]`, text(ratio), `ratio ${text(ratio)} is less than 1`));
      if (ratio && min && max) {
        const limit = toNumber(max) / toNumber(min);
        if (toNumber(ratio) > limit) errs.push(invalid(`${p}.maxLimitRequestRatio[${k}]`, text(ratio), `ratio ${text(ratio)} is greater than max/min = ${goFloat(limit)}`));
      }
      if (!overcommitAllowed(k) && dflt && request && compareQuantities(dflt, request) !== 0) {
        errs.push(invalid(`${p}.defaultRequest[${k}]`, text(request), `default value ${text(dflt)} must equal to defaultRequest value ${text(request)} in ${k}`));
      }
    }
  });
  return errs;
}

/** A quantity as a float64 (the milli-value ratio upstream computes, for quantities of ordinary size). */
function toNumber(q: Quantity): number {
  const value = Number(`${q.digits}e${q.exponent}`);
  return q.negative ? -value : value;
}
