/**
 * core/v1 LimitRange (SPEC 9.7; K pkg/registry/core/limitrange/strategy.go,
 * 1.31): the defaults of K pkg/apis/core/v1/defaults.go that depend on other
 * fields (every ResourceList in canonical form), validated on create and update.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy, type ApiObject } from '../../../registry/strategy.ts';
import { canonicalResourceList } from '../../../registry/validation/resource-list.ts';
import { validateLimitRange } from './validate.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** SetDefaults_LimitRangeItem for Container limits: default from max, defaultRequest from default, then from min. */
function defaultLimitRange(obj: ApiObject): void {
  for (const item of Array.isArray(obj.spec?.limits) ? obj.spec.limits : []) {
    if (!isObj(item)) continue;
    for (const key of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) canonicalResourceList(item[key], 'LimitRange');
    if (item.type !== 'Container') continue;
    const fill = (target: string, source: unknown) => {
      for (const [name, value] of Object.entries(isObj(source) ? source : {})) {
        if (!isObj(item[target])) item[target] = {};
        item[target][name] ??= value;
      }
    };
    fill('default', item.max);
    fill('defaultRequest', item.default);
    fill('defaultRequest', item.min);
  }
}

export default defineKind({ strategy: { ...validatedBy(validateLimitRange), applyDefaults: defaultLimitRange } });
