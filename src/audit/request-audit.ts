/**
 * One request's audit (upstream pkg/endpoints/filters/audit.go WithAudit,
 * audit_init.go WithAuditInit, pkg/audit/request.go and context.go): the
 * policy's decision for the request, its event, and the stages it emits:
 * RequestReceived once authenticated, ResponseStarted when a long-running
 * request's head is written, ResponseComplete when the response is closed
 * (Panic instead when the handler failed unexpectedly). Lower layers reach the
 * request's audit through the request and response objects (`noteRequestBody`,
 * `noteResponseStatus`, `annotateRequest`), one property read when auditing is off.
 */
import { gunzipSync } from 'node:zlib';
import type { ProtobufCodec } from '../api/protobuf/codec.ts';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as errors from '../api/status-error.ts';
import type { UserInfo } from '../api/user.ts';
import { microTimeNow, type AuditEvent } from './event.ts';
import { attemptedMethods, auditUser, decodeBody, orderRef, sourceIPs } from './request-facts.ts';
import { AUDIT_GROUP_VERSION, LEVEL_RANK, type AuditAttributes, type PolicyEvaluator, type RequestAuditConfig, type Stage } from './policy.ts';

/**
 * Where a finished stage's event goes (a backend in the owner process, the IPC
 * channel in a worker): false or a rejected promise when it could not be
 * stored; a promise while a blocking webhook sends it.
 */
export type AuditSink = (event: AuditEvent) => boolean | Promise<void>;

const AUDIT = Symbol('audit');
type Carrier = { [AUDIT]?: RequestAudit };

const MAX_USER_AGENT = 1024;
/** Response bytes kept for a RequestResponse event; a larger body is logged without its object. */
const MAX_CAPTURED_BYTES = 10 * 1024 * 1024;

/** A client's Audit-ID is kept as sent (upstream does not truncate it). */
export const AUDIT_ID_HEADER = 'Audit-ID';

export interface RequestSummary extends AuditAttributes {
  version: string;
}

/** Decides per request whether and how it is audited; one per process. */
export class Auditor {
  constructor(
    private readonly policy: PolicyEvaluator,
    private readonly sink: AuditSink,
    /** Decodes protobuf bodies for requestObject and responseObject. */
    private readonly protobuf?: ProtobufCodec,
  ) {}

  /**
   * Starts auditing an authenticated request: sets Audit-ID, evaluates the
   * policy and, above level None, emits RequestReceived.
   */
  begin(req: IncomingMessage, res: ServerResponse, info: RequestSummary, user: UserInfo, longRunning: boolean): RequestAudit | undefined {
    const auditID = auditIdOf(req, res);
    const config = this.policy.evaluate(info, user);
    if (config.level === 'None') return undefined;
    const audit = new RequestAudit(config, this.sink, req, res, info, user, auditID, longRunning);
    audit.protobuf = this.protobuf;
    (req as Carrier)[AUDIT] = audit;
    (res as Carrier)[AUDIT] = audit;
    // Only blocking-strict reports a failed write: upstream then fails the request.
    const stored = audit.emit('RequestReceived');
    if (stored === false) throw errors.internalError(new Error('failed to store audit event'));
    if (stored !== true) audit.pending = stored.catch(() => Promise.reject(errors.internalError(new Error('failed to store audit event'))));
    return audit;
  }

  /**
   * upstream WithFailedAuthenticationAudit: a request whose credentials failed
   * is audited without a user, at its ResponseStarted stage only, with the
   * methods it tried.
   */
  unauthenticated(req: IncomingMessage, res: ServerResponse, info: RequestSummary): void {
    const auditID = auditIdOf(req, res);
    const config = this.policy.evaluate(info, undefined);
    if (config.level === 'None') return;
    new RequestAudit(config, this.sink, req, res, info, undefined, auditID, false).failedAuthentication(attemptedMethods(req));
  }
}

/** upstream WithAuditInit: the client's Audit-ID or a new one, echoed on the response. */
function auditIdOf(req: IncomingMessage, res: ServerResponse): string {
  const sent = req.headers['audit-id'];
  const auditID = typeof sent === 'string' && sent ? sent : randomUUID();
  if (!res.headersSent && !res.hasHeader(AUDIT_ID_HEADER)) res.setHeader(AUDIT_ID_HEADER, auditID);
  return auditID;
}

export class RequestAudit {
  /** A blocking webhook's send of RequestReceived: the request waits for it (upstream blocks in WithAudit). */
  pending: Promise<void> | undefined;
  private readonly event: Omit<AuditEvent, 'stage' | 'stageTimestamp'>;
  /** The codec of protobuf bodies, when the server speaks it. */
  protobuf: ProtobufCodec | undefined;
  private requestBody: { body: Buffer; contentType: string } | undefined;
  private captured: Buffer[] | undefined;
  private capturedBytes = 0;
  private status: Record<string, unknown> | undefined;
  private done = false;

