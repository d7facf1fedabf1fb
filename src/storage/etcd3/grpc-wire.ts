/**
 * gRPC's wire format over HTTP/2 (gRPC's "PROTOCOL-HTTP2" document), shared by
 * the unary calls (grpc-unary-call.ts) and the watch streams: messages in
 * 5-byte length-prefixed frames, the outcome in `grpc-status`/`grpc-message`,
 * the deadline in `grpc-timeout`.
 */

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

/** upstream's etcd client accepts answers up to 2 GiB (gRPC's default is 4 MiB). */
const MAX_MESSAGE_BYTES = 2 ** 31 - 1;

/** Splits a gRPC response body into messages; frames may span or share DATA chunks. */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes the pending message needs in all (its 5-byte prefix, then the prefix and the message). */
  private needed = 0;

  /** The whole messages completed by `chunk`, each a view of the received bytes where it arrived in one piece. */
  push(chunk: Buffer): Buffer[] {
    const messages: Buffer[] = [];
    let buf = chunk;
    if (this.pendingBytes) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      // The pieces of a message are joined once it is whole: joining them at every piece copied
      // a list page of 750 KiB, arriving in pieces of 16 KiB, about 50 times over.
      if (this.pendingBytes < this.needed) return messages;
      buf = Buffer.concat(this.pending, this.pendingBytes);
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
      this.needed = this.pendingBytes >= 5 ? 5 + buf.readUInt32BE(pos + 1) : 5;
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

/** A call's outcome from its `grpc-status` and `grpc-message` values; null when there is no status. */
export function grpcOutcome(status: string | undefined, rawMessage: string | undefined): GrpcError | null | 'ok' {
  if (status === undefined) return null;
  const code = Number(status);
  if (code === GrpcCode.OK) return 'ok';
  let message = rawMessage ?? `gRPC status ${code}`;
  try {
    message = decodeURIComponent(message);
  } catch {
    // Not percent-encoded after all: shown as sent.
  }
  return new GrpcError(code, message);
}

/** The call's status from trailers, or from the headers of a trailers-only answer; null when neither carries one. */
export function statusOf(headers: Record<string, string | string[] | number | undefined>): GrpcError | null | 'ok' {
  const status = headers['grpc-status'];
  const message = headers['grpc-message'];
  return grpcOutcome(status === undefined ? undefined : String(status), typeof message === 'string' ? message : undefined);
}

/** `grpc-timeout`'s value: at most 8 digits, so longer deadlines go in seconds. */
export function grpcTimeout(timeoutMs: number): string {
  return timeoutMs < 1e8 ? `${Math.ceil(timeoutMs)}m` : `${Math.min(99_999_999, Math.ceil(timeoutMs / 1000))}S`;
}
