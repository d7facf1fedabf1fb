/**
 * gRPC to one etcd endpoint (gRPC's "PROTOCOL-HTTP2" document): POST to
 * /<service>/<method> with `content-type: application/grpc` and `te: trailers`,
 * messages in 5-byte length-prefixed frames, the outcome in
 * `grpc-status`/`grpc-message` trailers (or in the headers of a trailers-only
 * answer). Unary calls run on our own HTTP/2 connection (http2-connection.ts),
 * streams (watches) on a node:http2 session. A connection or session that dies
 * (etcd restarted, killed, or frozen past a keepalive PING) is dropped and the
 * next call opens a new one.
 */
import type * as Http2 from 'node:http2';
import { http2 } from '../../util/lazy-packages.ts';
import { GrpcCode, GrpcError, frame, grpcTimeout } from './grpc-wire.ts';
import { RequestHeaderBlocks, UnaryCall } from './grpc-unary-call.ts';
import { Http2Connection, type TlsFiles } from './http2-connection.ts';

export { FrameReader, GrpcCode, GrpcError, frame, statusOf } from './grpc-wire.ts';
export type { TlsFiles } from './http2-connection.ts';

export interface SessionOptions {
  tls?: TlsFiles;
  /** Stream and connection flow-control window; HTTP/2's default is 64 KiB. */
  windowBytes?: number;
  /** A PING goes out this often; one unanswered for as long again ends the session. */
  keepaliveMs?: number;
}

const DEFAULT_KEEPALIVE_MS = 10_000;
/** RFC 9113 §6.9.2's initial window, kept when no wider one is asked for. */
const DEFAULT_WINDOW_BYTES = 65_535;

export class GrpcSession {
  readonly endpoint: string;
  private readonly options: SessionOptions;
  private session: Http2.ClientHttp2Session | undefined;
  /** Sessions that completed their handshake: a call on one of these may have reached etcd. */
  private readonly connected = new WeakSet<Http2.ClientHttp2Session>();
  private closed = false;
  private readonly url: URL;
  private readonly headerBlocks: RequestHeaderBlocks;
  /** The unary calls' connection; `session` carries only the watch streams. */
  private connection: Http2Connection | undefined;

  constructor(endpoint: string, options: SessionOptions = {}) {
    this.endpoint = endpoint;
    this.options = options;
    this.url = new URL(endpoint);
    this.headerBlocks = new RequestHeaderBlocks(this.url);
  }

  /** The live session, a new one when there is none or the last one died. */
  private current(): Http2.ClientHttp2Session {
    if (this.closed) throw new GrpcError(GrpcCode.CANCELLED, 'etcd client closed', true);
    const existing = this.session;
    if (existing && !existing.closed && !existing.destroyed) return existing;
    const window = this.options.windowBytes;
    const session = http2().connect(this.endpoint, {
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
  private keepalive(session: Http2.ClientHttp2Session): void {
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
  open(path: string, timeoutMs?: number): { stream: Http2.ClientHttp2Stream; sessionConnected: () => boolean } {
    const session = this.current();
    const headers: Http2.OutgoingHttpHeaders = { ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' };
    // The value has at most 8 digits: longer deadlines go in seconds.
    if (timeoutMs) headers['grpc-timeout'] = grpcTimeout(timeoutMs);
    const stream = session.request(headers);
    return { stream, sessionConnected: () => this.connected.has(session) };
  }

  /** The live connection for unary calls, a new one when there is none or the last one retired. */
  private unaryConnection(): Http2Connection {
    if (this.closed) throw new GrpcError(GrpcCode.CANCELLED, 'etcd client closed', true);
    const existing = this.connection;
    if (existing?.takesStreams) return existing;
    const connection = new Http2Connection(this.url, {
      tls: this.options.tls,
      windowBytes: this.options.windowBytes ?? DEFAULT_WINDOW_BYTES,
      keepaliveMs: this.options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS,
      onRetired: () => {
        if (this.connection === connection) this.connection = undefined;
      },
    });
    this.connection = connection;
    return connection;
  }

  /**
   * One request, one answer, within `timeoutMs` (none: no deadline); a late call
   * is cancelled, never re-sent. On our own HTTP/2 connection, not node:http2's
   * session, whose per-stream machinery costs more than the call's own work.
   */
  unary(path: string, message: Uint8Array, timeoutMs?: number): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      new UnaryCall(() => this.unaryConnection(), this.headerBlocks.get(path, timeoutMs), frame(message), timeoutMs, resolve, reject);
    });
  }

  /** Ends the session and whatever runs on it (the storage closes at shutdown, after its watches stopped). */
  close(): void {
    this.closed = true;
    this.session?.destroy();
    this.session = undefined;
    this.connection?.close();
    this.connection = undefined;
  }
}
