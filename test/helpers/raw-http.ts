/**
 * HTTP/1.1 over TLS byte for byte: request targets exactly as written (no URL
 * normalisation, which node:https and fetch would apply), malformed request
 * lines and framing, half-closes, and what the server did with the connection.
 */
import { connect } from 'node:tls';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON body, or undefined. */
  body: any;
}

export interface RawExchange {
  responses: RawResponse[];
  /** The server closed the connection (rather than the waiting time running out). */
  closedByServer: boolean;
  /** A reset or another socket error ended it. */
  error?: string;
  ms: number;
}

export interface RawOptions {
  /** Half-close after writing (the client sends nothing more). */
  end?: boolean;
  /** Give up waiting after this long; the connection is then still open. */
  waitMs?: number;
  /** Resolve as soon as this many complete responses arrived. */
  responses?: number;
  /** Write the bytes in pieces, this many milliseconds apart (slow clients). */
  pieces?: { size: number; delayMs: number };
}

/**
 * Splits a byte stream into complete HTTP responses: Content-Length, chunked, or
 * (for answers to other HTTP versions) delimited by the close, once `closed`.
 */
export function parseResponses(data: Buffer, closed = false): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n', offset);
    if (headEnd < 0) break;
    const lines = data.toString('latin1', offset, headEnd).split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let bodyStart = headEnd + 4;
    let body: Buffer;
    if (headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = data.indexOf('\r\n', bodyStart);
        if (lineEnd < 0) return responses;
        const size = Number.parseInt(data.toString('latin1', bodyStart, lineEnd), 16);
        if (data.length < lineEnd + 2 + size + 2) return responses;
        parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        bodyStart = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
      offset = bodyStart;
    } else if (headers['content-length'] === undefined && headers.connection === 'close') {
      if (!closed) break;
      body = data.subarray(bodyStart);
      offset = data.length;
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (data.length < bodyStart + length) break;
      body = data.subarray(bodyStart, bodyStart + length);
      offset = bodyStart + length;
    }
    responses.push(lazyBody(status, headers, body));
  }
  return responses;
}

/**
 * A response whose text and JSON are made when first read: the flood tests take
 * hundreds of large bodies (/openapi/v2) whose content they never look at, and
 * decoding each would make the client, not the server, set the times they check.
 */
function lazyBody(status: number, headers: Record<string, string>, bytes: Buffer): RawResponse {
  let text: string | undefined;
  let parsed: { value: any } | undefined;
  const response = { status, headers } as RawResponse;
  Object.defineProperty(response, 'text', { enumerable: true, get: () => (text ??= bytes.toString('utf8')) });
  Object.defineProperty(response, 'body', {
    enumerable: true,
    get: () => {
      if (!parsed) {
        try {
          parsed = { value: JSON.parse(response.text) };
        } catch {
          parsed = { value: undefined };
        }
      }
      return parsed.value;
    },
  });
  return response;
}

/** Where the first response in `data` ends when its head is in and names a Content-Length; else 0 (unknown). */
function firstResponseEnd(data: Buffer): number {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return 0;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(data.toString('latin1', 0, headEnd));
  return length ? headEnd + 4 + Number(length[1]) : 0;
}

/** Sends raw bytes on a fresh TLS connection and collects what comes back. */
export function rawExchange(port: number, ca: string, bytes: string | Buffer, options: RawOptions = {}): Promise<RawExchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' });
    const chunks: Buffer[] = [];
    let settled = false;
    let error: string | undefined;
    const finish = (closedByServer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(Buffer.concat(chunks), true), closedByServer, error, ms: performance.now() - started });
    };
    const timer = setTimeout(() => finish(false), options.waitMs ?? 10_000);
    // Parsed again only once enough bytes may have come: a large body (/openapi/v2) parsed at every
    // 16 KiB record would cost the client time quadratic in its size, and the flood tests time the answers.
    let received = 0;
    let parseAt = 0;
    socket.on('data', (d) => {
      chunks.push(d);
      received += d.length;
      if (!options.responses || received < parseAt) return;
      const data = Buffer.concat(chunks);
      chunks.length = 0;
      chunks.push(data);
      const responses = parseResponses(data);
      if (responses.length >= options.responses) return finish(false);
      parseAt = responses.length === 0 ? firstResponseEnd(data) : 0;
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.on('close', () => finish(true));
    socket.once('secureConnect', async () => {
      const payload = Buffer.from(bytes);
      if (options.pieces) {
        for (let i = 0; i < payload.length && !settled; i += options.pieces.size) {
          socket.write(payload.subarray(i, i + options.pieces.size));
          await new Promise((r) => setTimeout(r, options.pieces!.delayMs));
        }
      } else socket.write(payload);
      if (options.end) socket.end();
    });
  });
}

/** A well-formed request with the given target, written verbatim. */
export function rawRequest(method: string, target: string, options: { token?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Buffer {
  const headers: Record<string, string> = { Host: 'localhost', ...(options.headers ?? {}) };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  if (body) headers['Content-Length'] ??= String(body.length);
  const head = `${method} ${target} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}
