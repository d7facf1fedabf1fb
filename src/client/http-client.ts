/**
 * A small JSON-over-HTTPS client for a ClusterConnection: the cluster's CA (or
 * none when insecure), its TLS server name, a client certificate, a bearer
 * token; bounded in time and in the size of the answer.
 */
import { request as httpsRequest } from 'node:https';
import type { ClusterConnection } from './orchconfig.ts';
import { ExecCredentialSource, type ExecOptions } from './exec-credential.ts';

export interface JsonResponse {
  status: number;
  body: unknown;
  text: string;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Overrides the connection's token (credential plugins supply one). */
  token?: string;
  /** Overrides the connection's client certificate. */
  clientCertPem?: string;
  clientKeyPem?: string;
  timeoutMs?: number;
  maxBytes?: number;
}

export function requestJson(connection: ClusterConnection, path: string, options: RequestOptions = {}): Promise<JsonResponse> {
  const url = new URL(path, connection.server.endsWith('/') ? connection.server : `${connection.server}/`);
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = options.token ?? connection.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  const maxBytes = options.maxBytes ?? 3 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: options.method ?? (payload ? 'POST' : 'GET'),
        headers,
        ca: connection.caPem,
        rejectUnauthorized: !connection.insecureSkipTlsVerify,
        servername: connection.tlsServerName,
        cert: options.clientCertPem ?? connection.clientCertPem,
        key: options.clientKeyPem ?? connection.clientKeyPem,
        agent: false,
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            req.destroy(new Error(`response from ${url.host} is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body, text });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${url.host} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * A client for one connection: its static credentials, or its credential
 * plugin's, refreshed once after a 401 as client-go's exec round tripper does.
 */
export class OrchClient {
  private readonly plugin: ExecCredentialSource | undefined;

  constructor(
    readonly connection: ClusterConnection,
    execOptions: ExecOptions = {},
  ) {
    this.plugin = connection.exec ? new ExecCredentialSource(connection.exec, connection, execOptions) : undefined;
  }

  async request(path: string, options: RequestOptions = {}): Promise<JsonResponse> {
    if (!this.plugin) return requestJson(this.connection, path, options);
    for (let attempt = 1; ; attempt++) {
      const credential = await this.plugin.get();
      const res = await requestJson(this.connection, path, {
        ...options,
        token: credential.token,
        clientCertPem: credential.clientCertificateData,
        clientKeyPem: credential.clientKeyData,
      });
      if (res.status !== 401 || attempt > 1) return res;
      this.plugin.invalidate(credential);
    }
  }
}
