/**
 * Resource-version semantics of get and list (SPEC 4.6): which revision a read
 * is served at and the invalid combinations (400, SPEC 7). Waiting for a version
 * the store has not reached (504 'Too large resource version') is the cacher's.
 */
import * as errors from '../api/status-error.ts';
import { CompactedError, type Storage } from '../storage/interface.ts';
import { decodeContinueToken, encodeContinueStart, type ContinueToken } from './continue-token.ts';
import { invalidOptions } from './options.ts';

/** How long a read waits for a future resourceVersion before 504 (upstream waits 3 s). */
export const TOO_LARGE_WAIT_MS = 3000;

/**
 * A read the store serves directly (no watch cache) of a version the store has
 * not reached: 504 at once, as upstream's etcd3 validateMinimumResourceVersion.
 */
export async function requireReached(storage: Storage, minimum: number): Promise<void> {
  const current = await storage.currentRevision();
  if (minimum > current) throw errors.tooLargeResourceVersion(minimum, current, 0);
}

export function parseResourceVersion(value: string): number {
  if (!/^\d+$/.test(value) || value.length > 19) throw errors.badRequest(`invalid resource version: ${JSON.stringify(value)}`);
  return Number(value);
}

export interface ListReadPlan {
  /** Revision to read at exactly; 0 = the current state. */
  exactRevision: number;
  /** The revision the current state must have reached first (Not older than). */
  minimumRevision: number;
  continueToken?: ContinueToken;
  limit?: number;
}

/**
 * SPEC 4.3, 4.6 and 7: the invalid list option combinations, every one found, in
 * upstream's order (ValidateListOptions; FACTS 1.1, 2), reported as one 400.
 */
function validateListOptions(query: URLSearchParams, rv: string, match: string, continueValue: string): void {
  const problems: string[] = [];
  if (match) {
    if (!rv) problems.push('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (continueValue) problems.push('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided');
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      problems.push(`resourceVersionMatch: Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan", ""`);
    }
    if (match === 'Exact' && rv === '0') problems.push('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  }
  if (query.has('sendInitialEvents')) problems.push('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
  const error = invalidOptions('ListOptions', problems);
  if (error) throw error;
}

/** SPEC 4.6 list table, cell by cell. */
export function planList(query: URLSearchParams, limit: number | undefined): ListReadPlan {
  const rv = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const continueValue = query.get('continue') ?? '';
  validateListOptions(query, rv, match, continueValue);
  if (continueValue) {
    // The token is decoded first, so a bad token is reported as such whatever the version (upstream order).
    const token = decodeContinueToken(continueValue);
    if (rv && rv !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
    // rv -1: the token of a 410 for a compacted snapshot continues at the latest revision (FACTS 3).
    return { exactRevision: Math.max(token.revision, 0), minimumRevision: 0, continueToken: token, limit };
  }
  if (!rv) return { exactRevision: 0, minimumRevision: 0, limit };
  const revision = parseResourceVersion(rv);
  if (match === 'Exact') return { exactRevision: revision, minimumRevision: revision, limit };
  if (revision === 0) return { exactRevision: 0, minimumRevision: 0, limit };
  if (match === '' && limit) return { exactRevision: revision, minimumRevision: revision, limit };
  return { exactRevision: 0, minimumRevision: revision, limit };
}

/**
 * Maps a compacted read to 410 Expired with upstream's messages (FACTS 3). A
 * continued list's 410 carries a token for the rest of the list at the latest
 * revision (rv -1) in its metadata.continue.
 */
export function expiredFor(err: unknown, continueToken: ContinueToken | undefined): unknown {
  if (!(err instanceof CompactedError)) return err;
  if (continueToken) {
    return errors.expired(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      encodeContinueStart(-1, continueToken.start),
    );
  }
  return errors.expired('The resourceVersion for the provided list is too old.');
}
