/**
 * gRPC over one HTTP/2 session to one etcd endpoint (gRPC's "PROTOCOL-HTTP2"
 * document): POST to /<service>/<method> with `content-type: application/grpc`
 * and `te: trailers`, messages in 5-byte length-prefixed frames, the outcome in
 * `grpc-status`/`grpc-message` trailers (or in the headers of a trailers-only
 * answer). A session that dies (etcd restarted, killed, or frozen past a
 * keepalive PING) is dropped and the next call opens a new one.
 */
import http2 from 'node:http2';

/** gRPC status codes the storage tells apart (grpc/doc/statuscodes.md). */
export const GrpcCode = { OK: 0, CANCELLED: 1, UNKNOWN: 2, DEADLINE_EXCEEDED: 4, OUT_OF_RANGE: 11, INTERNAL: 13, UNAVAILABLE: 14 } as const;

export class GrpcError extends Error {
  readonly code: number;
  /** True when the call never reached etcd (its session failed to connect): trying another endpoint re-sends nothing. */
  readonly unsent: boolean;
  constructor(code: number, message: string, unsent = false) {
    super(message);
    this.name = 'GrpcError';
    this.code = code;
    this.unsent = unsent;
  }
}

export interface TlsFiles {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export interface SessionOptions {
  tls?: TlsFiles;
  /** Stream and connection flow-control window; HTTP/2's default is 64 KiB. */
  windowBytes?: number;
  /** A PING goes out this often; one unanswered for as long again ends the session. */
  keepaliveMs?: number;
}

/** upstream's etcd client accepts answers up to 2 GiB (gRPC's default is 4 MiB). */
const MAX_MESSAGE_BYTES = 2 ** 31 - 1;
const DEFAULT_KEEPALIVE_MS = 10_000;

/** Splits a gRPC response body into messages; frames may span or share DATA chunks. */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** The whole messages completed by `chunk`, each a view of the received bytes where it arrived in one piece. */
  push(chunk: Buffer): Buffer[] {
    const messages: Buffer[] = [];
    let buf = chunk;
    if (this.pendingBytes) {
      this.pending.push(chunk);
      buf = Buffer.concat(this.pending, this.pendingBytes + chunk.length);
      this.pending = [];
      this.pendingBytes = 0;
    }
    let pos = 0;
    while (buf.length - pos >= 5) {
      if (buf[pos] !== 0) throw new GrpcError(GrpcCode.INTERNAL, 'etcd sent a compressed message, which was not asked for');
      const length = buf.readUInt32BE(pos + 1);
      if (length > MAX_MESSAGE_BYTES) throw new GrpcError(GrpcCode.INTERNAL, `etcd message of ${length} bytes exceeds the limit`);
      if (buf.length - pos - 5 < length) break;
      messages.push(buf.subarray(pos + 5, pos + 5 + length));
      pos += 5 + length;
    }
    if (pos < buf.length) {
      this.pending.push(buf.subarray(pos));
      this.pendingBytes = buf.length - pos;
    }
    return messages;
  }
}

/** A message in a gRPC frame: not compressed, 4-byte big-endian length. */
export function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** The call's status from trailers, or from the headers of a trailers-only answer; null when neither carries one. */
export function statusOf(headers: http2.IncomingHttpHeaders): GrpcError | null | 'ok' {
  const status = headers['grpc-status'];
  if (status === undefined) return null;
  const code = Number(status);
  if (code === GrpcCode.OK) return 'ok';
  const raw = headers['grpc-message'];
  let message = typeof raw === 'string' ? raw : `gRPC status ${code}`;
  try {
    message = decodeURIComponent(message);
  } catch {
    // Not percent-encoded after all: shown as sent.
  }
  return new GrpcError(code, message);
}

/** A transport failure of a stream as a gRPC error: UNAVAILABLE, since etcd could not be reached or the connection died. */
function transportError(err: Error, unsent: boolean): GrpcError {
  return err instanceof GrpcError ? err : new GrpcError(GrpcCode.UNAVAILABLE, err.message || String(err), unsent);
}

export class GrpcSession {
  readonly endpoint: string;
  private readonly options: SessionOptions;
  private session: http2.ClientHttp2Session | undefined;
  /** Sessions that completed their handshake: a call on one of these may have reached etcd. */
  private readonly connected = new WeakSet<http2.ClientHttp2Session>();
  private closed = false;

  constructor(endpoint: string, options: SessionOptions = {}) {
    this.endpoint = endpoint;
    this.options = options;
  }

