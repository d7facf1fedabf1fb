/**
 * metadata.managedFields bookkeeping for writes and server-side apply (SPEC 2.2, 4.5 rules 1-5;
 * FACTS 8.1-8.3). Translated from AM util/managedfields/internal (managedfields.go,
 * managedfieldsupdater.go, stripmeta.go, capmanagers.go, skipnonapplied.go) and SMD merge/update.go.
 *
 * Pure functions: objects in, new objects and entry lists out.
 */
import {
  difference, fromFieldsV1, intersection, isEmpty, paths, pathString, toFieldsV1, union,
  type FieldSet,
} from './field-set.ts';
import {
  compareObjects, deepEqual, fieldSetOf, isPlainObject, stripMeta, stripMetaInPlace, withoutManagedFields, zeroObject,
  type Structure,
} from './object-fields.ts';
import { mergeObjects, pruneObject } from './merge.ts';
import { ApplyConflictError, managerIdentifier, type ApplyConflict, type ManagerInfo } from './conflicts.ts';

export { ApplyConflictError, conflictMessage, conflictText, conflictCauses, managerFromUserAgent, managerIdentifier, printManager } from './conflicts.ts';
export type { ApplyConflict, ConflictCause, ManagerInfo } from './conflicts.ts';

/** An element of metadata.managedFields (SPEC 2.2). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update' | string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** Decoded entries by manager identifier. */
export type Managed = Map<string, { info: ManagerInfo; time?: string; set: FieldSet }>;

/** At most this many Update entries; older ones merge into `ancient-changes` (FACTS 8.1). */
export const MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';
/** Owner of an existing object's fields the first time it is applied to without any managedFields (AM skipnonapplied.go). */
export const BEFORE_FIRST_APPLY_MANAGER = 'before-first-apply';

export interface ManagerOptions {
  subresource?: string;
}

/** Decodes entries; entries with the same identifier are merged. Throws on malformed fieldsV1. */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined | null): Managed {
  const out: Managed = new Map();
  for (const e of entries ?? []) {
    const info: ManagerInfo = { manager: e.manager ?? '', operation: e.operation === 'Apply' ? 'Apply' : 'Update' };
    if (e.apiVersion) info.apiVersion = e.apiVersion;
    if (e.subresource) info.subresource = e.subresource;
    const id = managerIdentifier(info);
    const set = fromFieldsV1(e.fieldsV1 ?? {});
    const prev = out.get(id);
    out.set(id, { info, time: e.time ?? prev?.time, set: prev ? union(prev.set, set) : set });
  }
  return out;
}

const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) || 0 : 0);
const cmpStr = (a = '', b = '') => (a === b ? 0 : a < b ? -1 : 1);

/** Encodes entries, dropping empty ones, sorted by operation, time, manager, apiVersion, subresource (FACTS 8.1). */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const { info, time, set } of managed.values()) {
    if (isEmpty(set)) continue;
    const e: ManagedFieldsEntry = { manager: info.manager, operation: info.operation };
    if (info.apiVersion) e.apiVersion = info.apiVersion;
    if (time) e.time = time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = toFieldsV1(set);
    if (info.subresource) e.subresource = info.subresource;
    out.push(e);
  }
  return out.sort((p, q) =>
    cmpStr(p.operation, q.operation) || seconds(p.time) - seconds(q.time) || cmpStr(p.manager, q.manager)
    || cmpStr(p.apiVersion, q.apiVersion) || cmpStr(p.subresource, q.subresource));
}

/**
 * Which entries an Update starts from (SPEC 4.5 rule 7; AM fieldmanager.go `Update`): the ones in
 * the new object when it has any (a list of one empty entry therefore resets tracking), else the live ones.
 */
export function chooseManagedFields(fromNew: unknown, fromLive: unknown): ManagedFieldsEntry[] {
  return Array.isArray(fromNew) && fromNew.length > 0 ? fromNew : Array.isArray(fromLive) ? fromLive : [];
}

function dropEmpty(managed: Managed): void {
  for (const [id, m] of managed) if (isEmpty(m.set)) managed.delete(id);
}

/** The Update step on decoded entries (SMD Updater.Update via AM managedFieldsUpdater), in place. */
function updateManaged(managed: Managed, oldObj: unknown, newObj: unknown, info: ManagerInfo, time: string, structure: Structure, schemaName: string): void {
  const old = oldObj === null || oldObj === undefined ? zeroObject(structure, schemaName) : withoutManagedFields(oldObj);
  const c = compareObjects(old, withoutManagedFields(newObj), structure, schemaName);
  // A create modifies nothing (its old object is the zero object): the added set is already the union.
  const changed = isEmpty(c.modified) ? c.added : union(c.added, c.modified);
  // Updates never conflict: they take the changed fields from everyone; removed fields are owned by no one.
  const removed = !isEmpty(c.removed);
  for (const m of managed.values()) {
    m.set = difference(m.set, changed);
    if (removed) m.set = difference(m.set, c.removed);
  }
  // `changed` was built just above for this call alone.
  const current = stripMetaInPlace(changed);
  const id = managerIdentifier(info);
  if (!isEmpty(current)) {
    const prev = managed.get(id);
    managed.set(id, { info, time, set: prev ? union(current, prev.set) : current });
  }
  dropEmpty(managed);
}

