/**
 * Validation of a CRD version's openAPIV3Schema (SPEC 9.7; upstream
 * apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go
 * `validateCustomResourceDefinitionValidation`,
 * `ValidateCustomResourceDefinitionOpenAPISchema` and `specStandardValidatorV3`):
 * the OpenAPI v3 subset a CRD may use, list and map types, the root under a
 * status subresource, then the structural rules and the default values.
 *
 * x-kubernetes-validations rules are checked for shape (rule, message,
 * messageExpression, reason, fieldPath) here, then compiled where the schema
 * has no errors (validate-cel.ts).
 */
import { child, forbidden, goStringSlice, index, invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { additionalPropertiesOf, dependenciesOf, itemsOf, schemaList, schemaMap, type JSONSchemaProps } from '../../../registry/schema/json-schema-props.ts';
import { newStructural, StructuralSchemaError } from '../../../registry/schema/structural.ts';
import { key, validateStructural } from '../../../registry/schema/structural-validation.ts';
import { validFieldPath } from '../../../registry/schema/field-path.ts';
import { isZeroField, SCHEMA_FIELDS, schemaRepr } from './internal.ts';
import { validateDefaults } from './validate-defaults.ts';
import { CelSchemaContext, ruleCompilationErrors, totalCostErrors } from './validate-cel.ts';
import { mapIsCorrelatable } from '../../../registry/schema/cel-validate.ts';

export interface SchemaOptions {
  allowDefaults: boolean;
  requireValidPropertyType: boolean;
  requireStructuralSchema: boolean;
  requirePrunedDefaults: boolean;
  requireAtomicSetType: boolean;
  requireMapListKeysMapSetValidation: boolean;
  /** Versions whose schema an update leaves as it was (upstream versionsWithUnchangedSchemas). */
  versionsWithUnchangedSchemas?: ReadonlySet<string>;
  /** The per-expression cost limit is not enforced (a version whose schema is unchanged); the schema's total is. */
  suppressPerExpressionCost?: boolean;
}

/** Upstream suppressExpressionCostForUnchangedSchema. */
export function suppressExpressionCostForUnchangedSchema<T extends SchemaOptions>(opts: T, version: string | undefined): T {
  return version !== undefined && opts.versionsWithUnchangedSchemas?.has(version) ? { ...opts, suppressPerExpressionCost: true } : opts;
}

interface Ssv {
  /** The path below which old values cannot be correlated (a list that is not a map list), where oldSelf is refused. */
  uncorrelatable?: string;
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
  requireValidPropertyType: boolean;
}

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const ALLOWED_AT_ROOT = ['Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations'];
const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const hasNewlines = (s: string) => /[\n\r]/.test(s);
const goTrim = (s: string) => s.replace(/^[\s\u0085\u00a0]+|[\s\u0085\u00a0]+$/gu, '');

/** Upstream validateCustomResourceDefinitionValidation for one `{openAPIV3Schema}` at `path`. */
export function validateCRDValidation(validation: { openAPIV3Schema?: JSONSchemaProps } | undefined, statusEnabled: boolean, opts: SchemaOptions, path: string): FieldError[] {
  const schema = validation?.openAPIV3Schema;
  if (!schema) return [];
  const errs: FieldError[] = [];
  if (statusEnabled) {
    for (const [go, json, kind] of SCHEMA_FIELDS) {
      if (isZeroField(schema, json, kind)) continue;
      if (go === 'Type') {
        if (schema.type !== 'object') {
          errs.push(invalid(child(path, 'openAPIV3Schema.type'), schema.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
          break;
        }
        continue;
      }
      if (!ALLOWED_AT_ROOT.includes(go)) {
        errs.push(invalid(child(path, 'openAPIV3Schema'), schemaRepr(schema), `only [${ALLOWED_AT_ROOT.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`));
        break;
      }
    }
  }
  if (schema.nullable === true) errs.push(forbidden(child(path, 'openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));
  const ssv: Ssv = { allowDefaults: opts.allowDefaults, disallowDefaultsReason: '', insideResourceMeta: false, requireValidPropertyType: opts.requireValidPropertyType };
  const schemaPath = child(path, 'openAPIV3Schema');
  const initErrs: FieldError[] = [];
  // Rules compile only over a valid structural schema with valid defaults (upstream: a nil CELSchemaContext otherwise).
  let cel: CelSchemaContext | undefined;
  if (opts.requireStructuralSchema) {
    try {
      const ss = newStructural(schema);
      const structural = validateStructural(schemaPath, ss);
      const defaults = structural.length > 0 ? [] : validateDefaults(schemaPath, ss, opts.requirePrunedDefaults);
      errs.push(...structural, ...defaults);
      if (structural.length === 0 && defaults.length === 0) cel = CelSchemaContext.root(schema);
    } catch (err) {
      if (!(err instanceof StructuralSchemaError)) throw err;
      initErrs.push(invalid(schemaPath, '', err.message));
    }
  }
  // Schema errors first, then the rules' (upstream OpenAPISchemaErrorList.AllErrors).
  const celErrs: FieldError[] = [];
  errs.push(...validateOpenAPISchema(schema, schemaPath, ssv, true, opts, cel, celErrs), ...celErrs);
  if (errs.length === 0) errs.push(...initErrs);
  if (cel) errs.push(...totalCostErrors(cel, schemaPath));
  return errs;
}

/**
 * Upstream ValidateCustomResourceDefinitionOpenAPISchema: the schema errors of
 * the node and its descendants are returned; the rules' errors (validate-cel.ts),
 * checked only where the node and its descendants have no schema error, are
 * collected in `celErrs`.
 */
function validateOpenAPISchema(schema: JSONSchemaProps | undefined, path: string, ssv: Ssv, isRoot: boolean, opts: SchemaOptions, cel: CelSchemaContext | undefined, celErrs: FieldError[]): FieldError[] {
  if (!schema) return [];
  const errs = standardErrors(schema, path, ssv);
  if (schema.uniqueItems === true) errs.push(forbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const properties = schemaMap(schema.properties);
  const ap = additionalPropertiesOf(schema);
  if (ap) {
    if (properties.length > 0 && (!ap.allows || ap.schema)) errs.push(forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    const sub = ssv.insideResourceMeta ? withForbiddenDefaults(ssv, 'inside additionalProperties applying to object metadata') : ssv;
    errs.push(...validateOpenAPISchema(ap.schema, child(path, 'additionalProperties'), sub, false, opts, cel?.childAdditionalProperties(ap.schema), celErrs));
  }
  for (const [name, prop] of properties) {
    let sub = ssv;
    if (!mapIsCorrelatable(typeof schema['x-kubernetes-map-type'] === 'string' ? schema['x-kubernetes-map-type'] : undefined)) sub = withUncorrelatable(sub, path);
    if ((isRoot || schema['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = withForbiddenDefaults(sub, `in top-level ${name}`);
    }
    errs.push(...validateOpenAPISchema(prop, key(child(path, 'properties'), name), sub, false, opts, cel?.childProperty(prop, name), celErrs));
  }
  if (schema.not && typeof schema.not === 'object') errs.push(...validateOpenAPISchema(schema.not, child(path, 'not'), ssv, false, opts, undefined, celErrs));
  for (const junctor of ['allOf', 'oneOf', 'anyOf']) {
    schemaList(schema[junctor]).forEach((x, i) => errs.push(...validateOpenAPISchema(x, index(child(path, junctor), i), ssv, false, opts, undefined, celErrs)));
  }
  for (const [name, def] of schemaMap(schema.definitions)) errs.push(...validateOpenAPISchema(def, key(child(path, 'definitions'), name), ssv, false, opts, undefined, celErrs));
  const items = itemsOf(schema);
  if (items) {
    // Old items correlate to new ones in map lists only (sets are not correlated for rules).
    const sub = schema['x-kubernetes-list-type'] === 'map' ? ssv : withUncorrelatable(ssv, path);
    errs.push(...validateOpenAPISchema(items.schema, child(path, 'items'), sub, false, opts, cel?.childItems(items.schema), celErrs));
    (items.schemas ?? []).forEach((x, i) => errs.push(...validateOpenAPISchema(x, index(child(path, 'items'), i), sub, false, opts, cel?.childItems(x), celErrs)));
  }
  for (const [name, dep] of Object.entries(dependenciesOf(schema) ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    errs.push(...validateOpenAPISchema(dep.schema, key(child(path, 'dependencies'), name), ssv, false, opts, undefined, celErrs));
  }
  errs.push(...listAndMapTypeErrors(schema, path, opts));
  errs.push(...validationRuleErrors(schema, path));
  if (errs.length === 0 && cel) celErrs.push(...ruleCompilationErrors(schema, path, cel, ssv.uncorrelatable, opts.suppressPerExpressionCost === true));
  return errs;
}

/** Upstream withForbidOldSelfValidations: the highest such path is kept. */
function withUncorrelatable(ssv: Ssv, path: string): Ssv {
  return ssv.uncorrelatable !== undefined ? ssv : { ...ssv, uncorrelatable: path };
}


function withForbiddenDefaults(ssv: Ssv, reason: string): Ssv {
  return { ...ssv, allowDefaults: false, disallowDefaultsReason: reason };
}

/** Upstream specStandardValidatorV3.validate. */
function standardErrors(schema: JSONSchemaProps, path: string, ssv: Ssv): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(schema.type);
  if (ssv.requireValidPropertyType && type && !OPENAPI_V3_TYPES.includes(type)) errs.push(notSupported(child(path, 'type'), type, OPENAPI_V3_TYPES));
  if (schema.default !== undefined && schema.default !== null && !ssv.allowDefaults) {
    errs.push(forbidden(child(path, 'default'), `must not be set${ssv.disallowDefaultsReason ? ' ' + ssv.disallowDefaultsReason : ''}`));
  }
  if (str(schema.id)) errs.push(forbidden(child(path, 'id'), 'id is not supported'));
  if (schema.additionalItems !== undefined && schema.additionalItems !== null) errs.push(forbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (schemaMap(schema.patternProperties).length > 0) errs.push(forbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  if (schemaMap(schema.definitions).length > 0) errs.push(forbidden(child(path, 'definitions'), 'definitions is not supported'));
  if (dependenciesOf(schema)) errs.push(forbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  if (typeof schema.$ref === 'string') errs.push(forbidden(child(path, '$ref'), '$ref is not supported'));
  if (type === 'null') errs.push(forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if ((itemsOf(schema)?.schemas?.length ?? 0) > 0) errs.push(forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (ssv.insideResourceMeta && schema['x-kubernetes-embedded-resource'] === true) errs.push(forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  return errs;
}

function listAndMapTypeErrors(schema: JSONSchemaProps, path: string, opts: SchemaOptions): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(schema.type);
  const preserve = schema['x-kubernetes-preserve-unknown-fields'];
  if (preserve === false) errs.push(invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  const mapType: string | undefined = typeof schema['x-kubernetes-map-type'] === 'string' ? schema['x-kubernetes-map-type'] : undefined;
  const listType: string | undefined = typeof schema['x-kubernetes-list-type'] === 'string' ? schema['x-kubernetes-list-type'] : undefined;
  const mapKeys: string[] = Array.isArray(schema['x-kubernetes-list-map-keys']) ? schema['x-kubernetes-list-map-keys'] : [];
  if (mapType !== undefined && type !== 'object') {
    if (!type) errs.push(required(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(invalid(child(path, 'type'), type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  const itemSchema = itemsOf(schema)?.schema;
  if (listType !== undefined && type !== 'array') {
    if (!type) errs.push(required(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(invalid(child(path, 'type'), type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (opts.requireAtomicSetType && listType === 'set' && itemSchema) {
    const itemListType = itemSchema['x-kubernetes-list-type'];
    if (itemSchema.type === 'array' && typeof itemListType === 'string' && itemListType !== 'atomic') {
      errs.push(invalid(child(child(path, 'items'), 'x-kubernetes-list-type'), itemListType, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    } else if (itemSchema.type === 'object' && itemSchema['x-kubernetes-map-type'] !== 'atomic') {
      // Upstream prints the item's list type here (a nil pointer, as an object item has none).
      errs.push(invalid(child(child(path, 'items'), 'x-kubernetes-map-type'), typeof itemListType === 'string' ? itemListType : null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) errs.push(notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  if (mapKeys.length > 0) {
    if (listType === undefined) errs.push(required(child(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(invalid(child(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  const items = itemsOf(schema);
  if (listType === 'map') {
    if (mapKeys.length === 0) errs.push(required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (!items) errs.push(required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (items && !items.schema) errs.push(invalid(child(path, 'items'), '', 'must only have a single schema if x-kubernetes-list-type is map'));
    if (itemSchema && itemSchema.type !== 'object') errs.push(invalid(child(child(path, 'items'), 'type'), str(itemSchema.type), "must be object if parent array's x-kubernetes-list-type is map"));
    if (itemSchema && itemSchema.type === 'object') {
      const seen = new Set<string>();
      const props = Object.fromEntries(schemaMap(itemSchema.properties));
      for (const k of mapKeys) {
        const prop = props[k];
        if (prop) {
          if (prop.type === 'array' || prop.type === 'object') errs.push(invalid(child(key(child(child(path, 'items'), 'properties'), k), 'type'), 'object', "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        } else errs.push(invalid(child(path, 'x-kubernetes-list-map-keys'), goQuoteListRepr(mapKeys), 'entries must all be names of item properties'));
        if (seen.has(k)) errs.push(invalid(child(path, 'x-kubernetes-list-map-keys'), goQuoteListRepr(mapKeys), 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  if (opts.requireMapListKeysMapSetValidation) errs.push(...mapListKeysMapSetErrors(schema, path));
  return errs;
}

const goQuoteListRepr = (keys: string[]) => goStringSlice(keys);

/** Upstream validateMapListKeysMapSet. */
export function mapListKeysMapSetErrors(schema: JSONSchemaProps, path: string): FieldError[] {
  const itemSchema = itemsOf(schema)?.schema;
  const listType = schema['x-kubernetes-list-type'];
  if (!itemSchema || (listType !== 'set' && listType !== 'map')) return [];
  const errs: FieldError[] = [];
  if (itemSchema.nullable === true) errs.push(forbidden(child(child(path, 'items'), 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType === 'map') {
    const requiredKeys = new Set(Array.isArray(itemSchema.required) ? itemSchema.required : []);
    const props = Object.fromEntries(schemaMap(itemSchema.properties));
    for (const k of Array.isArray(schema['x-kubernetes-list-map-keys']) ? schema['x-kubernetes-list-map-keys'] : []) {
      const prop = props[k];
      if (!prop) continue;
      const propPath = key(child(child(path, 'items'), 'properties'), k);
      if (!requiredKeys.has(k) && (prop.default === undefined || prop.default === null)) {
        errs.push(required(child(propPath, 'default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
      }
      if (prop.nullable === true) errs.push(forbidden(child(propPath, 'nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
    }
  }
  return errs;
}

/** The shape checks upstream makes on x-kubernetes-validations before compiling them. */
function validationRuleErrors(schema: JSONSchemaProps, path: string): FieldError[] {
  const rules = schema['x-kubernetes-validations'];
  if (!Array.isArray(rules)) return [];
  const errs: FieldError[] = [];
  rules.forEach((r: any, i: number) => {
    const p = index(child(path, 'x-kubernetes-validations'), i);
    const rule = str(r?.rule);
    const message = str(r?.message);
    const messageExpression = str(r?.messageExpression);
    const fieldPath = str(r?.fieldPath);
    const trimmedRule = goTrim(rule);
    const trimmedMsg = goTrim(message);
    if (!trimmedRule) errs.push(required(child(p, 'rule'), 'rule is not specified'));
    else if (message && !trimmedMsg) errs.push(invalid(child(p, 'message'), message, 'message must be non-empty if specified'));
    else if (hasNewlines(trimmedMsg)) errs.push(invalid(child(p, 'message'), message, 'message must not contain line breaks'));
    else if (hasNewlines(trimmedRule) && !trimmedMsg) errs.push(required(child(p, 'message'), 'message must be specified if rule contains line breaks'));
    if (messageExpression && !goTrim(messageExpression)) errs.push(required(child(p, 'messageExpression'), 'messageExpression must be non-empty if specified'));
    if (typeof r?.reason === 'string' && !SUPPORTED_REASONS.includes(r.reason)) errs.push(notSupported(child(p, 'reason'), r.reason, SUPPORTED_REASONS));
    if (fieldPath && !goTrim(fieldPath)) errs.push(invalid(child(p, 'fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    if (hasNewlines(fieldPath)) errs.push(invalid(child(p, 'fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
    if (fieldPath && !fieldPathValid(schema, fieldPath)) errs.push(invalid(child(p, 'fieldPath'), fieldPath, 'fieldPath must be a valid path'));
  });
  return errs;
}

/** Upstream pathValid: a schema that is not structural accepts any path. */
function fieldPathValid(schema: JSONSchemaProps, fieldPath: string): boolean {
  let ss;
  try {
    ss = newStructural(schema);
  } catch {
    return true;
  }
  try {
    validFieldPath(fieldPath, ss);
    return true;
  } catch {
    return false;
  }
}
