/**
 * Validation of the LabelSelector object and of label maps (FACTS 6.1 rows
 * 1-5, FACTS 7 label rows; translated from upstream apimachinery
 * apis/meta/v1/validation/validation.go).
 */
import { type FieldError, child, forbidden, index, invalid, required } from './field-errors.ts';
import { isQualifiedName, isValidLabelValue } from '../../api/names.ts';

export interface LabelSelectorValidationOptions {
  /** Skip label-value checks of matchExpressions values (update of an already invalid stored selector). */
  allowInvalidLabelValueInSelector?: boolean;
  /** Let an unknown operator pass (upstream uses this for access reviews). */
  allowUnknownOperatorInRequirement?: boolean;
}

/** Label key must be a qualified name; every message is reported at `path` (FACTS 7). */
export function validateLabelName(key: string, path: string): FieldError[] {
  return isQualifiedName(key).map((m) => invalid(path, key, m));
}

/** Label map: keys qualified names, values label values; errors at the map path, no key suffix (FACTS 7). */
export function validateLabels(labels: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!labels || typeof labels !== 'object') return errs;
  // for-in, not Object.entries: every write validates its labels, and the entry pairs were garbage at once.
  for (const k in labels) {
    if (!Object.hasOwn(labels, k)) continue;
    errs.push(...validateLabelName(k, path));
    const v = (labels as Record<string, unknown>)[k];
    const value = typeof v === 'string' ? v : String(v ?? '');
    for (const m of isValidLabelValue(value)) errs.push(invalid(path, value, m));
  }
  return errs;
}

/** One matchExpressions entry (FACTS 6.1 rows 2-5). */
export function validateLabelSelectorRequirement(
  req: any,
  path: string,
  opts: LabelSelectorValidationOptions = {},
): FieldError[] {
  const errs: FieldError[] = [];
  const r = req ?? {};
  const values: unknown[] = Array.isArray(r.values) ? r.values : [];
  const op = r.operator ?? '';
  switch (op) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) {
        errs.push(required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) {
        errs.push(forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
      break;
    default:
      if (!opts.allowUnknownOperatorInRequirement) {
        errs.push(invalid(child(path, 'operator'), op, 'not a valid selector operator'));
      }
  }
  errs.push(...validateLabelName(String(r.key ?? ''), child(path, 'key')));
  if (!opts.allowInvalidLabelValueInSelector) {
    values.forEach((v, i) => {
      const value = String(v ?? '');
      for (const m of isValidLabelValue(value)) errs.push(invalid(index(child(path, 'values'), i), value, m));
    });
  }
  return errs;
}

/**
 * A LabelSelector object (`{matchLabels, matchExpressions}`); null/undefined is
 * valid (FACTS 6.1 rows 1-5). Paths: `{path}.matchLabels`,
 * `{path}.matchExpressions[i].operator|values|key|values[j]`.
 */
export function validateLabelSelector(sel: any, path: string, opts: LabelSelectorValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  if (sel === null || sel === undefined) return errs;
  errs.push(...validateLabels(sel.matchLabels, child(path, 'matchLabels')));
  const exprs: unknown[] = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  exprs.forEach((e, i) => {
    errs.push(...validateLabelSelectorRequirement(e, index(child(path, 'matchExpressions'), i), opts));
  });
  return errs;
}

/** True when some matchExpressions value is not a valid label value (upstream LabelSelectorHasInvalidLabelValue). */
export function labelSelectorHasInvalidLabelValue(sel: any): boolean {
  if (!sel || !Array.isArray(sel.matchExpressions)) return false;
  return sel.matchExpressions.some(
    (e: any) => Array.isArray(e?.values) && e.values.some((v: unknown) => isValidLabelValue(String(v ?? '')).length > 0),
  );
}
