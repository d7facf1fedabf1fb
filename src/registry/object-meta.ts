/**
 * Server-owned ObjectMeta fields (SPEC 2.2; FACTS 7 "system fields", "generateName").
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { ApiObject } from './strategy.ts';

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATED_PREFIX = 58;

/** FACTS 7: `generateName[:58]` plus five random characters from upstream's alphabet. */
export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return prefix.slice(0, MAX_GENERATED_PREFIX) + suffix;
}

/** The last second RFC 3339 (and metav1.Time) can write: 9999-12-31T23:59:59Z. */
const LAST_TIMESTAMP_MS = 253402300799000;

/** RFC 3339 with second precision, as upstream's metav1.Time; `offsetSeconds` later (a deletion's grace period). */
export function nowTimestamp(offsetSeconds = 0): string {
  const second = Math.floor(Math.min(Date.now() + offsetSeconds * 1000, LAST_TIMESTAMP_MS) / 1000);
  // Every write of a busy second stamps the same text (creationTimestamp, managedFields' time).
  if (second !== lastSecond) {
    lastSecond = second;
    lastTimestamp = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastTimestamp;
}
let lastSecond = NaN;
let lastTimestamp = '';

/** Overwrites the fields a client may not choose on create (AS registry/rest/meta.go). */
export function fillSystemFieldsForCreate(obj: ApiObject): void {
  const meta = obj.metadata;
  meta.uid = randomUUID();
  meta.creationTimestamp = nowTimestamp();
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (meta.generation !== undefined) delete meta.generation;
}

/**
 * Carries server-owned fields over from the stored object (AS registry/rest/update.go
 * `BeforeUpdate`): a missing uid is filled in; a client's creationTimestamp, and its
 * deletionTimestamp once one is set, are ignored in favour of the stored ones.
 */
export function carrySystemFieldsForUpdate(obj: ApiObject, old: ApiObject): void {
  const meta = obj.metadata;
  const oldMeta = old.metadata;
  if (!meta.uid) meta.uid = oldMeta.uid;
  if (oldMeta.creationTimestamp) meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  if (meta.deletionGracePeriodSeconds === undefined && oldMeta.deletionGracePeriodSeconds !== undefined) {
    meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  }
  delete meta.selfLink;
  // Clients cannot move generation; strategies advance it.
  if (oldMeta.generation === undefined) delete meta.generation;
  else meta.generation = oldMeta.generation;
}

/** Serialized form kept in storage: the object without its resourceVersion, which is the revision. */
export function serializeForStorage(obj: ApiObject): string {
  const rv = obj.metadata.resourceVersion;
  delete obj.metadata.resourceVersion;
  const text = JSON.stringify(obj);
  if (rv !== undefined) obj.metadata.resourceVersion = rv;
  return text;
}

const METADATA_OPEN = '"metadata":{';

/**
 * Splices the resourceVersion into stored JSON without parsing it: the hot GET
 * and list paths serve stored bytes as they are (DESIGN "watch cache").
 */
export function withResourceVersion(stored: string, revision: number): string {
  const at = stored.indexOf(METADATA_OPEN);
  if (at < 0) throw new Error('stored object has no metadata');
  const insertAt = at + METADATA_OPEN.length;
  const separator = stored[insertAt] === '}' ? '' : ',';
  return `${stored.slice(0, insertAt)}"resourceVersion":"${revision}"${separator}${stored.slice(insertAt)}`;
}

const API_VERSION_OPEN = '{"apiVersion":"';

/**
 * Stored JSON as another version of the same kind serves it, when the
 * conversion only renames the version (SPEC 2.1; upstream
 * apiextensions-apiserver nopConverter, strategy None): the leading apiVersion
 * is replaced, the rest is served as stored. The same string when it already
 * names `apiVersion`.
 */
export function withApiVersion(stored: string, apiVersion: string): string {
  if (stored.startsWith(API_VERSION_OPEN)) {
    const end = stored.indexOf('"', API_VERSION_OPEN.length);
    const current = stored.slice(API_VERSION_OPEN.length, end);
    if (end > 0 && !current.includes('\\')) {
      return current === apiVersion ? stored : `${API_VERSION_OPEN}${apiVersion}${stored.slice(end)}`;
    }
  }
  // Not written by a store (which puts apiVersion first): rebuilt with apiVersion leading.
  const { apiVersion: _stored, ...rest } = JSON.parse(stored);
  return JSON.stringify({ apiVersion, ...rest });
}

export function parseStored(stored: string, revision: number): ApiObject {
  const obj = JSON.parse(stored) as ApiObject;
  obj.metadata.resourceVersion = String(revision);
  return obj;
}
