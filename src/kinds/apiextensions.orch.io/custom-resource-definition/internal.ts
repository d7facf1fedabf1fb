/**
 * The internal form of a v1 CustomResourceDefinitionSpec that upstream
 * validates (SPEC 9.7; apiextensions-apiserver pkg/apis/apiextensions/v1/
 * conversion.go `Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_...`):
 * per-version schema, subresources, printer columns and selectable fields that
 * are the same in every version move to the top level, which is why errors of
 * a single-version CRD name `spec.validation.openAPIV3Schema...`. Also the Go
 * `%#v` renderings upstream prints for struct values in error messages.
 */
import { goRepr, type GoRepr } from '../../../registry/validation/field-errors.ts';
import { goQuote } from '../../../util/go-print.ts';

export interface InternalVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Record<string, any> };
  subresources?: Record<string, any>;
  additionalPrinterColumns?: any[];
  selectableFields?: any[];
}

export interface InternalConversion {
  strategy: string;
  webhookClientConfig?: Record<string, any>;
  conversionReviewVersions?: string[];
}

export interface InternalSpec {
  group: string;
  names: Record<string, any>;
  scope: string;
  version: string;
  versions?: InternalVersion[];
  validation?: { openAPIV3Schema?: Record<string, any> };
  subresources?: Record<string, any>;
  additionalPrinterColumns?: any[];
  selectableFields?: any[];
  conversion?: InternalConversion;
  preserveUnknownFields: boolean;
}

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** apiequality.Semantic.DeepEqual on decoded JSON: an empty list equals a missing one. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  const emptyList = (v: unknown) => v === undefined || (Array.isArray(v) && v.length === 0);
  if (emptyList(a) && emptyList(b)) return true;
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

