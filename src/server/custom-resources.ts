/**
 * Serves what CustomResourceDefinitions define (SPEC 2.1, 4.1): every process
 * follows the definitions in its own watch cache and, for each Established
 * one, routes its served versions, lists them in discovery and caches their
 * objects; a definition deleted or no longer Established stops being served.
 * Replicas converge within one watch event of the definition's change. The
 * same pass publishes the served kinds' OpenAPI documents (custom-openapi.ts).
 */
import type { Decoder, KindDefinition } from '../registry/kind.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { customKinds } from '../registry/custom-resources/kind.ts';
import type { RuntimeResourceCaches } from '../storage/cacher/cacher.ts';
import type { CachedObject } from '../storage/cacher/cached-object.ts';
import { resourcePrefix } from '../storage/keys.ts';
import type { ApiServer } from './api-server.ts';
import { customOpenApiParts, type CustomOpenApiPart } from './custom-openapi.ts';
import { decodeError, WebhookClient } from '../auth/webhook-client.ts';
import type { ReviewPoster } from '../registry/custom-resources/conversion-webhook.ts';

/** Upstream's conversion webhook client: one call of at most 30 seconds, not retried. */
const CONVERSION_TIMEOUT_MS = 30_000;
const ONE_TRY = { initialMs: 0, factor: 1, jitter: 0, steps: 1 };

/**
 * The POST of a definition's conversion reviews to `spec.conversion.webhook.clientConfig`
 * (its url, trusting its caBundle). A service reference has no route here: this
 * server runs no Services, so such a call fails.
 */
export function conversionReviewPoster(crd: ApiObject): ReviewPoster {
  const config = crd.spec?.conversion?.webhook?.clientConfig ?? {};
  if (typeof config.url !== 'string') {
    return async () => {
      throw new Error(`service ${config.service?.namespace ?? ''}/${config.service?.name ?? ''} cannot be reached: this server resolves no Services`);
    };
  }
  const caPem = typeof config.caBundle === 'string' && config.caBundle.trim() !== '' ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  const client = new WebhookClient({ server: config.url, caPem }, CONVERSION_TIMEOUT_MS, ONE_TRY);
  return async (review) => {
    const res = await client.post(review);
    // client-go's decoder reads the answer's kind first: a body that is not a JSON object fails there.
    const undecodable = decodeError(res, 'v1.ConversionReview');
    if (undecodable) throw undecodable;
    return res;
  };
}

export const CRD_GROUP = 'apiextensions.orch.io';
export const CRD_PLURAL = 'customresourcedefinitions';

/** A definition's OpenAPI parts; a schema the documents cannot hold costs its documents, never its routes. */
function openApiOf(crd: ApiObject, served: KindDefinition[]): CustomOpenApiPart[] {
  try {
    return customOpenApiParts(crd, served);
  } catch (err) {
    console.error(`custom resources: no OpenAPI for ${crd.metadata?.name}:`, (err as Error).message);
    return [];
  }
}

export class CustomResourceServing {
  /** What each definition serves now: its revision when served, the `group/version/plural` keys, and their OpenAPI. */
  private readonly served = new Map<string, { revision: number; keys: string[]; openapi: CustomOpenApiPart[] }>();
  /** Reconciles run one at a time, in the order the definitions changed. */
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly onEvent = () => this.schedule();

  constructor(
    private readonly server: ApiServer,
    private readonly cacher: RuntimeResourceCaches,
    private readonly decodeObjectMeta: Decoder,
  ) {}

  private definitions() {
    return this.cacher.cache(resourcePrefix(CRD_GROUP, CRD_PLURAL));
  }

  /** Serves what the cache holds before the server starts listening, then follows changes. */
  async start(): Promise<void> {
    this.definitions().listeners.add(this.onEvent);
    this.schedule();
    await this.queue;
  }

  stop(): void {
    this.stopped = true;
    this.definitions().listeners.delete(this.onEvent);
  }

  /** Settles once every change seen so far is served. */
  settled(): Promise<void> {
    return this.queue;
  }

  private schedule(): void {
    this.queue = this.queue.then(() => this.reconcile()).catch((err) => console.error('custom resources:', err));
  }

  /** Brings the served kinds to what the definitions say now (idempotent: a burst of events costs one pass each). */
  private async reconcile(): Promise<void> {
    if (this.stopped) return;
    const current = new Map<string, CachedObject>();
    for (const cached of this.definitions().all()) current.set(cached.parsed().metadata.name, cached);
    let changed = false;
    for (const [name, served] of this.served) {
      if (current.has(name)) continue;
      for (const key of served.keys) this.withdraw(key);
      this.served.delete(name);
      changed = true;
    }
    for (const [name, cached] of current) {
      const before = this.served.get(name);
      if (before?.revision === cached.revision) continue;
      // The new routes replace the old ones before any old one goes: a status update never makes the resource 404.
      const kinds = customKinds(cached.parsed(), this.decodeObjectMeta, conversionReviewPoster);
      for (const custom of kinds) await this.cacher.addResource(resourcePrefix(custom.kind.group, custom.kind.plural));
      if (this.stopped) return;
      const served = kinds.filter((custom) => this.server.serveCustomKind(custom)).map(({ kind }) => kind);
      const keys = served.map((kind) => `${kind.group}/${kind.version}/${kind.plural}`);
      for (const key of before?.keys ?? []) if (!keys.includes(key)) this.withdraw(key);
      this.served.set(name, { revision: cached.revision, keys, openapi: openApiOf(cached.parsed(), served) });
      changed = true;
    }
    if (!changed) return;
    this.server.rebuildDiscovery();
    this.dropUnusedCaches();
    try {
      this.server.publishCustomOpenApi([...this.served.values()].flatMap((s) => s.openapi));
    } catch (err) {
      console.error('custom resources: OpenAPI documents not published:', (err as Error).message);
    }
  }

  private withdraw(key: string): void {
    const [group, version, plural] = key.split('/');
    this.server.withdrawCustomKind(group, version, plural);
  }

  /** A resource no version serves any more keeps no cache (its watchers end). */
  private dropUnusedCaches(): void {
    const used = new Set([...this.server.servedCustomKinds().values()].map((k) => resourcePrefix(k.group, k.plural)));
    for (const prefix of this.cachedCustomPrefixes) if (!used.has(prefix)) this.cacher.removeResource(prefix);
    this.cachedCustomPrefixes = used;
  }

  private cachedCustomPrefixes = new Set<string>();
}
