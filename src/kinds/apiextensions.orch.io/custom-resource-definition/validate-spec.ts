/**
 * Validation of a CustomResourceDefinition's spec (SPEC 9.7; upstream
 * apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go
 * `validateCustomResourceDefinitionSpec` and `...SpecUpdate`), on the internal
 * form of the spec (internal.ts): group, scope, versions, names, schemas,
 * subresources, printer columns, selectable fields and conversion.
 */
import { child, forbidden, index, invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isDNS1035Label, isDNS1123Subdomain } from '../../../api/names.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { notSupported } from '../../../registry/validation/field-errors.ts';
import { newStructural, StructuralSchemaError, type Structural } from '../../../registry/schema/structural.ts';
import { schemaHas, type JSONSchemaProps } from '../../../registry/schema/json-schema-props.ts';
import { semanticEqual, versionsRepr, type InternalSpec, type InternalVersion } from './internal.ts';
import { suppressExpressionCostForUnchangedSchema, validateCRDValidation, type SchemaOptions } from './validate-schema.ts';
import { deprecationWarningErrors, validateColumn, validateConversion, validateNames, validateSelectableFields, validateSubresources } from './validate-spec-parts.ts';

export interface SpecOptions extends SchemaOptions {
  requireRecognizedConversionReviewVersion: boolean;
  requireImmutableNames: boolean;
  requireOpenAPISchema: boolean;
  allowInvalidCABundle: boolean;
}

/** Upstream HasSchemaWith: whether any schema of the spec satisfies `pred` somewhere. */
export function hasSchemaWith(spec: InternalSpec, pred: (s: JSONSchemaProps) => boolean): boolean {
  if (spec.validation?.openAPIV3Schema && pred(spec.validation.openAPIV3Schema)) return true;
  return (spec.versions ?? []).some((v) => !!v.schema?.openAPIV3Schema && pred(v.schema.openAPIV3Schema));
}

const hasDefaults = (s: JSONSchemaProps) => schemaHas(s, (x) => x.default !== undefined && x.default !== null);
const hasKubernetesExtensions = (s: JSONSchemaProps) =>
  schemaHas(s, (x) =>
    x['x-kubernetes-embedded-resource'] === true || typeof x['x-kubernetes-preserve-unknown-fields'] === 'boolean' || x['x-kubernetes-int-or-string'] === true ||
    (Array.isArray(x['x-kubernetes-list-map-keys']) && x['x-kubernetes-list-map-keys'].length > 0) || typeof x['x-kubernetes-list-type'] === 'string' ||
    (Array.isArray(x['x-kubernetes-validations']) && x['x-kubernetes-validations'].length > 0),
  );

const hasStatus = (sub: Record<string, any> | undefined) => !!sub && sub.status !== undefined && sub.status !== null;
const perVersion = (versions: InternalVersion[], f: (v: InternalVersion) => boolean) => versions.some(f);
function identical(versions: InternalVersion[], get: (v: InternalVersion) => unknown, set: (x: unknown) => boolean): boolean {
  if (versions.length === 0) return false;
  const first = get(versions[0]);
  return versions.every((v) => set(get(v)) && semanticEqual(get(v), first));
}

function versionErrors(spec: InternalSpec, version: InternalVersion, path: string, opts: SpecOptions): FieldError[] {
  const errs: FieldError[] = [];
  for (const msg of deprecationWarningErrors(version.deprecated, version.deprecationWarning)) errs.push(invalid(child(path, 'deprecationWarning'), version.deprecationWarning ?? null, msg));
  const subresources = perVersion(spec.versions ?? [], (v) => !!v.subresources) ? version.subresources : spec.subresources;
  errs.push(...validateCRDValidation(version.schema, hasStatus(subresources), suppressExpressionCostForUnchangedSchema(opts, version.name), child(path, 'schema')));
  errs.push(...validateSubresources(version.subresources, child(path, 'subresources')));
  (version.additionalPrinterColumns ?? []).forEach((c, i) => errs.push(...validateColumn(c, index(child(path, 'additionalPrinterColumns'), i))));
  if ((version.selectableFields?.length ?? 0) > 0) {
    const schema = version.schema?.openAPIV3Schema;
    if (!schema) errs.push(invalid(child(path, 'selectableFields'), '', 'may only be set when `version.schema.openAPIV3Schema` is not included'));
    else errs.push(...selectableFieldErrors(version.selectableFields!, schema, child(path, 'schema.openAPIV3Schema'), child(path, 'selectableFields')));
  }
  return errs;
}