  constructor(
    private readonly config: RequestAuditConfig,
    private readonly sink: AuditSink,
    req: IncomingMessage,
    private readonly res: ServerResponse,
    info: RequestSummary,
    user: UserInfo | undefined,
    auditID: string,
    longRunning: boolean,
  ) {
    const receivedAt = microTimeNow();
    const agent = req.headers['user-agent'] ?? '';
    this.event = {
      kind: 'Event',
      apiVersion: AUDIT_GROUP_VERSION,
      level: config.level,
      auditID,
      requestURI: req.url ?? '',
      verb: info.verb,
      user: auditUser(user),
      sourceIPs: sourceIPs(req),
      userAgent: agent.length > MAX_USER_AGENT ? `${agent.slice(0, MAX_USER_AGENT)}...TRUNCATED` : agent,
      objectRef: info.isResourceRequest
        ? orderRef({ resource: info.resource, namespace: info.namespace, name: info.name, apiGroup: info.group, apiVersion: info.version, subresource: info.subresource })
        : undefined,
      requestReceivedTimestamp: receivedAt,
    };
    if (longRunning) {
      // upstream decorates the response writer: the head of a watch is its ResponseStarted stage.
      const writeHead = res.writeHead;
      res.writeHead = ((...args: Parameters<ServerResponse['writeHead']>) => {
        res.writeHead = writeHead;
        this.status ??= { metadata: {}, code: args[0] };
        this.event.responseStatus = this.status;
        this.emit('ResponseStarted');
        return writeHead.apply(res, args);
      }) as ServerResponse['writeHead'];
    } else {
      this.completeAtEnd();
      if (LEVEL_RANK[config.level] >= LEVEL_RANK.RequestResponse) this.captureBody();
    }
    // A connection closed before the answer ended (and a long-running request's end).
    res.once('close', () => this.complete(false));
  }

  /**
   * upstream emits ResponseComplete when the handler returns, before the
   * answer's last bytes leave: the answer ends once its event is stored, and
   * waits for a blocking backend that stores it asynchronously (a webhook, a
   * worker's primary). Installed before captureBody, which then sees the last
   * chunk first.
   */
  private completeAtEnd(): void {
    const res = this.res;
    const end = res.end;
    const complete = () => this.complete(true);
    res.end = function (this: ServerResponse, ...args: unknown[]) {
      res.end = end;
      const stored = complete();
      if (typeof stored === 'object') {
        const finish = () => (end as Function).apply(res, args);
        stored.then(finish, finish);
        return res;
      }
      return (end as Function).apply(this, args);
    } as ServerResponse['end'];
  }

  /** upstream AddAuditAnnotation: the first value of a key stays. */
  annotate(key: string, value: string): void {
    const annotations = (this.event.annotations ??= {});
    if (!(key in annotations)) annotations[key] = value;
  }

  /** upstream LogImpersonatedUser. */
  impersonated(user: UserInfo): void {
    this.event.impersonatedUser = auditUser(user);
  }

  /** The request's body as read, decoded for the event once the request is done. */
  requestRead(body: Buffer, contentType: string): void {
    this.requestBody = { body, contentType };
  }

  /** A Status answer (upstream LogResponseObject with a *metav1.Status), without its kind. */
  statusWritten(status: Record<string, unknown>): void {
    const { kind: _kind, apiVersion: _apiVersion, ...rest } = status;
    this.status = rest;
  }

  /** Emits the one event of a request whose authentication failed. */
  failedAuthentication(message: string): void {
    this.status = { metadata: {}, message, code: 401 };
    this.event.responseStatus = this.status;
    this.done = true;
    this.emit('ResponseStarted');
  }

