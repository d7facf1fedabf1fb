/**
 * Certificates and keys made by the tests (issue 8): CAs, intermediates and
 * client certificates, signed with the server's own DER writer.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { createCertificate } from '../../src/server/x509.ts';
import type { Response } from './server.ts';

export interface Issued {
  certPem: string;
  keyPem: string;
  key: KeyObject;
  publicKey: KeyObject;
  name: string;
}

const DAY = 86_400_000;

function keyPair() {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

/** A self-signed CA. */
export function makeCa(name: string): Issued {
  const { publicKey, privateKey } = keyPair();
  const certPem = createCertificate({
    subject: name, issuer: name, publicKey, signingKey: privateKey, issuerPublicKey: publicKey,
    notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + DAY), isCa: true,
  });
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, key: privateKey, publicKey, name };
}

/** A certificate signed by `issuer`: a client leaf by default, or an intermediate CA. */
export function issue(
  issuer: Issued,
  subject: { commonName: string; organizations?: string[] },
  options: { isCa?: boolean; usages?: Array<'serverAuth' | 'clientAuth'>; notBefore?: Date; notAfter?: Date; hosts?: string[] } = {},
): Issued {
  const { publicKey, privateKey } = keyPair();
  const certPem = createCertificate({
    subject, issuer: issuer.name, publicKey, signingKey: issuer.key, issuerPublicKey: issuer.publicKey,
    notBefore: options.notBefore ?? new Date(Date.now() - DAY), notAfter: options.notAfter ?? new Date(Date.now() + DAY),
    isCa: options.isCa ?? false, usages: options.usages ?? ['clientAuth'], hosts: options.hosts,
  });
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, key: privateKey, publicKey, name: subject.commonName };
}

/** An HTTPS request that presents a client certificate (and its chain) and perhaps a bearer token. */
export function requestWithCert(
  url: string, ca: string, method: string, path: string,
  options: { cert?: string; key?: string; token?: string; headers?: Record<string, string | string[]>; body?: unknown } = {},
): Promise<Response> {
  const headers: Record<string, string | string[]> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, url), { method, headers, ca, cert: options.cert, key: options.key, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: any;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Who the server says the caller is (SelfSubjectReview). */
export async function whoami(url: string, ca: string, options: Parameters<typeof requestWithCert>[4] = {}): Promise<{ status: number; user?: any; body: any }> {
  const res = await requestWithCert(url, ca, 'POST', '/apis/authentication.orch.io/v1/selfsubjectreviews', { ...options, body: { kind: 'SelfSubjectReview' } });
  return { status: res.status, user: res.body?.status?.userInfo, body: res.body };
}
