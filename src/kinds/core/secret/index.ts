/**
 * core/v1 Secret (upstream pkg/registry/core/secret/strategy.go, 1.31):
 * stringData folded into data on every write, then validated.
 */
import { setOwn } from '../../../registry/json-value.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy } from '../../../registry/strategy.ts';
import { validateSecret } from './validate.ts';

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Moves `stringData` into `data` (base64) and drops it, as upstream's v1→internal conversion does. */
export function mergeSecretStringData(obj: any): void {
  if (!isObj(obj.stringData)) {
    delete obj.stringData;
    return;
  }
  const entries = Object.entries(obj.stringData);
  if (entries.length > 0) {
    obj.data = isObj(obj.data) ? obj.data : {};
    for (const [k, v] of entries) setOwn(obj.data, k, Buffer.from(str(v), 'utf8').toString('base64'));
  }
  delete obj.stringData;
}

export default defineKind({
  strategy: { applyDefaults: mergeSecretStringData, ...validatedBy(validateSecret) },
});
