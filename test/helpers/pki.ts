/**
 * Certificates and keys made by the tests (issue 8): CAs, intermediates and
 * client certificates, signed with the server's own DER writer.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createCertificate } from '../../src/server/x509.ts';
import { request, type RequestOptions, type Response } from './server.ts';

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
export function requestWithCert(url: string, ca: string, method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  return request(url, ca, method, path, options);
}

/** Who the server says the caller is (SelfSubjectReview). */
export async function whoami(url: string, ca: string, options: Parameters<typeof requestWithCert>[4] = {}): Promise<{ status: number; user?: any; body: any }> {
  const res = await requestWithCert(url, ca, 'POST', '/apis/authentication.orch.io/v1/selfsubjectreviews', { ...options, body: { kind: 'SelfSubjectReview' } });
  return { status: res.status, user: res.body?.status?.userInfo, body: res.body };
}
