/**
 * The one place that writes API responses: Status errors, objects and stored
 * JSON, in the negotiated encoding (SPEC 4.7), pretty-printed on request
 * (SPEC 4.3 `pretty`), with the warnings a request collected (SPEC 4.9).
 */
import { noteResponseStatus } from '../audit/request-audit.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { yaml } from '../util/lazy-packages.ts';
import { goParseBool } from '../api/query-values.ts';
import { internalError, requestTimeout, StatusError, type Status } from '../api/status-error.ts';
import { DeadlineExceededError, StorageTimeoutError } from '../storage/interface.ts';
import type { ProtobufCodec } from '../api/protobuf/codec.ts';
import { PROTOBUF_TYPE } from '../api/protobuf/envelope.ts';
import { createGzip } from 'node:zlib';
import { GZIP_HEADERS, GZIP_OPTIONS, GZIP_THRESHOLD_BYTES, gzipAround, gzipBody, gzipShared } from './gzip-body.ts';
import { JSON_TYPE, YAML_TYPE } from './negotiation.ts';

/** upstream pretty-prints for browsers and command-line HTTP clients even without `pretty`. */
const PRETTY_AGENTS = /^(curl|Wget|Mozilla\/5\.0)/;

/** SPEC 4.3 `pretty`: upstream parses it with strconv.ParseBool, an unknown value being false; empty or absent asks the User-Agent. */
export function wantsPretty(req: IncomingMessage, query: URLSearchParams): boolean {
  const pretty = query.get('pretty');
  if (pretty) return goParseBool(pretty) ?? false;
  return PRETTY_AGENTS.test(req.headers['user-agent'] ?? '');
}

export interface EncodeOptions {
  pretty: boolean;
  mediaType: string;
  warnings?: string[];
  headers?: Record<string, string>;
  /** The protobuf codec, for answers negotiated as protobuf (SPEC 4.7). */
  protobuf?: ProtobufCodec;
  /** The client accepts gzip and APIResponseCompression is on: bodies over 128 KiB go compressed (gzip-body.ts). */
  gzip?: boolean;
}

/**
 * SPEC 4.9 Warning headers as upstream formats them (apimachinery
 * NewWarningHeader): `299 - "text"` with `"` and `\` escaped, the text in UTF-8;
 * a text with control characters is dropped, as upstream's recorder drops it.
 * Node takes header values as Latin-1 code units, so the UTF-8 bytes go as such:
 * a client's unknown field name can never make the header unsendable.
 */
export function setWarnings(res: ServerResponse, warnings: readonly string[] | undefined): void {
  const values = (warnings ?? [])
    .filter((text) => !/[\p{Cc}]/u.test(text))
    .map((text) => Buffer.from(`299 - "${text.replace(/["\\]/g, '\\$&')}"`, 'utf8').toString('latin1'));
  if (values.length) res.setHeader('Warning', values);
}

/** Upstream's Cache-Control on every API response: a proxy must not serve one client's objects to another. */
const NO_CACHE = 'no-cache, private';

function baseHeaders(res: ServerResponse, options: EncodeOptions, contentType: string): void {
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', NO_CACHE);
  setWarnings(res, options.warnings);
  for (const [k, v] of Object.entries(options.headers ?? {})) res.setHeader(k, v);
}

/**
 * Whether the response was already answered: by a deadline's 504 or below the
 * request path. A handler finishing later must not write again (a write after
 * the end would raise an error event on the response).
 */
export function alreadyAnswered(res: ServerResponse): boolean {
  return res.writableEnded || res.destroyed;
}

