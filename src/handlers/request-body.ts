/**
 * Reading and decoding request bodies (SPEC 4.7 content types, 4.9 field
 * validation; FACTS 1.1 error texts): size limit, media type, JSON or YAML,
 * then the kind's generated decoder. Every byte is the client's: whatever it
 * sends is a value or a 4xx Status, never a crash (issue 7).
 */
import { noteRequestBody } from '../audit/request-audit.ts';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import * as errors from '../api/status-error.ts';
import type { BodyKind, DecodeContext } from '../registry/kind.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { jsonDepthError } from '../registry/validation/go-json.ts';
import { findDuplicateFields } from './duplicate-fields.ts';
import { parseYamlDocument, YamlDocumentError } from './yaml-document.ts';
import { OutcomeError } from '../util/outcome-error.ts';
import { ProtobufBodyError, type ProtobufCodec } from '../api/protobuf/codec.ts';
import { PROTOBUF_TYPE } from '../api/protobuf/envelope.ts';
import type { DeadlineSignal } from '../util/deadline-signal.ts';

/** Upstream's limit for a decoded request body (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml'];

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The media types a body of `kind` may come in: JSON, YAML, and protobuf for the kinds that have a message (SPEC 4.7). */
export function objectMediaTypes(kind: BodyKind, protobuf: ProtobufCodec | undefined): string[] {
  const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
  return protobuf?.supports(apiVersion, kind.kind) ? [...OBJECT_MEDIA_TYPES, PROTOBUF_TYPE] : OBJECT_MEDIA_TYPES;
}

/**
 * A protobuf body's JSON form (SPEC 4.7), errors as upstream's create and
 * update handlers word them (transformDecodeError): a body whose envelope
 * cannot be read is "unrecognized", showing its first bytes.
 */
