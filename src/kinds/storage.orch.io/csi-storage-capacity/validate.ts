/**
 * ValidateCSIStorageCapacity and its update (SPEC 9.7; upstream
 * pkg/apis/storage/validation, 1.31). Paths and words are upstream's.
 */
import { goRepr, invalid, type FieldError } from '../../../registry/validation/field-errors.ts';
import { validateLabelSelector } from '../../../registry/validation/label-selector.ts';
import { isDNS1123Subdomain } from '../../../api/names.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { compareQuantities, formatQuantity, quantityFromJson, zeroQuantity } from '../../../api/quantity.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** ValidateNonnegativeQuantity. */
function nonNegativeQuantity(value: unknown, path: string): FieldError[] {
  if (value === undefined || value === null) return [];
  const q = quantityFromJson(value);
  return compareQuantities(q, zeroQuantity()) < 0 ? [invalid(path, formatQuantity(q), 'must be greater than or equal to 0')] : [];
}

/** LabelSelector.String() (its generated protobuf printer), or null for no selector, as field.Invalid prints a pointer. */
function labelSelectorString(selector: any) {
  if (!selector || typeof selector !== 'object') return null;
  const labels = selector.matchLabels ?? {};
  const matchLabels = Object.keys(labels)
    .sort()
    .map((k) => `${k}: ${labels[k]},`)
    .join('');
  const expressions = arr(selector.matchExpressions)
    .map((e) => `LabelSelectorRequirement{Key:${str(e?.key)},Operator:${str(e?.operator)},Values:[${arr(e?.values).join(' ')}],},`)
    .join('');
  return goRepr(`&LabelSelector{MatchLabels:map[string]string{${matchLabels}},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`);
}

/** ValidateCSIStorageCapacity, and on update the immutable node topology and storage class. */
export function validateCSIStorageCapacity(capacity: any, old?: any): FieldError[] {
  const errs = validateLabelSelector(capacity.nodeTopology, 'nodeTopology');
  const className = str(capacity.storageClassName);
  errs.push(...isDNS1123Subdomain(className).map((m) => invalid('storageClassName', className, m)));
  errs.push(...nonNegativeQuantity(capacity.capacity, 'capacity'));
  if (old) {
    if (!same(capacity.nodeTopology, old.nodeTopology)) errs.push(invalid('nodeTopology', labelSelectorString(capacity.nodeTopology), FIELD_IMMUTABLE));
    if (className !== str(old.storageClassName)) errs.push(invalid('storageClassName', className, FIELD_IMMUTABLE));
  }
  return errs;
}
