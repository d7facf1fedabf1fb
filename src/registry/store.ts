/**
 * The generic store: one per resource (and per subresource), owning every verb
 * on top of the Storage interface. Kinds differ only by their strategy. Every
 * write is one compare-and-swap loop; update and (later) patch and apply differ
 * only in the function that computes the new object (SPEC 2.2, 3, 4.2, 4.5).
 */
import * as errors from '../api/status-error.ts';
import { CasFailedError, KeyExistsError, type KeyValue, type Storage } from '../storage/interface.ts';
import { collectionPrefix, objectKey } from '../storage/keys.ts';
import { apiVersionOf, storageGroupOf, type DecodeContext, type KindDefinition } from './kind.ts';
import {
  carrySystemFieldsForUpdate,
  fillSystemFieldsForCreate,
  generateName,
  nowTimestamp,
  parseStored,
  serializeForStorage,
} from './object-meta.ts';
import { withResourceVersion } from '../storage/stored-json.ts';
import { objectReader, type ObjectReader } from './object-reader.ts';
import type { ApiObject, Strategy } from './strategy.ts';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from './validation/object-meta.ts';
import type { FieldError } from './validation/field-errors.ts';
import type { NameValidation } from '../api/names.ts';
import type { ObjectFilter } from './list-filter.ts';
import type { UserInfo } from '../api/user.ts';
import type { DeadlineSignal } from '../util/deadline-signal.ts';

/** What an admission step is told about a write (SPEC 5.1 item 1; upstream admission.Attributes). */
export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  kind: KindDefinition;
  /** The subresource written through ('' for the resource itself). */
  subresource: string;
  namespace: string | undefined;
  name: string;
  /** The new object (CREATE, UPDATE) or the object being deleted (DELETE). */
  object: ApiObject | null;
  /** The stored object an UPDATE replaces. */
  oldObject: ApiObject | null;
  dryRun: boolean;
  /** Who asks, after impersonation; undefined for the server's own controllers. */
  user: UserInfo | undefined;
}

export type AdmissionHook = (attributes: AdmissionAttributes) => Promise<void>;

/**
 * Admission in upstream's two phases: mutating steps may change the object
 * before it is validated; validating steps see the final object and may only
 * refuse (DESIGN request path).
 */
export interface Admission {
  mutate: AdmissionHook;
  validate: AdmissionHook;
}

export interface WriteOptions {
  dryRun: boolean;
  /**
   * Records who set which fields (SPEC 2.2 managedFields) once the new object is
   * complete (defaults included, FACTS 8.1), before validation.
   */
  trackFields?: (obj: ApiObject, old: ApiObject | null) => void;
  /** Server-side apply creates what is missing even where PUT may not (SPEC 4.5). */
  createIfMissing?: boolean;
  /** The request's deadline: once aborted, no write of this request reaches storage. */
  signal?: DeadlineSignal;
  /** Who asks (after impersonation), for admission; undefined for the server's own writes. */
  user?: UserInfo;
  /** Receives the strategy's warnings about a valid write (upstream's warning recorder). */
  warn?: (message: string) => void;
  /**
   * Receives a created object's JSON as a GET of it serves it (the stored bytes with their
   * resourceVersion), when the stored bytes are the served object: the create's answer then
   * needs no second serialization.
   */
  onStored?: (json: string) => void;
}

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** DeleteOptions.gracePeriodSeconds as the client sent it; only kinds with graceful deletion read it. */
  gracePeriodSeconds?: number;
  /** SPEC 3, FACTS 3: Orphan and Foreground hold the object with a finalizer the garbage collector removes. */
  propagationPolicy?: PropagationPolicy;
}

/** The finalizer each propagation policy adds (upstream metav1.FinalizerOrphanDependents / FinalizerDeleteDependents). */
const POLICY_FINALIZERS: Partial<Record<PropagationPolicy, string>> = { Orphan: 'orphan', Foreground: 'foregroundDeletion' };

/** Server-wide deletion settings: kube-apiserver's --enable-garbage-collector and --delete-collection-workers. */
export interface DeletionSettings {
  /** Off: a propagationPolicy adds no finalizer (upstream deletionFinalizersForGarbageCollection), as no collector would remove it. */
  garbageCollection: boolean;
  /** Deletes a deletecollection runs at once. */
  collectionWorkers: number;
}

export const DEFAULT_DELETION: DeletionSettings = { garbageCollection: true, collectionWorkers: 1 };

