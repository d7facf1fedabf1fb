/**
 * A kind's strategy: the few pure hooks in which kinds differ, in the manner of
 * Kubernetes' generic registry (DESIGN "Models to learn from"). Everything else
 * (the compare-and-swap loop, metadata, validation of ObjectMeta, storage) is
 * the generic store's.
 */
import type { FieldError } from './validation/field-errors.ts';

export type ApiObject = Record<string, any> & { metadata: Record<string, any> };

/**
 * The hooks of one kind's writes. `T` is the kind's object as its generated
 * type (src/generated/types) where a kind's folder states it; the store calls
 * them with the decoded object, which the kind's schema guarantees.
 */
export interface Strategy<T extends object = ApiObject> {
  /** Defaults beyond the schema's, applied to every object a write decodes (create, update, patch). */
  applyDefaults?(obj: T): void;
  /** Sets server-owned fields of a new object (status, generation). */
  prepareForCreate?(obj: T): void;
  /** Carries server-owned fields over from the stored object. */
  prepareForUpdate?(obj: T, old: T): void;
  /** Kind-specific validation of a new object; ObjectMeta is checked by the store. */
  validate?(obj: T): FieldError[];
  /** Kind-specific validation of an update; ObjectMeta is checked by the store. `warn` takes warnings about a valid update. */
  validateUpdate?(obj: T, old: T, warn?: (message: string) => void): FieldError[];
  /** Warnings for a valid new object, sent as Warning headers (upstream WarningsOnCreate). */
  warningsOnCreate?(obj: T): string[];
  /** Finalization beyond metadata.finalizers that keeps a deleted object (a namespace's spec.finalizers). */
  holdsDeletion?(obj: T): boolean;
  /** Called once when deletion starts (SPEC 3), e.g. a namespace turns Terminating. */
  beginDeletion?(obj: T): void;
  /**
   * Graceful deletion (upstream RESTGracefulDeleteStrategy.CheckGracefulDelete):
   * the grace period in seconds for this object and the period the client asked
   * for. Kinds without it are deleted at once with a grace period of 0.
   */
  gracefulDeletePeriod?(obj: T, requestedSeconds: number | undefined): number;
  /**
   * The propagation policy of a delete that names none (upstream
   * GarbageCollectionDeleteStrategy.DefaultGarbageCollectionPolicy); undefined:
   * Background, which holds nothing. `defaultPolicyWarning` is sent when it applies.
   */
  defaultGarbageCollectionPolicy?: 'Orphan' | 'Background' | 'Foreground';
  defaultPolicyWarning?: string;
  /** DELETE answers with the deleted object instead of a Status (upstream Store.ReturnDeletedObject). */
  returnDeletedObject?: boolean;
  /** Validation of an update through the status subresource (upstream's status strategy); defaults to validateUpdate. */
  validateStatusUpdate?(obj: T, old: T, warn?: (message: string) => void): FieldError[];
  /** Completes a status-subresource update once everything but status is the stored object's. */
  prepareForStatusUpdate?(obj: T, old: T): void;
  /**
   * ObjectMeta is validated by apimachinery's generic rules alone, as
   * apiextensions-apiserver does for definitions and custom objects: a
   * finalizer need only be a qualified name, not a standard one.
   */
  genericObjectMeta?: boolean;
}

/** A kind whose rules are the same on create and update: `validate` sees the stored object on an update. */
export function validatedBy(validate: (obj: ApiObject, old?: ApiObject) => FieldError[]): Pick<Strategy, 'validate' | 'validateUpdate'> {
  return { validate: (obj) => validate(obj), validateUpdate: (obj, old) => validate(obj, old) };
}

/** Kinds whose spec drives a status follow this convention: generation 1 on create, +1 per spec change. */
export const specGeneration = {
  prepareForCreate(obj: ApiObject): void {
    obj.metadata.generation = 1;
  },
  prepareForUpdate(obj: ApiObject, old: ApiObject): void {
    const oldGeneration = old.metadata.generation ?? 0;
    obj.metadata.generation = JSON.stringify(obj.spec) === JSON.stringify(old.spec) ? oldGeneration : oldGeneration + 1;
  },
};

/**
 * The PrepareForCreate/PrepareForUpdate of most kinds with a status
 * subresource (apps, batch, policy, networking, flowcontrol): status empty on
 * create, generation as specGeneration.
 */
export const emptyStatusAndSpecGeneration = {
  prepareForCreate(obj: ApiObject): void {
    obj.status = {};
    specGeneration.prepareForCreate(obj);
  },
  prepareForUpdate: specGeneration.prepareForUpdate,
};

/**
 * The strategy of such a kind whose rules are the same on create and update:
 * its defaults, status emptied on create, generation following the spec, and
 * the rules of its status subresource (without them, the update's).
 */
export function specAndStatusStrategy(parts: {
  applyDefaults?: (obj: ApiObject) => void;
  validate: (obj: ApiObject, old?: ApiObject) => FieldError[];
  validateStatus?: (obj: ApiObject, old: ApiObject) => FieldError[];
}): Strategy {
  return {
    ...(parts.validateStatus ? { validateStatusUpdate: parts.validateStatus } : {}),
    ...(parts.applyDefaults ? { applyDefaults: parts.applyDefaults } : {}),
    ...emptyStatusAndSpecGeneration,
    ...validatedBy(parts.validate),
  };
}

/**
 * The strategy of a kind's main resource when it has a status subresource: writes to
 * the resource cannot change status (SPEC 1.3 subresources).
 */
export function withStatusReset(strategy: Strategy): Strategy {
  return {
    ...strategy,
    prepareForUpdate(obj, old) {
      if (old.status === undefined) delete obj.status;
      else obj.status = old.status;
      strategy.prepareForUpdate?.(obj, old);
    },
  };
}

/** The strategy of the status subresource: only status changes; everything else is the stored object's. */
export function statusSubresourceStrategy(strategy: Strategy): Strategy {
  return {
    validateUpdate: strategy.validateStatusUpdate ?? strategy.validateUpdate,
    holdsDeletion: strategy.holdsDeletion,
    genericObjectMeta: strategy.genericObjectMeta,
    prepareForUpdate(obj, old) {
      const status = obj.status;
      for (const key of Object.keys(obj)) delete obj[key];
      Object.assign(obj, structuredClone(old));
      if (status === undefined) delete obj.status;
      else obj.status = status;
      strategy.prepareForStatusUpdate?.(obj, old);
    },
  };
}

/** The strategy of a namespace's /finalize subresource: only spec.finalizers changes (SPEC 3). */
export function finalizeSubresourceStrategy(strategy: Strategy): Strategy {
  return {
    validateUpdate: strategy.validateUpdate,
    holdsDeletion: strategy.holdsDeletion,
    genericObjectMeta: strategy.genericObjectMeta,
    prepareForUpdate(obj, old) {
      const finalizers = obj.spec?.finalizers;
      for (const key of Object.keys(obj)) delete obj[key];
      Object.assign(obj, structuredClone(old));
      obj.spec = { ...(obj.spec ?? {}) };
      if (finalizers === undefined) delete obj.spec.finalizers;
      else obj.spec.finalizers = finalizers;
    },
  };
}
