/**
 * Label and field selectors of list, watch and deletecollection (SPEC 4.3),
 * compiled once per request into a predicate over stored objects.
 */
import * as errors from '../api/status-error.ts';
import type { KindDefinition } from './kind.ts';
import { matchesLabels, parseLabelSelector } from './selectors/label-selector.ts';
import { matchesFields, parseFieldSelector, requirementFields } from './selectors/field-selector.ts';

export type ObjectFilter = (obj: any) => boolean;

/** The selectable fields of an object: metadata.name, metadata.namespace and the kind's own (FACTS 6.3). */
export function selectableFields(kind: KindDefinition, obj: any): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata?.name ?? '' };
  if (kind.namespaced) fields['metadata.namespace'] = obj.metadata?.namespace ?? '';
  for (const selector of kind.fieldSelectors) {
    let value: any = obj;
    for (const segment of selector.path) value = value?.[segment];
    fields[selector.name] = value === undefined || value === null ? '' : String(value);
  }
  return fields;
}

export function knownFieldSelectors(kind: KindDefinition): string[] {
  return ['metadata.name', ...(kind.namespaced ? ['metadata.namespace'] : []), ...kind.fieldSelectors.map((f) => f.name)];
}

/** Compiles the selectors of a request; an unparsable selector or unknown field is a 400 (SPEC 7). */
export function compileFilter(kind: KindDefinition, labelSelector: string | undefined, fieldSelector: string | undefined): ObjectFilter | undefined {
  const filters: ObjectFilter[] = [];
  if (labelSelector) {
    let requirements;
    try {
      requirements = parseLabelSelector(labelSelector);
    } catch (err) {
      throw errors.badRequest(`unable to parse requirement: ${(err as Error).message}`.replace('unable to parse requirement: unable to parse requirement: ', 'unable to parse requirement: '));
    }
    if (requirements.length) filters.push((obj) => matchesLabels(requirements, obj.metadata?.labels));
  }
  if (fieldSelector) {
    let requirements;
    try {
      requirements = parseFieldSelector(fieldSelector);
    } catch (err) {
      throw errors.badRequest((err as Error).message);
    }
    const known = knownFieldSelectors(kind);
    for (const field of requirementFields(requirements)) {
      if (!known.includes(field)) {
        throw errors.badRequest(`"${field}" is not a known field selector: only ${known.map((f) => `"${f}"`).join(', ')}`);
      }
    }
    if (requirements.length) filters.push((obj) => matchesFields(requirements, selectableFields(kind, obj)));
  }
  if (filters.length === 0) return undefined;
  if (filters.length === 1) return filters[0];
  return (obj) => filters.every((f) => f(obj));
}