  /** The request failed unexpectedly: the Panic stage replaces ResponseComplete (upstream's recovered panic). */
  failed(err: unknown): void {
    this.status = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${(err as Error)?.message ?? String(err)}`, reason: 'InternalError', code: 500 };
    this.finish('Panic');
  }

  /** `ending`: the answer is ending normally (its status is the response's), not cut by a closed connection. */
  private complete(ending: boolean): boolean | Promise<void> | undefined {
    if (this.done) return undefined;
    this.status ??= ending || this.res.headersSent ? { metadata: {}, code: this.res.statusCode } : { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 };
    return this.finish('ResponseComplete');
  }

  private finish(stage: Stage): boolean | Promise<void> | undefined {
    if (this.done) return undefined;
    this.done = true;
    this.event.responseStatus = this.status;
    this.addObjects();
    return this.emit(stage);
  }

  /** Emits the event at `stage` unless the policy omits that stage. */
  emit(stage: Stage): boolean | Promise<void> {
    if (this.config.omitStages.has(stage)) return true;
    const e = this.event;
    // upstream's field order; an undefined field is left out of the JSON.
    const stored = this.sink({
      kind: e.kind,
      apiVersion: e.apiVersion,
      level: e.level,
      auditID: e.auditID,
      stage,
      requestURI: e.requestURI,
      verb: e.verb,
      user: e.user,
      impersonatedUser: e.impersonatedUser,
      sourceIPs: e.sourceIPs,
      userAgent: e.userAgent,
      objectRef: e.objectRef,
      responseStatus: e.responseStatus,
      requestObject: e.requestObject,
      responseObject: e.responseObject,
      requestReceivedTimestamp: e.requestReceivedTimestamp,
      stageTimestamp: stage === 'RequestReceived' ? e.requestReceivedTimestamp : microTimeNow(),
      annotations: e.annotations && { ...e.annotations },
    });
    // Only RequestReceived can still fail its request; a later stage's failure was logged by its backend.
    if (stage !== 'RequestReceived' && typeof stored !== 'boolean') stored.catch(() => {});
    return stored;
  }

  private addObjects(): void {
    const rank = LEVEL_RANK[this.config.level];
    if (this.requestBody) {
      const object = decodeBody(this.requestBody.body, this.requestBody.contentType, this.protobuf);
      this.requestBody = undefined;
      const meta = object && typeof object === 'object' ? (object as { metadata?: Record<string, unknown> }).metadata : undefined;
      // upstream LogRequestObject fills what the URL did not name from the object's metadata.
      if (meta && this.event.objectRef && !/patch/.test(this.event.verb)) {
        const ref = this.event.objectRef;
        for (const field of ['namespace', 'name', 'uid', 'resourceVersion'] as const) {
          if (!ref[field] && typeof meta[field] === 'string' && meta[field]) ref[field] = meta[field] as string;
        }
        this.event.objectRef = orderRef(ref);
      }
      if (rank >= LEVEL_RANK.Request && object !== undefined) this.event.requestObject = this.withoutManagedFields(object);
    }
    if (this.captured) {
      const sent = Buffer.concat(this.captured);
      // The object is logged as encoded, before compression (a large list answered with gzip).
      const body = this.res.getHeader('content-encoding') === 'gzip' && this.capturedBytes <= MAX_CAPTURED_BYTES ? gunzipOrEmpty(sent) : sent;
      this.captured = undefined;
      const object = this.capturedBytes <= MAX_CAPTURED_BYTES ? decodeBody(body, String(this.res.getHeader('content-type') ?? ''), this.protobuf) : undefined;
      if (object && typeof object === 'object') {
        if ((object as { kind?: string }).kind === 'Status' && (object as { apiVersion?: string }).apiVersion === 'v1') this.statusWritten(object as Record<string, unknown>), (this.event.responseStatus = this.status);
        this.event.responseObject = this.withoutManagedFields(object);
      }
    }
  }

  private withoutManagedFields(object: unknown): unknown {
    if (!this.config.omitManagedFields || !object || typeof object !== 'object') return object;
    const strip = (o: any) => {
      if (o?.metadata && typeof o.metadata === 'object' && 'managedFields' in o.metadata) {
        const { managedFields: _managedFields, ...metadata } = o.metadata;
        return { ...o, metadata };
      }
      return o;
    };
    const top = strip(object);
    if (Array.isArray(top.items)) return { ...top, items: top.items.map(strip) };
    if (Array.isArray(top.rows)) return { ...top, rows: top.rows.map((row: any) => (row?.object ? { ...row, object: strip(row.object) } : row)) };
    return top;
  }

  /** Keeps a copy of the response body (RequestResponse level), as upstream logs the response object. */
  private captureBody(): void {
    const res = this.res;
    const chunks: Buffer[] = (this.captured = []);
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function' || this.capturedBytes > MAX_CAPTURED_BYTES) return;
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      this.capturedBytes += bytes.length;
      chunks.push(bytes);
    };
    const write = res.write;
    const end = res.end;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      keep(chunk, rest[0]);
      return (write as Function).call(this, chunk, ...rest);
    } as ServerResponse['write'];
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      keep(chunk, rest[0]);
      return (end as Function).call(this, chunk, ...rest);
    } as ServerResponse['end'];
  }
}

/** Records an annotation on the request's audit event, if it is audited. */
export function annotateRequest(req: IncomingMessage, key: string, value: string): void {
  (req as Carrier)[AUDIT]?.annotate(key, value);
}

/** The body a handler read, for the event's requestObject and objectRef. */
export function noteRequestBody(req: IncomingMessage, body: Buffer): void {
  (req as Carrier)[AUDIT]?.requestRead(body, String(req.headers['content-type'] ?? ''));
}

/** The Status an error answer carries, for the event's responseStatus. */
export function noteResponseStatus(res: ServerResponse, status: object): void {
  (res as Carrier)[AUDIT]?.statusWritten(status as Record<string, unknown>);
}

/** A gzip body's bytes (every member), or nothing when it cannot be read (a response cut short). */
function gunzipOrEmpty(body: Buffer): Buffer {
  try {
    return gunzipSync(body);
  } catch {
    return Buffer.alloc(0);
  }
}