  /** The live session, a new one when there is none or the last one died. */
  private current(): http2.ClientHttp2Session {
    if (this.closed) throw new GrpcError(GrpcCode.CANCELLED, 'etcd client closed', true);
    const existing = this.session;
    if (existing && !existing.closed && !existing.destroyed) return existing;
    const window = this.options.windowBytes;
    const session = http2.connect(this.endpoint, {
      ...this.options.tls,
      settings: window ? { initialWindowSize: window } : undefined,
      // grpc-js lifts node's 10 MB cap too: wide windows and large lists may hold more than that in flight.
      maxSessionMemory: 1024,
    });
    this.session = session;
    const drop = () => {
      if (this.session === session) this.session = undefined;
    };
    session.on('connect', () => {
      this.connected.add(session);
      // A session destroyed while connecting (closed, or dropped by keepalive) still reports its connect.
      if (window && !session.destroyed && !session.closed) session.setLocalWindowSize(window);
    });
    // Stream errors carry the cause to each caller; the session's own is only an end.
    session.on('error', drop);
    session.on('close', drop);
    session.on('goaway', drop);
    this.keepalive(session);
    return session;
  }

  /** PINGs the session while it lives; one unanswered past the interval means a frozen or vanished peer. */
  private keepalive(session: http2.ClientHttp2Session): void {
    const every = this.options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS;
    let outstanding = false;
    const timer = setInterval(() => {
      if (session.destroyed) return clearInterval(timer);
      if (outstanding) {
        clearInterval(timer);
        session.destroy(new Error(`etcd at ${this.endpoint} did not answer a keepalive ping within ${every} ms`));
        return;
      }
      if (!this.connected.has(session)) return;
      outstanding = true;
      try {
        session.ping((err) => {
          if (!err) outstanding = false;
        });
      } catch {
        // The session is closing: its end drops it, and nothing is left to ping.
        clearInterval(timer);
      }
    }, every);
    timer.unref();
    session.once('close', () => clearInterval(timer));
  }

  /** Opens a call's stream; its request body follows from the caller. */
  open(path: string, timeoutMs?: number): { stream: http2.ClientHttp2Stream; sessionConnected: () => boolean } {
    const session = this.current();
    const headers: http2.OutgoingHttpHeaders = { ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' };
    // The value has at most 8 digits: longer deadlines go in seconds.
    if (timeoutMs) headers['grpc-timeout'] = timeoutMs < 1e8 ? `${Math.ceil(timeoutMs)}m` : `${Math.min(99_999_999, Math.ceil(timeoutMs / 1000))}S`;
    const stream = session.request(headers);
    return { stream, sessionConnected: () => this.connected.has(session) };
  }

  /** One request, one answer, within `timeoutMs` (none: no deadline); a late call is cancelled, never re-sent. */
  unary(path: string, message: Uint8Array, timeoutMs?: number): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      let opened: ReturnType<GrpcSession['open']>;
      try {
        opened = this.open(path, timeoutMs);
      } catch (err) {
        return reject(transportError(err as Error, true));
      }
      const { stream } = opened;
      const reader = new FrameReader();
      let answer: Buffer | undefined;
      let outcome: GrpcError | null | 'ok' = null;
      let settled = false;
      const finish = (err: GrpcError | null) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        if (!err) return resolve(answer ?? Buffer.alloc(0));
        reject(err);
        // A late or failed call is cancelled so etcd stops working on it; the session may be gone already.
        if (!stream.closed && !stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
      };
      const timer = timeoutMs
        ? setTimeout(() => finish(new GrpcError(GrpcCode.DEADLINE_EXCEEDED, `deadline of ${timeoutMs} ms exceeded`)), timeoutMs)
        : undefined;
      stream.on('response', (headers) => {
        const status = headers[':status'];
        if (status !== 200) return finish(new GrpcError(GrpcCode.UNAVAILABLE, `etcd answered HTTP ${status}`));
        outcome = statusOf(headers);
      });
      stream.on('trailers', (trailers) => (outcome = statusOf(trailers) ?? outcome));
      stream.on('data', (chunk: Buffer) => {
        try {
          for (const m of reader.push(chunk)) answer ??= m;
        } catch (err) {
          finish(err as GrpcError);
        }
      });
      stream.on('error', (err) => finish(transportError(err, !opened.sessionConnected())));
      stream.on('close', () => {
        if (outcome === 'ok' && answer) finish(null);
        else if (outcome instanceof GrpcError) finish(outcome);
        else if (outcome === 'ok') finish(new GrpcError(GrpcCode.INTERNAL, 'etcd sent no message'));
        else finish(new GrpcError(GrpcCode.UNAVAILABLE, 'etcd closed the call without a status', !opened.sessionConnected()));
      });
      stream.end(frame(message));
    });
  }

  /** Ends the session and whatever runs on it (the storage closes at shutdown, after its watches stopped). */
  close(): void {
    this.closed = true;
    this.session?.destroy();
    this.session = undefined;
  }
}
