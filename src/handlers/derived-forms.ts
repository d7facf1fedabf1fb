/**
 * The forms handlers derive from one object version (SPEC 4.7: a Table row
 * per plan, the PartialObjectMetadata form), kept in its `derived` slot
 * (CachedObject.derived) so each is made once per version. A version read in
 * one form keeps that form alone; one read in several keeps a few, keyed by
 * what made them.
 */
import type { CachedObject } from '../storage/cacher/cached-object.ts';

/** A derived form that names what made it (a Table plan, a form's own key). */
export interface DerivedForm {
  readonly madeBy: object;
}

/** Forms one object version keeps at most (served versions of one custom kind as Tables, plus its metadata). */
const MAX_FORMS_PER_OBJECT = 4;

/** The version's form that `madeBy` makes, made by `make` on first use and kept while the version lives. */
export function derivedForm<T extends DerivedForm>(object: CachedObject, madeBy: object, make: () => T): T {
  const slot = object.derived as DerivedForm | Map<object, DerivedForm> | undefined;
  if (slot instanceof Map) {
    const kept = slot.get(madeBy);
    if (kept) return kept as T;
  } else if (slot?.madeBy === madeBy) return slot as T;
  const form = make();
  if (slot instanceof Map && slot.size < MAX_FORMS_PER_OBJECT) slot.set(madeBy, form);
  else if (slot !== undefined && !(slot instanceof Map)) object.derived = new Map<object, DerivedForm>([[slot.madeBy, slot], [madeBy, form]]);
  else object.derived = form;
  return form;
}