function decodeProtobuf(kind: BodyKind, body: Buffer, protobuf: ProtobufCodec): unknown {
  const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
  try {
    return protobuf.decodeObject(body, apiVersion, kind.kind);
  } catch (err) {
    if (!(err instanceof ProtobufBodyError)) throw err;
    if (err.envelopeRead) throw cannotHandle(kind, err.message);
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind.kind}): ${err.message} (${err.summary})`);
  }
}

/**
 * Reads the whole body, refusing more than the limit with 413 once the limit is
 * passed, never buffering more than it. Like upstream's `limitedReadBody` it reads
 * up to the limit even when Content-Length already says too much: answering before
 * the client has sent its body makes the connection close under the client's
 * writes, and most clients then lose the 413 to a broken pipe.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(errors.requestEntityTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      noteRequestBody(req, body);
      resolve(body);
    });
    req.on('error', reject);
  });
}

// RFC 2045 tspecials and Go's isTokenChar: printable ASCII other than these.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

function consumeToken(v: string): [string, string] {
  const match = TOKEN.exec(v);
  return match ? [match[0], v.slice(match[0].length)] : ['', v];
}

function consumeValue(v: string): [string, string] {
  if (!v.startsWith('"')) return consumeToken(v);
  let value = '';
  for (let i = 1; i < v.length; i++) {
    const c = v[i];
    if (c === '"') return [value, v.slice(i + 1)];
    if (c === '\\' && i + 1 < v.length && '()<>@,;:\\"/[]?='.includes(v[i + 1])) {
      value += v[++i];
      continue;
    }
    if (c === '\r' || c === '\n') return ['', v];
    value += c;
  }
  return ['', v];
}

/**
 * Go's mime.ParseMediaType, which upstream's body negotiation uses: the type in
 * lower case and its parameters, or undefined for what Go refuses (`;;`, a
 * parameter without `=`, a type without subtype token, duplicate parameters).
 */
export function parseMediaType(header: string): { mediaType: string; params: Record<string, string> } | undefined {
  const semicolon = header.indexOf(';');
  const base = semicolon < 0 ? header : header.slice(0, semicolon);
  const mediaType = base.toLowerCase().trim();
  const [type, afterType] = consumeToken(mediaType);
  if (!type) return undefined;
  if (afterType) {
    if (!afterType.startsWith('/')) return undefined;
    const [subtype, rest] = consumeToken(afterType.slice(1));
    if (!subtype || rest) return undefined;
  }
  const params: Record<string, string> = Object.create(null);
  let v = header.slice(base.length);
  while (v.length) {
    v = v.trimStart();
    if (!v) break;
    const param = consumeParam(v);
    if (!param) {
      if (v.trim() === ';') break; // trailing semicolons are no error
      return undefined;
    }
    const [key, value, rest] = param;
    if (key in params && params[key] !== value) return undefined;
    params[key] = value;
    v = rest;
  }
  return { mediaType, params };
}

function consumeParam(v: string): [string, string, string] | undefined {
  let rest = v.trimStart();
  if (!rest.startsWith(';')) return undefined;
  const [rawKey, afterKey] = consumeToken(rest.slice(1).trimStart());
  if (!rawKey) return undefined;
  rest = afterKey.trimStart();
  if (!rest.startsWith('=')) return undefined;
  rest = rest.slice(1).trimStart();
  const [value, afterValue] = consumeValue(rest);
  if (!value && afterValue === rest) return undefined;
  return [rawKey.toLowerCase(), value, afterValue];
}

/**
 * The media type of a request body as upstream negotiates it (NegotiateInputSerializer):
 * absent or empty means JSON; anything Go cannot parse or the server does not
 * decode is 415 UnsupportedMediaType. Parameters such as `charset` are ignored.
 */
export function requestMediaType(req: IncomingMessage, accepted: string[] = OBJECT_MEDIA_TYPES): string {
  const header = req.headers['content-type'];
  if (header === undefined || header === '') return accepted[0];
  const parsed = parseMediaType(header);
  if (!parsed || !accepted.includes(parsed.mediaType)) throw errors.unsupportedMediaType(header, accepted);
  return parsed.mediaType;
}

/** A body that is not a document of its media type; the message is Go's wording where it matters. */
export class DocumentError extends OutcomeError {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentError';
  }
}

/** What goyaml's reader refuses anywhere in a document (its is_printable), a byte-order mark after the start included. */
const YAML_CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFEFF\uFFFE\uFFFF]/;

/**
 * The text of a YAML body: goyaml reads UTF-8, or UTF-16 behind a byte-order
 * mark, and refuses broken UTF-8 and control characters.
 */
function yamlText(body: Buffer): string {
  let text: string;
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) text = decodeUtf16(body.subarray(2), 'utf-16le');
  else if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) text = decodeUtf16(body.subarray(2), 'utf-16be');
  else if (!isUtf8(body)) throw new DocumentError('yaml: invalid leading UTF-8 octet');
  else text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (YAML_CONTROL.test(text)) throw new DocumentError('yaml: control characters are not allowed');
  return text;
}

function decodeUtf16(bytes: Buffer, encoding: 'utf-16le' | 'utf-16be'): string {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new DocumentError('yaml: invalid Unicode character');
  }
}

/**
 * Parses a body of a JSON or YAML media type into a plain value, refusing
 * documents nested deeper than upstream's decoders allow. Throws
 * {@link DocumentError} for anything undecodable; callers wrap its message in
 * their upstream context. `signal` ends a YAML decode nobody waits for.
 */
export async function parseDocument(body: Buffer, mediaType: string, signal?: DeadlineSignal): Promise<unknown> {
  if (mediaType === 'application/yaml' || mediaType === 'application/apply-patch+yaml') {
    try {
      return await parseYamlDocument(yamlText(body), signal);
    } catch (err) {
      if (err instanceof YamlDocumentError) throw new DocumentError(err.message);
      throw err;
    }
  }
  const text = body.toString('utf8');
  const tooDeep = jsonDepthError(text);
  if (tooDeep) throw new DocumentError(tooDeep);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DocumentError((err as Error).message);
  }
}

export interface DecodedBody {
  object: ApiObject;
  warnings: string[];
}

/** FACTS 1.1: `{Kind} in version "{v}" cannot be handled as a {Kind}: {reason}`. */
export function cannotHandle(kind: BodyKind, reason: string): errors.StatusError {
  return errors.badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${reason}`);
}

/**
 * Decodes an object of `kind` from raw body bytes: checks the media type, the
 * apiVersion/kind it declares, the JSON types of every field; unknown fields are
 * dropped and then ignored, warned about or refused per `fieldValidation`.
 */
export async function decodeObject(
  kind: BodyKind, body: Buffer, mediaType: string, fieldValidation: FieldValidation, signal?: DeadlineSignal, protobuf?: ProtobufCodec,
): Promise<DecodedBody> {
  // upstream: "strict decoding is unsupported for protobuf" (codec factory); a message has no unknown
  // or duplicate fields to report, what the schema does not know was skipped.
  if (mediaType === PROTOBUF_TYPE && protobuf) return decodeValue(kind, decodeProtobuf(kind, body, protobuf), fieldValidation);
  let value: unknown;
  try {
    value = await parseDocument(body, mediaType, signal);
  } catch (err) {
    if (err instanceof DocumentError) throw cannotHandle(kind, err.message);
    throw err;
  }
  const duplicates = fieldValidation !== 'Ignore' && mediaType === 'application/json' ? findDuplicateFields(body.toString('utf8'), value) : [];
  return decodeValue(kind, value, fieldValidation, duplicates);
}

/**
 * AS handlers/rest.go checkName: a PUT body, a patched object and a created
 * applied object must carry the URL's name; an empty one does not either.
 */
