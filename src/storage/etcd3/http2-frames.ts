/**
 * HTTP/2 framing (RFC 9113 §4, §6): the frame types, flags, settings and error
 * codes our client connection uses, frame writing, and a splitter that cuts
 * the received byte stream into frames.
 */

/** §6: frame types. */
export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

/** §6: flags (END_STREAM and ACK share a bit on different frame types). */
export const Flag = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;

/** §6.5.2: setting identifiers. */
export const Setting = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
} as const;

/** §7: error codes. */
export const ErrorCode = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
} as const;

/** §3.4: the client connection preface. */
export const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** §4.2 and §6.5.2: the initial SETTINGS_MAX_FRAME_SIZE, which we keep for what we receive. */
export const DEFAULT_MAX_FRAME_SIZE = 16_384;
/** §6.9.2: the initial window of every stream and of the connection. */
export const DEFAULT_WINDOW = 65_535;
/** §5.1.1: stream identifiers are 31-bit. */
export const MAX_STREAM_ID = 2 ** 31 - 1;
/** §6.9.1: the largest window a WINDOW_UPDATE may reach. */
export const MAX_WINDOW = 2 ** 31 - 1;

/** §4.1: writes the 9-octet frame header at the start of `out`. */
function writeFrameHeader(out: Buffer, length: number, type: number, flags: number, streamId: number): Buffer {
  out[0] = (length >>> 16) & 0xff;
  out[1] = (length >>> 8) & 0xff;
  out[2] = length & 0xff;
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(streamId, 5);
  return out;
}

/** §4.1: a frame header alone, for a payload sent as its own buffer. */
export function frameHeader(length: number, type: number, flags: number, streamId: number): Buffer {
  return writeFrameHeader(Buffer.allocUnsafe(9), length, type, flags, streamId);
}

/** A whole frame in one buffer. */
export function frameBytes(type: number, flags: number, streamId: number, payload?: Uint8Array): Buffer {
  const length = payload ? payload.length : 0;
  const out = writeFrameHeader(Buffer.allocUnsafe(9 + length), length, type, flags, streamId);
  if (payload) out.set(payload, 9);
  return out;
}

/** A frame with a payload of 32-bit words (WINDOW_UPDATE, RST_STREAM, GOAWAY). */
export function wordsFrame(type: number, streamId: number, ...words: number[]): Buffer {
  const payload = Buffer.allocUnsafe(4 * words.length);
  words.forEach((word, i) => payload.writeUInt32BE(word, 4 * i));
  return frameBytes(type, 0, streamId, payload);
}

/** §6.5.1: a SETTINGS frame of (identifier, value) pairs. */
export function settingsFrame(settings: Array<[number, number]>): Buffer {
  const payload = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return frameBytes(FrameType.SETTINGS, 0, 0, payload);
}

/** The payload of a frame with the PADDED flag, without its pad length octet and padding (§6.1, §6.2); null when malformed. */
export function unpadded(payload: Buffer, flags: number): Buffer | null {
  if ((flags & Flag.PADDED) === 0) return payload;
  if (payload.length < 1) return null;
  const padding = payload[0];
  if (padding >= payload.length) return null;
  return payload.subarray(1, payload.length - padding);
}

export type FrameHandler = (type: number, flags: number, streamId: number, payload: Buffer) => void;

/** Cuts received bytes into frames; a frame may span reads, and a read may hold many frames. */
export class FrameSplitter {
  private pending: Buffer | undefined;

  /** Hands each whole frame to `onFrame`; throws when the peer sends a frame larger than `maxFrameSize`. */
  push(chunk: Buffer, maxFrameSize: number, onFrame: FrameHandler): void {
    const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    let pos = 0;
    while (buf.length - pos >= 9) {
      const length = (buf[pos] << 16) | (buf[pos + 1] << 8) | buf[pos + 2];
      if (length > maxFrameSize) throw new RangeError(`peer sent a frame of ${length} octets, over the ${maxFrameSize} allowed`);
      if (buf.length - pos - 9 < length) break;
      const type = buf[pos + 3];
      const flags = buf[pos + 4];
      const streamId = buf.readUInt32BE(pos + 5) & 0x7fffffff;
      const payload = buf.subarray(pos + 9, pos + 9 + length);
      pos += 9 + length;
      onFrame(type, flags, streamId, payload);
    }
    if (pos < buf.length) this.pending = buf.subarray(pos);
  }
}