/** Writes a JS value in the negotiated encoding; in protobuf, as the message its apiVersion and kind name. */
export function writeObject(res: ServerResponse, status: number, body: unknown, options: EncodeOptions): void {
  if (alreadyAnswered(res)) return;
  if (options.mediaType === PROTOBUF_TYPE) {
    const { apiVersion, kind } = body as { apiVersion: string; kind: string };
    return sendWhole(res, status, options, PROTOBUF_TYPE, options.protobuf!.encodeObject(apiVersion, kind, body));
  }
  let text: string;
  if (options.mediaType === YAML_TYPE) text = yaml().stringify(body, { lineWidth: 0 });
  else text = options.pretty ? JSON.stringify(body, null, 2) + '\n' : JSON.stringify(body);
  sendWhole(res, status, options, options.mediaType, text);
}

/**
 * A whole API answer. The common one, without warnings or extra headers, goes
 * as one header array straight to writeHead: a setHeader per header (name
 * check, lower-casing, a map entry) was a measurable part of a cached GET.
 */
export function sendWhole(res: ServerResponse, status: number, options: EncodeOptions, contentType: string, body: string | Buffer): void {
  if (options.gzip && overGzipThreshold(body)) return sendGzipped(res, status, options, contentType, gzipBody(body));
  if (options.headers !== undefined || options.warnings?.length) {
    baseHeaders(res, options, contentType);
    return endWhole(res, status, body);
  }
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, ['Content-Type', contentType, 'Cache-Control', NO_CACHE, 'Content-Length', String(bytes.length)]);
  res.end(bytes);
}

/**
 * Sends a whole body with its Content-Length: after a bare writeHead Node no
 * longer knows the length and frames the body in chunks, an extra pass and
 * more bytes for every small answer.
 */
function endWhole(res: ServerResponse, status: number, body: string | Buffer): void {
  // As bytes: Node joins a string body to the head and encodes both as UTF-8, which would
  // re-encode a Warning's UTF-8 bytes (setWarnings) instead of sending them as they are.
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.setHeader('Content-Length', bytes.length);
  res.writeHead(status);
  res.end(bytes);
}

/** Writes JSON that is already encoded (the stored bytes), re-encoding only when needed. */
export function writeJsonText(res: ServerResponse, status: number, json: string | Buffer, options: EncodeOptions): void {
  if (alreadyAnswered(res)) return;
  if (options.pretty || options.mediaType !== JSON_TYPE) return writeObject(res, status, JSON.parse(json.toString()), options);
  // A Buffer here is one the cache shares (an object's version, a Table, a chunk): its gzip is shared too.
  if (options.gzip && typeof json !== 'string' && json.length > GZIP_THRESHOLD_BYTES) return sendGzipped(res, status, options, JSON_TYPE, gzipShared(json));
  if (typeof json === 'string' || json.length <= STREAM_CHUNK) return sendWhole(res, status, options, JSON_TYPE, json);
  baseHeaders(res, options, JSON_TYPE);
  // A large shared body (a Table, a chunk) in slices: whole, TLS would encrypt one copy per reader at once.
  res.setHeader('Content-Length', json.length);
  res.writeHead(status);
  writeSlices(res, slicesOf(json));
}

/**
 * Writes a body encoded once and shared by every reader (the OpenAPI
 * documents) with its headers: a large one in slices that wait for drain, as
 * writeJsonText does, so a crowd of readers never holds one ciphertext each.
 */
export function writeSharedBody(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer): void {
  if (alreadyAnswered(res)) return;
  res.writeHead(status, { ...headers, 'Content-Length': String(body.length) });
  if (body.length <= STREAM_CHUNK) res.end(body);
  else writeSlices(res, slicesOf(body));
}

/** Characters or bytes a streamed body hands the socket at a time. */
const STREAM_CHUNK = 262_144;

/**
 * Writes a 200 body (JSON unless told) from `next()`'s chunks (undefined: the end), waiting
 * for the socket to drain whenever it is full, so a large body is never held
 * twice: neither one string nor, under TLS, one ciphertext per slow reader.
 */