export interface ListRequest {
  namespace: string | undefined;
  filter?: ObjectFilter;
  limit?: number;
  /** Key to start from (continue token) and the snapshot revision to read at. */
  startKey?: string;
  revision?: number;
}

export interface ListPage {
  items: KeyValue[];
  revision: number;
  /** The key of the last item returned, when more remain. */
  lastKey?: string;
  remaining: number;
}

/** Result of computing a new object for an update: the object, or null to leave the stored one. */
export type UpdateFunction = (current: ApiObject | null) => ApiObject;

const GENERATE_NAME_ATTEMPTS = 8;

/** Decoding an object the store built cannot fail; the context only has to exist. */
const CANONICALIZE: DecodeContext = {
  unknown: () => {},
  fail: (path) => {
    throw new Error(`canonicalize: unexpected type at ${path}`);
  },
  invalidValue: (path, message) => {
    throw new Error(`canonicalize: ${path}: ${message}`);
  },
};

export class GenericStore {
  readonly groupResource: errors.GroupResource;
  readonly apiVersion: string;
  /** The apiVersion objects are written at (KindDefinition.storageVersion); reads answer `apiVersion`. */
  private readonly storedApiVersion: string;
  /** Reads of single objects from storage, never the cache (start-up steps, authenticators, controllers). */
  readonly reader: ObjectReader;

  constructor(
    readonly kind: KindDefinition,
    readonly strategy: Strategy,
    private readonly storage: Storage,
    private readonly admission: Admission,
    /** The watch cache's copy of a key, tried first by writes: a stale copy only costs a retry. */
    private readonly cachedLookup?: (key: string) => KeyValue | undefined,
    /** The subresource this store writes through ('' for the resource itself), for admission. */
    readonly subresource = '',
    private readonly deletion: DeletionSettings = DEFAULT_DELETION,
  ) {
    this.groupResource = { group: kind.group, resource: kind.plural };
    this.reader = objectReader(storage, kind);
    this.apiVersion = apiVersionOf(kind);
    this.storedApiVersion = kind.storageVersion === undefined ? this.apiVersion : apiVersionOf({ group: storageGroupOf(kind), version: kind.storageVersion });
  }

  /**
   * A stored object as this endpoint serves it (SPEC 2.1): converted by the
   * kind's webhook, or, with conversion strategy None, renamed.
   */
  private async parseServed(value: string, revision: number): Promise<ApiObject> {
    const obj = parseStored(value, revision);
    if (obj.apiVersion === this.apiVersion) return obj;
    if (this.kind.convert) return this.kind.convert(obj, this.apiVersion);
    obj.apiVersion = this.apiVersion;
    return obj;
  }

  /** The JSON written to storage: the object at the storage version (converted by the kind's webhook, or renamed). */
  private async encodeStored(obj: ApiObject): Promise<string> {
    if (obj.apiVersion === this.storedApiVersion) return serializeForStorage(obj);
    if (this.kind.convert) return serializeForStorage(await this.kind.convert(obj, this.storedApiVersion));
    return serializeForStorage({ ...obj, apiVersion: this.storedApiVersion });
  }

  private admissionAttributes(
    operation: AdmissionAttributes['operation'],
    namespace: string | undefined,
    name: string,
    object: ApiObject | null,
    oldObject: ApiObject | null,
    options: WriteOptions,
  ): AdmissionAttributes {
    return { operation, kind: this.kind, subresource: this.subresource, namespace, name, object, oldObject, dryRun: options.dryRun, user: options.user };
  }

  key(namespace: string | undefined, name: string): string {
    return objectKey(storageGroupOf(this.kind), this.kind.plural, this.kind.namespaced ? namespace : undefined, name);
  }

  prefix(namespace: string | undefined): string {
    return collectionPrefix(storageGroupOf(this.kind), this.kind.plural, this.kind.namespaced ? namespace : undefined);
  }

  /** One page of the store at a revision (chunked and exact lists; whole lists come from the watch cache). */
  async list(request: ListRequest): Promise<ListPage> {
    const prefix = this.prefix(request.namespace);
    const filter = request.filter;
    const result = await this.storage.list({
      prefix,
      startKey: request.startKey,
      limit: request.limit,
      revision: request.revision,
      filter: filter ? (kv) => filter(JSON.parse(kv.value)) : undefined,
    });
    const page: ListPage = { items: result.items, revision: result.revision, remaining: result.remaining };
    if (result.more) page.lastKey = result.items.length ? result.items[result.items.length - 1].key : request.startKey;
    return page;
  }

