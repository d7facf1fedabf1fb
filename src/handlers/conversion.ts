/**
 * Custom objects read through a version their conversion webhook must make
 * (SPEC 2.1; upstream converts each object as its version's storage decodes
 * it): before a response is encoded, every object stored at another version
 * gets its converted form, kept with the object version so later reads and
 * other watchers reuse it. A failed conversion fails the read with a 500.
 */
import { apiVersionOf, type KindDefinition } from '../registry/kind.ts';
import { serializeForStorage } from '../registry/object-meta.ts';
import type { CachedObject } from '../storage/cacher/cached-object.ts';

/** Webhook calls one read keeps in flight at once. */
const CONVERSIONS_IN_FLIGHT = 8;

/** Converts what `objects` lack at the kind's version; nothing to do for a kind without a webhook. */
export async function convertForServing(kind: KindDefinition, objects: readonly (CachedObject | undefined)[]): Promise<void> {
  const { convert } = kind;
  if (!convert) return;
  const apiVersion = apiVersionOf(kind);
  const pending = objects.filter((o): o is CachedObject => o !== undefined && o.parsed().apiVersion !== apiVersion && !o.hasConverted(apiVersion));
  let next = 0;
  const worker = async () => {
    while (next < pending.length) {
      const object = pending[next++];
      const converted = await convert(JSON.parse(object.json()), apiVersion);
      object.keepConverted(apiVersion, serializeForStorage(converted));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONVERSIONS_IN_FLIGHT, pending.length) }, worker));
}
