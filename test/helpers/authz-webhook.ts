/**
 * A real loopback HTTPS authorization webhook for the tests (issue 9; SPEC
 * 5.1.6): it requires a client certificate from its CA, records every
 * SubjectAccessReview it receives (URL, body as sent), and answers as the
 * test's function says: a status, a raw body, an HTTP error, or after a delay.
 */
import { createServer, type Server } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { issue, makeCa, type Issued } from './pki.ts';

export interface ReceivedReview {
  url: string;
  /** The body as sent. */
  raw: string;
  body: any;
}

export type WebhookAnswer =
  | { status: Record<string, unknown> }
  | { raw: string; code?: number; contentType?: string }
  | { delayMs: number; then: WebhookAnswer };

export interface SarWebhook {
  port: number;
  received: ReceivedReview[];
  /** Reviews received for a user (the spec's `user`). */
  callsFor(user: string): ReceivedReview[];
  /** Writes an orchconfig naming this webhook at `/authorize/<name>` (CA, client certificate) and returns its path. */
  orchconfig(dir: string, name?: string): string;
  close(): Promise<void>;
}

export async function startSarWebhook(answer: (review: any) => WebhookAnswer): Promise<SarWebhook> {
  const ca = makeCa('authz-webhook-ca');
  const serving = issue(ca, { commonName: 'authz-webhook' }, { usages: ['serverAuth'], hosts: ['127.0.0.1'] });
  const client = issue(ca, { commonName: 'orch-apiserver' });
  const received: ReceivedReview[] = [];
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      const body = JSON.parse(raw);
      received.push({ url: req.url ?? '', raw, body });
      const reply = (a: WebhookAnswer): void => {
        if ('delayMs' in a) return void setTimeout(() => !res.destroyed && reply(a.then), a.delayMs);
        if ('raw' in a) {
          res.writeHead(a.code ?? 200, { 'content-type': a.contentType ?? 'application/json' });
          return void res.end(a.raw);
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: body.apiVersion, kind: 'SubjectAccessReview', status: a.status }));
      };
      reply(answer(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    received,
    callsFor: (user) => received.filter((r) => r.body.spec?.user === user),
    orchconfig: (dir, name = 'authz') => writeOrchconfig(dir, name, `https://127.0.0.1:${port}/authorize/${name}`, ca, client),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** An orchconfig for `server` with `ca` and a client certificate (files beside it). */
export function writeOrchconfig(dir: string, name: string, server: string, ca: Issued, client: Issued): string {
  writeFileSync(join(dir, `${name}-client.crt`), client.certPem);
  writeFileSync(join(dir, `${name}-client.key`), client.keyPem);
  const path = join(dir, `${name}.orchconfig`);
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'hook', cluster: { server, 'certificate-authority-data': Buffer.from(ca.certPem).toString('base64') } }],
      users: [{ name: 'apiserver', user: { 'client-certificate': `${name}-client.crt`, 'client-key': `${name}-client.key` } }],
      contexts: [{ name: 'hook', context: { cluster: 'hook', user: 'apiserver' } }],
      'current-context': 'hook',
    }),
  );
  return path;
}

/** An orchconfig naming a loopback port nothing listens on (the port was bound, then released). */
export async function deadWebhookOrchconfig(dir: string, name: string): Promise<string> {
  const probe = createNetServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const ca = makeCa('dead-ca');
  return writeOrchconfig(dir, name, `https://127.0.0.1:${port}/authorize`, ca, issue(ca, { commonName: 'orch-apiserver' }));
}