  /** SPEC 4.2 create: defaults, system fields, validation, admission, then a write that must not find the key. */
  async create(namespace: string | undefined, obj: ApiObject, options: WriteOptions): Promise<ApiObject> {
    this.prepareIdentity(obj, namespace);
    const meta = obj.metadata;
    const generated = !meta.name && !!meta.generateName;
    fillSystemFieldsForCreate(obj);
    this.strategy.applyDefaults?.(obj);
    this.strategy.prepareForCreate?.(obj);
    options.trackFields?.(obj, null);
    if (generated) meta.name = generateName(meta.generateName);
    const admission = this.admissionAttributes('CREATE', namespace, meta.name ?? '', obj, null, options);
    await this.admission.mutate(admission);
    this.throwIfInvalid(meta.name ?? '', [
      ...validateObjectMetaCreate(meta, { namespaced: this.kind.namespaced, nameValidation: this.kind.nameValidation as NameValidation, generic: this.strategy.genericObjectMeta }),
      ...(this.strategy.validate?.(obj) ?? []),
    ]);
    for (const warning of this.strategy.warningsOnCreate?.(obj) ?? []) options.warn?.(warning);
    await this.admission.validate(admission);
    this.canonicalize(obj);
    const stored = obj.metadata;
    for (let attempt = 1; ; attempt++) {
      const key = this.key(namespace, stored.name);
      try {
        if (options.dryRun) {
          if (await this.storage.get(key)) throw new KeyExistsError(key);
          return obj;
        }
        const text = await this.encodeStored(obj);
        const revision = await this.storage.create(key, text, options);
        stored.resourceVersion = String(revision);
        if (options.onStored && obj.apiVersion === this.storedApiVersion) options.onStored(withResourceVersion(text, revision));
        return obj;
      } catch (err) {
        if (!(err instanceof KeyExistsError)) throw err;
        if (!generated) throw errors.alreadyExists(this.groupResource, stored.name);
        if (attempt >= GENERATE_NAME_ATTEMPTS) throw errors.generateNameConflict(this.groupResource, stored.name);
        stored.name = generateName(stored.generateName);
      }
    }
  }

