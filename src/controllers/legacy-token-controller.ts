/**
 * Legacy service-account token Secrets (SPEC 5.2; kube-controller-manager's
 * serviceaccount-token controller): a Secret of type
 * `orch.io/service-account-token` annotated `orch.io/service-account.name`
 * gets the account's uid annotation and `token`, `ca.crt` and `namespace`; one
 * naming a missing account (or another uid) is deleted. SPEC 5.2 also asks
 * that deleting such a Secret makes a replacement, which upstream stopped
 * doing in 1.24: a filled Secret is listed in its account's `secrets`, and
 * when a listed one is deleted a new `<account>-token-<random>` takes its
 * place there, as upstream's token controller did before 1.24.
 */
import { randomBytes } from 'node:crypto';
import type { SigningKey } from '../auth/serviceaccount/keys.ts';
import { issueLegacyToken } from '../auth/serviceaccount/tokens.ts';
import type { GenericStore } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import type { ResourceCaches } from '../storage/cacher/cacher.ts';
import { resourcePrefix } from '../storage/keys.ts';
import type { Controller } from './controller-manager.ts';
import { WorkQueue } from './work-queue.ts';

export const TOKEN_SECRET_TYPE = 'orch.io/service-account-token';
const NAME_ANNOTATION = 'orch.io/service-account.name';
const UID_ANNOTATION = 'orch.io/service-account.uid';
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A secret to fill, or an account whose listed token Secret `replace` was deleted. */
type Item = { kind: 'secret' | 'account'; namespace: string; name: string; replace?: string };

export class LegacyTokenController implements Controller {
  readonly name = 'serviceaccount-token-controller';
  private readonly queue = new WorkQueue<Item>((item) => (item.kind === 'secret' ? this.syncSecret(item) : this.syncAccount(item)));

  constructor(
    private readonly secrets: GenericStore,
    private readonly accounts: GenericStore,
    private readonly cacher: ResourceCaches,
    private readonly signing: SigningKey,
    private readonly caPem: string,
  ) {}

  private cacheOf(store: GenericStore) {
    return this.cacher.cache(resourcePrefix(store.kind.group, store.kind.plural));
  }

  start(): void {
    for (const cached of this.cacheOf(this.secrets).all()) this.onSecret({ type: 'ADDED', object: cached });
    for (const cached of this.cacheOf(this.accounts).all()) this.onAccount({ type: 'ADDED', object: cached });
    this.cacheOf(this.secrets).listeners.add(this.onSecret);
    this.cacheOf(this.accounts).listeners.add(this.onAccount);
  }

  stop(): void {
    this.cacheOf(this.secrets).listeners.delete(this.onSecret);
    this.cacheOf(this.accounts).listeners.delete(this.onAccount);
    this.queue.stop();
  }

  private split(store: GenericStore, key: string): { namespace: string; name: string } {
    const [namespace, name] = key.slice(store.prefix(undefined).length).split('/');
    return { namespace, name };
  }

  private readonly onSecret = (event: { type: string; object: { key: string; value: string } }) => {
    const { namespace, name } = this.split(this.secrets, event.object.key);
    const secret = JSON.parse(event.object.value);
    if (secret.type !== TOKEN_SECRET_TYPE) return;
    if (event.type === 'DELETED') {
      // A token went: if its account lists it, the account needs a replacement.
      const accountName = secret.metadata.annotations?.[NAME_ANNOTATION];
      if (accountName) this.queue.add(`a/${namespace}/${accountName}/${name}`, { kind: 'account', namespace, name: accountName, replace: name });
      return;
    }
    this.queue.add(`s/${namespace}/${name}`, { kind: 'secret', namespace, name });
  };

