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

export function parseStored(stored: string, revision: number): ApiObject {
  const obj = JSON.parse(stored) as ApiObject;
  obj.metadata.resourceVersion = String(revision);
  return obj;
}
