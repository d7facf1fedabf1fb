/**
 * Label and field selectors of list, watch and deletecollection (SPEC 4.3),
 * compiled once per request into a predicate over stored objects.
 */
import * as errors from '../api/status-error.ts';
import type { KindDefinition } from './kind.ts';
import { matchesLabels, parseLabelSelector } from './selectors/label-selector.ts';
import { matchesFields, parseFieldSelector, requirementFields } from './selectors/field-selector.ts';

export type ObjectFilter = (obj: any) => boolean;

/**
 * Upstream's field-label conversion: a kind with selectable fields of its own
 * names every one (metadata.namespace only when namespaced); the others get the
 * default conversion, which knows metadata.name and metadata.namespace (FACTS 6.3).
 */
function hasOwnFieldConversion(kind: KindDefinition): boolean {
  return kind.fieldSelectors.length > 0;
}

function valueAt(obj: any, path: readonly string[]): any {
  let value = obj;
  for (const segment of path) value = value?.[segment];
  return value;
}

/** The selectable fields of an object: metadata.name, metadata.namespace and the kind's own (FACTS 6.3). */
export function selectableFields(kind: KindDefinition, obj: any): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata?.name ?? '' };
  if (kind.namespaced || !hasOwnFieldConversion(kind)) fields['metadata.namespace'] = obj.metadata?.namespace ?? '';
  for (const selector of kind.fieldSelectors) {
    let value = valueAt(obj, selector.path);
    if ((value === undefined || value === null || value === '') && selector.fallbackPath) value = valueAt(obj, selector.fallbackPath);
    fields[selector.name] = value === undefined || value === null ? (selector.default ?? '') : String(value);
  }
  return fields;
}

export function knownFieldSelectors(kind: KindDefinition): string[] {
  if (!hasOwnFieldConversion(kind)) return ['metadata.name', 'metadata.namespace'];
  return ['metadata.name', ...(kind.namespaced ? ['metadata.namespace'] : []), ...kind.fieldSelectors.map((f) => f.name)];
}

/**
 * SPEC 7 unknown field selector: a kind with selectable fields of its own has a
 * field-label conversion upstream, which answers `field label not supported: x`;
 * the others fall to the default conversion's message (FACTS 1.1, AM runtime/conversion.go).
 */
function unknownFieldSelectorMessage(kind: KindDefinition, field: string): string {
  if (hasOwnFieldConversion(kind)) return `field label not supported: ${field}`;
  return `"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`;
}

/** Compiles the selectors of a request; an unparsable selector or unknown field is a 400 (SPEC 7). */
export function compileFilter(kind: KindDefinition, labelSelector: string | undefined, fieldSelector: string | undefined): ObjectFilter | undefined {
  const filters: ObjectFilter[] = [];
  if (labelSelector) {
    let requirements;
    try {
      requirements = parseLabelSelector(labelSelector);
    } catch (err) {
      // labels.Parse's own text: only errors inside one requirement say "unable to parse requirement".
      throw errors.badRequest((err as Error).message);
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
      if (!known.includes(field)) throw errors.badRequest(unknownFieldSelectorMessage(kind, field));
    }
    if (requirements.length) filters.push((obj) => matchesFields(requirements, selectableFields(kind, obj)));
  }
  if (filters.length === 0) return undefined;
  if (filters.length === 1) return filters[0];
  return (obj) => filters.every((f) => f(obj));
}
