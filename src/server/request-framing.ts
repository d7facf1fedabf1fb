/**
 * Follows HTTP/1.1 message framing on a connection's decrypted bytes, to judge
 * each request line exactly as it was sent. Node's parser (llhttp) accepts
 * lines Go's net/http refuses, such as `GET  /path  HTTP/1.1` (read as
 * `GET /path`) or an HTTP/0.9 `GET /path`, and gives the handler no way to see
 * the line itself. kube-apiserver answers those 400 and closes; so do we.
 *
 * The tracker only has to find where each request starts. It reads framing as
 * llhttp does (Transfer-Encoding wins and means chunked, else Content-Length,
 * else no body); wherever llhttp would refuse the bytes, its own error closes
 * the connection before a disagreement could matter. It stops following a
 * connection after a verdict, after CONNECT, or when a head outgrows the header
 * limit (llhttp answers that one too).
 */

export interface FramingVerdict {
  /** 1-based number of the request on its connection. */
  request: number;
  code: 400 | 505;
  message: string;
}

/** Go's request-line shape: token SP target SP HTTP/d.d; the target holds no space or control byte. */
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([^\x00-\x20\x7f]+) HTTP\/(\d)\.(\d)$/;

const enum State {
  Head,
  FixedBody,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  Off,
}

export class RequestFramingTracker {
  private state = State.Head;
  /** Bytes of the current head or line, as latin1 text (one char per byte). */
  private pending = '';
  private remaining = 0;
  private requests = 0;

  constructor(private readonly maxHeadBytes: number) {}

  /** Feeds the next bytes; returns a verdict when a request line is malformed (the tracker then stops). */
  feed(chunk: Buffer): FramingVerdict | undefined {
    let offset = 0;
    // Converted once, and only when a head or a line has to be read from this chunk.
    let text: string | undefined;
    while (offset < chunk.length && this.state !== State.Off) {
      if (this.state === State.FixedBody || this.state === State.ChunkData) {
        const take = Math.min(this.remaining, chunk.length - offset);
        offset += take;
        this.remaining -= take;
        if (this.remaining === 0) this.state = this.state === State.FixedBody ? State.Head : State.ChunkDataEnd;
        continue;
      }
      text ??= chunk.toString('latin1');
      const inHead = this.state === State.Head;
      const end = this.collect(text, offset, inHead ? '\r\n\r\n' : '\n');
      if (end < 0) return undefined;
      offset = end;
      if (!inHead) this.endOfLine();
      else {
        const verdict = this.endOfHead();
        if (verdict) return verdict;
      }
    }
    return undefined;
  }

  /**
   * Appends text until `terminator` completes, searching from `offset` only;
   * returns the offset after the terminator, or -1 when the chunk ended first.
   * A head over the limit stops the tracker.
   */
  private collect(text: string, offset: number, terminator: string): number {
    // A terminator may have begun in the previous chunk.
    const carry = Math.min(this.pending.length, terminator.length - 1);
    const joint = carry ? (this.pending.slice(-carry) + text.slice(offset, offset + terminator.length - 1)).indexOf(terminator) : -1;
    // Where the terminator starts, relative to `text` (negative: it began in `pending`).
    const found = joint >= 0 ? offset + joint - carry : text.indexOf(terminator, offset);
    if (joint < 0 && found < 0) {
      this.pending += text.slice(offset);
      if (this.pending.length > this.maxHeadBytes) this.state = State.Off;
      return -1;
    }
    const end = found + terminator.length;
    this.pending += text.slice(offset, end);
    if (this.pending.length > this.maxHeadBytes) this.state = State.Off;
    return end;
  }

  /** A complete head: judge its request line, then follow its body. */
  private endOfHead(): FramingVerdict | undefined {
    // llhttp skips empty lines before a request line, as RFC 9112 section 2.2 allows.
    const head = this.pending.replace(/^(\r\n)+/, '');
    this.pending = '';
    if (head === '') return undefined;
    this.requests++;
    const lineEnd = head.indexOf('\r\n');
    const line = head.slice(0, lineEnd);
    const match = REQUEST_LINE.exec(line);
    if (!match) return this.verdict(400, `malformed HTTP request ${JSON.stringify(line)}`);
    if (match[3] !== '1') return this.verdict(505, 'unsupported protocol version');
    if (match[1] === 'CONNECT') {
      this.state = State.Off;
      return undefined;
    }
    const headers = head.slice(lineEnd + 2);
    if (/^transfer-encoding[ \t]*:/im.test(headers)) {
      this.state = State.ChunkSize;
      return undefined;
    }
    const length = /^content-length[ \t]*:[ \t]*(\d+)[ \t]*$/im.exec(headers);
    this.remaining = length ? Number(length[1]) : 0;
    this.state = this.remaining > 0 ? State.FixedBody : State.Head;
    return undefined;
  }

  /** A complete line of chunked framing: a chunk size, a chunk's CRLF, or a trailer. */
  private endOfLine(): void {
    const line = this.pending.replace(/\r?\n$/, '');
    this.pending = '';
    if (this.state === State.ChunkDataEnd) {
      this.state = State.ChunkSize;
    } else if (this.state === State.ChunkSize) {
      const size = Number.parseInt(line, 16);
      if (Number.isNaN(size)) this.state = State.Off;
      else if (size === 0) this.state = State.Trailers;
      else {
        this.remaining = size;
        this.state = State.ChunkData;
      }
    } else if (line === '') {
      this.state = State.Head;
    }
  }

  private verdict(code: 400 | 505, message: string): FramingVerdict {
    this.state = State.Off;
    return { request: this.requests, code, message };
  }
}
