/**
 * Resource-version semantics of get and list (SPEC 4.6): which revision a read
 * is served at and the invalid combinations (400, SPEC 7). Waiting for a version
 * the store has not reached (504 'Too large resource version') is the cacher's.
 */
import * as errors from '../api/status-error.ts';
import { CompactedError } from '../storage/interface.ts';
import { decodeContinueToken, type ContinueToken } from './continue-token.ts';
import { invalidOption } from './options.ts';

/** How long a read waits for a future resourceVersion before 504 (upstream waits 3 s). */
export const TOO_LARGE_WAIT_MS = 3000;

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

/** SPEC 4.6 list table, cell by cell. */
export function planList(query: URLSearchParams, limit: number | undefined): ListReadPlan {
  const rv = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const continueValue = query.get('continue') ?? '';
  if (match && match !== 'Exact' && match !== 'NotOlderThan') {
    throw invalidOption('ListOptions', 'resourceVersionMatch', `Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan"`);
  }
  if (match && !rv) {
    throw invalidOption('ListOptions', 'resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  }
  if (continueValue) {
    if (match) throw invalidOption('ListOptions', 'resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden when continue is provided');
    if (rv && rv !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinueToken(continueValue);
    return { exactRevision: token.revision, minimumRevision: 0, continueToken: token, limit };
  }
  if (!rv) return { exactRevision: 0, minimumRevision: 0, limit };
  const revision = parseResourceVersion(rv);
  if (match === 'Exact') {
    if (revision === 0) throw invalidOption('ListOptions', 'resourceVersionMatch', 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    return { exactRevision: revision, minimumRevision: revision, limit };
  }
  if (revision === 0) return { exactRevision: 0, minimumRevision: 0, limit };
  if (match === '' && limit) return { exactRevision: revision, minimumRevision: revision, limit };
  return { exactRevision: 0, minimumRevision: revision, limit };
}

/** Maps a compacted read to 410 Expired with upstream's messages (FACTS 3). */
export function expiredFor(err: unknown, continued: boolean): unknown {
  if (!(err instanceof CompactedError)) return err;
  if (continued) {
    return errors.expired(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
  }
  return errors.expired('The resourceVersion for the provided list is too old.');
}
