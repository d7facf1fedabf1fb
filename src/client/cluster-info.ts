/**
 * Discovery through cluster-info (SPEC 2.9), as kubeadm's token discovery: the
 * ConfigMap orch-public/cluster-info is read without credentials and without
 * trusting the server, then trusted only if its `jws-orchconfig-<id>` is a
 * detached HS256 JWS of its `orchconfig` keyed with the full token
 * `<id>.<secret>` (upstream keys with the secret alone; the SPEC says the full
 * token). With CA pins (kubeadm's --discovery-token-ca-cert-hash), the CA must
 * match one, and the ConfigMap is read a second time over TLS verified by that
 * CA and must carry the same orchconfig. Everything returned comes from the
 * verified document.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { requestJson } from './http-client.ts';
import { decodeOrchconfig, type Fields } from './orchconfig-document.ts';
import { connectionFromDocument, type ClusterConnection } from './orchconfig.ts';
import { jose } from '../util/lazy-packages.ts';
import { sleep } from '../util/timers.ts';

export const CLUSTER_INFO_PATH = '/api/v1/namespaces/orch-public/configmaps/cluster-info';
const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const UNTRUSTED = 'failed to verify JWS signature of received cluster info object, can\'t trust this API Server';

/** kubeadm's pubkeypin.Allow: `sha256:<64 hex digits>`, lower-cased. */
export function parseCaCertHashes(hashes: string[]): Set<string> {
  const pins = new Set<string>();
  for (const hash of hashes) {
    const parts = hash.split(':');
    if (parts.length !== 2) throw new Error('invalid discovery token CA certificate hash: invalid hash, expected "format:hex-value". Known format(s) are: sha256');
    const [format, value] = parts;
    if (format.toLowerCase() !== 'sha256') throw new Error(`invalid discovery token CA certificate hash: unknown hash format "${format}". Known format(s) are: sha256`);
    if (value.length !== 64) throw new Error(`invalid discovery token CA certificate hash: invalid hash "${hash}", expected a 32 byte SHA-256 hash, found ${Math.floor(value.length / 2)} bytes`);
    if (!/^[0-9a-fA-F]+$/.test(value)) throw new Error(`invalid discovery token CA certificate hash: invalid hash "${hash}", could not decode SHA-256 from hex`);
    pins.add(value.toLowerCase());
  }
  return pins;
}

/** kubeadm's pubkeypin.Hash: `sha256:` and the hex SHA-256 of the certificate's SubjectPublicKeyInfo. */
export function publicKeyHash(cert: X509Certificate): string {
  return `sha256:${createHash('sha256').update(cert.publicKey.export({ type: 'spki', format: 'der' })).digest('hex')}`;
}

/** Verifies the detached JWS of `content` for the token; header alg must be HS256, its kid (if any) the token id. */
async function verifySignature(detached: string, content: string, token: string, tokenId: string): Promise<void> {
  const parts = detached.split('.');
  if (parts.length !== 3 || parts[1] !== '') throw new Error(`${UNTRUSTED}: the signature is not a detached JWS`);
  let header;
  try {
    header = jose().decodeProtectedHeader(`${parts[0]}..${parts[2]}`);
  } catch {
    throw new Error(`${UNTRUSTED}: the signature's header does not decode`);
  }
  if (header.alg !== 'HS256') throw new Error(`${UNTRUSTED}: the JWS algorithm is ${JSON.stringify(header.alg)}, not HS256`);
  if (header.kid !== undefined && header.kid !== tokenId) throw new Error(`${UNTRUSTED}: the JWS key id is ${JSON.stringify(header.kid)}, not ${JSON.stringify(tokenId)}`);
  try {
    await jose().compactVerify(`${parts[0]}.${Buffer.from(content).toString('base64url')}.${parts[2]}`, new TextEncoder().encode(token), { algorithms: ['HS256'] });
  } catch {
    throw new Error(UNTRUSTED);
  }
}

/** kubeadm's GetClusterFromKubeConfig: the unnamed cluster, else the current context's. */
function clusterOf(orchconfig: string): ClusterConnection {
  let connection: ClusterConnection;
  try {
    const doc = decodeOrchconfig(orchconfig);
    const unnamed = doc.clusters.get('');
    const context = doc.contexts.get(doc.currentContext);
    const cluster: Fields | undefined = unnamed ?? (context ? doc.clusters.get(String(context.cluster ?? '')) : undefined);
    if (!cluster) throw new Error('the orchconfig names no cluster');
    // A published document cannot point at files on the reader's machine.
    if (cluster['certificate-authority']) throw new Error('the cluster names a certificate-authority file; only certificate-authority-data can be published');
    // Only the cluster counts: a user in a signed public document would be nobody's credentials.
    const only = { clusters: new Map([['c', cluster]]), users: new Map(), contexts: new Map([['c', { cluster: 'c' }]]), currentContext: 'c' };
    connection = connectionFromDocument(only);
  } catch (err) {
    throw new Error(`malformed orchconfig in the cluster-info ConfigMap: ${(err as Error).message}`);
  }
  return connection;
}