  private readonly onAccount = (event: { type: string; object: { key: string } }) => {
    const { namespace, name } = this.split(this.accounts, event.object.key);
    // Secrets naming the account follow it: filled when it appears, deleted when it goes.
    for (const cached of this.cacheOf(this.secrets).list(this.secrets.prefix(namespace))) {
      const secret = JSON.parse(cached.value);
      if (secret.type === TOKEN_SECRET_TYPE && secret.metadata.annotations?.[NAME_ANNOTATION] === name) {
        this.queue.add(`s/${namespace}/${secret.metadata.name}`, { kind: 'secret', namespace, name: secret.metadata.name });
      }
    }
  };

  private get(store: GenericStore, namespace: string, name: string): ApiObject | null {
    const cached = this.cacheOf(store).get(store.key(namespace, name));
    return cached ? JSON.parse(cached.value) : null;
  }

  private async syncSecret({ namespace, name }: Item): Promise<void> {
    const secret = this.get(this.secrets, namespace, name);
    if (!secret || secret.type !== TOKEN_SECRET_TYPE || secret.metadata.deletionTimestamp) return;
    const accountName = secret.metadata.annotations?.[NAME_ANNOTATION];
    const account = accountName ? this.get(this.accounts, namespace, accountName) : null;
    const wantedUid = secret.metadata.annotations?.[UID_ANNOTATION];
    if (!account || (wantedUid && wantedUid !== account.metadata.uid)) {
      await this.secrets.delete(namespace, name, { dryRun: false, preconditions: { uid: secret.metadata.uid } });
      return;
    }
    const decode = (key: string) => (secret.data?.[key] ? Buffer.from(secret.data[key], 'base64').toString('utf8') : undefined);
    if (wantedUid && decode('token') && decode('ca.crt') === this.caPem && decode('namespace') === namespace) return;
    const token = decode('token') ?? (await issueLegacyToken(this.signing, account, name));
    await this.secrets.update(
      namespace,
      name,
      (current) => {
        if (!current || current.metadata.uid !== secret.metadata.uid) throw Object.assign(new Error('secret changed'), { code: 409 });
        return {
          ...current,
          metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [UID_ANNOTATION]: account.metadata.uid } },
          data: {
            ...(current.data ?? {}),
            token: Buffer.from(token).toString('base64'),
            'ca.crt': Buffer.from(this.caPem).toString('base64'),
            namespace: Buffer.from(namespace).toString('base64'),
          },
        };
      },
      { dryRun: false },
    );
    await this.reference(namespace, account.metadata.name, undefined, name);
  }

  /** Replaces a listed token Secret that was deleted with a new one. */
  private async syncAccount({ namespace, name, replace }: Item): Promise<void> {
    const account = this.get(this.accounts, namespace, name);
    if (!account || account.metadata.deletionTimestamp || !replace) return;
    if (this.get(this.secrets, namespace, replace)) return;
    for (const ref of account.secrets ?? []) {
      if (ref?.name !== replace) continue;
      const replacement = `${name}-token-${[...randomBytes(5)].map((b) => ALPHABET[b % ALPHABET.length]).join('')}`;
      await this.secrets.create(
        namespace,
        { apiVersion: 'v1', kind: 'Secret', type: TOKEN_SECRET_TYPE, metadata: { name: replacement, annotations: { [NAME_ANNOTATION]: name, [UID_ANNOTATION]: account.metadata.uid } } },
        { dryRun: false },
      );
      await this.reference(namespace, name, ref.name, replacement);
    }
  }

  /** Lists `added` in the account's secrets (in place of `removed`), once. */
  private async reference(namespace: string, accountName: string, removed: string | undefined, added: string): Promise<void> {
    await this.accounts.update(
      namespace,
      accountName,
      (current) => {
        if (!current) throw Object.assign(new Error('account gone'), { code: 404 });
        const refs: Array<{ name?: string }> = (current.secrets ?? []).filter((s: { name?: string }) => s.name !== removed);
        if (refs.some((s) => s.name === added)) return current;
        return { ...current, secrets: [...refs, { name: added }] };
      },
      { dryRun: false },
    );
  }
}
