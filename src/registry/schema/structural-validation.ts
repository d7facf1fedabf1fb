/**
 * Structural schema rules (SPEC 9.7; upstream apiextensions-apiserver
 * pkg/apiserver/schema/validation.go `ValidateStructural` and complete.go):
 * a type on every node except under x-kubernetes-preserve-unknown-fields or
 * x-kubernetes-int-or-string, items for arrays, nothing structural under the
 * logical junctors, metadata restricted to name and generateName, and every
 * value validation applying to a structurally specified node.
 */
import { child, fieldErrorText, forbidden, index, invalid, required, type FieldError } from '../validation/field-errors.ts';
import { compileRe2, RegexError } from '../../cel/regex.ts';
import type { NestedValueValidation, Structural, ValueValidation } from './structural.ts';

type Level = 'root' | 'item' | 'field';

/** field.Path Key: `path[key]`. */
export const key = (path: string, k: string): string => `${path}[${k}]`;

/** Upstream ValidateStructural: all violations, sorted by their text as upstream sorts them. */
export function validateStructural(path: string, s: Structural): FieldError[] {
  const errs = [...invariants(s, 'root', path), ...completeness(s.valueValidation, s, path, path)];
  return errs.sort((a, b) => (fieldErrorText(a) < fieldErrorText(b) ? -1 : fieldErrorText(a) > fieldErrorText(b) ? 1 : 0));
}

const sortedKeys = (o: Record<string, unknown> | undefined): string[] => Object.keys(o ?? {}).sort();

function isIntOrStringPair(list: NestedValueValidation[] | undefined): boolean {
  if (!list || list.length !== 2) return false;
  return list.every((n, i) => isOnlyType(n, i === 0 ? 'integer' : 'string'));
}

function isOnlyType(n: NestedValueValidation, type: string): boolean {
  const g = n.forbiddenGenerics;
  return (
    g.type === type && !g.description && !g.title && g.default === undefined && !g.nullable && isEmptyExtensions(n.forbiddenExtensions) &&
    isEmptyValueValidation(n.valueValidation) && n.xValidations.length === 0 && !n.items && !n.properties && !n.additionalProperties
  );
}

function isEmptyExtensions(x: Structural['extensions']): boolean {
  return !x.xPreserveUnknownFields && !x.xEmbeddedResource && !x.xIntOrString && x.xListMapKeys === undefined && x.xListType === undefined && x.xMapType === undefined;
}

/** Whether a ValueValidation equals upstream's zero `ValueValidation{}`. */
export function isEmptyValueValidation(v: ValueValidation | undefined): boolean {
  if (!v) return true;
  return (
    !v.format && !v.pattern && !v.exclusiveMaximum && !v.exclusiveMinimum && !v.uniqueItems &&
    [v.maximum, v.minimum, v.maxLength, v.minLength, v.maxItems, v.minItems, v.multipleOf, v.maxProperties, v.minProperties, v.enum, v.required, v.allOf, v.oneOf, v.anyOf, v.not].every((x) => x === undefined)
  );
}

