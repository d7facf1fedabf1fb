/**
 * The bootstrap signer (SPEC 2.9; kube-controller-manager's bootstrapsigner):
 * keeps the ConfigMap `cluster-info` in orch-public. Its `orchconfig` key holds
 * the cluster's server and certificate authority (made when missing; an
 * operator's edit is kept and signed, as upstream signs what kubeadm wrote),
 * and one `jws-orchconfig-<id>` per unexpired token allowed to sign: a detached
 * HS256 JWS of that value keyed with the full token `<id>.<secret>`, as the
 * SPEC says (upstream keys with the secret alone).
 */
import { jose } from '../util/lazy-packages.ts';
import { BOOTSTRAP_NAMESPACE, bootstrapTokenOf, expired } from '../registry/bootstrap-token.ts';
import type { GenericStore } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import type { ResourceCaches } from '../storage/cacher/cacher.ts';
import { resourcePrefix } from '../storage/keys.ts';
import { setLongTimeout, type LongTimer } from '../util/timers.ts';
import type { Controller } from './controller-manager.ts';
import { WorkQueue } from './work-queue.ts';

export const CLUSTER_INFO_NAMESPACE = 'orch-public';
export const CLUSTER_INFO = 'cluster-info';
export const ORCHCONFIG_KEY = 'orchconfig';
export const SIGNATURE_PREFIX = 'jws-orchconfig-';

/** The detached JWS (`header..signature`) of `content` for one token. */
export async function detachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  const key = new TextEncoder().encode(`${tokenId}.${tokenSecret}`);
  const jws = await new (jose().CompactSign)(new TextEncoder().encode(content)).setProtectedHeader({ alg: 'HS256', kid: tokenId }).sign(key);
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

/**
 * The orchconfig of cluster-info: the cluster only, laid out as kubeadm writes
 * it. A template whose values are JSON strings, which YAML reads as
 * double-quoted scalars: the yaml package would cost a start 40 ms to load.
 */
export function clusterInfoOrchconfig(server: string, caPem: string): string {
  const q = JSON.stringify;
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${q(Buffer.from(caPem).toString('base64'))}`,
    `    server: ${q(server)}`,
    '  name: ""',
    'contexts: null',
    'current-context: ""',
    'kind: Config',
    'preferences: {}',
    'users: null',
    '',
  ].join('\n');
}

export class BootstrapSigner implements Controller {
  readonly name = 'bootstrap-signer-controller';
  private readonly queue = new WorkQueue<string>(() => this.sync());
  private expiry: LongTimer | undefined;
  private stopped = false;

  constructor(
    private readonly configMaps: GenericStore,
    private readonly secrets: GenericStore,
    private readonly cacher: ResourceCaches,
    private readonly defaultOrchconfig: () => string,
  ) {}

  private cacheOf(store: GenericStore) {
    return this.cacher.cache(resourcePrefix(store.kind.group, store.kind.plural));
  }

  start(): void {
    this.cacheOf(this.secrets).listeners.add(this.onSecret);
    this.cacheOf(this.configMaps).listeners.add(this.onConfigMap);
    this.queue.add('sync', 'sync');
  }

  stop(): void {
    this.stopped = true;
    this.cacheOf(this.secrets).listeners.delete(this.onSecret);
    this.cacheOf(this.configMaps).listeners.delete(this.onConfigMap);
    this.queue.stop();
    this.expiry?.clear();
  }

  private readonly onSecret = (event: { object: { key: string } }) => {
    if (event.object.key.startsWith(this.secrets.prefix(BOOTSTRAP_NAMESPACE))) this.queue.add('sync', 'sync');
  };

  private readonly onConfigMap = (event: { object: { key: string } }) => {
    if (event.object.key === this.configMaps.key(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO)) this.queue.add('sync', 'sync');
  };

  private async sync(): Promise<void> {
    if (this.stopped) return;
    const now = Date.now();
    const tokens = this.cacheOf(this.secrets)
      .list(this.secrets.prefix(BOOTSTRAP_NAMESPACE))
      .map((cached) => bootstrapTokenOf(JSON.parse(cached.value) as ApiObject))
      .filter((t) => t !== undefined && t.usages.has('signing'));
    // Look again when the next signing token expires, to drop its signature.
    this.expiry?.clear();
    const next = Math.min(...tokens.map((t) => t!.expiresAt ?? Infinity).filter((at) => at > now));
    if (Number.isFinite(next)) this.expiry = setLongTimeout(() => this.queue.add('sync', 'sync'), next - now + 1);
    const live = tokens.filter((t) => !expired(t!, now));
    const cached = this.cacheOf(this.configMaps).get(this.configMaps.key(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO));
    const current = cached ? (JSON.parse(cached.value) as ApiObject) : null;
    const content: string = typeof current?.data?.[ORCHCONFIG_KEY] === 'string' ? current.data[ORCHCONFIG_KEY] : this.defaultOrchconfig();
    const data: Record<string, string> = {};
    for (const [key, value] of Object.entries<string>(current?.data ?? {})) if (!key.startsWith(SIGNATURE_PREFIX)) data[key] = value;
    data[ORCHCONFIG_KEY] = content;
    for (const token of live) data[`${SIGNATURE_PREFIX}${token!.id}`] = await detachedSignature(content, token!.id, token!.secret);
    if (current && sameData(current.data ?? {}, data)) return;
    const options = { dryRun: false };
    if (!current) {
      try {
        await this.configMaps.create(CLUSTER_INFO_NAMESPACE, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO, namespace: CLUSTER_INFO_NAMESPACE }, data }, options);
      } catch (err) {
        if ((err as { code?: number }).code !== 409) throw err;
        this.queue.later('sync', 'sync');
      }
      return;
    }
    await this.configMaps.update(
      CLUSTER_INFO_NAMESPACE,
      CLUSTER_INFO,
      (stored) => {
        if (!stored || stored.metadata.uid !== current.metadata.uid) throw Object.assign(new Error('cluster-info changed'), { code: 409 });
        return { ...stored, data, metadata: { ...stored.metadata, resourceVersion: current.metadata.resourceVersion } };
      },
      options,
    );
  }
}

function sameData(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