function selectableFieldErrors(fields: any[], schema: JSONSchemaProps, schemaPath: string, path: string): FieldError[] {
  let ss: Structural | undefined;
  const errs: FieldError[] = [];
  try {
    ss = newStructural(schema);
  } catch (err) {
    if (!(err instanceof StructuralSchemaError)) throw err;
    errs.push(invalid(schemaPath, '', err.message));
  }
  return [...errs, ...validateSelectableFields(fields, ss, path)];
}

/** Upstream validateCustomResourceDefinitionSpec. */
export function validateSpec(spec: InternalSpec, options: SpecOptions, path = 'spec'): FieldError[] {
  const opts = { ...options };
  const errs: FieldError[] = [];
  if (!spec.group) errs.push(required(child(path, 'group')));
  else if (isDNS1123Subdomain(spec.group).length > 0) errs.push(invalid(child(path, 'group'), spec.group, isDNS1123Subdomain(spec.group).join(',')));
  else if (spec.group.split('.').length < 2) errs.push(invalid(child(path, 'group'), spec.group, 'should be a domain with at least one dot'));
  if (!spec.scope) errs.push(required(child(path, 'scope')));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') errs.push(notSupported(child(path, 'scope'), spec.scope, ['Cluster', 'Namespaced']));
  if (!spec.preserveUnknownFields) opts.requireStructuralSchema = true;
  const versions = spec.versions ?? [];
  const versionsPath = child(path, 'versions');
  if (!spec.validation?.openAPIV3Schema) {
    versions.forEach((v, i) => {
      const schemaPath = child(child(index(versionsPath, i), 'schema'), 'openAPIV3Schema');
      if (opts.requireOpenAPISchema) {
        if (!v.schema?.openAPIV3Schema) errs.push(required(schemaPath, 'schemas are required'));
      } else if (!spec.preserveUnknownFields && v.served && !v.schema?.openAPIV3Schema) errs.push(required(schemaPath, 'because otherwise all fields are pruned'));
    });
  }
  if (opts.allowDefaults && hasSchemaWith(spec, hasDefaults)) {
    opts.requireStructuralSchema = true;
    if (spec.preserveUnknownFields) errs.push(invalid(child(path, 'preserveUnknownFields'), true, 'must be false in order to use defaults in the schema'));
  }
  if (hasSchemaWith(spec, hasKubernetesExtensions)) opts.requireStructuralSchema = true;

  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    if (v.storage) storageCount++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const msgs = isDNS1035Label(v.name);
    if (msgs.length > 0) errs.push(invalid(child(index(versionsPath, i), 'name'), v.name, msgs.join(',')));
    errs.push(...versionErrors(spec, v, index(versionsPath, i), opts));
  });
  if (spec.validation && perVersion(versions, (v) => !!v.schema)) errs.push(forbidden(child(path, 'validation'), 'top-level and per-version schemas are mutually exclusive'));
  if (spec.subresources && perVersion(versions, (v) => !!v.subresources)) errs.push(forbidden(child(path, 'subresources'), 'top-level and per-version subresources are mutually exclusive'));
  if ((spec.additionalPrinterColumns?.length ?? 0) > 0 && perVersion(versions, (v) => (v.additionalPrinterColumns?.length ?? 0) > 0)) {
    errs.push(forbidden(child(path, 'additionalPrinterColumns'), 'top-level and per-version additionalPrinterColumns are mutually exclusive'));
  }
  const all = versionsRepr(spec.versions);
  if (identical(versions, (v) => v.schema, (x) => x !== undefined)) errs.push(invalid(versionsPath, all, 'per-version schemas may not all be set to identical values (top-level validation should be used instead)'));
  if (identical(versions, (v) => v.subresources, (x) => x !== undefined)) errs.push(invalid(versionsPath, all, 'per-version subresources may not all be set to identical values (top-level subresources should be used instead)'));
  if (identical(versions, (v) => v.additionalPrinterColumns, (x) => Array.isArray(x) && x.length > 0)) {
    errs.push(invalid(versionsPath, all, 'per-version additionalPrinterColumns may not all be set to identical values (top-level additionalPrinterColumns should be used instead)'));
  }
  if (!unique) errs.push(invalid(versionsPath, all, 'must contain unique version names'));
  if (storageCount !== 1) errs.push(invalid(versionsPath, all, 'must have exactly one version marked as storage version'));
  if (spec.version) {
    const msgs = isDNS1035Label(spec.version);
    if (msgs.length > 0) errs.push(invalid(child(path, 'version'), spec.version, msgs.join(',')));
    if (versions.length >= 1 && versions[0].name !== spec.version) errs.push(invalid(child(path, 'version'), spec.version, 'must match the first version in spec.versions'));
  }
  const names = spec.names;
  for (const field of ['plural', 'singular', 'kind', 'listKind']) if (!names[field]) errs.push(required(child(child(path, 'names'), field)));
  errs.push(...validateNames(names, child(path, 'names')));
  const anyStatus = hasStatus(spec.subresources) || versions.some((v) => hasStatus(v.subresources));
  errs.push(...validateCRDValidation(spec.validation, anyStatus, suppressExpressionCostForUnchangedSchema(opts, spec.version), child(path, 'validation')));
  errs.push(...validateSubresources(spec.subresources, child(path, 'subresources')));
  (spec.additionalPrinterColumns ?? []).forEach((c, i) => errs.push(...validateColumn(c, index(child(path, 'additionalPrinterColumns'), i))));
  if ((spec.selectableFields?.length ?? 0) > 0) {
    if (!spec.validation) errs.push(invalid(child(path, 'selectableFields'), '', 'may only be set when validations.schema is included'));
    else errs.push(...selectableFieldErrors(spec.selectableFields!, spec.validation.openAPIV3Schema ?? {}, child(path, 'schema.openAPIV3Schema'), child(path, 'selectableFields')));
  }
  if (spec.conversion && spec.conversion.strategy !== 'None' && spec.preserveUnknownFields) {
    errs.push(invalid(child(child(path, 'conversion'), 'strategy'), spec.conversion.strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  errs.push(...validateConversion(spec.conversion, opts.requireRecognizedConversionReviewVersion, opts.allowInvalidCABundle, child(path, 'conversion')));
  return errs;
}

/** Upstream validateCustomResourceDefinitionSpecUpdate. */
export function validateSpecUpdate(spec: InternalSpec, old: InternalSpec, opts: SpecOptions, path = 'spec'): FieldError[] {
  const errs = validateSpec(spec, opts, path);
  const immutable = (now: string, before: string, field: string) => {
    if (now !== before) errs.push(invalid(child(path, field), now, FIELD_IMMUTABLE));
  };
  if (opts.requireImmutableNames) {
    immutable(spec.scope, old.scope, 'scope');
    immutable(String(spec.names.kind ?? ''), String(old.names.kind ?? ''), 'names.kind');
  }
  immutable(spec.group, old.group, 'group');
  immutable(String(spec.names.plural ?? ''), String(old.names.plural ?? ''), 'names.plural');
  return errs;
}