/**
 * Verifies a cluster-info ConfigMap's data for a bootstrap token and returns the
 * cluster it names; with pins, its CA must match one of them.
 */
export async function verifyClusterInfo(data: Record<string, unknown>, token: string, caCertHashes: string[] = []): Promise<ClusterConnection> {
  const pins = parseCaCertHashes(caCertHashes);
  const match = TOKEN.exec(token);
  if (!match) throw new Error('the bootstrap token was not of the form "[a-z0-9]{6}.[a-z0-9]{16}"');
  const tokenId = match[1];
  const content = data?.orchconfig;
  if (typeof content !== 'string' || content === '') throw new Error('there is no orchconfig key in the cluster-info ConfigMap. This API Server isn\'t set up for token bootstrapping, can\'t connect');
  const detached = data[`jws-orchconfig-${tokenId}`];
  if (typeof detached !== 'string' || detached === '') throw new Error(`token id "${tokenId}" is invalid for this cluster or it has expired`);
  await verifySignature(detached, content, token, tokenId);
  const cluster = clusterOf(content);
  if (pins.size) checkPins(cluster, pins);
  return cluster;
}

function checkPins(cluster: ClusterConnection, pins: Set<string>): void {
  const blocks = cluster.caPem?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('failed to parse cluster CA from the cluster-info ConfigMap: data does not contain any valid RSA or ECDSA certificates');
  const hashes = blocks.map((pem) => publicKeyHash(new X509Certificate(pem)));
  if (!hashes.some((hash) => pins.has(hash.slice('sha256:'.length)))) {
    throw new Error(`cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${hashes.join(':')}" are pinned`);
  }
}

export interface DiscoveryOptions {
  /** kubeadm's --discovery-token-ca-cert-hash values. */
  caCertHashes?: string[];
  /** How long to wait for the token's signature to appear (kubeadm: 5 minutes), and how often to look. */
  timeoutMs?: number;
  intervalMs?: number;
}

/** Reads cluster-info until it carries the token's signature; kubeadm's getClusterInfo. */
async function readClusterInfo(connection: ClusterConnection, tokenId: string, options: DiscoveryOptions): Promise<Record<string, unknown>> {
  const until = Date.now() + (options.timeoutMs ?? 300_000);
  for (;;) {
    let failure: string;
    try {
      // Each read gets at least a second, so the last one can still report what the server said.
      const res = await requestJson(connection, CLUSTER_INFO_PATH, { timeoutMs: Math.min(10_000, Math.max(1_000, until - Date.now())) });
      const data = (res.body as { data?: Record<string, unknown> } | undefined)?.data;
      if (res.status === 200 && data && typeof data === 'object') {
        if (data[`jws-orchconfig-${tokenId}`] !== undefined) return data;
        failure = `could not find a JWS signature in the cluster-info ConfigMap for token ID "${tokenId}"`;
      } else failure = `failed to request the cluster-info ConfigMap: HTTP ${res.status}${(res.body as { message?: string })?.message ? `: ${(res.body as { message: string }).message}` : ''}`;
    } catch (err) {
      failure = `failed to request the cluster-info ConfigMap: ${(err as Error).message}`;
    }
    if (Date.now() + (options.intervalMs ?? 5_000) > until) throw new Error(failure);
    await sleep(options.intervalMs ?? 5_000);
  }
}

/**
 * Token discovery: `endpoint` (`host:port` or an https URL) is asked for
 * cluster-info with no credentials and no CA; the answer is verified; with pins,
 * read again over TLS verified by the pinned CA and compared.
 */
export async function discoverCluster(endpoint: string, token: string, options: DiscoveryOptions = {}): Promise<ClusterConnection> {
  const pins = parseCaCertHashes(options.caCertHashes ?? []);
  const match = TOKEN.exec(token);
  if (!match) throw new Error('the bootstrap token was not of the form "[a-z0-9]{6}.[a-z0-9]{16}"');
  const server = endpoint.includes('://') ? endpoint : `https://${endpoint}`;
  const insecure = await readClusterInfo({ server, insecureSkipTlsVerify: true }, match[1], options);
  const cluster = await verifyClusterInfo(insecure, token, options.caCertHashes);
  if (!pins.size) return cluster;
  const secure = await readClusterInfo({ server, caPem: cluster.caPem }, match[1], options);
  if (secure.orchconfig !== insecure.orchconfig) throw new Error('the second orchconfig from the cluster-info ConfigMap (using validated TLS) was different from the first');
  return cluster;
}