function invariants(s: Structural | undefined, lvl: Level, path: string): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  if (s.type === 'array' && !s.items) errs.push(required(child(path, 'items'), 'must be specified'));
  errs.push(...invariants(s.items, 'item', child(path, 'items')));
  for (const k of sortedKeys(s.properties)) errs.push(...invariants(s.properties![k], 'field', key(child(path, 'properties'), k)));
  if (s.additionalProperties) {
    if (lvl === 'root') errs.push(forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (s.additionalProperties.structural) errs.push(...invariants(s.additionalProperties.structural, 'field', child(path, 'additionalProperties')));
  }
  const x = s.extensions;
  if (x.xIntOrString && x.xPreserveUnknownFields) errs.push(invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (x.xIntOrString && x.xEmbeddedResource) errs.push(invalid(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));

  const skipAnyOf = isIntOrStringPair(s.valueValidation?.anyOf);
  const skipFirstAllOfAnyOf = (s.valueValidation?.allOf?.length ?? 0) >= 1 && isIntOrStringPair(s.valueValidation!.allOf![0].valueValidation.anyOf);
  errs.push(...valueValidation(s.valueValidation, skipAnyOf, skipFirstAllOfAnyOf, lvl, path));

  const checkMetadata = lvl === 'root' || x.xEmbeddedResource;
  if (x.xEmbeddedResource && s.type !== 'object') {
    if (!s.type) errs.push(required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(invalid(child(path, 'type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !x.xIntOrString && !x.xPreserveUnknownFields) {
    const where = lvl === 'root' ? 'at the root' : lvl === 'item' ? 'for specified array items' : 'for specified object fields';
    errs.push(required(child(path, 'type'), `must not be empty ${where}`));
  }
  if (x.xEmbeddedResource && s.additionalProperties) errs.push(forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  if (lvl === 'root' && s.type && s.type !== 'object') errs.push(invalid(child(path, 'type'), s.type, 'must be object at the root'));

  const props = s.properties ?? {};
  for (const meta of ['kind', 'apiVersion']) {
    if (props[meta] && checkMetadata && props[meta].type !== 'string') errs.push(invalid(child(key(child(path, 'properties'), meta), 'type'), props[meta].type, 'must be string'));
  }
  if (props.metadata) errs.push(...metadataInvariants(props.metadata, checkMetadata, lvl, key(child(path, 'properties'), 'metadata')));
  if (x.xEmbeddedResource && !x.xPreserveUnknownFields && Object.keys(props).length === 0) {
    errs.push(required(child(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return errs;
}

function metadataInvariants(s: Structural, checkMetadata: boolean, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && s.type !== 'object') errs.push(invalid(child(path, 'type'), s.type, 'must be object'));
  if (lvl === 'root') {
    const names = sortedKeys(s.properties);
    const onlyNames = names.length > 0 && names.every((n) => n === 'name' || n === 'generateName');
    // Everything but the type, the default (checked elsewhere) and name/generateName properties must be unset.
    const rest =
      (!onlyNames && s.properties !== undefined) || !!s.items || !!s.additionalProperties || !!s.description || !!s.title || s.nullable ||
      !isEmptyExtensions(s.extensions) || s.xValidations.length > 0 || !isEmptyValueValidation(s.valueValidation);
    if (rest) errs.push(forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
  return errs;
}

function valueValidation(v: ValueValidation | undefined, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string): FieldError[] {
  if (!v) return [];
  const errs: FieldError[] = [];
  if (!skipAnyOf) (v.anyOf ?? []).forEach((n, i) => errs.push(...nested(n, false, lvl, index(child(path, 'anyOf'), i))));
  (v.allOf ?? []).forEach((n, i) => errs.push(...nested(n, skipFirstAllOfAnyOf && i === 0, lvl, index(child(path, 'allOf'), i))));
  (v.oneOf ?? []).forEach((n, i) => errs.push(...nested(n, false, lvl, index(child(path, 'oneOf'), i))));
  if (v.not) errs.push(...nested(v.not, false, lvl, child(path, 'not')));
  if (v.pattern) {
    const why = re2Error(v.pattern);
    if (why) errs.push(invalid(child(path, 'pattern'), v.pattern, `must be a valid regular expression, but isn't: ${why}`));
  }
  return errs;
}

/** Go regexp.Compile's error for an invalid RE2 pattern; undefined when valid (or valid but unsupported here). */
export function re2Error(pattern: string): string | undefined {
  try {
    compileRe2(pattern);
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    if (!(err instanceof RegexError) || /by this server/.test(message)) return undefined;
    return message;
  }
}

function nested(v: NestedValueValidation, skipAnyOf: boolean, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...valueValidation(v.valueValidation, skipAnyOf, false, lvl, path));
  if (v.items) errs.push(...nested(v.items, false, lvl, child(path, 'items')));
  for (const k of sortedKeys(v.properties)) errs.push(...nested(v.properties![k], false, 'field', key(child(path, 'properties'), k)));
  const g = v.forbiddenGenerics;
  const x = v.forbiddenExtensions;
  if (g.type) errs.push(forbidden(child(path, 'type'), 'must be empty to be structural'));
  if (v.additionalProperties) errs.push(forbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  if (g.default !== undefined) errs.push(forbidden(child(path, 'default'), 'must be undefined to be structural'));
  if (g.title) errs.push(forbidden(child(path, 'title'), 'must be empty to be structural'));
  if (g.description) errs.push(forbidden(child(path, 'description'), 'must be empty to be structural'));
  if (g.nullable) errs.push(forbidden(child(path, 'nullable'), 'must be false to be structural'));
  if (x.xPreserveUnknownFields) errs.push(forbidden(child(path, 'x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'));
  if (x.xEmbeddedResource) errs.push(forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must be false to be structural'));
  if (x.xIntOrString) errs.push(forbidden(child(path, 'x-kubernetes-int-or-string'), 'must be false to be structural'));
  if ((x.xListMapKeys?.length ?? 0) > 0) errs.push(forbidden(child(path, 'x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  if (x.xListType !== undefined) errs.push(forbidden(child(path, 'x-kubernetes-list-type'), 'must be undefined to be structural'));
  if (x.xMapType !== undefined) errs.push(forbidden(child(path, 'x-kubernetes-map-type'), 'must be undefined to be structural'));
  if (v.xValidations.length > 0) errs.push(forbidden(child(path, 'x-kubernetes-validations'), 'must be empty to be structural'));
  if (v.properties?.metadata) errs.push(forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  return errs;
}

/** Upstream validateStructuralCompleteness: value validations only where the structure is specified. */
function completeness(v: ValueValidation | undefined, s: Structural | undefined, sPath: string, vPath: string): FieldError[] {
  if (!v) return [];
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const errs: FieldError[] = [];
  if (v.not) errs.push(...nestedCompleteness(v.not, s, sPath, child(vPath, 'not')));
  for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
    (v[junctor] ?? []).forEach((n, i) => errs.push(...nestedCompleteness(n, s, sPath, index(child(vPath, junctor), i))));
  }
  return errs;
}

function nestedCompleteness(v: NestedValueValidation | undefined, s: Structural | undefined, sPath: string, vPath: string): FieldError[] {
  if (!v) return [];
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const errs = [...completeness(v.valueValidation, s, sPath, vPath), ...nestedCompleteness(v.items, s.items, child(sPath, 'items'), child(vPath, 'items'))];
  for (const k of sortedKeys(v.properties)) {
    const sub = s.properties?.[k];
    if (!sub) errs.push(required(key(child(sPath, 'properties'), k), `because it is defined in ${key(child(vPath, 'properties'), k)}`));
    else errs.push(...nestedCompleteness(v.properties![k], sub, key(child(sPath, 'properties'), k), key(child(vPath, 'properties'), k)));
  }
  return errs;
}