function internalVersion(v: any): InternalVersion {
  const out: InternalVersion = { name: str(v?.name), served: v?.served === true, storage: v?.storage === true, deprecated: v?.deprecated === true };
  if (typeof v?.deprecationWarning === 'string') out.deprecationWarning = v.deprecationWarning;
  if (isObject(v?.schema)) out.schema = v.schema;
  if (isObject(v?.subresources)) out.subresources = v.subresources;
  if (Array.isArray(v?.additionalPrinterColumns)) out.additionalPrinterColumns = v.additionalPrinterColumns;
  if (Array.isArray(v?.selectableFields)) out.selectableFields = v.selectableFields;
  return out;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The v1 spec in upstream's internal form. */
export function toInternalSpec(spec: any): InternalSpec {
  const s = isObject(spec) ? spec : {};
  const out: InternalSpec = {
    group: str(s.group),
    names: isObject(s.names) ? s.names : {},
    scope: str(s.scope),
    version: '',
    preserveUnknownFields: s.preserveUnknownFields === true,
  };
  if (isObject(s.conversion)) {
    const c: InternalConversion = { strategy: str(s.conversion.strategy) };
    const webhook = s.conversion.webhook;
    if (isObject(webhook)) {
      if (Array.isArray(webhook.conversionReviewVersions)) c.conversionReviewVersions = webhook.conversionReviewVersions;
      if (isObject(webhook.clientConfig)) c.webhookClientConfig = webhook.clientConfig;
    }
    out.conversion = c;
  }
  if (!Array.isArray(s.versions)) return out;
  const versions = s.versions.map(internalVersion);
  out.versions = versions;
  if (versions.length === 0) return out;
  out.version = versions[0].name;
  const hoist = <K extends 'schema' | 'subresources' | 'additionalPrinterColumns' | 'selectableFields'>(field: K, top: 'validation' | K) => {
    const first = versions[0][field];
    if (!versions.every((v) => semanticEqual(v[field], first))) return;
    if (first !== undefined) (out as any)[top] = first;
    for (const v of versions) delete v[field];
  };
  hoist('subresources', 'subresources');
  hoist('schema', 'validation');
  hoist('additionalPrinterColumns', 'additionalPrinterColumns');
  hoist('selectableFields', 'selectableFields');
  return out;
}

const ADDRESS = '0xc000000000';
const ptr = (type: string, set: boolean) => `(*${type})(${set ? ADDRESS : 'nil'})`;

function columnRepr(c: any): string {
  return `apiextensions.CustomResourceColumnDefinition{Name:${goQuote(str(c?.name))}, Type:${goQuote(str(c?.type))}, Format:${goQuote(str(c?.format))}, Description:${goQuote(str(c?.description))}, Priority:${typeof c?.priority === 'number' ? c.priority : 0}, JSONPath:${goQuote(str(c?.jsonPath))}}`;
}

function sliceRepr<T>(type: string, list: T[] | undefined, item: (x: T) => string): string {
  return list === undefined ? `[]${type}(nil)` : `[]${type}{${list.map(item).join(', ')}}`;
}

/** Go `%#v` of an internal `[]apiextensions.CustomResourceDefinitionVersion`. */
export function versionsRepr(versions: InternalVersion[] | undefined): GoRepr {
  return goRepr(
    sliceRepr('apiextensions.CustomResourceDefinitionVersion', versions, (v) =>
      `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(v.name)}, Served:${v.served}, Storage:${v.storage}, Deprecated:${v.deprecated}, ` +
      `DeprecationWarning:${ptr('string', v.deprecationWarning !== undefined)}, Schema:${ptr('apiextensions.CustomResourceValidation', !!v.schema)}, ` +
      `Subresources:${ptr('apiextensions.CustomResourceSubresources', !!v.subresources)}, ` +
      `AdditionalPrinterColumns:${sliceRepr('apiextensions.CustomResourceColumnDefinition', v.additionalPrinterColumns, columnRepr)}, ` +
      `SelectableFields:${sliceRepr('apiextensions.SelectableField', v.selectableFields, (f: any) => `apiextensions.SelectableField{JSONPath:${goQuote(str(f?.jsonPath))}}`)}}`,
    ),
  );
}

/**
 * The fields of the internal JSONSchemaProps in declaration order: Go name,
 * v1 JSON name and how `%#v` prints it.
 */
export const SCHEMA_FIELDS: Array<[go: string, json: string, kind: string]> = [
  ['ID', 'id', 'string'], ['Schema', '$schema', 'url'], ['Ref', '$ref', '*string'], ['Description', 'description', 'string'], ['Type', 'type', 'string'],
  ['Nullable', 'nullable', 'bool'], ['Format', 'format', 'string'], ['Title', 'title', 'string'], ['Default', 'default', '*apiextensions.JSON'],
  ['Maximum', 'maximum', '*float64'], ['ExclusiveMaximum', 'exclusiveMaximum', 'bool'], ['Minimum', 'minimum', '*float64'], ['ExclusiveMinimum', 'exclusiveMinimum', 'bool'],
  ['MaxLength', 'maxLength', '*int64'], ['MinLength', 'minLength', '*int64'], ['Pattern', 'pattern', 'string'], ['MaxItems', 'maxItems', '*int64'], ['MinItems', 'minItems', '*int64'],
  ['UniqueItems', 'uniqueItems', 'bool'], ['MultipleOf', 'multipleOf', '*float64'], ['Enum', 'enum', '[]apiextensions.JSON'], ['MaxProperties', 'maxProperties', '*int64'],
  ['MinProperties', 'minProperties', '*int64'], ['Required', 'required', '[]string'], ['Items', 'items', '*apiextensions.JSONSchemaPropsOrArray'],
  ['AllOf', 'allOf', '[]apiextensions.JSONSchemaProps'], ['OneOf', 'oneOf', '[]apiextensions.JSONSchemaProps'], ['AnyOf', 'anyOf', '[]apiextensions.JSONSchemaProps'],
  ['Not', 'not', '*apiextensions.JSONSchemaProps'], ['Properties', 'properties', 'map[string]apiextensions.JSONSchemaProps'],
  ['AdditionalProperties', 'additionalProperties', '*apiextensions.JSONSchemaPropsOrBool'], ['PatternProperties', 'patternProperties', 'map[string]apiextensions.JSONSchemaProps'],
  ['Dependencies', 'dependencies', 'apiextensions.JSONSchemaDependencies'], ['AdditionalItems', 'additionalItems', '*apiextensions.JSONSchemaPropsOrBool'],
  ['Definitions', 'definitions', 'apiextensions.JSONSchemaDefinitions'], ['ExternalDocs', 'externalDocs', '*apiextensions.ExternalDocumentation'], ['Example', 'example', '*apiextensions.JSON'],
  ['XPreserveUnknownFields', 'x-kubernetes-preserve-unknown-fields', '*bool'], ['XEmbeddedResource', 'x-kubernetes-embedded-resource', 'bool'],
  ['XIntOrString', 'x-kubernetes-int-or-string', 'bool'], ['XListMapKeys', 'x-kubernetes-list-map-keys', '[]string'], ['XListType', 'x-kubernetes-list-type', '*string'],
  ['XMapType', 'x-kubernetes-map-type', '*string'], ['XValidations', 'x-kubernetes-validations', 'apiextensions.ValidationRules'],
];

/** Whether a field of the internal JSONSchemaProps holds its Go zero value. */
export function isZeroField(s: Record<string, any>, json: string, kind: string): boolean {
  const v = s[json];
  if (v === undefined || v === null) return true;
  if (kind === 'string' || kind === 'url') return v === '';
  if (kind === 'bool') return v !== true;
  // Pointers, slices and maps are non-zero once present, even when empty (reflect.DeepEqual).
  return false;
}

/** Go `%#v` of an internal JSONSchemaProps, pointers shown as addresses. */
export function schemaRepr(s: Record<string, any>): GoRepr {
  const parts = SCHEMA_FIELDS.map(([go, json, kind]) => {
    const v = s[json];
    const zero = isZeroField(s, json, kind);
    if (kind === 'string' || kind === 'url') return `${go}:${goQuote(str(v))}`;
    if (kind === 'bool') return `${go}:${v === true}`;
    if (kind.startsWith('*')) return `${go}:${ptr(kind.slice(1), !zero)}`;
    if (kind.startsWith('[]string')) return `${go}:${Array.isArray(v) ? `[]string{${v.map((x: unknown) => goQuote(String(x))).join(', ')}}` : '[]string(nil)'}`;
    if (kind.startsWith('[]') || kind.startsWith('map[') || kind.startsWith('apiextensions.')) {
      return `${go}:${kind}${zero ? '(nil)' : `{${Array.isArray(v) ? v.map(() => '...').join(', ') : '...'}}`}`;
    }
    return `${go}:${goQuote(String(v))}`;
  });
  return goRepr(`apiextensions.JSONSchemaProps{${parts.join(', ')}}`);
}

/** Go `%#v` of an internal apiextensions.ValidationRule, as upstream prints a rule that does not compile. */
export function validationRuleRepr(r: any): GoRepr {
  return goRepr(
    `apiextensions.ValidationRule{Rule:${goQuote(str(r?.rule))}, Message:${goQuote(str(r?.message))}, MessageExpression:${goQuote(str(r?.messageExpression))}, ` +
      `Reason:${ptr('apiextensions.FieldValueErrorReason', typeof r?.reason === 'string')}, FieldPath:${goQuote(str(r?.fieldPath))}, OptionalOldSelf:${ptr('bool', typeof r?.optionalOldSelf === 'boolean')}}`,
  );
}
