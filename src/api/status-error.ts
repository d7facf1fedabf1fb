/**
 * The closed catalog of API errors. Every failure a handler can report is made
 * by one constructor here and turned into a `Status` body by `toStatus`; the
 * wire shape follows FACTS 1 (SPEC 7 leaves the error body "not shown").
 */
import { OutcomeError } from '../util/outcome-error.ts';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** A Status failure thrown through the request path and rendered once by the response writer. */
export class StatusError extends OutcomeError {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    /** Extra response headers such as Retry-After. */
    readonly headers?: Record<string, string>,
    /** The Status's ListMeta, e.g. the continue token of an inconsistent continue (FACTS 3). */
    readonly listMeta?: { continue?: string },
  ) {
    super(message);
  }

  toStatus(): Status {
    const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: { ...this.listMeta }, status: 'Failure', message: this.message };
    if (this.reason) status.reason = this.reason;
    if (this.details) status.details = this.details;
    status.code = this.code;
    return status;
  }
}

/** Identifies a resource in messages: `resource` or `resource.group` (FACTS 1, GroupResource.String). */
export interface GroupResource {
  group: string;
  resource: string;
}

export function groupResourceString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function qualifiedDetails(gr: GroupResource, name: string): StatusDetails {
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (gr.group) details.group = gr.group;
  details.kind = gr.resource;
  return details;
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function unauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError(401, 'Unauthorized', message);
}

/** SPEC 5.1: a denial is 403; FACTS 1.2 gives the message shape. */
export function forbidden(gr: GroupResource | undefined, name: string, reasonText: string): StatusError {
  if (!gr) return new StatusError(403, 'Forbidden', `forbidden: ${reasonText}`, {});
  const prefix = name ? `${groupResourceString(gr)} "${name}" is forbidden` : `${groupResourceString(gr)} is forbidden`;
  return new StatusError(403, 'Forbidden', `${prefix}: ${reasonText}`, qualifiedDetails(gr, name));
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${groupResourceString(gr)} "${name}" not found`, qualifiedDetails(gr, name));
}

/** A path no route serves, under a served API prefix (FACTS 1.1). */
export function routeNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function methodNotSupported(gr: GroupResource, action: string): StatusError {
  return new StatusError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${groupResourceString(gr)}"`, {
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function notAcceptable(accepted: string[]): StatusError {
  return new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${groupResourceString(gr)} "${name}" already exists`, qualifiedDetails(gr, name));
}

/** FACTS 7: a generateName collision that survived the retries. */
export function generateNameConflict(gr: GroupResource, name: string): StatusError {
  return new StatusError(
    409,
    'AlreadyExists',
    `${groupResourceString(gr)} "${name}" already exists, the server was not able to generate a unique name for the object`,
    { ...qualifiedDetails(gr, name), retryAfterSeconds: 1 },
  );
}

/** SPEC 4.5, 7: PUT with a stale resourceVersion. */
export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${why}`, qualifiedDetails(gr, name));
}

export const OPTIMISTIC_LOCK_MESSAGE =
  'the object has been modified; please apply your changes to the latest version and try again';

/**
 * SPEC 4.4, 7: a version that is no longer retained. `continueToken` (FACTS 3) is
 * the Status's metadata.continue: the rest of a list whose snapshot is gone.
 */
export function expired(message: string, continueToken?: string): StatusError {
  return new StatusError(410, 'Expired', message, undefined, undefined, continueToken ? { continue: continueToken } : undefined);
}

export function requestEntityTooLarge(limit: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

export function unsupportedMediaType(contentType: string, accepted: string[]): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    { causes: [{ reason: 'UnexpectedServerResponse', message: contentType }] },
  );
}

export interface InvalidCause {
  type: string;
  field: string;
  message: string;
}

/** FACTS 1.1: 422 Invalid with one cause per field error. `kindGroup` is `Kind` or `Kind.group`. */
export function invalid(kind: string, group: string, name: string, errors: InvalidCause[]): StatusError {
  const texts = [...new Set(errors.map((e) => `${e.field}: ${e.message}`))];
  const summary = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  const kindGroup = group ? `${kind}.${group}` : kind;
  const details: StatusDetails = { name, group: group || undefined, kind, causes: errors.map((e) => ({ reason: e.type, message: e.message, field: e.field })) };
  if (!name) delete details.name;
  if (!group) delete details.group;
  return new StatusError(422, 'Invalid', `${kindGroup} "${name}" is invalid: ${summary}`, details);
}

export function internalError(err: unknown): StatusError {
  const text = err instanceof Error ? err.message : String(err);
  return new StatusError(500, 'InternalError', `Internal error occurred: ${text}`, { causes: [{ message: text }] });
}

/**
 * A request that did not complete within its deadline (--request-timeout, the
 * `timeout` parameter) or whose store call timed out (upstream filters/timeout.go).
 */
export function requestTimeout(): StatusError {
  return new StatusError(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout', { retryAfterSeconds: 0 });
}

/** --max-requests-inflight / --max-mutating-requests-inflight exceeded (upstream filters/maxinflight.go). */
export function tooManyRequests(): StatusError {
  return new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 }, { 'Retry-After': '1' });
}

/**
 * Framing errors found before any handler runs: a malformed request line or
 * header, a broken body, headers over the 1 MiB limit, an unsupported HTTP
 * version (Go's net/http answers for kube-apiserver). The connection is closed
 * after the answer, since the rest of its bytes cannot be trusted.
 */
export function malformedRequest(code: 400 | 408 | 431 | 501 | 505, message: string): StatusError {
  const reasons = { 400: 'BadRequest', 408: 'RequestTimeout', 431: 'RequestHeaderFieldsTooLarge', 501: 'NotImplemented', 505: 'HTTPVersionNotSupported' };
  return new StatusError(code, reasons[code], message, undefined, { Connection: 'close' });
}

export function serviceUnavailable(message: string): StatusError {
  return new StatusError(503, 'ServiceUnavailable', message);
}

/** SPEC 4.6, 7: a resourceVersion the store has not reached in time. */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds: number): StatusError {
  return new StatusError(
    504,
    'Timeout',
    `Timeout: Too large resource version: ${requested}, current: ${current}`,
    // Upstream's NewTimeoutError: no retry advice when there is none (the store's own check, 0 s).
    retryAfterSeconds > 0
      ? { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds }
      : { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] },
    retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : undefined,
  );
}

/** The Success status returned by deletes (FACTS 3). */
export function successStatus(details: StatusDetails, code?: number): Status {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
  if (code !== undefined) status.code = code;
  return status;
}
