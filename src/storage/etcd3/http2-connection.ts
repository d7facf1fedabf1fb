/**
 * An HTTP/2 client connection of our own (RFC 9113) for etcd's unary gRPC
 * calls, over a plain TCP socket (h2c, prior knowledge) or TLS with ALPN h2.
 * node:http2 spends about a fifth of a create's CPU on each call's stream
 * machinery (async resources, a Duplex per stream, header objects); a unary call
 * needs none of it: one HEADERS and one DATA out, a header block, DATA and
 * trailers back. Frames of every call made in one event-loop turn leave in one
 * socket write.
 */
import net from 'node:net';
import tls from 'node:tls';
import { HpackDecoder, HpackError } from './hpack.ts';
import { ClientStream, StreamFailure, type ConnectionOptions, type StreamListener } from './http2-stream.ts';
import { InFlightTable } from '../../util/in-flight-table.ts';
import {
  CLIENT_PREFACE,
  DEFAULT_MAX_FRAME_SIZE,
  DEFAULT_WINDOW,
  ErrorCode,
  Flag,
  FrameSplitter,
  FrameType,
  MAX_STREAM_ID,
  MAX_WINDOW,
  Setting,
  frameBytes,
  frameHeader,
  settingsFrame,
  unpadded,
  wordsFrame,
} from './http2-frames.ts';

export { ClientStream, StreamFailure, type ConnectionOptions, type StreamListener, type TlsFiles } from './http2-stream.ts';

/** A connection error we detected: the peer is told in a GOAWAY with `code`. */
class ConnectionError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

export class Http2Connection {
  readonly authority: string;
  private readonly socket: net.Socket;
  private readonly options: ConnectionOptions;
  private readonly streams = new InFlightTable<ClientStream>();
  /** Streams beyond the peer's MAX_CONCURRENT_STREAMS, not started yet. */
  private readonly waiting: ClientStream[] = [];
  /** Started streams with body left to send once a window opens. */
  private readonly blocked = new Set<ClientStream>();
  private readonly decoder = new HpackDecoder();
  private readonly splitter = new FrameSplitter();
  private readonly keepalive: NodeJS.Timeout;
  private connected = false;
  private retired = false;
  private dead = false;
  private nextStreamId = 1;
  private peerMaxConcurrent = Infinity;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrameSize = DEFAULT_MAX_FRAME_SIZE;
  private sendWindow = DEFAULT_WINDOW;
  private unacked = 0;
  private pingOutstanding = false;
  private headerBlock: { streamId: number; flags: number; parts: Buffer[] } | undefined;
  private out: Buffer[] = [];
  private flushScheduled = false;

