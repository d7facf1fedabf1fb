/**
 * Stored JSON edited as text (DESIGN "watch cache"): the GET, list and watch
 * paths serve the text storage holds, with the revision spliced in as its
 * resourceVersion (SPEC 4.6) and, for a version that only renames the stored
 * one, its apiVersion replaced, without decoding it. The splices rely on how a
 * store writes an object (registry/store.ts, object-meta.ts
 * serializeForStorage): apiVersion first, and a metadata object without
 * resourceVersion. cacher/stored-bytes.ts does the same for bytes.
 */

const METADATA_OPEN = '"metadata":{';

/**
 * Splices the resourceVersion into stored JSON without parsing it: the hot GET
 * and list paths serve stored bytes as they are (DESIGN "watch cache").
 */
export function withResourceVersion(stored: string, revision: number): string {
  const at = stored.indexOf(METADATA_OPEN);
  if (at < 0) throw new Error('stored object has no metadata');
  const insertAt = at + METADATA_OPEN.length;
  const separator = stored[insertAt] === '}' ? '' : ',';
  return `${stored.slice(0, insertAt)}"resourceVersion":"${revision}"${separator}${stored.slice(insertAt)}`;
}

const API_VERSION_OPEN = '{"apiVersion":"';

/**
 * Stored JSON as another version of the same kind serves it, when the
 * conversion only renames the version (SPEC 2.1; upstream
 * apiextensions-apiserver nopConverter, strategy None): the leading apiVersion
 * is replaced, the rest is served as stored. The same string when it already
 * names `apiVersion`.
 */
export function withApiVersion(stored: string, apiVersion: string): string {
  if (stored.startsWith(API_VERSION_OPEN)) {
    const end = stored.indexOf('"', API_VERSION_OPEN.length);
    const current = stored.slice(API_VERSION_OPEN.length, end);
    if (end > 0 && !current.includes('\\')) {
      return current === apiVersion ? stored : `${API_VERSION_OPEN}${apiVersion}${stored.slice(end)}`;
    }
  }
  // Not written by a store (which puts apiVersion first): rebuilt with apiVersion leading.
  const { apiVersion: _stored, ...rest } = JSON.parse(stored);
  return JSON.stringify({ apiVersion, ...rest });
}