  /**
   * SPEC 4.2 update: reads, computes the new object, validates and compare-and-swaps;
   * a lost race re-reads and recomputes. Returns whether the object was created.
   */
  async update(
    namespace: string | undefined,
    name: string,
    computeNew: UpdateFunction,
    options: WriteOptions,
  ): Promise<{ object: ApiObject; created: boolean }> {
    const key = this.key(namespace, name);
    const reader = this.readerFor(key, options.dryRun);
    for (;;) {
      const { current, verified } = await reader.next();
      try {
        if (!current) {
          if (!this.kind.allowCreateOnUpdate && !options.createIfMissing) throw errors.notFound(this.groupResource, name);
          const obj = computeNew(null);
          this.checkName(obj, name);
          try {
            return { object: await this.create(namespace, obj, options), created: true };
          } catch (err) {
            if (err instanceof errors.StatusError && err.reason === 'AlreadyExists') continue;
            throw err;
          }
        }
        const old = await this.parseServed(current.value, current.modRevision);
        const obj = computeNew(structuredClone(old));
        this.prepareIdentity(obj, namespace);
        this.checkName(obj, name);
        const requested = obj.metadata.resourceVersion;
        if (requested === undefined || requested === '') {
          if (!this.kind.allowUnconditionalUpdate) {
            this.throwIfInvalid(name, [
              { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' },
            ]);
          }
        } else if (requested !== old.metadata.resourceVersion) {
          // A cached copy may lag the store: only the store's answer can make this a 409.
          if (!verified) continue;
          throw errors.conflict(this.groupResource, name, errors.OPTIMISTIC_LOCK_MESSAGE);
        }
        // An unconditional update is validated as if it named the stored version (upstream fills it in).
        obj.metadata.resourceVersion = old.metadata.resourceVersion;
        carrySystemFieldsForUpdate(obj, old);
        this.strategy.applyDefaults?.(obj);
        this.strategy.prepareForUpdate?.(obj, old);
        options.trackFields?.(obj, old);
        const admission = this.admissionAttributes('UPDATE', namespace, name, obj, old, options);
        await this.admission.mutate(admission);
        this.throwIfInvalid(name, [
          ...validateObjectMetaUpdate(obj.metadata, old.metadata, { namespaced: this.kind.namespaced, nameValidation: this.kind.nameValidation as NameValidation, generic: this.strategy.genericObjectMeta }),
          ...(this.strategy.validateUpdate?.(obj, old, options.warn) ?? []),
        ]);
        await this.admission.validate(admission);
        // SPEC 3: the update that empties the finalizers of a deleting object removes it.
        const finishesDeletion = !!obj.metadata.deletionTimestamp && !(obj.metadata.finalizers?.length > 0) && !this.strategy.holdsDeletion?.(obj);
        // Compared as served: the same object at another version is no change (nor a webhook call).
        const served = serializeForStorage(this.canonicalize(obj));
        if (!finishesDeletion && served === serializeForStorage(old)) {
          if (!verified) continue;
          return { object: old, created: false };
        }
        if (options.dryRun) return { object: obj, created: false };
        try {
          const revision = finishesDeletion
            ? await this.storage.delete(key, current.modRevision, options)
            : await this.storage.update(key, await this.encodeStored(obj), current.modRevision, options);
          obj.metadata.resourceVersion = String(revision);
          return { object: obj, created: false };
        } catch (err) {
          // Lost the race (or the cached copy was stale): retry on the state the store reported.
          if (err instanceof CasFailedError) {
            reader.retryWith(err.current);
            continue;
          }
          throw err;
        }
      } catch (err) {
        // Computed from the watch cache's copy, which may lag the store (a write another
        // process answered a moment ago): a refusal then is retried on the store's state,
        // as upstream's GuaranteedUpdate does when its cached object was not current.
        if (!verified && err instanceof errors.StatusError) continue;
        throw err;
      }
    }
  }

  /**
   * SPEC 3 deletion: an object with finalizers is marked (deletionTimestamp) and
   * returned; otherwise it is removed. `deleted` tells the handler which happened.
   */
  async delete(namespace: string | undefined, name: string, options: DeleteOptions): Promise<{ object: ApiObject; deleted: boolean }> {
    const key = this.key(namespace, name);
    const reader = this.readerFor(key, options.dryRun);
    for (;;) {
      const { current, verified } = await reader.next();
      if (!current) throw errors.notFound(this.groupResource, name);
      const obj = await this.parseServed(current.value, current.modRevision);
      if (!verified && options.preconditions) continue;
      this.checkPreconditions(obj, options.preconditions);
      const admission = this.admissionAttributes('DELETE', namespace, name, obj, null, options);
      await this.admission.mutate(admission);
      await this.admission.validate(admission);
      try {
        const policy = options.propagationPolicy ?? this.strategy.defaultGarbageCollectionPolicy;
        const policyFinalizer = this.deletion.garbageCollection && policy ? POLICY_FINALIZERS[policy] : undefined;
        const grace = this.strategy.gracefulDeletePeriod?.(obj, options.gracePeriodSeconds);
        if (policyFinalizer || obj.metadata.finalizers?.length > 0 || this.strategy.holdsDeletion?.(obj)) {
          const marked = this.markDeleting(obj, policyFinalizer, grace ?? 0);
          if (!marked) return { object: obj, deleted: false };
          if (!options.dryRun) obj.metadata.resourceVersion = String(await this.storage.update(key, await this.encodeStored(obj), current.modRevision, options));
          return { object: obj, deleted: false };
        }
        let revision = current.modRevision;
        if (grace !== undefined && !obj.metadata.deletionTimestamp) {
          // Graceful deletion writes the marked object first, so watchers see the
          // deletionTimestamp and grace period (upstream BeforeDelete) before the
          // object goes. Nothing here runs the workloads a kubelet would stop
          // during the grace period, so the object then goes at once, as when a
          // node confirms the stop of containers that never ran.
          this.markDeleting(obj, undefined, grace);
          if (!options.dryRun) revision = await this.storage.update(key, await this.encodeStored(obj), revision, options);
        }
        if (!options.dryRun) obj.metadata.resourceVersion = String(await this.storage.delete(key, revision, options));
        return { object: obj, deleted: true };
      } catch (err) {
        if (err instanceof CasFailedError) {
          reader.retryWith(err.current);
          continue;
        }
        throw err;
      }
    }
  }

  /**
   * SPEC 4.8 deletecollection: deletes each listed object; returns the items as
   * listed before deletion, as upstream's DeleteCollection returns its list (FACTS 3).
   */
  async deleteListed(listed: KeyValue[], options: DeleteOptions): Promise<ApiObject[]> {
    const items: ApiObject[] = [];
    for (const kv of listed) items.push(await this.parseServed(kv.value, kv.modRevision));
    // --delete-collection-workers deletes at once, as upstream's workers do; the first
    // failure stops new deletes and is the answer once the running ones end.
    let next = 0;
    let failure: { err: unknown } | undefined;
    const worker = async () => {
      while (!failure && next < items.length) {
        const obj = items[next++]!;
        try {
          await this.delete(obj.metadata.namespace, obj.metadata.name, options);
        } catch (err) {
          // Gone in between: someone else deleted it, which is what was asked.
          if (!(err instanceof errors.StatusError && err.code === 404)) failure ??= { err };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.deletion.collectionWorkers, items.length) }, worker));
    if (failure) throw failure.err;
    return items;
  }

