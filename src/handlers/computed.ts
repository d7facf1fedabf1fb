/**
 * POST to a resource or subresource that computes its answer (SPEC 4.11):
 * the same body and option handling as a create (AS handlers/create.go), then
 * the resource's function instead of the store.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../api/user.ts';
import type { ComputedCreate } from '../registry/computed.ts';
import type { BodyKind } from '../registry/kind.ts';
import { writeObject, type EncodeOptions } from '../http/respond.ts';
import { parseDryRun, parseFieldManager, parseFieldValidation } from './options.ts';
import { decodeObject, limitWarnings, objectMediaTypes, readBody, requestMediaType } from './request-body.ts';
import type { DeadlineSignal } from '../util/deadline-signal.ts';

export interface ComputedCreateRequest {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  user: UserInfo;
  encode: EncodeOptions;
  /** The kind of the body and of the answer. */
  kind: BodyKind;
  namespace?: string;
  parentName?: string;
  signal?: DeadlineSignal;
}

export async function handleComputedCreate(ctx: ComputedCreateRequest, compute: ComputedCreate): Promise<void> {
  const body = await readBody(ctx.req);
  const dryRun = parseDryRun(ctx.query, 'CreateOptions');
  const fieldValidation = parseFieldValidation(ctx.query, 'CreateOptions');
  // Validated as upstream does, though nothing here records managed fields.
  parseFieldManager(ctx.query, 'CreateOptions');
  const mediaType = requestMediaType(ctx.req, objectMediaTypes(ctx.kind, ctx.encode.protobuf));
  const decoded = await decodeObject(ctx.kind, body, mediaType, fieldValidation, ctx.signal, ctx.encode.protobuf);
  ctx.encode.warnings = limitWarnings([...(ctx.encode.warnings ?? []), ...decoded.warnings]);
  const answer = await compute({
    body: decoded.object,
    user: ctx.user,
    namespace: ctx.namespace,
    parentName: ctx.parentName,
    dryRun,
    signal: ctx.signal,
    warn: (message) => (ctx.encode.warnings = limitWarnings([...(ctx.encode.warnings ?? []), message])),
  });
  const { group, version, kind } = ctx.kind;
  const apiVersion = group ? `${group}/${version}` : version;
  // apiVersion and kind lead, as upstream's encoder writes them, whether or not the body named them.
  const out = { apiVersion, kind, ...answer };
  out.apiVersion = apiVersion;
  out.kind = kind;
  writeObject(ctx.res, 201, out, ctx.encode);
}
