/**
 * Reading and decoding request bodies (SPEC 4.7 content types, 4.9 field
 * validation; FACTS 1.1 error texts): size limit, media type, JSON or YAML,
 * then the kind's generated decoder.
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import * as errors from '../api/status-error.ts';
import type { DecodeContext, KindDefinition } from '../registry/kind.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { findDuplicateFields } from './duplicate-fields.ts';

/** Upstream's limit for a decoded request body (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml'];

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

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
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The media type of a request body without parameters; absent means JSON. */
export function bodyMediaType(req: IncomingMessage): string {
  const header = req.headers['content-type'];
  if (!header) return 'application/json';
  return header.split(';')[0].trim().toLowerCase();
}

/** Parses JSON or YAML text into a plain value; syntax errors are the caller's to report. */
export function parseDocument(text: string, mediaType: string): unknown {
  if (mediaType === 'application/yaml' || mediaType === 'application/apply-patch+yaml') {
    return parseYaml(text, { schema: 'core', uniqueKeys: false, maxAliasCount: 100 });
  }
  return JSON.parse(text);
}

export interface DecodedBody {
  object: ApiObject;
  warnings: string[];
}

/** FACTS 1.1: `{Kind} in version "{v}" cannot be handled as a {Kind}: {reason}`. */
export function cannotHandle(kind: KindDefinition, reason: string): errors.StatusError {
  return errors.badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${reason}`);
}

/**
 * Decodes an object of `kind` from raw body bytes: checks the media type, the
 * apiVersion/kind it declares, the JSON types of every field; unknown fields are
 * dropped and then ignored, warned about or refused per `fieldValidation`.
 */
export function decodeObject(kind: KindDefinition, body: Buffer, mediaType: string, fieldValidation: FieldValidation): DecodedBody {
  if (!OBJECT_MEDIA_TYPES.includes(mediaType)) throw errors.unsupportedMediaType(mediaType, OBJECT_MEDIA_TYPES);
  let value: unknown;
  const text = body.toString('utf8');
  try {
    value = parseDocument(text, mediaType);
  } catch (err) {
    throw cannotHandle(kind, (err as Error).message);
  }
  const duplicates = fieldValidation !== 'Ignore' && mediaType === 'application/json' ? findDuplicateFields(text) : [];
  return decodeValue(kind, value, fieldValidation, duplicates);
}

/** `duplicates`: paths of keys the raw body repeated (SPEC 4.9), reported with the unknown fields. */
export function decodeValue(kind: KindDefinition, value: unknown, fieldValidation: FieldValidation, duplicates: string[] = [], defaults = true): DecodedBody {
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
      const jsonType = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v;
      throw cannotHandle(kind, `json: cannot unmarshal ${jsonType} into Go struct field ${struct}.${fieldPath} of type ${goType}`);
    },
    invalidValue(_path, message) {
      throw cannotHandle(kind, message);
    },
  };
  const object = kind.decode(raw, '', context) as ApiObject;
  if (defaults) object.metadata ??= {};
  const problems = [...duplicates.map((f) => `duplicate field "${f}"`), ...unknownFields.map((f) => `unknown field "${f}"`)];
  if (problems.length && fieldValidation === 'Strict') throw cannotHandle(kind, `strict decoding error: ${problems.join(', ')}`);
  return { object, warnings: fieldValidation === 'Warn' ? problems : [] };
}
