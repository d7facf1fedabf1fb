/** ValidateControllerRevision and its update (SPEC 9.7; K pkg/apis/apps/validation, 1.31). */
import { required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { immutable, nonNegative } from '../../../registry/validation/field-values.ts';

/** ValidateControllerRevision (and its update: data is immutable). */
export function validateControllerRevision(obj: any, old?: any): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.data === undefined || obj.data === null) errs.push(required('data', 'data is mandatory'));
  errs.push(...nonNegative(obj.revision, 'revision'));
  if (old) errs.push(...immutable(obj.data, old.data, 'data'));
  return errs;
}