export function checkName(object: ApiObject, name: string): void {
  const objectName = typeof object.metadata?.name === 'string' ? object.metadata.name : '';
  if (objectName !== name) {
    throw errors.badRequest(`the name of the object (${objectName}) does not match the name on the URL (${name})`);
  }
}

/** Go's name for the JSON value in `json: cannot unmarshal {value} into ...`: numbers aimed at numbers show their text. */
function unmarshalValue(v: unknown, goType: string): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' && Number.isFinite(v) && /^(u?int(8|16|32|64)?|float(32|64))$/.test(goType)) {
    // Beyond 2^53 the shortest decimal of a double is not its value: 2^64 reads 18446744073709551616 as Go prints it.
    return `number ${Number.isInteger(v) && Math.abs(v) > Number.MAX_SAFE_INTEGER ? BigInt(v) : v}`;
  }
  return typeof v;
}

/** `duplicates`: paths of keys the raw body repeated (SPEC 4.9), reported with the unknown fields. */
const isStackOverflow = (err: unknown): boolean => err instanceof RangeError && /call stack/i.test(err.message);

export function decodeValue(kind: BodyKind, value: unknown, fieldValidation: FieldValidation, duplicates: string[] = [], defaults = true): DecodedBody {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw cannotHandle(kind, `json: cannot unmarshal ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value} into Go value of type struct`);
  }
  const raw = value as Record<string, unknown>;
  const expectedApiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
  if (raw.apiVersion !== undefined && raw.apiVersion !== expectedApiVersion) {
    throw errors.badRequest(`the API version in the data (${String(raw.apiVersion)}) does not match the expected API version (${expectedApiVersion})`);
  }
  if (raw.kind !== undefined && raw.kind !== kind.kind) {
    throw cannotHandle(kind, `the kind in the data (${String(raw.kind)}) does not match the expected kind (${kind.kind})`);
  }
  const unknownFields: string[] = [];
  const context: DecodeContext = {
    defaults,
    unknown: (path) => unknownFields.push(path),
    fail(path, v, struct, goType) {
      const fieldPath = path.replace(/\[[^\]]*\]/g, '');
      throw cannotHandle(kind, `json: cannot unmarshal ${unmarshalValue(v, goType)} into Go struct field ${struct}.${fieldPath} of type ${goType}`);
    },
    invalidValue(_path, message) {
      throw cannotHandle(kind, message);
    },
  };
  let object: ApiObject;
  try {
    object = kind.decode(raw, '', context) as ApiObject;
  } catch (err) {
    // The decoders of self-referencing schemas (a CRD's JSONSchemaProps) recurse once per level of the body, which
    // may nest 10,000 levels: a body too deep for the stack is refused like any undecodable one, and nothing acted yet.
    if (isStackOverflow(err)) throw cannotHandle(kind, 'the object is nested too deeply to decode');
    throw err;
  }
  if (defaults) object.metadata ??= {};
  const problems = [...duplicates.map((f) => `duplicate field "${f}"`), ...unknownFields.map((f) => `unknown field "${f}"`)];
  if (problems.length && fieldValidation === 'Strict') throw cannotHandle(kind, `strict decoding error: ${problems.join(', ')}`);
  return { object, warnings: fieldValidation === 'Warn' ? problems : [] };
}

/** Upstream's warning recorder truncates at 4,096 characters in all, then 256 per warning. */
const WARNINGS_TOTAL = 4 * 1024;
const WARNING_ITEM = 256;

/**
 * Warnings as upstream's recorder sends them (AS endpoints/filters/warning.go):
 * deduplicated; once they pass 4,096 characters every one is cut to 256, and
 * once the cut ones pass 4,096 again the rest are dropped. A body with a
 * hundred thousand unknown fields so gets a few dozen Warning headers.
 */
export function limitWarnings(warnings: readonly string[]): string[] {
  const seen = new Set<string>();
  let out: string[] = [];
  let written = 0;
  let truncating = false;
  const cut = (w: string) => {
    const chars = [...w];
    return chars.length > WARNING_ITEM ? chars.slice(0, WARNING_ITEM).join('') : w;
  };
  const ordered: string[] = [];
  for (const warning of warnings) {
    if (!warning || seen.has(warning)) continue;
    if (truncating && written >= WARNINGS_TOTAL) break;
    seen.add(warning);
    ordered.push(warning);
    const text = truncating ? cut(warning) : warning;
    const length = [...text].length;
    if (truncating || written + length <= WARNINGS_TOTAL) {
      written += length;
      out.push(text);
      continue;
    }
    truncating = true;
    out = ordered.map(cut);
    written = out.reduce((n, w) => n + [...w].length, 0);
  }
  return out;
}
