/**
 * Quantities in their canonical form, as upstream's decoder reads them and
 * SetDefaults_ResourceList rounds them (K pkg/apis/core/v1/defaults.go, 1.31):
 * every kind with a ResourceList (Pods and their templates, Nodes,
 * LimitRanges, ResourceQuotas, volumes and claims) writes them so. A value
 * upstream's decoder refuses is its 400.
 */
import * as errors from '../../api/status-error.ts';
import { type Quantity, QuantityError, formatQuantity, quantityFromJson, roundUpQuantity } from '../../api/quantity.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Parses one quantity field in place to its canonical text; a value upstream's
 * decoder refuses is the same 400, naming the object's `kind` (`Pod in version
 * "v1" cannot be handled as a Pod: ...`). `roundToMilli`: SetDefaults_ResourceList
 * rounds every ResourceList entry up to milli units.
 */
export function canonicalQuantity(holder: Record<string, any>, key: string, roundToMilli: boolean, kind: string): Quantity | undefined {
  if (!Object.hasOwn(holder, key)) return undefined;
  let q: Quantity;
  try {
    q = quantityFromJson(holder[key]);
  } catch (err) {
    if (err instanceof QuantityError) throw errors.badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${err.message}`);
    throw err;
  }
  if (roundToMilli) q = roundUpQuantity(q, -3);
  holder[key] = formatQuantity(q);
  return q;
}

/** A v1 ResourceList in canonical form, each entry rounded up to milli units (SetDefaults_ResourceList). */
export function canonicalResourceList(list: unknown, kind: string): void {
  if (!isObj(list)) return;
  for (const name of Object.keys(list)) canonicalQuantity(list, name, true, kind);
}

/** SetDefaults_ResourceList on the lists of a status (also on a status write: the status subresource's strategy takes no applyDefaults). */
export function canonicalStatusLists(obj: Record<string, any>, kind: string, keys: string[]): void {
  for (const key of keys) canonicalResourceList(obj.status?.[key], kind);
}
