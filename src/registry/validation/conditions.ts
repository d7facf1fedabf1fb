/**
 * meta/v1 Condition lists (translated from upstream apimachinery
 * pkg/apis/meta/v1/validation ValidateConditions and ValidateCondition): each
 * type once and a label name, a known status, a non-negative observed
 * generation, a transition time, a reason of the condition-reason form, bounded
 * reason and message.
 */
import { child, duplicate, index, invalid, notSupported, required, tooLong, type FieldError } from './field-errors.ts';
import { validateLabelName } from './label-selector.ts';
import { regexError } from '../../api/names.ts';

const STATUSES = ['False', 'True', 'Unknown'];
const MAX_REASON = 1024;
const MAX_MESSAGE = 32 * 1024;
const REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const REASON_RE = new RegExp(`^${REASON_FMT}$`);
const REASON_ERR =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** ValidateCondition. */
function validateCondition(condition: any, path: string): FieldError[] {
  const errs = validateLabelName(str(condition?.type), child(path, 'type'));
  const status = str(condition?.status);
  if (!STATUSES.includes(status)) errs.push(notSupported(child(path, 'status'), status, STATUSES));
  if (typeof condition?.observedGeneration === 'number' && condition.observedGeneration < 0) {
    errs.push(invalid(child(path, 'observedGeneration'), condition.observedGeneration, 'must be greater than or equal to zero'));
  }
  if (!condition?.lastTransitionTime) errs.push(required(child(path, 'lastTransitionTime'), 'must be set'));
  const reason = str(condition?.reason);
  if (reason === '') errs.push(required(child(path, 'reason'), 'must be set'));
  else {
    if (!REASON_RE.test(reason)) errs.push(invalid(child(path, 'reason'), reason, regexError(REASON_ERR, REASON_FMT, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
    if (reason.length > MAX_REASON) errs.push(tooLong(child(path, 'reason'), reason, MAX_REASON));
  }
  if (str(condition?.message).length > MAX_MESSAGE) errs.push(tooLong(child(path, 'message'), condition.message, MAX_MESSAGE));
  return errs;
}

/** ValidateConditions: a list of meta/v1 Conditions at `path`. */
export function validateConditions(conditions: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (Array.isArray(conditions) ? conditions : []).forEach((condition, i) => {
    const type = str(condition?.type);
    if (seen.has(type)) errs.push(duplicate(child(index(path, i), 'type'), type));
    seen.add(type);
    errs.push(...validateCondition(condition, index(path, i)));
  });
  return errs;
}
