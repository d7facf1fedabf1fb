/**
 * The chain an AuthorizationConfiguration file describes, reloaded (SPEC
 * 5.1.6, 8; upstream pkg/kubeapiserver/authorizer/reload.go): the file is
 * checked when it changes and every 60 s; new bytes that load, validate and
 * build become the chain at once (webhooks and their caches new, Node and RBAC
 * the instances made at start-up), swapped under one Authorizer so the
 * request path, impersonation and the access reviews all see it. A file that
 * cannot be read, loaded or validated, that drops a Node or RBAC authorizer
 * or adds one the server did not start with, is refused: the running chain
 * stays, the error is logged with upstream's words and counted.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { AuthorizationAttributes, Authorizer, Rules } from './authorizer.ts';
import type { AuthorizerEntry } from './authorizer-entries.ts';
import { loadAuthorizationConfig, readAuthorizationConfigFile, type AuthorizationConfigOptions } from './authorization-config.ts';
import type { ReloadMetrics } from './reload-metrics.ts';
import type { UserInfo } from '../../api/user.ts';

export interface ReloadingAuthorizerOptions {
  file: string;
  /** The bytes the chain was built from at start-up. */
  data: string;
  entries: AuthorizerEntry[];
  /** Builds a chain; throws when an entry cannot be made. */
  build: (entries: AuthorizerEntry[]) => Authorizer;
  load: Omit<AuthorizationConfigOptions, 'requireNonWebhookTypes'>;
  metrics: ReloadMetrics;
  /** upstream's reloadInterval. */
  intervalMs?: number;
  log?: { info(message: string): void; error(message: string): void };
}

/** Changes within this window are read once: an editor's write is several events. */
const SETTLE_MS = 50;

export class ReloadingAuthorizer implements Authorizer {
  private current: Authorizer;
  private lastData: string;
  private lastEntries: string;
  private readonly required: ReadonlySet<string>;
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;
  private settle?: NodeJS.Timeout;
  private readonly log: NonNullable<ReloadingAuthorizerOptions['log']>;

  constructor(private readonly options: ReloadingAuthorizerOptions) {
    this.current = options.build(options.entries);
    this.lastData = options.data;
    this.lastEntries = JSON.stringify(options.entries);
    // Node and RBAC must stay in the file as long as the server runs.
    this.required = new Set(options.entries.map((e) => e.type).filter((t) => t !== 'Webhook'));
    this.log = options.log ?? { info: (m) => console.log(m), error: (m) => console.error(m) };
  }

  authorize(attributes: AuthorizationAttributes) {
    return this.current.authorize(attributes);
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<Rules> {
    const chain = this.current;
    if (!chain.rulesFor) return { resourceRules: [], nonResourceRules: [], incomplete: true };
    return chain.rulesFor(user, namespace);
  }

  /** Watches the file's directory (a file replaced by rename keeps being seen) and polls. */
  start(): void {
    const name = basename(this.options.file);
    try {
      this.watcher = watch(dirname(this.options.file), (_event, changed) => {
        if (changed !== null && changed !== name) return;
        clearTimeout(this.settle);
        this.settle = setTimeout(() => this.checkFile(), SETTLE_MS);
        this.settle.unref();
      });
      this.watcher.on('error', (err) => this.log.error(`watching authorization config file: ${err.message}`));
      this.watcher.unref();
    } catch (err) {
      this.log.error(`watching authorization config file: ${(err as Error).message}`);
    }
    this.timer = setInterval(() => this.checkFile(), this.options.intervalMs ?? 60_000);
    this.timer.unref();
  }

  stop(): void {
    this.watcher?.close();
    clearInterval(this.timer);
    clearTimeout(this.settle);
  }

  /** upstream checkFile. */
  checkFile(): void {
    let data: string;
    try {
      data = readAuthorizationConfigFile(this.options.file);
    } catch (err) {
      return this.refuse(err);
    }
    if (data === this.lastData) return;
    this.log.info('found new authorization config data');
    this.lastData = data;
    let entries: AuthorizerEntry[];
    try {
      entries = loadAuthorizationConfig(data, { ...this.options.load, requireNonWebhookTypes: this.required });
    } catch (err) {
      return this.refuse(err);
    }
    const text = JSON.stringify(entries);
    if (text === this.lastEntries) return;
    this.log.info('found new authorization config');
    this.lastEntries = text;
    let chain: Authorizer;
    try {
      const added = entries.find((e) => e.type !== 'Webhook' && !this.required.has(e.type));
      if (added) throw new Error(`authorizer type ${added.type} is not allowed if it was not enabled at initial server startup`);
      chain = this.options.build(entries);
    } catch (err) {
      return this.refuse(err);
    }
    this.log.info('constructed new authorizer');
    this.current = chain;
    this.log.info('reloaded authz config');
    this.options.metrics.record('success');
  }

  private refuse(err: unknown): void {
    this.log.error(`reloading authorization config: ${(err as Error).message}`);
    this.options.metrics.record('failure');
  }
}