/** AM capmanagers.go: merges the oldest Update entries into per-apiVersion `ancient-changes` buckets. */
export function capUpdateManagers(managed: Managed, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...managed.keys()].filter((id) => managed.get(id)!.info.operation !== 'Apply');
  if (updaters.length <= max) return;
  updaters.sort((a, b) => seconds(managed.get(a)!.time) - seconds(managed.get(b)!.time) || cmpStr(a, b));
  const firstForVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i];
    const m = managed.get(id)!;
    const version = m.info.apiVersion ?? '';
    const bucketInfo: ManagerInfo = { manager: ANCIENT_CHANGES_MANAGER, operation: 'Update', apiVersion: version };
    const bucket = managerIdentifier(bucketInfo);
    const first = firstForVersion.get(version);
    if (first === undefined) {
      firstForVersion.set(version, id);
      continue;
    }
    if (!managed.has(bucket)) {
      const f = managed.get(first)!;
      managed.delete(first);
      managed.set(bucket, { ...f, info: bucketInfo });
    }
    const b = managed.get(bucket)!;
    managed.set(bucket, { info: bucketInfo, set: union(m.set, b.set), time: m.time });
    managed.delete(id);
    length--;
  }
}

/**
 * Records a non-apply write (POST, PUT, non-apply PATCH; SPEC 4.5 rule 3, FACTS 8.1 "Update entries"):
 * the (manager, apiVersion) Update entry gains the fields added or changed from `oldObj` (null on
 * create) to `newObj`; other entries lose them, and everyone loses removed fields; empty entries
 * are dropped; Update entries are capped. `managedFields` is the starting list (see `chooseManagedFields`).
 */
export function recordUpdate(
  managedFields: readonly ManagedFieldsEntry[] | undefined | null, oldObj: unknown, newObj: unknown,
  manager: string, apiVersion: string, time: string, structure: Structure, schemaName: string, opts: ManagerOptions = {},
): ManagedFieldsEntry[] {
  const managed = decodeManagedFields(managedFields);
  const info: ManagerInfo = { manager, operation: 'Update', apiVersion, ...(opts.subresource ? { subresource: opts.subresource } : {}) };
  updateManaged(managed, oldObj, newObj, info, time, structure, schemaName);
  capUpdateManagers(managed);
  return encodeManagedFields(managed);
}

export interface ApplyResult<T extends object = Record<string, any>> {
  /** The new object (live merged with the intent, pruned), with `metadata.managedFields` set (removed when empty). */
  object: T;
  managedFields: ManagedFieldsEntry[];
  /** Whether the object's content (ignoring managedFields) differs from live. */
  changed: boolean;
}

/**
 * Server-side apply (SPEC 4.5 rules 2-5; SMD Updater.Apply): merges the intent into `live` (null =
 * create), removes fields this manager applied before and now omits when nobody else owns them,
 * and makes the manager's Apply entry exactly the applied set. Changing a field another manager
 * owns throws `ApplyConflictError` unless `force`, which moves ownership. Defaulting and validation
 * of the result are the caller's job (defaulted fields stay owned by no one).
 */
export function applyIntent<T extends Record<string, any> = Record<string, any>>(
  live: T | null, intent: object, managedFields: readonly ManagedFieldsEntry[] | undefined | null,
  manager: string, apiVersion: string, force: boolean, time: string, structure: Structure, schemaName: string, opts: ManagerOptions = {},
): ApplyResult<T> {
  const managed = decodeManagedFields(managedFields);
  const liveClean = live ? (withoutManagedFields(live) as Record<string, unknown>) : null;
  if (liveClean && managed.size === 0) {
    updateManaged(managed, null, liveClean, { manager: BEFORE_FIRST_APPLY_MANAGER, operation: 'Update', apiVersion }, time, structure, schemaName);
  }
  const intentClean = withoutManagedFields(intent);
  const info: ManagerInfo = { manager, operation: 'Apply', apiVersion, ...(opts.subresource ? { subresource: opts.subresource } : {}) };
  const id = managerIdentifier(info);
  const prev = managed.get(id);

  const merged = mergeObjects(liveClean ?? {}, intentClean, structure, schemaName);
  // Ownership while pruning includes the never-tracked metadata the intent sets (AM strips it only afterwards).
  const appliedFull = fieldSetOf(intentClean, structure, schemaName, { keepMeta: true });
  let owned = appliedFull;
  for (const [mid, m] of managed) if (mid !== id) owned = union(owned, m.set);
  const object = pruneObject(merged, prev?.set, owned, structure, schemaName) as Record<string, unknown>;

  const c = compareObjects(liveClean ?? zeroObject(structure, schemaName), object, structure, schemaName);
  const changedSet = union(c.added, c.modified);
  const conflicts: ApplyConflict[] = [];
  const taken = new Map<string, FieldSet>();
  for (const mid of [...managed.keys()].sort()) {
    if (mid === id) continue;
    const cs = intersection(managed.get(mid)!.set, changedSet);
    if (isEmpty(cs)) continue;
    taken.set(mid, cs);
    for (const p of paths(cs)) conflicts.push({ manager: mid, field: pathString(p) });
  }
  if (conflicts.length && !force) throw new ApplyConflictError(conflicts);
  for (const [mid, m] of managed) {
    if (mid === id) continue;
    m.set = difference(m.set, c.removed);
    const t = taken.get(mid);
    if (t) m.set = difference(m.set, t);
  }

  const changed = !deepEqual(liveClean, object);
  const applied = stripMeta(appliedFull);
  if (isEmpty(applied)) managed.delete(id);
  else managed.set(id, { info, time: changed || !prev?.time ? time : prev.time, set: applied });
  dropEmpty(managed);
  capUpdateManagers(managed);
  const entries = encodeManagedFields(managed);
  const metadata = isPlainObject(object.metadata) ? { ...object.metadata } : {};
  if (entries.length) metadata.managedFields = entries;
  else delete metadata.managedFields;
  return { object: { ...object, metadata } as unknown as T, managedFields: entries, changed };
}