function streamBody(res: ServerResponse, options: EncodeOptions, next: () => string | Buffer | undefined, contentLength?: number, contentType = JSON_TYPE): void {
  if (alreadyAnswered(res)) return;
  baseHeaders(res, options, contentType);
  if (contentLength !== undefined) res.setHeader('Content-Length', contentLength);
  res.writeHead(200);
  writeSlices(res, next);
}

/** Writes `next()`'s chunks after the head, waiting for drain whenever the socket is full, then ends. */
function writeSlices(res: ServerResponse, next: () => string | Buffer | undefined): void {
  const writeSome = () => {
    // The deadline (or the client) may have ended the response while it waited for drain.
    if (alreadyAnswered(res)) return;
    for (let chunk = next(); chunk !== undefined; chunk = next()) {
      if (!res.write(chunk)) return void res.once('drain', writeSome);
    }
    res.end();
  };
  writeSome();
}

/** The STREAM_CHUNK slices of parts written one after the other, views rather than copies. */
function slicesOfParts(parts: readonly Buffer[]): () => Buffer | undefined {
  let part = 0;
  let slices = slicesOf(parts[0] ?? Buffer.alloc(0));
  return () => {
    for (let slice = slices(); ; slice = slices()) {
      if (slice) return slice;
      if (++part >= parts.length) return undefined;
      slices = slicesOf(parts[part]);
    }
  };
}

/** A Buffer's STREAM_CHUNK slices, views rather than copies. */
function slicesOf(body: Buffer): () => Buffer | undefined {
  let offset = 0;
  return () => {
    if (offset >= body.length) return undefined;
    const slice = body.subarray(offset, offset + STREAM_CHUNK);
    offset += slice.length;
    return slice;
  };
}

/** Writes `open item,item,... close`, JSON whose items are made one by one: a large list is never one string. */
export function writeJsonItems(res: ServerResponse, options: EncodeOptions, open: string, count: number, item: (i: number) => string, close: string): void {
  let i = 0;
  let done = false;
  (options.gzip ? streamJsonMaybeGzipped : streamBody)(res, options, () => {
    if (done) return undefined;
    let chunk = i === 0 ? open : '';
    while (i < count && chunk.length <= STREAM_CHUNK) {
      chunk += (i ? ',' : '') + item(i);
      i++;
    }
    if (i < count) return chunk;
    done = true;
    return chunk + close;
  });
}

/**
 * Writes `open`, an already-encoded body shared by many responses (the watch
 * cache's list items, a chunk's items, a Table's rows), then `close`, with
 * their Content-Length.
 */
export function writeJsonAround(res: ServerResponse, options: EncodeOptions, open: string, body: Buffer, close: string): void {
  writeAround(res, options, JSON_TYPE, open, body, close);
}

/**
 * `writeJsonAround` for any media type (a protobuf list: the envelope's head
 * and list metadata, the shared items, the envelope's tail). Gzipped, the
 * shared part is compressed once for every reader (gzipAround).
 */
export function writeAround(res: ServerResponse, options: EncodeOptions, contentType: string, open: string | Buffer, body: Buffer, close: string | Buffer): void {
  const length = byteLength(open) + body.length + byteLength(close);
  if (options.gzip && length > GZIP_THRESHOLD_BYTES) return sendGzipped(res, 200, options, contentType, gzipAround(open, body, close));
  let opened = false;
  let closed = false;
  const slices = slicesOf(body);
  streamBody(res, options, () => {
    if (!opened) {
      opened = true;
      return open;
    }
    const slice = slices();
    if (slice) return slice;
    if (closed) return undefined;
    closed = true;
    return close;
  }, length, contentType);
}

/** Whether a body's UTF-8 exceeds the threshold, without measuring a string that is surely under or over it. */
function overGzipThreshold(body: string | Buffer): boolean {
  if (typeof body !== 'string' || body.length > GZIP_THRESHOLD_BYTES) return body.length > GZIP_THRESHOLD_BYTES;
  return body.length * 3 > GZIP_THRESHOLD_BYTES && Buffer.byteLength(body) > GZIP_THRESHOLD_BYTES;
}

