/**
 * core/v1 ServiceAccount (upstream pkg/registry/core/serviceaccount/strategy.go,
 * 1.31): ValidateServiceAccount checks only ObjectMeta (a DNS subdomain name),
 * which the store does, so the rest of the object has no errors.
 */
import type { FieldError } from '../../../registry/validation/field-errors.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy } from '../../../registry/strategy.ts';

export function validateServiceAccount(_obj: any, _old?: any): FieldError[] {
  return [];
}

export default defineKind({ strategy: validatedBy(validateServiceAccount) });
