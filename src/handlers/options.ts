/**
 * Query options of the generic operations (SPEC 4.3) and their validation.
 * Invalid options are 400 here: SPEC 7 files every invalid request option under
 * 400 where upstream answers 422 for some (FACTS 1.1).
 */
import * as errors from '../api/status-error.ts';
import { queryBoolean, queryInt64 } from '../api/query-values.ts';
import type { FieldValidation } from './request-body.ts';

/** `{Kind}Options.meta.orch.io "" is invalid: {field}: {detail}` as a 400. */
export function invalidOption(optionsKind: string, field: string, detail: string): errors.StatusError {
  return errors.badRequest(`${optionsKind}.meta.orch.io "" is invalid: ${field}: ${detail}`);
}

/**
 * Several option errors as one 400: upstream aggregates its field errors, one as
 * `{field}: {detail}`, several as `[e1, e2]` (FACTS 1.1). `problems` are
 * `{field}: {detail}` texts in upstream's validation order; undefined when empty.
 */
export function invalidOptions(optionsKind: string, problems: string[]): errors.StatusError | undefined {
  if (problems.length === 0) return undefined;
  const unique = [...new Set(problems)];
  const text = unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
  return errors.badRequest(`${optionsKind}.meta.orch.io "" is invalid: ${text}`);
}

/** SPEC 4.9: `dryRun` is absent or `All`. */
export function parseDryRun(query: URLSearchParams, optionsKind: string): boolean {
  const values = query.getAll('dryRun');
  values.forEach((value, i) => {
    if (value !== 'All') throw invalidOption(optionsKind, `dryRun[${i}]`, `Unsupported value: ${JSON.stringify(value)}: supported values: "All"`);
  });
  return values.length > 0;
}

/** SPEC 4.9: Ignore, Warn (default) or Strict. */
export function parseFieldValidation(query: URLSearchParams, optionsKind: string): FieldValidation {
  const value = query.get('fieldValidation') ?? '';
  if (value === '') return 'Warn';
  if (value === 'Ignore' || value === 'Warn' || value === 'Strict') return value;
  throw invalidOption(optionsKind, 'fieldValidation', `Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`);
}

/** FACTS 8.1: fieldManager is at most 128 characters. */
export function parseFieldManager(query: URLSearchParams, optionsKind: string): string | undefined {
  const value = query.get('fieldManager') ?? undefined;
  if (value !== undefined && value.length > 128) {
    throw invalidOption(optionsKind, 'fieldManager', `Too long: may not be more than 128 bytes`);
  }
  return value;
}

/** SPEC 4.3 boolean parameters, with upstream's rules (see queryBoolean). */
export function parseBoolean(query: URLSearchParams, name: string): boolean | undefined {
  return queryBoolean(query.get(name));
}

/** SPEC 4.3 integer parameters (limit, timeoutSeconds, gracePeriodSeconds) as int64, with upstream's rules. */
export function parseInt64(query: URLSearchParams, name: string): number | undefined {
  return queryInt64(query.get(name));
}
