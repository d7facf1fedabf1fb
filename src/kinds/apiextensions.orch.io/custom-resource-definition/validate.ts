/**
 * CustomResourceDefinition validation (SPEC 9.7; upstream apiextensions-apiserver
 * pkg/apis/apiextensions/validation/validation.go `ValidateCustomResourceDefinition`,
 * `ValidateCustomResourceDefinitionUpdate`, `ValidateUpdateCustomResourceDefinitionStatus`):
 * the name `<plural>.<group>`, the spec (validate-spec.ts), status.acceptedNames,
 * status.storedVersions, API approval of protected groups and
 * spec.preserveUnknownFields. ObjectMeta's generic rules are the store's.
 *
 * On update, checks that would reject what an older server accepted are relaxed
 * when the stored object already breaks them, as upstream's options do.
 */
import { child, forbidden, goRepr, goStringSlice, index, invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { nestingDepth } from '../../../registry/json-value.ts';
import { parseRequestUri } from '../../../cel/go-url.ts';
import { newStructural } from '../../../registry/schema/structural.ts';
import { validateStructural } from '../../../registry/schema/structural-validation.ts';
import { prune } from '../../../registry/schema/prune.ts';
import { itemsOf, schemaHas, type JSONSchemaProps } from '../../../registry/schema/json-schema-props.ts';
import { semanticEqual, toInternalSpec, type InternalSpec } from './internal.ts';
import { hasSchemaWith, validateSpec, validateSpecUpdate, type SpecOptions } from './validate-spec.ts';
import { mapListKeysMapSetErrors } from './validate-schema.ts';
import { caBundleError, hasValidConversionReviewVersionOrEmpty, validateNames } from './validate-spec-parts.ts';
import type { ApiObject } from '../../../registry/strategy.ts';

export const API_APPROVED_ANNOTATION = 'api-approved.orch.io';
const OPENAPI_V3_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

const CREATE_OPTIONS: SpecOptions = {
  allowDefaults: true,
  requireRecognizedConversionReviewVersion: true,
  requireImmutableNames: false,
  requireOpenAPISchema: true,
  requireValidPropertyType: true,
  requireStructuralSchema: true,
  requirePrunedDefaults: true,
  requireAtomicSetType: true,
  requireMapListKeysMapSetValidation: true,
  allowInvalidCABundle: true,
};

/** The name rule upstream adds to ObjectMeta validation: DNS subdomain is the store's, this is the rest. */
function nameErrors(crd: ApiObject): FieldError[] {
  const meta = crd.metadata ?? {};
  const wanted = `${crd.spec?.names?.plural ?? ''}.${crd.spec?.group ?? ''}`;
  const errs: FieldError[] = [];
  const detail = 'must be spec.names.plural+"."+spec.group';
  if (typeof meta.generateName === 'string' && meta.generateName && meta.generateName !== wanted) errs.push(invalid('metadata.generateName', meta.generateName, detail));
  if (typeof meta.name === 'string' && meta.name && meta.name !== wanted) errs.push(invalid('metadata.name', meta.name, detail));
  return errs;
}

/** Upstream ValidateCustomResourceDefinitionStoredVersions. */
export function validateStoredVersions(storedVersions: string[] | undefined, spec: InternalSpec, path = 'status.storedVersions'): FieldError[] {
  const stored = storedVersions ?? [];
  const repr = storedVersions === undefined ? goRepr('[]string(nil)') : goStringSlice(stored);
  if (stored.length === 0) return [invalid(path, repr, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  stored.forEach((v, i) => remaining.set(v, i));
  for (const v of spec.versions ?? []) {
    const found = remaining.has(v.name);
    if (v.storage && !found) errs.push(invalid(path, repr, `must have the storage version ${v.name}`));
    if (found) remaining.delete(v.name);
  }
  for (const [v, i] of [...remaining].sort((a, b) => a[1] - b[1])) errs.push(invalid(index(path, i), v, 'must appear in spec.versions'));
  return errs;
}

/** Upstream validateAPIApproval for the neutral protected groups (`orch.io` and its subdomains). */
function apiApprovalErrors(crd: ApiObject, old: ApiObject | undefined): FieldError[] {
  const group = String(crd.spec?.group ?? '');
  if (!(group === 'orch.io' || group.endsWith('.orch.io'))) return [];
  const state = (annotations: any) => approvalState(String(annotations?.[API_APPROVED_ANNOTATION] ?? ''));
  const now = state(crd.metadata?.annotations);
  if (old && state(old.metadata?.annotations).state === now.state) return [];
  const path = `metadata.annotations[${API_APPROVED_ANNOTATION}]`;
  if (now.state === 'missing') return [required(path, now.reason)];
  if (now.state === 'invalid') return [invalid(path, String(crd.metadata?.annotations?.[API_APPROVED_ANNOTATION] ?? ''), now.reason)];
  return [];
}

function approvalState(annotation: string): { state: 'missing' | 'bypassed' | 'approved' | 'invalid'; reason: string } {
  if (!annotation) return { state: 'missing', reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111` };
  if (annotation.startsWith('unapproved')) return { state: 'bypassed', reason: `not approved: "${annotation}"` };
  try {
    const url = parseRequestUri(annotation);
    if (url.host && url.scheme) return { state: 'approved', reason: `approved in ${annotation}` };
  } catch {
    // falls through to invalid
  }
  return {
    state: 'invalid',
    reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
  };
}

/** Upstream validatePreserveUnknownFields. */
function preserveUnknownFieldsErrors(crd: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old?.spec?.preserveUnknownFields === true) return [];
  if (crd.spec?.preserveUnknownFields !== true) return [];
  return [invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

const statusErrors = (crd: ApiObject) => validateNames(crd.status?.acceptedNames ?? {}, 'status.acceptedNames');

/**
 * How deeply a version's schema may nest, in JSON objects and arrays (about
 * half as many schema levels). Upstream has no such bound: Go's stacks grow,
 * while the schema walks here (validation, the structural model, the
 * expression types, OpenAPI, defaulting on every write) recurse on a fixed
 * stack that a schema nested a few thousand levels deep would exhaust. Real
 * schemas nest a few dozen levels.
 */
export const MAX_SCHEMA_NESTING = 1000;

/** A schema nested past MAX_SCHEMA_NESTING: checked first, and alone, since every other check walks the schema. */
function schemaNestingErrors(spec: any): FieldError[] {
  const schemas: Array<[string, unknown]> = [['spec.validation.openAPIV3Schema', spec?.validation?.openAPIV3Schema]];
  if (Array.isArray(spec?.versions)) spec.versions.forEach((v: any, i: number) => schemas.push([child(index('spec.versions', i), 'schema.openAPIV3Schema'), v?.schema?.openAPIV3Schema]));
  return schemas.filter(([, s]) => nestingDepth(s) > MAX_SCHEMA_NESTING).map(([path]) => forbidden(path, `must not nest objects and arrays more than ${MAX_SCHEMA_NESTING} levels deep`));
}

/** Upstream ValidateCustomResourceDefinition. */
export function validateCRD(crd: ApiObject): FieldError[] {
  const tooDeep = schemaNestingErrors(crd.spec);
  if (tooDeep.length) return [...nameErrors(crd), ...tooDeep];
  const spec = toInternalSpec(crd.spec);
  return [
    ...nameErrors(crd),
    ...validateSpec(spec, CREATE_OPTIONS),
    ...statusErrors(crd),
    ...validateStoredVersions(crd.status?.storedVersions, spec),
    ...apiApprovalErrors(crd, undefined),
    ...preserveUnknownFieldsErrors(crd, undefined),
  ];
}

/** Whether the CRD has the condition `type` with status True. */
export function conditionTrue(crd: ApiObject, type: string): boolean {
  return (crd.status?.conditions ?? []).some((c: any) => c?.type === type && c?.status === 'True');
}

function isNonStructural(s: JSONSchemaProps): boolean {
  try {
    return validateStructural('', newStructural(s)).length > 0;
  } catch {
    return true;
  }
}

function hasUnprunedDefaults(s: JSONSchemaProps): boolean {
  if (!schemaHas(s, (x) => x.default !== undefined && x.default !== null)) return false;
  try {
    const ss = newStructural(s);
    if (validateStructural('', ss).length > 0) return false;
    return unpruned(ss);
  } catch {
    return false;
  }
}

function unpruned(s: ReturnType<typeof newStructural>): boolean {
  if (s.default !== undefined && typeof s.default === 'object' && s.default !== null) {
    const copy = structuredClone(s.default);
    if (prune(copy, s, s.extensions.xEmbeddedResource).length > 0) return true;
  }
  if (s.items && unpruned(s.items)) return true;
  return Object.values(s.properties ?? {}).some(unpruned);
}

function hasNonAtomicSetType(s: JSONSchemaProps): boolean {
  return schemaHas(s, (x) => {
    const items = itemsOf(x)?.schema;
    if (x['x-kubernetes-list-type'] !== 'set' || !items) return false;
    if (items.type === 'array') return typeof items['x-kubernetes-list-type'] === 'string' && items['x-kubernetes-list-type'] !== 'atomic';
    if (items.type === 'object') return items['x-kubernetes-map-type'] !== 'atomic';
    return false;
  });
}

/** Upstream allowInvalidCABundle: an unestablished CRD, or one whose stored bundle is invalid already. */
function allowInvalidCABundle(old: ApiObject): boolean {
  if (!conditionTrue(old, 'Established')) return true;
  const bundle = old.spec?.conversion?.webhook?.clientConfig?.caBundle;
  if (typeof bundle !== 'string' || !bundle) return false;
  return caBundleError(bundle) !== undefined;
}

/** Upstream GetSchemaForVersion: the top-level schema unless versions have their own; undefined when the version is not there. */
function schemaForVersion(spec: InternalSpec, version: string): { schema: unknown } | undefined {
  const versions = spec.versions ?? [];
  if (!versions.some((v) => v.schema)) return { schema: spec.validation };
  if (spec.validation) return undefined;
  const found = versions.find((v) => v.name === version);
  return found ? { schema: found.schema } : undefined;
}

/** Upstream findVersionsWithUnchangedSchemas: their rules' per-expression cost is not checked again. */
function versionsWithUnchangedSchemas(spec: InternalSpec, oldSpec: InternalSpec): Set<string> {
  const unchanged = new Set<string>();
  for (const version of spec.versions ?? []) {
    const now = schemaForVersion(spec, version.name);
    const before = schemaForVersion(oldSpec, version.name);
    if (now && before && semanticEqual(now.schema, before.schema)) unchanged.add(version.name);
  }
  return unchanged;
}

/** Upstream ValidateCustomResourceDefinitionUpdate with its ratcheting options. */
export function validateCRDUpdate(crd: ApiObject, old: ApiObject): FieldError[] {
  const tooDeep = schemaNestingErrors(crd.spec);
  if (tooDeep.length) return tooDeep;
  const spec = toInternalSpec(crd.spec);
  const oldSpec = toInternalSpec(old.spec);
  const allVersionsHaveSchema = !!oldSpec.validation?.openAPIV3Schema || (oldSpec.versions ?? []).every((v) => !!v.schema?.openAPIV3Schema);
  const opts: SpecOptions = {
    allowDefaults: true,
    requireRecognizedConversionReviewVersion: !oldSpec.conversion || hasValidConversionReviewVersionOrEmpty(oldSpec.conversion.conversionReviewVersions),
    requireImmutableNames: conditionTrue(old, 'Established'),
    requireOpenAPISchema: allVersionsHaveSchema,
    requireValidPropertyType: !hasSchemaWith(oldSpec, (s) => schemaHas(s, (x) => typeof x.type === 'string' && x.type !== '' && !OPENAPI_V3_TYPES.has(x.type))),
    requireStructuralSchema: !hasSchemaWith(oldSpec, isNonStructural),
    requirePrunedDefaults: !hasSchemaWith(oldSpec, hasUnprunedDefaults),
    requireAtomicSetType: !hasSchemaWith(oldSpec, hasNonAtomicSetType),
    requireMapListKeysMapSetValidation: !hasSchemaWith(oldSpec, (s) => schemaHas(s, (x) => mapListKeysMapSetErrors(x, '').length > 0)),
    allowInvalidCABundle: allowInvalidCABundle(old),
    versionsWithUnchangedSchemas: versionsWithUnchangedSchemas(spec, oldSpec),
  };
  return [
    ...validateSpecUpdate(spec, oldSpec, opts),
    ...statusErrors(crd),
    ...validateStoredVersions(crd.status?.storedVersions, spec),
    ...apiApprovalErrors(crd, old),
    ...preserveUnknownFieldsErrors(crd, old),
  ];
}

/** Upstream ValidateUpdateCustomResourceDefinitionStatus (ObjectMeta is the store's). */
export function validateCRDStatusUpdate(crd: ApiObject): FieldError[] {
  return statusErrors(crd);
}
