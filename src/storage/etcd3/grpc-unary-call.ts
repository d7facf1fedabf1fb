/**
 * One unary gRPC call on our HTTP/2 connection (http2-connection.ts): a request
 * frame out, one message and a status back, within a deadline (`grpc-timeout`
 * for etcd, a local timer for us). A late or failed call is cancelled with
 * RST_STREAM CANCEL and never re-sent; a call the peer turned away unprocessed
 * (GOAWAY, REFUSED_STREAM) is started once more on a fresh connection.
 */
import { encodeHeaderBlock, type FieldToEncode, type HeaderList } from './hpack.ts';
import type { ClientStream, Http2Connection, StreamFailure, StreamListener } from './http2-connection.ts';
import { FrameReader, GrpcCode, GrpcError, grpcOutcome, grpcTimeout } from './grpc-wire.ts';

/** RFC 7541 Appendix A indexes of the fields every call sends. */
const STATIC_METHOD_POST = 3;
const STATIC_SCHEME_HTTP = 6;
const STATIC_SCHEME_HTTPS = 7;
const STATIC_NAME_AUTHORITY = 1;
const STATIC_NAME_PATH = 4;
const STATIC_NAME_CONTENT_TYPE = 31;

/** The request header block of a method and deadline on one endpoint; a client uses a handful, so they are made once. */
export class RequestHeaderBlocks {
  private readonly blocks = new Map<string, Buffer>();
  private readonly scheme: number;
  private readonly authority: string;

  constructor(endpoint: URL) {
    this.scheme = endpoint.protocol === 'https:' ? STATIC_SCHEME_HTTPS : STATIC_SCHEME_HTTP;
    this.authority = endpoint.host;
  }

  get(path: string, timeoutMs: number | undefined): Buffer {
    const key = `${path} ${timeoutMs ?? ''}`;
    let block = this.blocks.get(key);
    if (block) return block;
    const fields: FieldToEncode[] = [
      STATIC_METHOD_POST,
      this.scheme,
      [STATIC_NAME_PATH, path],
      [STATIC_NAME_AUTHORITY, this.authority],
      [STATIC_NAME_CONTENT_TYPE, 'application/grpc'],
      ['te', 'trailers'],
    ];
    if (timeoutMs) fields.push(['grpc-timeout', grpcTimeout(timeoutMs)]);
    block = encodeHeaderBlock(fields);
    // Deadlines come from flags, so few distinct ones: the bound only guards against a caller that varies them.
    if (this.blocks.size < 256) this.blocks.set(key, block);
    return block;
  }
}

function field(fields: HeaderList, name: string): string | undefined {
  for (const [fieldName, value] of fields) if (fieldName === name) return value;
  return undefined;
}

/** Runs a call to its answer or failure; `connection()` gives the live connection, a new one when needed. */
export class UnaryCall implements StreamListener {
  private readonly reader = new FrameReader();
  private answer: Buffer | undefined;
  private outcome: GrpcError | null | 'ok' = null;
  private sawHeaders = false;
  private settled = false;
  private restarted = false;
  private stream: ClientStream | undefined;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connection: () => Http2Connection,
    private readonly headerBlock: Buffer,
    private readonly body: Buffer,
    timeoutMs: number | undefined,
    private readonly resolve: (answer: Buffer) => void,
    private readonly reject: (err: GrpcError) => void,
  ) {
    if (timeoutMs) this.timer = setTimeout(() => this.finish(new GrpcError(GrpcCode.DEADLINE_EXCEEDED, `deadline of ${timeoutMs} ms exceeded`)), timeoutMs);
    this.start();
  }

  private start(): void {
    try {
      this.stream = this.connection().request(this.headerBlock, this.body, this);
    } catch (err) {
      this.finish(err instanceof GrpcError ? err : new GrpcError(GrpcCode.UNAVAILABLE, (err as Error).message, true));
    }
  }

  onHeaders(fields: HeaderList, _endStream: boolean): void {
    if (!this.sawHeaders) {
      this.sawHeaders = true;
      const status = field(fields, ':status');
      if (status !== '200') return this.finish(new GrpcError(GrpcCode.UNAVAILABLE, `etcd answered HTTP ${status}`));
    }
    this.outcome = grpcOutcome(field(fields, 'grpc-status'), field(fields, 'grpc-message')) ?? this.outcome;
  }

  onData(chunk: Buffer): void {
    try {
      for (const message of this.reader.push(chunk)) this.answer ??= message;
    } catch (err) {
      this.finish(err as GrpcError);
    }
  }

  onClose(failure: StreamFailure | null): void {
    if (this.settled) return;
    if (failure) {
      if (failure.refused && !this.restarted) {
        this.restarted = true;
        return this.start();
      }
      return this.finish(new GrpcError(GrpcCode.UNAVAILABLE, failure.message, failure.unsent));
    }
    if (this.outcome === 'ok' && this.answer) this.finish(null);
    else if (this.outcome instanceof GrpcError) this.finish(this.outcome);
    else if (this.outcome === 'ok') this.finish(new GrpcError(GrpcCode.INTERNAL, 'etcd sent no message'));
    else this.finish(new GrpcError(GrpcCode.UNAVAILABLE, 'etcd closed the call without a status'));
  }

  private finish(err: GrpcError | null): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timer) clearTimeout(this.timer);
    if (!err) return this.resolve(this.answer ?? Buffer.alloc(0));
    this.reject(err);
    // etcd stops working on a late or failed call; a stream already over ignores this.
    this.stream?.cancel();
  }
}
