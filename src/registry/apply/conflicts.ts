/**
 * Apply conflicts and manager naming (SPEC 4.5 rules 1, 3; FACTS 8.1, 8.3; AM
 * util/managedfields/internal/conflict.go and AS handlers/create.go `prefixFromUserAgent`).
 */
import { OutcomeError } from '../../util/outcome-error.ts';

/** One conflicting field: `manager` is the manager identifier (see `managerIdentifier`). */
export interface ApplyConflict {
  manager: string;
  field: string;
}

/** The fields of a managedFields entry that identify its manager. */
export interface ManagerInfo {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion?: string;
  subresource?: string;
}

/**
 * The manager identifier (AM internal/managedfields.go `BuildManagerIdentifier`): the entry's
 * JSON without time and fields; Apply entries also without apiVersion, so one applier has one entry.
 */
export function managerIdentifier(info: ManagerInfo): string {
  const id: Record<string, string> = { manager: info.manager, operation: info.operation };
  if (info.operation !== 'Apply' && info.apiVersion) id.apiVersion = info.apiVersion;
  if (info.subresource) id.subresource = info.subresource;
  return JSON.stringify(id);
}

/** How a manager is named in conflict messages (FACTS 8.3): `"bob"`, `"curl" using networking.orch.io/v1`. */
export function printManager(identifier: string): string {
  let info: Partial<ManagerInfo>;
  try {
    info = JSON.parse(identifier);
    if (info === null || typeof info !== 'object') throw new Error();
  } catch {
    return JSON.stringify(identifier);
  }
  let s = JSON.stringify(info.manager ?? '');
  if (info.subresource) s += ` with subresource ${JSON.stringify(info.subresource)}`;
  if (info.operation === 'Update') s += ` using ${info.apiVersion ?? ''}`;
  return s;
}

/** `details.causes[]` entry of the 409 (FACTS 8.3). */
export interface ConflictCause {
  reason: 'FieldManagerConflict';
  message: string;
  field: string;
}

/** The 409 status text and causes for a conflicting apply (FACTS 8.3, exact). */
export function conflictMessage(conflicts: ApplyConflict[]): { message: string; causes: ConflictCause[] } {
  return { message: conflictText(conflicts), causes: conflictCauses(conflicts) };
}

/** The status message alone: `Apply failed with 1 conflict: conflict with "bob": .spec.podSelector`. */
export function conflictText(conflicts: ApplyConflict[]): string {
  if (conflicts.length === 1) {
    return `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].manager)}: ${conflicts[0].field}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.field]);
  const lines: string[] = [];
  for (const m of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(m)}:`);
    for (const f of byManager.get(m)!) lines.push(`- ${f}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** `details.causes` of the 409 (FACTS 8.3); order as given (manager identifier, then path order). */
export function conflictCauses(conflicts: ApplyConflict[]): ConflictCause[] {
  return conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: c.field }));
}

/** Thrown by `applyIntent` when the apply changes fields other managers own (SPEC 4.5 rule 3): HTTP 409, reason Conflict. */
export class ApplyConflictError extends OutcomeError {
  readonly conflicts: ApplyConflict[];
  readonly causes: ConflictCause[];
  constructor(conflicts: ApplyConflict[]) {
    super(conflictText(conflicts));
    this.name = 'ApplyConflictError';
    this.conflicts = conflicts;
    this.causes = conflictCauses(conflicts);
  }
}

/** Longest manager name (AM meta/v1/validation `FieldManagerMaxLength`). */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/**
 * The manager name inferred from a User-Agent (FACTS 8.1): the text before the first `/`,
 * non-printable characters dropped, at most 128 bytes of UTF-8.
 */
export function managerFromUserAgent(ua: string | undefined): string {
  let out = '';
  let bytes = 0;
  for (const ch of (ua ?? '').split('/')[0]) {
    // Go unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}
