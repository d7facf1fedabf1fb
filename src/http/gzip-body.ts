/**
 * gzip of API responses (SPEC 9.6 gate APIResponseCompression), as upstream's
 * responsewriters do it (writers.go deferredResponseWriter, compression.go):
 * a body over 128 KiB to a client whose Accept-Encoding names `gzip`, at
 * compression level 1, with `Content-Encoding: gzip` and `Vary: Accept-Encoding`.
 *
 * Bodies the watch cache shares between readers (a list's items, a Table, a
 * chunk) are compressed once per version, off the event loop (zlib's thread
 * pool), and the result shared too: the key is the shared Buffer itself, which
 * the cache replaces on every change, so a WeakMap drops the compressed copy
 * together with the body it came from.
 */
import { constants, gzip, gzipSync } from 'node:zlib';
import { promisify } from 'node:util';

/** Upstream's defaultGzipThresholdBytes: smaller bodies cost more to compress than they save. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

/** Upstream's gzipContentEncodingLevel: the least CPU for a ratio within 1.1x-1.3x of the best (kubernetes#112296). */
export const GZIP_OPTIONS = { level: constants.Z_BEST_SPEED };

/** The headers of a compressed answer. */
export const GZIP_HEADERS = { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } as const;

const gzipAsync = promisify(gzip);

/**
 * Whether the request's Accept-Encoding asks for gzip: one comma-separated
 * token equal to `gzip` once trimmed, parameters not understood, as upstream's
 * ContentEncodingSupported (a `gzip;q=0.5` token does not count there either).
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (!header) return false;
  // Go's transport, hence every client-go client, sends exactly this.
  if (header === 'gzip') return true;
  const text = Array.isArray(header) ? header.join(',') : header;
  return text.split(',').some((token) => token.trim() === 'gzip');
}

/** A body compressed now, off the event loop (a body made for this request alone). */
export function gzipBody(body: string | Buffer): Promise<Buffer> {
  return gzipAsync(body, GZIP_OPTIONS);
}

const sharedCompressed = new WeakMap<Buffer, Promise<Buffer>>();

/** A shared body's gzip member, compressed by its first reader and shared by the others while the body lives. */
export function gzipShared(body: Buffer): Promise<Buffer> {
  let compressed = sharedCompressed.get(body);
  if (!compressed) {
    compressed = gzipAsync(body, GZIP_OPTIONS);
    sharedCompressed.set(body, compressed);
  }
  return compressed;
}

/**
 * `open`, a shared body and `close` as one gzip answer: three gzip members one
 * after the other (RFC 1952 section 2.2: a gzip file is a series of members,
 * which Go's gzip.Reader, and so kubectl and client-go, reads as one stream).
 * The large middle is the shared member; only the few bytes around it are
 * compressed per request.
 */
export async function gzipAround(open: string | Uint8Array, body: Buffer, close: string | Uint8Array): Promise<Buffer[]> {
  const middle = await gzipShared(body);
  return [gzipSync(open, GZIP_OPTIONS), middle, gzipSync(close, GZIP_OPTIONS)];
}
