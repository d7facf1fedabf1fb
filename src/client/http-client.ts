/**
 * A small JSON-over-HTTPS client for a ClusterConnection (SPEC 2.10, 5.2, 5.4):
 * the cluster's CA (or none when insecure), its TLS server name, its proxy, a
 * client certificate, a bearer token (a token file re-read once a minute, as
 * client-go's cached file token source), basic auth, impersonation headers;
 * bounded in time and in the size of the answer. OrchClient adds the
 * connection's credential plugin.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions as NodeRequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ClusterConnection } from './orchconfig.ts';
import { execCluster, execCredentialSource, type ExecCredentialSource, type ExecCredentialStatus, type ExecOptions } from './exec-credential.ts';

export interface JsonResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: unknown;
  text: string;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Overrides the connection's token (credential plugins supply one). */
  token?: string;
  /** Overrides the connection's client certificate. */
  clientCertPem?: string;
  clientKeyPem?: string;
  /** Bound of the whole exchange (default 30 s). */
  timeoutMs?: number;
  /** Bound of the answer's body (default 3 MiB). */
  maxBytes?: number;
  /** How long a token file's content is used before it is read again (client-go: one minute). */
  tokenFileMaxAgeMs?: number;
}

/** The exchange did not finish within its `timeoutMs`. */
export class RequestTimeoutError extends Error {}

const tokenFiles = new Map<string, { token: string; readAt: number }>();

/** A token file's current token; on a read error the last one read, as client-go's CachedFileTokenSource. */
function fileToken(path: string, maxAgeMs: number): string | undefined {
  const cached = tokenFiles.get(path);
  if (cached && Date.now() - cached.readAt < maxAgeMs) return cached.token;
  try {
    const token = readFileSync(path, 'utf8').trim();
    if (!token) return cached?.token;
    tokenFiles.set(path, { token, readAt: Date.now() });
    return token;
  } catch {
    return cached?.token;
  }
}

