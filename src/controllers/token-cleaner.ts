/**
 * The token cleaner (SPEC 3, 2.9; kube-controller-manager's tokencleaner):
 * deletes bootstrap-token Secrets in orch-system when their expiration passes,
 * on start and at the moment each expires.
 */
import { BOOTSTRAP_NAMESPACE, BOOTSTRAP_TOKEN_TYPE, SECRET_PREFIX } from '../registry/bootstrap-token.ts';
import type { GenericStore } from '../registry/store.ts';
import type { ResourceCaches } from '../storage/cacher/cacher.ts';
import { resourcePrefix } from '../storage/keys.ts';
import { setLongTimeout, type LongTimer } from '../util/timers.ts';
import type { Controller } from './controller-manager.ts';
import { WorkQueue } from './work-queue.ts';

export class TokenCleaner implements Controller {
  readonly name = 'token-cleaner-controller';
  private readonly timers = new Map<string, LongTimer>();
  private readonly queue = new WorkQueue<string>((name) => this.sync(name));
  private stopped = false;

  constructor(
    private readonly secrets: GenericStore,
    private readonly cacher: ResourceCaches,
  ) {}

  private get cache() {
    return this.cacher.cache(resourcePrefix('', 'secrets'));
  }

  start(): void {
    const prefix = this.secrets.prefix(BOOTSTRAP_NAMESPACE);
    for (const cached of this.cache.list(prefix)) this.consider(JSON.parse(cached.value));
    this.cache.listeners.add(this.listener);
  }

  stop(): void {
    this.stopped = true;
    this.cache.listeners.delete(this.listener);
    this.queue.stop();
    for (const timer of this.timers.values()) timer.clear();
    this.timers.clear();
  }

  private readonly listener = (event: { type: string; object: { key: string; parsed(): any } }) => {
    if (!event.object.key.startsWith(this.secrets.prefix(BOOTSTRAP_NAMESPACE))) return;
    if (event.type === 'DELETED') {
      const name = event.object.key.slice(this.secrets.prefix(BOOTSTRAP_NAMESPACE).length);
      this.timers.get(name)?.clear();
      this.timers.delete(name);
      return;
    }
    this.consider(event.object.parsed());
  };

  private consider(secret: any): void {
    const name = secret?.metadata?.name;
    if (this.stopped || secret?.type !== BOOTSTRAP_TOKEN_TYPE || typeof name !== 'string' || !name.startsWith(SECRET_PREFIX)) return;
    this.timers.get(name)?.clear();
    this.timers.delete(name);
    const encoded = secret.data?.expiration;
    if (typeof encoded !== 'string') return;
    const at = Date.parse(Buffer.from(encoded, 'base64').toString('utf8'));
    if (Number.isNaN(at)) return;
    const delay = at - Date.now();
    if (delay <= 0) this.queue.add(name, name);
    else this.timers.set(name, setLongTimeout(() => this.queue.add(name, name), delay + 1));
  }

  private async sync(name: string): Promise<void> {
    const cached = this.cache.get(this.secrets.key(BOOTSTRAP_NAMESPACE, name));
    if (!cached) return;
    const secret = JSON.parse(cached.value);
    const encoded = secret.data?.expiration;
    const at = typeof encoded === 'string' ? Date.parse(Buffer.from(encoded, 'base64').toString('utf8')) : NaN;
    if (secret.type !== BOOTSTRAP_TOKEN_TYPE || Number.isNaN(at) || at > Date.now()) return;
    try {
      await this.secrets.delete(BOOTSTRAP_NAMESPACE, name, { dryRun: false, preconditions: { uid: secret.metadata.uid } });
    } catch (err) {
      if ((err as { code?: number }).code !== 404 && (err as { code?: number }).code !== 409) throw err;
    }
  }
}
