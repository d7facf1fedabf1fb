/**
 * Stored JSON as the watch cache keeps it: UTF-8 bytes outside V8's heap
 * (value-slabs.ts says why). These helpers serve the bytes as they are,
 * splicing in the resourceVersion (SPEC 4.6) as withResourceVersion does for
 * text, so a GET, a list body or a watch event never decodes them.
 */

const METADATA_OPEN = Buffer.from('"metadata":{');
const API_VERSION_OPEN = Buffer.from('{"apiVersion":"');
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * `before` + the stored object with `"resourceVersion":"<revision>"` first in
 * its metadata + `after`, in one new buffer.
 */
export function withResourceVersionBytes(stored: Buffer, revision: number, before = '', after = ''): Buffer {
  const at = stored.indexOf(METADATA_OPEN);
  if (at < 0) throw new Error('stored object has no metadata');
  const insertAt = at + METADATA_OPEN.length;
  const field = `"resourceVersion":"${revision}"${stored[insertAt] === CLOSE_BRACE ? '' : ','}`;
  const out = Buffer.allocUnsafe(Buffer.byteLength(before) + stored.length + field.length + Buffer.byteLength(after));
  let n = out.write(before, 0);
  n += stored.copy(out, n, 0, insertAt);
  n += out.write(field, n, 'latin1');
  n += stored.copy(out, n, insertAt);
  out.write(after, n);
  return out;
}

/**
 * The apiVersion a store wrote first in the object (serializeForStorage puts
 * it there), or undefined when it is not first or is escaped: such an object
 * is served through withApiVersion, which rebuilds it.
 */
export function leadingApiVersion(stored: Buffer): string | undefined {
  if (stored.length <= API_VERSION_OPEN.length || stored.compare(API_VERSION_OPEN, 0, API_VERSION_OPEN.length, 0, API_VERSION_OPEN.length) !== 0) return undefined;
  const end = stored.indexOf(QUOTE, API_VERSION_OPEN.length);
  if (end < 0) return undefined;
  const backslash = stored.indexOf(BACKSLASH, API_VERSION_OPEN.length);
  if (backslash >= 0 && backslash < end) return undefined;
  return stored.toString('utf8', API_VERSION_OPEN.length, end);
}

/**
 * The characters between the first `marker` in `stored` and the next quote,
 * as a string of their own (never a slice that would keep all of `stored`),
 * or undefined when `marker` is absent or nothing follows it.
 */
export function textAfter(stored: string | Buffer, marker: string): string | undefined {
  const at = stored.indexOf(marker);
  if (at < 0) return undefined;
  const start = at + Buffer.byteLength(marker);
  const end = stored.indexOf('"', start);
  if (end <= start) return undefined;
  return typeof stored === 'string' ? (JSON.parse(JSON.stringify(stored.slice(start, end))) as string) : stored.toString('utf8', start, end);
}
