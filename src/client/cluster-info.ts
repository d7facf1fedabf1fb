/**
 * Discovery through cluster-info (SPEC 2.9), as kubeadm's token discovery: the
 * ConfigMap orch-public/cluster-info is read without credentials and without
 * trusting the server, then trusted only if its `jws-orchconfig-<id>` is a
 * detached HS256 JWS of its `orchconfig` keyed with the full token
 * `<id>.<secret>`; optionally the CA must also match a pinned public-key hash.
 */
import { createHash, timingSafeEqual, X509Certificate } from 'node:crypto';
import { compactVerify, decodeProtectedHeader } from 'jose';
import { parse as parseYaml } from 'yaml';
import { requestJson } from './http-client.ts';
import type { ClusterConnection } from './orchconfig.ts';

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;

/** Verifies a cluster-info ConfigMap's data for a token; returns the cluster it names. */
export async function verifyClusterInfo(data: Record<string, string>, token: string, caCertHashes: string[] = []): Promise<ClusterConnection> {
  const match = TOKEN.exec(token);
  if (!match) throw new Error('the bootstrap token does not have the form <id>.<secret> ([a-z0-9]{6}.[a-z0-9]{16})');
  const [, id] = match;
  const content = data?.orchconfig;
  if (typeof content !== 'string') throw new Error('cluster-info has no orchconfig');
  const detached = data[`jws-orchconfig-${id}`];
  if (typeof detached !== 'string') throw new Error(`there is no JWS signed token in the cluster-info ConfigMap for token ID "${id}"`);
  const [header, payload, signature] = detached.split('.');
  if (header === undefined || payload !== '' || signature === undefined) throw new Error('the cluster-info signature is not a detached JWS');
  if (decodeProtectedHeader(`${header}..${signature}`).alg !== 'HS256') throw new Error('the cluster-info signature is not HS256');
  const compact = `${header}.${Buffer.from(content).toString('base64url')}.${signature}`;
  try {
    await compactVerify(compact, new TextEncoder().encode(token), { algorithms: ['HS256'] });
  } catch {
    throw new Error(`failed to verify JWS signature of received cluster info object, can't trust this API Server`);
  }
  const config = parseYaml(content);
  const cluster = Array.isArray(config?.clusters) && config.clusters.length > 0 ? config.clusters[0].cluster : undefined;
  if (!cluster?.server) throw new Error('the verified cluster-info names no cluster');
  const caPem = cluster['certificate-authority-data'] ? Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8') : undefined;
  if (caCertHashes.length) {
    if (!caPem) throw new Error('cluster-info carries no CA to match the pinned hashes');
    const hashes = caPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!.map((pem) => publicKeyHash(new X509Certificate(pem)));
    const pinned = caCertHashes.map((h) => h.replace(/^sha256:/, '').toLowerCase());
    const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
    if (!hashes.some((h) => pinned.some((p) => same(h, p)))) throw new Error('cluster CA found in cluster-info ConfigMap is not in the pinned hashes');
  }
  return { server: String(cluster.server), caPem };
}

/** kubeadm's --discovery-token-ca-cert-hash: SHA-256 of the CA's SubjectPublicKeyInfo, hex. */
export function publicKeyHash(cert: X509Certificate): string {
  return createHash('sha256').update(cert.publicKey.export({ type: 'spki', format: 'der' })).digest('hex');
}

/** Reads cluster-info from `server` trusting nothing yet, then verifies it. */
export async function discoverCluster(server: string, token: string, caCertHashes: string[] = []): Promise<ClusterConnection> {
  const res = await requestJson({ server, insecureSkipTlsVerify: true }, '/api/v1/namespaces/orch-public/configmaps/cluster-info');
  if (res.status !== 200) throw new Error(`could not read cluster-info: HTTP ${res.status}`);
  return verifyClusterInfo((res.body as any)?.data ?? {}, token, caCertHashes);
}