  /**
   * The state a write starts from: first the watch cache's copy (unverified: a stale
   * one only costs a retry), then the store, or the state a failed compare-and-swap reported.
   */
  private readerFor(key: string, dryRun: boolean) {
    let known: KeyValue | null | undefined = dryRun ? undefined : this.cachedLookup?.(key);
    let fromCache = known !== undefined;
    return {
      next: async (): Promise<{ current: KeyValue | null; verified: boolean }> => {
        const current = known === undefined ? await this.storage.get(key) : known;
        const verified = !fromCache;
        known = undefined;
        fromCache = false;
        return { current, verified };
      },
      retryWith: (current: KeyValue | null) => {
        known = current;
      },
    };
  }

  /**
   * SPEC 3 first phase: sets deletionTimestamp (once) and the policy's finalizer.
   * Returns false when the object was already marked as asked.
   */
  private markDeleting(obj: ApiObject, policyFinalizer: string | undefined, graceSeconds = 0): boolean {
    const meta = obj.metadata;
    let changed = false;
    if (policyFinalizer && !(meta.finalizers ?? []).includes(policyFinalizer)) {
      // Orphan and Foreground exclude each other: the newer request wins.
      const other = policyFinalizer === 'orphan' ? 'foregroundDeletion' : 'orphan';
      meta.finalizers = [...(meta.finalizers ?? []).filter((f: string) => f !== other), policyFinalizer];
      changed = true;
    }
    if (!meta.deletionTimestamp) {
      meta.deletionTimestamp = nowTimestamp(graceSeconds);
      meta.deletionGracePeriodSeconds = graceSeconds;
      if (meta.generation > 0) meta.generation++;
      this.strategy.beginDeletion?.(obj);
      changed = true;
    }
    return changed;
  }

  /**
   * Rebuilds an object in the contract's field order (the generated decoder is
   * idempotent on a valid object), so equal objects serialize equally whatever
   * path built them: no-op writes are detected and stored bytes are stable.
   */
  private canonicalize(obj: ApiObject): ApiObject {
    const canonical = this.kind.decode(obj, '', CANONICALIZE);
    for (const key of Object.keys(obj)) delete obj[key];
    return Object.assign(obj, canonical);
  }

  private checkPreconditions(obj: ApiObject, preconditions: DeleteOptions['preconditions']): void {
    if (preconditions?.uid && preconditions.uid !== obj.metadata.uid) {
      throw errors.conflict(
        this.groupResource,
        obj.metadata.name,
        `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${obj.metadata.uid}`,
      );
    }
    if (preconditions?.resourceVersion && preconditions.resourceVersion !== obj.metadata.resourceVersion) {
      throw errors.conflict(
        this.groupResource,
        obj.metadata.name,
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion}`,
      );
    }
  }

  /** apiVersion/kind are the endpoint's; the namespace is the path's (FACTS 1.1). */
  private prepareIdentity(obj: ApiObject, namespace: string | undefined): void {
    // apiVersion, kind, metadata lead every stored object: withResourceVersion relies on it.
    const rest = { ...obj };
    for (const key of Object.keys(obj)) delete obj[key];
    obj.apiVersion = this.apiVersion;
    obj.kind = this.kind.kind;
    obj.metadata = rest.metadata ?? {};
    for (const [key, value] of Object.entries(rest)) if (key !== 'apiVersion' && key !== 'kind' && key !== 'metadata') obj[key] = value;
    if (this.kind.namespaced) {
      if (obj.metadata.namespace && obj.metadata.namespace !== namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      obj.metadata.namespace = namespace;
    } else {
      delete obj.metadata.namespace;
    }
  }

  private checkName(obj: ApiObject, name: string): void {
    if (obj.metadata.name && obj.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    }
    obj.metadata.name = name;
  }

  private throwIfInvalid(name: string, fieldErrors: FieldError[]): void {
    if (fieldErrors.length) throw errors.invalid(this.kind.kind, this.kind.group, name, fieldErrors);
  }
}
