/**
 * Content negotiation (SPEC 4.7; upstream endpoints/handlers/negotiation): the
 * media types the API answers in, the Accept header as ordered media ranges,
 * and the choice among them for one request, including the Table and
 * metadata-only forms a client may ask for instead of the object.
 */
import type { IncomingMessage } from 'node:http';
import * as errors from '../api/status-error.ts';
import { PROTOBUF_TYPE } from '../api/protobuf/envelope.ts';

export const JSON_TYPE = 'application/json';
export const YAML_TYPE = 'application/yaml';

/** What every resource answers in; protobuf only where the kind has a message. */
export const SERVED_MEDIA_TYPES = [JSON_TYPE, YAML_TYPE];
const PROTOBUF_SUBTYPE = PROTOBUF_TYPE.split('/')[1];

export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
}

/** Parses an Accept header into media ranges in order of preference (q-values honoured). */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  const ranges = header.split(',').map((part, index) => {
    const [mediaType, ...rawParams] = part.trim().split(';');
    const [type = '', subtype = ''] = mediaType.trim().toLowerCase().split('/');
    const params: Record<string, string> = {};
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
    }
    const q = params.q === undefined ? 1 : Number(params.q);
    return { range: { type, subtype, params }, q: Number.isNaN(q) ? 0 : q, index };
  });
  return ranges
    .filter((r) => r.q > 0 && r.range.type)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((r) => r.range);
}

/** `as=PartialObjectMetadata` or `as=PartialObjectMetadataList` in a meta group-version (`meta.orch.io/v1`, ...). */
export interface PartialMetadataRequest {
  apiVersion: string;
  kind: 'PartialObjectMetadata' | 'PartialObjectMetadataList';
}

/** The outcome of negotiation: the media type, and the transformed form asked for, if any. */
export interface Negotiated {
  mediaType: string;
  /** Whether the client accepts Table (SPEC 2.5, 4.7), and the group-version it asked for (`meta.orch.io/v1`, ...). */
  table?: { apiVersion: string };
  /** Whether the client asked for metadata only (SPEC 2.5, 4.7), as which kind and group-version. */
  partial?: PartialMetadataRequest;
}

/**
 * The groups a Table or a PartialObjectMetadata(List) may be asked in: SPEC
 * 4.7's meta.orch.io, and meta.k8s.io, which kubectl sends for `get` and
 * client-go's metadata client and controller-runtime send for metadata-only
 * reads (a compatibility extension: the answer is the same, under the group
 * the client named, so kubectl prints the server's columns instead of its
 * own NAME/AGE fallback and metadata informers work).
 */
const META_GROUPS = new Set(['meta.orch.io', 'meta.k8s.io']);

/** The verbs whose answers may be transformed to PartialObjectMetadata(List): reads and writes (upstream transformResponseObject). */
const PARTIAL_VERBS = new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * SPEC 4.7: the first acceptable media range wins; none acceptable is 406.
 * Protobuf is acceptable for kinds that have a message (`protobuf`: the
 * built-in kinds), not for custom resources, whose metadata-only forms may
 * still be asked in it; `stream=watch` is the stream
 * form of either, as upstream's negotiation allows it on every endpoint.
 * Not `strict`: JSON when nothing is acceptable, instead of the 406.
 */
export function negotiate(req: IncomingMessage, verb: string, protobuf: boolean, strict = true): Negotiated {
  const ranges = parseAccept(req.headers.accept);
  if (ranges.length === 0) return { mediaType: JSON_TYPE };
  for (const range of ranges) {
    const { type, subtype, params } = range;
    if (params.as) {
      if (!META_GROUPS.has(params.g) || (params.v !== 'v1' && params.v !== 'v1beta1')) continue;
      if (params.as === 'Table' && (verb === 'get' || verb === 'list' || verb === 'watch')) {
        if (subtype === 'json' || subtype === '*') return { mediaType: JSON_TYPE, table: { apiVersion: `${params.g}/${params.v}` } };
        // upstream AllowsMediaTypeTransform: Table in JSON or YAML; YAML has no stream form for a watch.
        if (subtype === 'yaml' && verb !== 'watch') return { mediaType: YAML_TYPE, table: { apiVersion: `${params.g}/${params.v}` } };
      }
      // upstream AllowsMediaTypeTransform: either form on any read; the wrong one for the verb is the transform's 406 (partialFor).
      if ((params.as === 'PartialObjectMetadata' || params.as === 'PartialObjectMetadataList') && PARTIAL_VERBS.has(verb)) {
        const partial = { apiVersion: `${params.g}/${params.v}`, kind: params.as } as const;
        if (subtype === 'json' || subtype === '*') return { mediaType: JSON_TYPE, partial };
        if (subtype === 'yaml') {
          if (verb === 'watch' && strict) break;
          return { mediaType: YAML_TYPE, partial };
        }
        // Every kind, custom ones too: the metadata forms have their own messages (codec.ts PARTIAL_SCHEMAS).
        if (type === 'application' && subtype === PROTOBUF_SUBTYPE) return { mediaType: PROTOBUF_TYPE, partial };
      }
      continue;
    }
    // upstream acceptMediaTypeOptions: `stream` names a streaming form, and `watch` is the only one.
    if (params.stream !== undefined && params.stream !== 'watch') continue;
    if ((type === 'application' && subtype === 'json') || (type === 'application' && subtype === '*') || type === '*') return { mediaType: JSON_TYPE };
    if (type === 'application' && subtype === 'yaml') {
      // upstream NegotiateOutputMediaTypeStream: YAML is chosen, and has no stream form for a watch.
      if (verb === 'watch' && strict) break;
      return { mediaType: YAML_TYPE };
    }
    if (protobuf && type === 'application' && subtype === PROTOBUF_SUBTYPE) return { mediaType: PROTOBUF_TYPE };
  }
  if (!strict) return { mediaType: JSON_TYPE };
  throw errors.notAcceptable(protobuf ? [...SERVED_MEDIA_TYPES, PROTOBUF_TYPE] : SERVED_MEDIA_TYPES);
}

/**
 * Whether a failure before routing (upstream's 401 and 403 on API resources,
 * negotiated with the built-in codecs: ErrorNegotiated) is written in
 * protobuf: the client's first acceptable media type is protobuf. The header
 * is searched first, so a request that names no protobuf is not parsed.
 */
export function asksProtobufStatus(req: IncomingMessage): boolean {
  return req.headers.accept?.includes(PROTOBUF_SUBTYPE) === true && negotiate(req, '', true, false).mediaType === PROTOBUF_TYPE;
}
