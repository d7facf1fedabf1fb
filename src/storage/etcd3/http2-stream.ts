/**
 * What our HTTP/2 client connection (http2-connection.ts) hands its callers: a
 * request stream, the listener that hears its answer, and why a stream failed.
 */
import type { HeaderList } from './hpack.ts';

export interface TlsFiles {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export interface ConnectionOptions {
  tls?: TlsFiles;
  /** Our stream and connection receive window. */
  windowBytes: number;
  /** While calls are open a PING goes out this often; one unanswered for as long again (or no connection by then) ends the connection. */
  keepaliveMs: number;
  /** Told once, when the connection takes no more streams (it died, got a GOAWAY, or used up its stream ids). */
  onRetired: () => void;
}

/** Why a stream ended without its answer. */
export class StreamFailure extends Error {
  /** The peer certainly never processed the request. */
  readonly unsent: boolean;
  /** The peer turned the stream away unprocessed (GOAWAY, REFUSED_STREAM): another connection may take it. */
  readonly refused: boolean;
  constructor(message: string, unsent: boolean, refused = false) {
    super(message);
    this.name = 'StreamFailure';
    this.unsent = unsent;
    this.refused = refused;
  }
}

/** What a stream reports to its caller; after `onClose` nothing more. */
export interface StreamListener {
  /** A header block: the response's headers, then its trailers (`endStream` on the last frame of the stream). */
  onHeaders(fields: HeaderList, endStream: boolean): void;
  onData(chunk: Buffer): void;
  /** The stream is over: null when the peer ended it, else the failure. */
  onClose(failure: StreamFailure | null): void;
}

/** One request stream: its header block and body go out as the windows allow. */
export class ClientStream {
  id = 0;
  sendWindow = 0;
  sent = 0;
  unacked = 0;
  constructor(
    private readonly owner: { cancel(stream: ClientStream): void },
    readonly headerBlock: Buffer,
    readonly body: Buffer,
    readonly listener: StreamListener,
  ) {}

  /** Abandons the stream (RST_STREAM CANCEL once started); its listener hears nothing more. */
  cancel(): void {
    this.owner.cancel(this);
  }
}