  constructor(endpoint: URL, options: ConnectionOptions) {
    this.options = options;
    this.authority = endpoint.host;
    const host = endpoint.hostname.replace(/^\[(.*)\]$/, '$1');
    const secure = endpoint.protocol === 'https:';
    const port = Number(endpoint.port) || (secure ? 443 : 80);
    if (secure) {
      const socket = tls.connect({ host, port, ...options.tls, ALPNProtocols: ['h2'], servername: net.isIP(host) ? undefined : host });
      socket.once('secureConnect', () => {
        if (socket.alpnProtocol === 'h2') this.connected = true;
        else this.fail(`etcd at ${this.authority} did not agree to HTTP/2 in ALPN`);
      });
      this.socket = socket;
    } else {
      this.socket = net.connect({ host, port }, () => (this.connected = true));
    }
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.receive(chunk));
    this.socket.on('error', (err) => this.fail(err.message || String(err)));
    this.socket.on('close', () => this.fail(`etcd at ${this.authority} closed the connection`));
    const settings = settingsFrame([
      [Setting.ENABLE_PUSH, 0],
      [Setting.INITIAL_WINDOW_SIZE, options.windowBytes],
    ]);
    this.queue(CLIENT_PREFACE, settings);
    if (options.windowBytes > DEFAULT_WINDOW) this.queue(wordsFrame(FrameType.WINDOW_UPDATE, 0, options.windowBytes - DEFAULT_WINDOW));
    this.keepalive = setInterval(() => this.tick(), options.keepaliveMs);
    this.keepalive.unref();
  }

  /** False once the connection died or turned away new streams: the caller opens another. */
  get takesStreams(): boolean {
    return !this.retired;
  }

  /** Starts a request (or queues it past the peer's stream limit); the listener hears its answer. */
  request(headerBlock: Buffer, body: Buffer, listener: StreamListener): ClientStream {
    if (this.retired) throw new Error('HTTP/2 connection takes no more streams');
    const stream = new ClientStream(this, headerBlock, body, listener);
    if (this.streams.size >= this.peerMaxConcurrent) this.waiting.push(stream);
    else this.start(stream);
    return stream;
  }

  cancel(stream: ClientStream): void {
    if (stream.id === 0) {
      const index = this.waiting.indexOf(stream);
      if (index >= 0) this.waiting.splice(index, 1);
      return;
    }
    if (this.streams.get(stream.id) !== stream) return;
    this.queue(wordsFrame(FrameType.RST_STREAM, stream.id, ErrorCode.CANCEL));
    this.forget(stream);
  }

  /** Ends the connection and fails whatever runs on it. */
  close(): void {
    this.fail('etcd client closed');
  }

  private start(stream: ClientStream): void {
    stream.id = this.nextStreamId;
    this.nextStreamId += 2;
    stream.sendWindow = this.peerInitialWindow;
    this.streams.set(stream.id, stream);
    const flags = Flag.END_HEADERS | (stream.body.length === 0 ? Flag.END_STREAM : 0);
    this.queue(frameHeader(stream.headerBlock.length, FrameType.HEADERS, flags, stream.id), stream.headerBlock);
    if (stream.body.length > 0) this.sendBody(stream);
    if (this.nextStreamId > MAX_STREAM_ID) this.retire();
  }

  /** DATA frames within the stream's and the connection's send windows and the peer's frame size. */
  private sendBody(stream: ClientStream): void {
    const { body } = stream;
    while (stream.sent < body.length) {
      const size = Math.min(body.length - stream.sent, stream.sendWindow, this.sendWindow, this.peerMaxFrameSize);
      if (size <= 0) {
        this.blocked.add(stream);
        return;
      }
      const end = stream.sent + size === body.length;
      this.queue(frameHeader(size, FrameType.DATA, end ? Flag.END_STREAM : 0, stream.id), body.subarray(stream.sent, stream.sent + size));
      stream.sent += size;
      stream.sendWindow -= size;
      this.sendWindow -= size;
    }
    this.blocked.delete(stream);
  }

  private resumeBlocked(): void {
    if (this.blocked.size === 0) return;
    for (const stream of [...this.blocked]) this.sendBody(stream);
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && !this.retired && this.streams.size < this.peerMaxConcurrent) this.start(this.waiting.shift()!);
  }

  private queue(...frames: Buffer[]): void {
    for (const frame of frames) this.out.push(frame);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.dead || this.out.length === 0) return;
    const data = this.out.length === 1 ? this.out[0] : Buffer.concat(this.out);
    this.out = [];
    this.socket.write(data);
  }

  private receive(chunk: Buffer): void {
    try {
      this.splitter.push(chunk, DEFAULT_MAX_FRAME_SIZE, this.onFrame);
    } catch (err) {
      const code =
        err instanceof ConnectionError ? err.code : err instanceof HpackError ? ErrorCode.COMPRESSION_ERROR : err instanceof RangeError ? ErrorCode.FRAME_SIZE_ERROR : ErrorCode.INTERNAL_ERROR;
      this.fail(`HTTP/2 connection error with etcd at ${this.authority}: ${(err as Error).message}`, code);
    }
  }

  private readonly onFrame = (type: number, flags: number, streamId: number, payload: Buffer): void => {
    if (this.dead) return;
    if (this.headerBlock && type !== FrameType.CONTINUATION) throw new ConnectionError('frame inside a header block', ErrorCode.PROTOCOL_ERROR);
    switch (type) {
      case FrameType.DATA:
        return this.onData(flags, streamId, payload);
      case FrameType.HEADERS: {
        let block = unpadded(payload, flags);
        if (!block || ((flags & Flag.PRIORITY) !== 0 && block.length < 5)) throw new ConnectionError('malformed HEADERS', ErrorCode.PROTOCOL_ERROR);
        if (flags & Flag.PRIORITY) block = block.subarray(5);
        if (flags & Flag.END_HEADERS) return this.onHeaderBlock(streamId, flags, block);
        this.headerBlock = { streamId, flags, parts: [block] };
        return;
      }
      case FrameType.CONTINUATION: {
        const pending = this.headerBlock;
        if (!pending || pending.streamId !== streamId) throw new ConnectionError('CONTINUATION without its HEADERS', ErrorCode.PROTOCOL_ERROR);
        pending.parts.push(payload);
        if ((flags & Flag.END_HEADERS) === 0) return;
        this.headerBlock = undefined;
        return this.onHeaderBlock(streamId, pending.flags, Buffer.concat(pending.parts));
      }
      case FrameType.RST_STREAM: {
        expectLength(payload, 4, 'RST_STREAM');
        const stream = this.streams.get(streamId);
        const code = payload.readUInt32BE(0);
        if (stream) this.finish(stream, new StreamFailure(`etcd reset the stream (HTTP/2 error ${code})`, code === ErrorCode.REFUSED_STREAM, code === ErrorCode.REFUSED_STREAM));
        return;
      }
      case FrameType.SETTINGS:
        if (flags & Flag.ACK) return;
        this.onSettings(payload);
        this.queue(frameBytes(FrameType.SETTINGS, Flag.ACK, 0));
        return;
      case FrameType.PUSH_PROMISE:
        throw new ConnectionError('PUSH_PROMISE although push is disabled', ErrorCode.PROTOCOL_ERROR);
      case FrameType.PING:
        expectLength(payload, 8, 'PING');
        if (flags & Flag.ACK) this.pingOutstanding = false;
        else this.queue(frameBytes(FrameType.PING, Flag.ACK, 0, payload));
        return;
      case FrameType.GOAWAY:
        if (payload.length < 8) throw new ConnectionError('GOAWAY shorter than 8 octets', ErrorCode.FRAME_SIZE_ERROR);
        return this.onGoaway(payload.readUInt32BE(0) & 0x7fffffff, payload.readUInt32BE(4));
      case FrameType.WINDOW_UPDATE:
        expectLength(payload, 4, 'WINDOW_UPDATE');
        return this.onWindowUpdate(streamId, payload.readUInt32BE(0) & 0x7fffffff);
      default:
      // PRIORITY and unknown frame types are ignored (§5.5, §6.3).
    }
  };

  private onHeaderBlock(streamId: number, flags: number, block: Buffer): void {
    // Decoded even for a stream we dropped: the dynamic table must follow every block.
    const fields = this.decoder.decode(block);
    const stream = this.streams.get(streamId);
    if (!stream) return;
    const endStream = (flags & Flag.END_STREAM) !== 0;
    stream.listener.onHeaders(fields, endStream);
    if (endStream) this.remoteEnded(stream);
  }

  private onData(flags: number, streamId: number, payload: Buffer): void {
    // Flow control counts the whole payload, padding included, on dropped streams too (§6.9).
    this.unacked += payload.length;
    if (this.unacked >= this.options.windowBytes / 2) {
      this.queue(wordsFrame(FrameType.WINDOW_UPDATE, 0, this.unacked));
      this.unacked = 0;
    }
    const stream = this.streams.get(streamId);
    if (!stream) return;
    const data = unpadded(payload, flags);
    if (!data) throw new ConnectionError('malformed DATA padding', ErrorCode.PROTOCOL_ERROR);
    if (data.length > 0) stream.listener.onData(data);
    if (this.streams.get(streamId) !== stream) return;
    if (flags & Flag.END_STREAM) return this.remoteEnded(stream);
    stream.unacked += payload.length;
    if (stream.unacked >= this.options.windowBytes / 2) {
      this.queue(wordsFrame(FrameType.WINDOW_UPDATE, stream.id, stream.unacked));
      stream.unacked = 0;
    }
  }

  /** The peer ended its side: the answer is whole. A request still being sent is stopped (§8.1). */
  private remoteEnded(stream: ClientStream): void {
    if (stream.sent < stream.body.length) this.queue(wordsFrame(FrameType.RST_STREAM, stream.id, ErrorCode.NO_ERROR));
    this.finish(stream, null);
  }

  private onSettings(payload: Buffer): void {
    if (payload.length % 6 !== 0) throw new ConnectionError('SETTINGS length not a multiple of 6', ErrorCode.FRAME_SIZE_ERROR);
    for (let pos = 0; pos < payload.length; pos += 6) {
      const value = payload.readUInt32BE(pos + 2);
      switch (payload.readUInt16BE(pos)) {
        case Setting.MAX_CONCURRENT_STREAMS:
          this.peerMaxConcurrent = value;
          break;
        case Setting.INITIAL_WINDOW_SIZE: {
          if (value > MAX_WINDOW) throw new ConnectionError('INITIAL_WINDOW_SIZE above 2^31-1', ErrorCode.FLOW_CONTROL_ERROR);
          const delta = value - this.peerInitialWindow;
          this.peerInitialWindow = value;
          for (const stream of this.streams.values()) stream.sendWindow += delta;
          break;
        }
        case Setting.MAX_FRAME_SIZE:
          if (value < DEFAULT_MAX_FRAME_SIZE || value > 0xffffff) throw new ConnectionError('MAX_FRAME_SIZE out of range', ErrorCode.PROTOCOL_ERROR);
          this.peerMaxFrameSize = value;
          break;
        default:
        // HEADER_TABLE_SIZE does not concern an encoder that never indexes; the rest limit a server.
      }
    }
    this.resumeBlocked();
    this.startWaiting();
  }

  private onWindowUpdate(streamId: number, increment: number): void {
    if (increment === 0) throw new ConnectionError('WINDOW_UPDATE of 0', ErrorCode.PROTOCOL_ERROR);
    if (streamId === 0) {
      this.sendWindow += increment;
      if (this.sendWindow > MAX_WINDOW) throw new ConnectionError('connection window above 2^31-1', ErrorCode.FLOW_CONTROL_ERROR);
      return this.resumeBlocked();
    }
    const stream = this.streams.get(streamId);
    if (!stream) return;
    stream.sendWindow += increment;
    if (this.blocked.has(stream)) this.sendBody(stream);
  }

  /** §6.8: streams above `lastStreamId` were not processed; the rest may still finish. */
  private onGoaway(lastStreamId: number, code: number): void {
    this.retire();
    for (const stream of [...this.streams.values()]) {
      if (stream.id > lastStreamId) this.finish(stream, new StreamFailure(`etcd at ${this.authority} is going away (HTTP/2 error ${code}) and did not take the call`, true, true));
    }
    if (this.streams.size === 0) this.end();
  }

  /** The connection takes no new streams; those waiting for a slot go elsewhere. */
  private retire(): void {
    if (this.retired) return;
    this.retired = true;
    this.options.onRetired();
    for (const stream of this.waiting.splice(0)) stream.listener.onClose(new StreamFailure('HTTP/2 connection retired before the call started', true, true));
  }

  private forget(stream: ClientStream): void {
    this.streams.delete(stream.id);
    this.blocked.delete(stream);
    this.startWaiting();
    if (this.retired && this.streams.size === 0) this.end();
  }

  private finish(stream: ClientStream, failure: StreamFailure | null): void {
    if (this.streams.get(stream.id) !== stream) return;
    this.forget(stream);
    stream.listener.onClose(failure);
  }

  /** A graceful end once a retired connection has no streams left. */
  private end(): void {
    if (this.dead) return;
    this.flush();
    this.closeSocket();
  }

  /**
   * Ends our side after `last`, then the socket: a peer may keep its side open
   * after our FIN, and a frozen one never reads what is left to send.
   */
  private closeSocket(last?: Buffer): void {
    const destroy = () => this.socket.destroy();
    this.socket.end(last ?? Buffer.alloc(0), destroy);
    setTimeout(destroy, this.options.keepaliveMs).unref();
  }

  private tick(): void {
    if (this.dead) return;
    if (!this.connected) return this.fail(`could not connect to etcd at ${this.authority} within ${this.options.keepaliveMs} ms`);
    if (this.pingOutstanding) return this.fail(`etcd at ${this.authority} did not answer a keepalive ping within ${this.options.keepaliveMs} ms`);
    // Like gRPC's keepalive without PermitWithoutStream: etcd answers PINGs on an idle connection with GOAWAY too_many_pings.
    if (this.streams.size === 0) return;
    this.pingOutstanding = true;
    this.queue(frameBytes(FrameType.PING, 0, 0, Buffer.alloc(8)));
  }

  /** The connection is over: every stream fails, unsent when the socket never connected. */
  private fail(message: string, goawayCode?: number): void {
    if (this.dead) return;
    this.retire();
    const streams = [...this.streams.values()];
    this.streams.clear();
    this.blocked.clear();
    const tellPeer = goawayCode !== undefined && this.connected;
    if (tellPeer) {
      // The peer learns why, after what was queued (our preface comes first); the socket closes once the GOAWAY is out.
      this.flush();
      this.closeSocket(wordsFrame(FrameType.GOAWAY, 0, 0, goawayCode));
    }
    this.dead = true;
    clearInterval(this.keepalive);
    if (!tellPeer) this.socket.destroy();
    for (const stream of streams) stream.listener.onClose(new StreamFailure(message, !this.connected));
  }
}

function expectLength(payload: Buffer, length: number, frame: string): void {
  if (payload.length !== length) throw new ConnectionError(`${frame} of ${payload.length} octets, not ${length}`, ErrorCode.FRAME_SIZE_ERROR);
}
