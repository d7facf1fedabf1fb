/**
 * One etcd watch on its own bidirectional Watch stream (etcdserverpb.Watch/Watch),
 * reopened by itself when the stream breaks (etcd restarted, killed, frozen past
 * a keepalive) with exponential backoff and jitter, resuming after the last
 * revision it delivered: the last event's, or the last progress notification's
 * (etcd sends those only to watches that have caught up, so their revision is
 * safe to resume after; a created answer's is not, as the watch may still be
 * catching up). When etcd cancels the watch (its start revision was compacted)
 * `onCanceled` is told and nothing reopens it.
 */
import type * as Http2 from 'node:http2';
import { http2 } from '../../util/lazy-packages.ts';
import { decodeWatchResponse, encodeWatchCreate, type WatchEvent } from './etcd-codec.ts';
import { FrameReader, GrpcCode, GrpcError, frame, statusOf, type GrpcSession } from './grpc-session.ts';

/** Reconnect delays: exponential from the first, capped so a returning etcd is picked up within seconds. */
const BACKOFF_INITIAL_MS = 100;
const BACKOFF_MAX_MS = 2_000;

export interface WatchStreamOptions {
  /** The session to open attempt n on (n counts failed attempts since the last success; more than one endpoint: a rotation). */
  session: (attempt: number) => GrpcSession;
  key: Buffer;
  rangeEnd: Buffer;
  /** Events after this revision are delivered. */
  afterRevision: number;
  /** Each response's events, in order. */
  onEvents: (events: WatchEvent[]) => void;
  /** etcd cancelled the watch: `compactRevision` is set when its start revision was compacted. */
  onCanceled: (reason: string, compactRevision: number) => void;
}

/** Full jitter on the upper half: reconnecting servers spread out without waiting less than half the step. */
function backoffDelay(attempt: number): number {
  const step = Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** attempt);
  return step / 2 + Math.random() * (step / 2);
}

export class WatchStream {
  private readonly options: WatchStreamOptions;
  private delivered: number;
  private stream: Http2.ClientHttp2Stream | undefined;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;
  private connectedOnce = false;
  private disconnected = false;
  private stopped = false;

  constructor(options: WatchStreamOptions) {
    this.options = options;
    this.delivered = options.afterRevision;
    this.open();
  }

  /** The revision the watch would resume after. */
  get resumeAfter(): number {
    return this.delivered;
  }

  private open(): void {
    this.retry = undefined;
    if (this.stopped) return;
    let stream: Http2.ClientHttp2Stream;
    try {
      stream = this.options.session(this.failures).open('/etcdserverpb.Watch/Watch').stream;
    } catch (err) {
      // A closed client opens nothing any more; the watch ends with it.
      if (err instanceof GrpcError && err.code === GrpcCode.CANCELLED) return void (this.stopped = true);
      return this.broken(err as Error);
    }
    this.stream = stream;
    const reader = new FrameReader();
    let ended = false;
    const end = (err: Error) => {
      if (ended) return;
      ended = true;
      if (this.stream === stream) this.stream = undefined;
      if (!stream.closed && !stream.destroyed) stream.close(http2().constants.NGHTTP2_CANCEL);
      this.broken(err);
    };
    stream.on('response', (headers) => {
      const status = statusOf(headers);
      if (status instanceof Error) end(status);
    });
    stream.on('trailers', (trailers) => {
      const status = statusOf(trailers);
      end(status instanceof Error ? status : new Error('etcd ended the watch stream'));
    });
    stream.on('data', (chunk: Buffer) => {
      if (ended) return;
      try {
        for (const message of reader.push(chunk)) {
          if (!this.receive(message)) return end(new Error('cancelled'));
        }
      } catch (err) {
        end(err as Error);
      }
    });
    stream.on('error', end);
    stream.on('close', () => end(new Error('etcd closed the watch stream')));
    stream.write(frame(encodeWatchCreate({ key: this.options.key, rangeEnd: this.options.rangeEnd, startRevision: this.delivered + 1, prevKv: true })));
  }

  /** Handles one WatchResponse; false once the watch is over (cancelled by etcd, or stopped). */
  private receive(message: Buffer): boolean {
    if (this.stopped) return false;
    const res = decodeWatchResponse(message);
    if (res.canceled) {
      this.stopped = true;
      this.options.onCanceled(res.cancelReason, res.compactRevision);
      return false;
    }
    if (res.created) {
      if (this.disconnected) console.error(`etcd watch: reconnected, resuming after revision ${this.delivered}`);
      this.connectedOnce = true;
      this.disconnected = false;
      this.failures = 0;
      return true;
    }
    if (res.events.length === 0) {
      this.delivered = Math.max(this.delivered, res.header.revision);
      return true;
    }
    for (const event of res.events) this.delivered = Math.max(this.delivered, event.kv.modRevision);
    this.options.onEvents(res.events);
    return !this.stopped;
  }

  private broken(err: Error): void {
    if (this.stopped || this.retry) return;
    if (!this.disconnected) {
      this.disconnected = true;
      console.error(`etcd watch: ${this.connectedOnce ? 'disconnected' : 'cannot connect'}, retrying: ${err.message}`);
    }
    this.retry = setTimeout(() => this.open(), backoffDelay(this.failures));
    this.failures++;
  }

  /** Ends the watch: closing its stream cancels it in etcd. */
  stop(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    const stream = this.stream;
    this.stream = undefined;
    if (stream && !stream.closed && !stream.destroyed) stream.close(http2().constants.NGHTTP2_CANCEL);
  }
}
