/**
 * What the token and authorization webhooks share (SPEC 5.1.6, 5.2), as
 * upstream's pkg/util/webhook GenericWebhook: the connection an orchconfig or
 * the in-cluster configuration names, one POST of a review bounded by a
 * timeout (sent as client-go sends it, `?timeout=30s`), upstream's retries
 * (500 ms, x1.5, 20 % jitter, 5 tries) for what DefaultShouldRetry retries (a
 * reset connection, 429, 500 and other 5xx but 503, 504, a Retry-After), and
 * failures worded as client-go words them.
 */
import { RequestTimeoutError, requestJson, type JsonResponse } from '../client/http-client.ts';
import { inClusterConnection } from '../client/in-cluster.ts';
import { loadOrchconfig, type ClusterConnection } from '../client/orchconfig.ts';
import { goQuote } from '../util/go-print.ts';
import { goJSONObjectError } from '../registry/validation/go-json.ts';
import { formatGoDuration } from '../util/go-duration.ts';
import { sleep } from '../util/timers.ts';

export interface RetryBackoff {
  initialMs: number;
  factor: number;
  jitter: number;
  steps: number;
}

/** upstream DefaultRetryBackoffWithInitialDelay(500ms). */
export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

export type ConnectionInfo = { type: 'OrchConfig'; orchConfigFile: string } | { type: 'InClusterConfig' };

export function webhookConnection(info: ConnectionInfo): ClusterConnection {
  return info.type === 'InClusterConfig' ? inClusterConnection() : loadOrchconfig(info.orchConfigFile);
}

/** A failed call: the message is client-go's; `retriable` is upstream's DefaultShouldRetry. */
export class WebhookCallError extends Error {
  constructor(
    message: string,
    readonly retriable: boolean,
  ) {
    super(message);
  }
}

/** client-go's NewGenericServerResponse for an answer that is not a Status. */
function genericServerResponse(code: number, serverMessage: string): string {
  const fixed: Record<number, string> = {
    400: 'the server rejected our request for an unknown reason',
    401: 'the server has asked for the client to provide credentials',
    404: 'the server could not find the requested resource',
    405: 'the server does not allow this method on the requested resource',
    409: 'the server reported a conflict',
    422: 'the server rejected our request due to an error in our request',
    429: 'the server has received too many requests and has asked us to try again later',
    503: 'the server is currently unable to handle the request',
    504: 'the server was unable to return a response in the time allotted, but may still be processing the request',
  };
  if (code === 403 || code === 415) return serverMessage;
  if (code === 406) return serverMessage && serverMessage !== 'unknown' ? serverMessage : 'the server was unable to respond with a content type that the client supports';
  if (fixed[code]) return fixed[code];
  if (code >= 500) return `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`;
  return `the server responded with the status code ${code} but did not return more information`;
}

function statusError(res: JsonResponse): WebhookCallError {
  const body = res.body as { kind?: string; message?: string; reason?: string } | undefined;
  const contentType = String(res.headers['content-type'] ?? '');
  const isText = contentType === '' || /^text\//i.test(contentType);
  const status = body && typeof body === 'object' && body.kind === 'Status' ? body : undefined;
  const message = status?.message ?? genericServerResponse(res.status, isText ? Buffer.from(res.text).subarray(0, 2048).toString().trim() : 'unknown');
  const reason = status?.reason;
  const retryAfter = res.headers['retry-after'] !== undefined && (res.status === 429 || res.status >= 500);
  const retriable =
    retryAfter ||
    reason === 'InternalError' ||
    reason === 'Timeout' ||
    reason === 'TooManyRequests' ||
    (!reason && (res.status === 429 || res.status === 504 || (res.status >= 500 && res.status !== 503)));
  return new WebhookCallError(message, retriable);
}

/** Go's net/http wording of a transport failure. */
function transportError(url: URL, err: NodeJS.ErrnoException): WebhookCallError {
  const prefix = `Post ${goQuote(url.href)}`;
  if (err instanceof RequestTimeoutError) return new WebhookCallError(`${prefix}: context deadline exceeded`, false);
  const address = `${url.hostname}:${url.port || 443}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return new WebhookCallError(`${prefix}: dial tcp ${address}: connect: connection refused`, false);
    case 'ECONNRESET':
      return new WebhookCallError(`${prefix}: read tcp ${address}: read: connection reset by peer`, true);
    case 'ENOTFOUND':
      return new WebhookCallError(`${prefix}: dial tcp: lookup ${url.hostname}: no such host`, false);
    default:
      return new WebhookCallError(`${prefix}: ${err.message}`, false);
  }
}

/** Go's json error for an answer that is not a JSON object (client-go's decoder reads the kind first). */
export function decodeError(res: JsonResponse, typeName: string): Error | undefined {
  if (res.body !== undefined && typeof res.body === 'object' && res.body !== null && !Array.isArray(res.body)) return undefined;
  if (res.body === undefined) return new Error(`couldn't get version/kind; json parse error: ${goJSONObjectError(res.text) ?? 'unexpected end of JSON input'}`);
  const kind = Array.isArray(res.body) ? 'array' : res.body === null ? 'null' : typeof res.body === 'string' ? 'string' : typeof res.body === 'number' ? 'number' : 'bool';
  return new Error(`json: cannot unmarshal ${kind} into Go value of type ${typeName}`);
}

export class WebhookClient {
  private readonly url: URL;
  private readonly connection: ClusterConnection;

  constructor(
    connection: ClusterConnection,
    private readonly timeoutMs: number,
    private readonly backoff: RetryBackoff = DEFAULT_RETRY_BACKOFF,
    /** The audit webhook retries every failure (upstream's retryOnError), not only DefaultShouldRetry's. */
    private readonly retryEveryError = false,
  ) {
    this.url = new URL(connection.server);
    // client-go's rest client tells the server its timeout.
    this.url.searchParams.set('timeout', formatGoDuration(timeoutMs));
    this.connection = { ...connection, server: this.url.href };
  }

  /** One review POSTed, retried as upstream's WithExponentialBackoff; the 2xx answer, else the last error. */
  async post(body: unknown): Promise<JsonResponse> {
    let delay = this.backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      let failure: WebhookCallError;
      try {
        const res = await requestJson(this.connection, '', { method: 'POST', body, timeoutMs: this.timeoutMs });
        if (res.status >= 200 && res.status <= 206) return res;
        failure = statusError(res);
      } catch (err) {
        failure = transportError(this.url, err as NodeJS.ErrnoException);
      }
      if ((!failure.retriable && !this.retryEveryError) || attempt >= this.backoff.steps) throw failure;
      await sleep(delay * (1 + Math.random() * this.backoff.jitter));
      delay *= this.backoff.factor;
    }
  }
}
