/** ValidateNamespace (SPEC 2.6; upstream pkg/apis/core/validation, 1.31). */
import { invalid, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isQualifiedName } from '../../../api/names.ts';
import { validateStandardFinalizerName } from '../../../registry/validation/object-meta.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/** Namespace: each spec.finalizers entry a qualified, standard-or-prefixed name at `spec.finalizers` (upstream ValidateNamespace). */
export function validateNamespace(obj: any, _old?: any): FieldError[] {
  const path = 'spec.finalizers';
  return arr(obj?.spec?.finalizers).flatMap((f) => {
    const name = str(f);
    return [...isQualifiedName(name).map((m) => invalid(path, name, m)), ...validateStandardFinalizerName(name, path)];
  });
}