function byteLength(body: string | Buffer): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}

/**
 * Sends a body compressed off the event loop, once it is: headers, the
 * compressed length, then the bytes in slices. The request's handler has
 * returned by then, so a failure ends the response here.
 */
function sendGzipped(res: ServerResponse, status: number, options: EncodeOptions, contentType: string, compressing: Promise<Buffer | Buffer[]>): void {
  compressing.then(
    (compressed) => {
      if (alreadyAnswered(res)) return;
      const parts = Array.isArray(compressed) ? compressed : [compressed];
      baseHeaders(res, options, contentType);
      for (const [name, value] of Object.entries(GZIP_HEADERS)) res.setHeader(name, value);
      res.setHeader('Content-Length', parts.reduce((sum, part) => sum + part.length, 0));
      res.writeHead(status);
      writeSlices(res, slicesOfParts(parts));
    },
    (err) => {
      console.error('could not compress a response:', err);
      if (!alreadyAnswered(res)) res.destroy();
    },
  );
}

/**
 * A streamed 200 JSON body, gzipped when it passes the threshold: chunks are
 * held until they do (upstream's deferredResponseWriter buffers the same way);
 * a body that ends below it goes plain and whole. Past it, the chunks go
 * through a zlib stream (compressed on zlib's threads), its output waiting for
 * the socket's drain and the input for the stream's.
 */
function streamJsonMaybeGzipped(res: ServerResponse, options: EncodeOptions, next: () => string | Buffer | undefined): void {
  if (alreadyAnswered(res)) return;
  const held: (string | Buffer)[] = [];
  let heldBytes = 0;
  for (let chunk = next(); ; chunk = next()) {
    if (chunk === undefined) return sendWhole(res, 200, { ...options, gzip: false }, JSON_TYPE, Buffer.concat(held.map((c) => (typeof c === 'string' ? Buffer.from(c) : c))));
    held.push(chunk);
    heldBytes += byteLength(chunk);
    if (heldBytes > GZIP_THRESHOLD_BYTES) break;
  }
  baseHeaders(res, options, JSON_TYPE);
  for (const [name, value] of Object.entries(GZIP_HEADERS)) res.setHeader(name, value);
  res.writeHead(200);
  const compressor = createGzip(GZIP_OPTIONS);
  compressor.pipe(res);
  res.once('close', () => compressor.destroy());
  const writeSome = () => {
    if (alreadyAnswered(res) || compressor.destroyed) return;
    for (let chunk = held.shift() ?? next(); chunk !== undefined; chunk = held.shift() ?? next()) {
      if (!compressor.write(chunk)) return void compressor.once('drain', writeSome);
    }
    compressor.end();
  };
  writeSome();
}

/**
 * Renders any thrown value as a Status: a store that timed out or a deadline
 * that passed is 504, other errors 500 InternalError (FACTS 1).
 */
export function toStatusError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  if (err instanceof StorageTimeoutError || err instanceof DeadlineExceededError) return requestTimeout();
  return internalError(err);
}

export function writeError(res: ServerResponse, err: unknown, options: EncodeOptions): void {
  if (alreadyAnswered(res)) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const statusError = toStatusError(err);
  if (statusError.code >= 500) console.error('request failed:', err);
  const status: Status = statusError.toStatus();
  noteResponseStatus(res, status);
  // A Status is written in the negotiated type, protobuf included (upstream ErrorNegotiated).
  const mediaType = options.mediaType === YAML_TYPE || (options.mediaType === PROTOBUF_TYPE && options.protobuf) ? options.mediaType : JSON_TYPE;
  writeObject(res, statusError.code, status, { ...options, mediaType, headers: { ...options.headers, ...statusError.headers } });
}

export function writeText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  if (alreadyAnswered(res)) return;
  for (const [name, value] of Object.entries({ 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', ...headers })) res.setHeader(name, value);
  endWhole(res, status, text);
}
