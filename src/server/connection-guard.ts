/**
 * The listener's defences below the request path (DESIGN: every byte from the
 * network is hostile). Node's parser refuses most malformed framing itself and
 * reports it as a `clientError`; here every such refusal becomes a Status with
 * Go's net/http code (400, 408, 431, 501, 505) and a clean close, and request
 * lines Node tolerates but Go refuses are judged from the raw bytes
 * (request-framing.ts). Limits are kube-apiserver's: 1 MiB of headers, 32 s to
 * send them.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Server } from 'node:https';
import type { Socket } from 'node:net';
import { malformedRequest, methodNotAllowed, type StatusError } from '../api/status-error.ts';
import { RequestFramingTracker, type FramingVerdict } from './request-framing.ts';

/** Go's http.Server MaxHeaderBytes (1 MiB, kube-apiserver's setting) plus the 4 KiB its reader allows beyond it. */
export const MAX_HEADER_BYTES = (1 << 20) + 4096;

/** kube-apiserver's ReadHeaderTimeout (and so its TLS handshake timeout). */
export const HEADERS_TIMEOUT_MS = 32_000;

/**
 * After an error answer the connection is half-closed and the client's remaining
 * bytes read and dropped for this long, so the answer is not lost to a reset
 * (Go's closeWriteAndWait does the same).
 */
const LINGER_MS = 2000;

const GUARD = Symbol('orch.connectionGuard');

interface GuardState {
  tracker: RequestFramingTracker;
  verdict?: FramingVerdict;
  /** Requests the parser has handed to the server on this connection. */
  dispatched: number;
  /** An answer was written below the request path; nothing more goes out. */
  closed: boolean;
}

type GuardedSocket = Socket & { [GUARD]?: GuardState; _httpMessage?: { headersSent: boolean } };

/**
 * Follows every connection's framing and answers the parser's refusals. A
 * connection that sends nothing within `headersTimeoutMs` of its handshake is
 * closed: Node's headersTimeout only starts with a request's first byte, while
 * Go's ReadHeaderTimeout runs from the connection's start.
 */
export function guardConnections(server: Server, headersTimeoutMs: number): void {
  server.on('secureConnection', (socket: GuardedSocket) => {
    const state: GuardState = { tracker: new RequestFramingTracker(MAX_HEADER_BYTES), dispatched: 0, closed: false };
    socket[GUARD] = state;
    const silent = setTimeout(() => socket.destroy(), headersTimeoutMs);
    silent.unref();
    socket.once('data', () => clearTimeout(silent));
    socket.once('close', () => clearTimeout(silent));
    // Prepended, so the verdict on a chunk exists before the parser dispatches its requests.
    const onData = (chunk: Buffer) => {
      const verdict = state.tracker.feed(chunk);
      if (!verdict) return;
      state.verdict = verdict;
      socket.removeListener('data', onData);
    };
    socket.prependListener('data', onData);
  });
  server.on('clientError', (err: Error & { code?: string }, socket: GuardedSocket) => answerClientError(err, socket));
  // CONNECT asks for a tunnel, which no route serves: answered like any unserved method.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => answerAndClose(socket, methodNotAllowed()));
}

/**
 * The connection's verdict on a request the parser accepted: the Status to
 * answer it with (its headers close the connection), or undefined. Called
 * once per request, first thing.
 */
export function connectionVerdict(req: IncomingMessage): StatusError | undefined {
  const state = (req.socket as GuardedSocket)[GUARD];
  if (state) {
    state.dispatched++;
    // Requests after a malformed one cannot be trusted either.
    if (state.verdict && state.dispatched >= state.verdict.request) return malformedRequest(state.verdict.code, state.verdict.message);
  }
  if (req.httpVersionMajor !== 1) return malformedRequest(505, 'unsupported protocol version');
  if (req.httpVersionMinor >= 1 && req.headers.host === undefined) return malformedRequest(400, 'missing required Host header');
  return undefined;
}

/** Go's answer to what Node's parser refused, or undefined where Go closes without one (a reset, a dead peer). */
function statusForClientError(err: Error & { code?: string }): StatusError | undefined {
  const reason = err.message.replace(/^Parse Error:?\s*/, '');
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return malformedRequest(431, 'Request Header Fields Too Large');
    case 'HPE_INVALID_VERSION':
      return reason === 'Invalid HTTP version' ? malformedRequest(505, 'unsupported protocol version') : malformedRequest(400, `malformed HTTP request: ${reason}`);
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return /Content-Length/.test(reason) ? malformedRequest(400, `malformed HTTP request: ${reason}`) : malformedRequest(501, 'Unsupported transfer encoding');
    case 'HPE_INVALID_EOF_STATE':
      return malformedRequest(400, 'unexpected EOF: the request ended before its body was complete');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return malformedRequest(408, 'the request was not received within the allotted time');
    default:
      return err.code?.startsWith('HPE_') ? malformedRequest(400, `malformed HTTP request: ${reason}`) : undefined;
  }
}

function answerClientError(err: Error & { code?: string }, socket: GuardedSocket): void {
  const state = socket[GUARD];
  if (state?.closed) return;
  if (state) state.closed = true;
  const answer = statusForClientError(err);
  // A response already under way cannot be followed by another.
  if (!answer || !socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  answerAndClose(socket, answer);
}

/** Writes a Status below the request path, then half-closes and drains until the client goes or LINGER_MS passes. */
function answerAndClose(socket: Socket, answer: StatusError): void {
  const body = JSON.stringify(answer.toStatus());
  const head = [
    `HTTP/1.1 ${answer.code} ${STATUS_CODES[answer.code]}`,
    'Content-Type: application/json',
    'Cache-Control: no-cache, private',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  // The parser stops here: whatever else arrives is read and dropped until the client closes.
  socket.removeAllListeners('data');
  socket.on('data', () => {});
  socket.end(head + body);
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}
