/**
 * Reads of single objects for the server's own decisions (authentication,
 * admission, controllers): from storage, never from the watch cache, so a
 * deleted service account or bootstrap token stops working at once (SPEC 5.2).
 */
import type { Storage } from '../storage/interface.ts';
import { objectKey } from '../storage/keys.ts';
import { storageGroupOf, type KindDefinition } from './kind.ts';
import { parseStored } from './object-meta.ts';
import type { ApiObject } from './strategy.ts';

export interface ObjectReader {
  /** The stored object, or null when there is none. */
  get(namespace: string | undefined, name: string): Promise<ApiObject | null>;
}

export function objectReader(storage: Storage, kind: KindDefinition): ObjectReader {
  return {
    async get(namespace, name) {
      const kv = await storage.get(objectKey(storageGroupOf(kind), kind.plural, kind.namespaced ? namespace : undefined, name));
      return kv ? parseStored(kv.value, kv.modRevision) : null;
    },
  };
}