/** client-go's headerKeyEscape: bytes outside an HTTP token, and `%`, are percent-encoded. */
function headerKeyEscape(key: string): string {
  return [...Buffer.from(key, 'utf8')].map((b) => (/[A-Za-z0-9!#$&'*+\-.^_`|~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

/** The server URL with the request path appended to its own path (a server may live under a prefix). */
function target(server: string, path: string): URL {
  const url = new URL(server);
  if (!path) return url;
  const query = path.indexOf('?');
  const pathname = query < 0 ? path : path.slice(0, query);
  url.pathname = url.pathname.replace(/\/$/, '') + (pathname.startsWith('/') ? pathname : `/${pathname}`);
  url.search = query < 0 ? '' : path.slice(query);
  return url;
}

function headersFor(connection: ClusterConnection, options: RequestOptions, payload: Buffer | undefined): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { accept: 'application/json', 'user-agent': 'orch-client', ...(options.headers ?? {}) };
  const token = options.token ?? (connection.tokenFile ? fileToken(connection.tokenFile, options.tokenFileMaxAgeMs ?? 60_000) : undefined) ?? connection.token;
  if (token) headers.authorization = `Bearer ${token}`;
  else if (connection.username !== undefined) headers.authorization = `Basic ${Buffer.from(`${connection.username}:${connection.password ?? ''}`).toString('base64')}`;
  const as = connection.impersonate;
  if (as) {
    headers['impersonate-user'] = as.user;
    if (as.uid) headers['impersonate-uid'] = as.uid;
    if (as.groups?.length) headers['impersonate-group'] = as.groups;
    for (const [key, values] of Object.entries(as.extra ?? {})) headers[`impersonate-extra-${headerKeyEscape(key)}`] = values;
  }
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  return headers;
}

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/** A CONNECT tunnel to `url`'s host through an http or https proxy. */
function tunnel(proxy: URL, url: URL, signal: AbortSignal): Promise<Socket> {
  const authority = `${url.hostname}:${url.port || 443}`;
  const headers: Record<string, string> = { host: authority };
  if (proxy.username || proxy.password) headers['proxy-authorization'] = `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
  return new Promise((resolve, reject) => {
    const send = proxy.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send({ host: bare(proxy.hostname), port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80), method: 'CONNECT', path: authority, headers, agent: false, signal });
    req.on('connect', (res, socket) => {
      if (res.statusCode === 200) return resolve(socket);
      socket.destroy();
      reject(new Error(`proxyconnect ${proxy.host}: ${res.statusCode} ${res.statusMessage ?? ''}`.trim()));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One request over the connection; the body is parsed as JSON when it is JSON. */
export async function requestJson(connection: ClusterConnection, path: string, options: RequestOptions = {}): Promise<JsonResponse> {
  const url = target(connection.server, path);
  const secure = url.protocol === 'https:';
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const maxBytes = options.maxBytes ?? 3 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new RequestTimeoutError(`request to ${url.host} timed out after ${timeoutMs} ms`)), timeoutMs);
  const tls = {
    ca: connection.caPem,
    rejectUnauthorized: !connection.insecureSkipTlsVerify,
    // Node refuses an IP address as SNI; the certificate is then checked against the host as written.
    servername: connection.tlsServerName ?? (isIP(bare(url.hostname)) ? undefined : bare(url.hostname)),
    cert: options.clientCertPem ?? connection.clientCertPem,
    key: options.clientKeyPem ?? connection.clientKeyPem,
  };
  const nodeOptions: NodeRequestOptions & Record<string, unknown> = {
    method: options.method ?? (payload ? 'POST' : 'GET'),
    headers: headersFor(connection, options, payload),
    agent: false,
    signal: deadline.signal,
    ...(secure ? tls : {}),
  };
  try {
    let req: ClientRequest;
    const proxy = connection.proxyUrl ? new URL(connection.proxyUrl) : undefined;
    if (proxy && secure) {
      const socket = await tunnel(proxy, url, deadline.signal);
      const secured = tlsConnect({ socket, host: bare(url.hostname), ...tls });
      // Node uses createConnection only without an agent; without one the socket closes after the answer.
      req = httpsRequest(url, { ...nodeOptions, agent: undefined, createConnection: () => secured });
    } else if (proxy) {
      // A plain-http server through a proxy: the absolute URL is the request target.
      const send = proxy.protocol === 'https:' ? httpsRequest : httpRequest;
      req = send({ ...nodeOptions, host: bare(proxy.hostname), port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80), path: url.href, headers: { ...(nodeOptions.headers as object), host: url.host } });
    } else {
      req = (secure ? httpsRequest : httpRequest)(url, nodeOptions);
    }
    return await new Promise<JsonResponse>((resolve, reject) => {
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= maxBytes) return void chunks.push(chunk);
          reject(new Error(`response from ${url.host} is larger than ${maxBytes} bytes`));
          req.destroy();
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
        });
        res.on('error', reject);
      });
      req.on('error', (err) => reject(deadline.signal.aborted ? deadline.signal.reason : err));
      req.end(payload);
    });
  } catch (err) {
    throw deadline.signal.aborted ? deadline.signal.reason : err;
  } finally {
    clearTimeout(timer);
  }
}

export interface ClientOptions {
  /** How the connection's credential plugin runs. */
  exec?: ExecOptions;
  tokenFileMaxAgeMs?: number;
}

/**
 * A client for one connection: its static credentials, or its credential
 * plugin's. A 401 to a request made with plugin credentials re-runs the plugin
 * once (unless another request already did) before the 401 is handed back, and
 * the next request carries the new credentials: client-go's exec round tripper.
 */
export class OrchClient {
  private readonly plugin: ExecCredentialSource | undefined;

  constructor(
    readonly connection: ClusterConnection,
    private readonly options: ClientOptions = {},
  ) {
    this.plugin = connection.exec ? execCredentialSource(connection.exec, execCluster(connection), options.exec) : undefined;
  }

  async request(path: string, options: RequestOptions = {}): Promise<JsonResponse> {
    const base = { tokenFileMaxAgeMs: this.options.tokenFileMaxAgeMs, ...options };
    // A caller's own token wins: the round tripper leaves a request that carries credentials alone.
    if (!this.plugin || options.token !== undefined) return requestJson(this.connection, path, base);
    let credential: ExecCredentialStatus;
    try {
      credential = await this.plugin.get();
    } catch (err) {
      throw new Error(`getting credentials: ${(err as Error).message}`);
    }
    const res = await requestJson(this.connection, path, { ...base, token: credential.token, clientCertPem: credential.clientCertificateData, clientKeyPem: credential.clientKeyData });
    if (res.status === 401) {
      // Upstream logs a failed refresh and keeps the credentials it had.
      await this.plugin.refreshAfterUnauthorized(credential).catch((err: Error) => process.emitWarning(`refreshing credentials: ${err.message}`, 'ExecCredentialWarning'));
    }
    return res;
  }
}
