/**
 * ValidateStorageClass and ValidateStorageClassUpdate (SPEC 9.7; upstream
 * pkg/apis/storage/validation, 1.31). Paths and words are upstream's.
 */
import { child, duplicate, forbidden, index, invalid, notSupported, required, tooLong, type FieldError } from '../../../registry/validation/field-errors.ts';
import { validateLabelName } from '../../../registry/validation/label-selector.ts';
import { isQualifiedName } from '../../../api/names.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

/** ValidateStorageClass, and on update ValidateStorageClassUpdate (provisioner, parameters, reclaim policy, binding mode fixed). */
export function validateStorageClass(sc: any, old?: any): FieldError[] {
  if (old) {
    const errs: FieldError[] = [];
    if (!same(sc.parameters, old.parameters)) errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
    if (str(sc.provisioner) !== str(old.provisioner)) errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
    if (str(sc.reclaimPolicy) !== str(old.reclaimPolicy)) errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
    if (str(sc.volumeBindingMode) !== str(old.volumeBindingMode)) errs.push(invalid('volumeBindingMode', str(sc.volumeBindingMode), FIELD_IMMUTABLE));
    return errs;
  }
  const errs: FieldError[] = [];
  const provisioner = str(sc.provisioner);
  if (provisioner === '') errs.push(required('provisioner'));
  else errs.push(...isQualifiedName(provisioner.toLowerCase()).map((m) => invalid('provisioner', provisioner.toLowerCase(), m)));
  const parameters = sc.parameters && typeof sc.parameters === 'object' ? (sc.parameters as Record<string, string>) : {};
  const keys = Object.keys(parameters);
  if (keys.length > MAX_PARAMETERS) errs.push(tooLong('parameters', 'Provisioner Parameters exceeded max allowed', MAX_PARAMETERS));
  else {
    let size = 0;
    for (const k of keys) {
      if (k === '') errs.push(invalid('parameters', k, 'field can not be empty.'));
      size += Buffer.byteLength(k) + Buffer.byteLength(str(parameters[k]));
    }
    if (size > MAX_PARAMETERS_SIZE) errs.push(tooLong('parameters', '', MAX_PARAMETERS_SIZE));
  }
  const reclaim = str(sc.reclaimPolicy);
  if (reclaim !== '' && !RECLAIM_POLICIES.includes(reclaim)) errs.push(notSupported('reclaimPolicy', reclaim, RECLAIM_POLICIES));
  if (typeof sc.volumeBindingMode !== 'string') errs.push(required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode)) errs.push(notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  errs.push(...validateAllowedTopologies(arr(sc.allowedTopologies)));
  return errs;
}

/**
 * validateAllowedTopologies with ValidateTopologySelectorTerm: each requirement
 * has values, each once, and a label-name key, each key once per term; no two
 * terms alike. Upstream compares each term also with as many empty terms as
 * there are terms (its list starts that long), so a term without requirements
 * is always a duplicate.
 */
function validateAllowedTopologies(terms: any[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen: string[] = terms.length ? Array.from({ length: terms.length }, () => '{}') : [];
  terms.forEach((term, i) => {
    const path = index('allowedTopologies', i);
    const exprs: Record<string, string[]> = {};
    arr(term?.matchLabelExpressions).forEach((req, j) => {
      const reqPath = index(child(path, 'matchLabelExpressions'), j);
      const values = arr(req?.values).map(str);
      if (values.length === 0) errs.push(required(child(reqPath, 'values')));
      values.forEach((v, k) => {
        if (values.indexOf(v) < k) errs.push(duplicate(index(child(reqPath, 'values'), k), v));
      });
      const key = str(req?.key);
      errs.push(...validateLabelName(key, child(reqPath, 'key')));
      if (key in exprs) errs.push(duplicate(child(reqPath, 'key'), key));
      exprs[key] = [...new Set(values)].sort();
    });
    const canonical = JSON.stringify(Object.fromEntries(Object.entries(exprs).sort(([a], [b]) => (a < b ? -1 : 1))));
    for (const other of seen) if (other === canonical) errs.push(duplicate(child(path, 'matchLabelExpressions'), ''));
    seen.push(canonical);
  });
  return errs;
}
