/**
 * Conversion of custom objects by a webhook (SPEC 2.1; upstream
 * apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go): one
 * ConversionReview per object, its answer checked as upstream checks it (the
 * review's kind and uid, the result, the converted object's version, kind,
 * name, namespace and uid), and the converted object's metadata restored from
 * the original but for labels and annotations, which are validated. Every
 * failure is a ConversionError with upstream's words. The HTTP call is the
 * caller's: this layer only builds and reads the reviews.
 */
import { randomUUID } from 'node:crypto';
import type { ApiObject } from '../strategy.ts';
import { validateLabels } from '../validation/label-selector.ts';
import { validateAnnotations } from '../validation/object-meta.ts';
import { aggregateText } from '../validation/field-errors.ts';
import { goPrint, goTypeName } from '../../util/go-print.ts';

/** The ConversionReview group, renamed from apiextensions.k8s.io. */
const REVIEW_GROUP = 'apiextensions.orch.io';

export class ConversionError extends Error {}

/** What the review's POST answered: its status and JSON body; a failed call throws an Error worded as client-go. */
export type ReviewPoster = (review: unknown) => Promise<{ body: unknown }>;

const isMap = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** GroupVersionKind.String() of an apiVersion and kind. */
function gvkText(apiVersion: unknown, kind: unknown): string {
  const text = typeof apiVersion === 'string' ? apiVersion : '';
  const [group, version] = text.includes('/') ? text.split('/', 2) : ['', text];
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/** Upstream isEmptyUnstructuredObject: nothing but apiVersion and kind. */
function isEmptyObject(obj: ApiObject): boolean {
  const keys = Object.keys(obj);
  return keys.length === 2 && keys.includes('apiVersion') && keys.includes('kind');
}

/**
 * A converter for one definition's `spec.conversion.webhook`: objects of
 * another version are sent to the webhook; one of the desired version is
 * returned as it is (upstream sends no review for it).
 */
export function webhookConverter(conversionReviewVersions: readonly string[], post: ReviewPoster): (object: ApiObject, apiVersion: string) => Promise<ApiObject> {
  // createConversionReviewObjects: the first version of the list this server speaks.
  const reviewVersion = conversionReviewVersions.find((v) => v === 'v1beta1' || v === 'v1');
  return async (object, apiVersion) => {
    if (isEmptyObject(object)) return { ...object, apiVersion };
    if (object.apiVersion === apiVersion) return object;
    const inGvk = gvkText(object.apiVersion, object.kind);
    if (!reviewVersion) throw new ConversionError('no supported conversion review versions');
    const uid = randomUUID();
    const review = {
      kind: 'ConversionReview',
      apiVersion: `${REVIEW_GROUP}/${reviewVersion}`,
      request: { uid, desiredAPIVersion: apiVersion, objects: [object] },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    };
    let answer: unknown;
    try {
      answer = (await post(review)).body;
    } catch (err) {
      throw new ConversionError(`conversion webhook for ${inGvk} failed: ${(err as Error).message}`);
    }
    let converted: unknown[];
    try {
      converted = convertedObjectsOf(answer, reviewVersion, uid);
    } catch (err) {
      if (!(err instanceof ConversionError)) throw err;
      throw new ConversionError(`conversion webhook for ${inGvk} failed: ${err.message}`);
    }
    if (converted.length !== 1) throw new ConversionError(`conversion webhook for ${inGvk} returned ${converted.length} objects, expected 1`);
    const out = rawExtensionObject(converted[0]);
    const outGv = typeof out.apiVersion === 'string' ? out.apiVersion : '';
    if (outGv !== apiVersion) {
      throw new ConversionError(`conversion webhook for ${inGvk} returned invalid object at index 0: invalid groupVersion (expected ${apiVersion}, received ${outGv})`);
    }
    if (out.kind !== object.kind) throw new ConversionError(`conversion webhook for ${inGvk} returned invalid object at index 0: invalid kind (expected ${object.kind}, received ${out.kind})`);
    const mismatch = sameIdentity(object, out);
    if (mismatch) throw new ConversionError(`conversion webhook for ${inGvk} returned invalid object: ${mismatch}`);
    const metadataError = restoreObjectMeta(object, out);
    if (metadataError) throw new ConversionError(`conversion webhook for ${inGvk} returned invalid metadata: ${metadataError}`);
    return identityFirst(out);
  };
}

/** Upstream getConvertedObjectsFromResponse, for the review version that was sent. */
function convertedObjectsOf(answer: unknown, reviewVersion: string, uid: string): unknown[] {
  if (!isMap(answer)) throw new ConversionError(`json: cannot unmarshal ${Array.isArray(answer) ? 'array' : answer === null ? 'null' : typeof answer} into Go value of type ${REVIEW_GROUP}/${reviewVersion}.ConversionReview`);
  const expectedApiVersion = `${REVIEW_GROUP}/${reviewVersion}`;
  // The decoder defaults a missing apiVersion or kind to the type it decodes into.
  const apiVersion = answer.apiVersion ?? expectedApiVersion;
  const kind = answer.kind ?? 'ConversionReview';
  if (reviewVersion === 'v1' && (apiVersion !== expectedApiVersion || kind !== 'ConversionReview')) {
    throw new ConversionError(`expected webhook response of ${gvkText(expectedApiVersion, 'ConversionReview')}, got ${gvkText(apiVersion, kind)}`);
  }
  const response = answer.response;
  if (!isMap(response)) throw new ConversionError('no response provided');
  if (reviewVersion === 'v1' && (response.uid ?? '') !== uid) throw new ConversionError(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(String(response.uid ?? ''))}`);
  const result = isMap(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message.length > 0) throw new ConversionError(result.message);
    throw new ConversionError(`response.result.status was '${typeof result.status === 'string' ? result.status : ''}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

/** Upstream getRawExtensionObject: the converted object as unstructured JSON, which must name its kind. */
function rawExtensionObject(raw: unknown): ApiObject {
  if (!isMap(raw)) throw new ConversionError(`json: cannot unmarshal ${goTypeName(raw) === '<nil>' ? 'null' : Array.isArray(raw) ? 'array' : typeof raw} into Go value of type map[string]interface {}`);
  if (typeof raw.kind !== 'string' || raw.kind === '') throw new ConversionError(`Object 'Kind' is missing in '${JSON.stringify(raw)}'`);
  return raw as ApiObject;
}

/** Upstream validateConvertedObject: kind, name, namespace and uid as the original's. */
function sameIdentity(original: ApiObject, converted: ApiObject): string | undefined {
  const pairs: Array<[string, unknown, unknown]> = [
    ['kind', original.kind, converted.kind],
    ['name', original.metadata?.name, converted.metadata?.name],
    ['namespace', original.metadata?.namespace, converted.metadata?.namespace],
    ['UID', original.metadata?.uid, converted.metadata?.uid],
  ];
  for (const [what, expected, actual] of pairs) {
    if ((expected ?? '') !== (actual ?? '')) return `must have the same ${what}: ${expected ?? ''} != ${typeof actual === 'string' || actual === undefined ? (actual ?? '') : goPrint(actual)}`;
  }
  return undefined;
}

/**
 * Upstream restoreObjectMeta: the original's metadata, with the converted
 * object's labels and annotations (string maps, validated when changed).
 * Answers the error text, or undefined once `converted` holds the result.
 */
function restoreObjectMeta(original: ApiObject, converted: ApiObject): string | undefined {
  const responseMeta = converted.metadata;
  if (responseMeta === undefined) return 'missing metadata in converted object';
  if (!isMap(responseMeta)) return `invalid metadata of type ${goTypeName(responseMeta)} in converted object`;
  const metadata: Record<string, any> = structuredClone(original.metadata ?? {});
  for (const field of ['labels', 'annotations'] as const) {
    const response = responseMeta[field];
    if (response === undefined || response === null) {
      delete metadata[field];
      continue;
    }
    if (!isMap(response)) return `invalid metadata.${field} of type ${goTypeName(response)} in converted object`;
    const originalField = isMap(metadata[field]) ? metadata[field] : {};
    let changed = Object.keys(originalField).length !== Object.keys(response).length;
    for (const [key, value] of Object.entries(response)) {
      if (typeof value !== 'string') return `metadata.${field}[${key}] must be a string, but is ${goTypeName(value)} in converted object`;
      if (originalField[key] !== value) changed = true;
    }
    if (changed) {
      // Upstream names the annotations' path metadata.annotation.
      const errs = field === 'labels' ? validateLabels(response, 'metadata.labels') : validateAnnotations(response, 'metadata.annotation');
      if (errs.length) return aggregateText(errs);
    }
    metadata[field] = response;
  }
  converted.metadata = metadata;
  return undefined;
}

/** The object with apiVersion, kind and metadata leading, as stored objects are (withResourceVersion relies on it). */
function identityFirst(obj: ApiObject): ApiObject {
  const out: ApiObject = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: obj.metadata };
  for (const key of Object.keys(obj)) {
    if (key !== 'apiVersion' && key !== 'kind' && key !== 'metadata') Object.defineProperty(out, key, { value: obj[key], writable: true, enumerable: true, configurable: true });
  }
  return out;
}
