/**
 * The v1 JSONSchemaProps of a CustomResourceDefinition as the generated
 * decoder leaves it (SPEC 9.7): a plain JSON object whose `items`,
 * `additionalProperties`, `additionalItems` and `dependencies` values stay raw
 * JSON. These accessors read them the way upstream's custom unmarshallers do
 * (apiextensions v1 marshal.go: JSONSchemaPropsOrBool, ...OrArray,
 * ...OrStringArray), and `schemaHas` walks every nested schema as upstream
 * validation.SchemaHas does.
 */

/** A v1 JSONSchemaProps as decoded JSON. */
export type JSONSchemaProps = Record<string, any>;

/** A v1 ValidationRule (`x-kubernetes-validations` entry). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSONSchemaPropsOrArray: an object is one schema, an array a list of schemas. */
export function itemsOf(s: JSONSchemaProps): { schema?: JSONSchemaProps; schemas?: JSONSchemaProps[] } | undefined {
  const v = s.items;
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return { schemas: v.filter(isObject) };
  if (isObject(v)) return { schema: v };
  return undefined;
}

/** JSONSchemaPropsOrBool: `true`/`false`, or a schema (which allows). */
export function orBool(v: unknown): { allows: boolean; schema?: JSONSchemaProps } | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return { allows: v };
  if (isObject(v)) return { allows: true, schema: v };
  return undefined;
}

export const additionalPropertiesOf = (s: JSONSchemaProps) => orBool(s.additionalProperties);
export const additionalItemsOf = (s: JSONSchemaProps) => orBool(s.additionalItems);

/** JSONSchemaDependencies: each value a schema or a list of property names. */
export function dependenciesOf(s: JSONSchemaProps): Record<string, { schema?: JSONSchemaProps; property?: string[] }> | undefined {
  if (!isObject(s.dependencies)) return undefined;
  const out: Record<string, { schema?: JSONSchemaProps; property?: string[] }> = {};
  for (const [k, v] of Object.entries(s.dependencies)) {
    out[k] = Array.isArray(v) ? { property: v.map(String) } : isObject(v) ? { schema: v } : {};
  }
  return out;
}

/** A map of schemas (properties, patternProperties, definitions) in sorted key order (Go's maps have none). */
export function schemaMap(v: unknown): Array<[string, JSONSchemaProps]> {
  if (!isObject(v)) return [];
  return Object.keys(v)
    .sort()
    .map((k) => [k, isObject(v[k]) ? v[k] : {}] as [string, JSONSchemaProps]);
}

/** A list of schemas (allOf, anyOf, oneOf). */
export function schemaList(v: unknown): JSONSchemaProps[] {
  return Array.isArray(v) ? v.map((x) => (isObject(x) ? x : {})) : [];
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
export const bool = (v: unknown): boolean => v === true;
export const strList = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.map((x) => String(x)) : undefined);
export const optStr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function validationRules(v: unknown): ValidationRule[] {
  if (!Array.isArray(v)) return [];
  return v.map((r: any) => {
    const out: ValidationRule = { rule: str(r?.rule) };
    if (typeof r?.message === 'string') out.message = r.message;
    if (typeof r?.messageExpression === 'string') out.messageExpression = r.messageExpression;
    if (typeof r?.reason === 'string') out.reason = r.reason;
    if (typeof r?.fieldPath === 'string') out.fieldPath = r.fieldPath;
    if (typeof r?.optionalOldSelf === 'boolean') out.optionalOldSelf = r.optionalOldSelf;
    return out;
  });
}

/** Upstream SchemaHas: whether `pred` holds for `s` or any schema nested in it. */
export function schemaHas(s: JSONSchemaProps | undefined, pred: (s: JSONSchemaProps) => boolean): boolean {
  if (!s) return false;
  if (pred(s)) return true;
  const items = itemsOf(s);
  if (items?.schema && schemaHas(items.schema, pred)) return true;
  for (const x of items?.schemas ?? []) if (schemaHas(x, pred)) return true;
  for (const key of ['allOf', 'anyOf', 'oneOf']) for (const x of schemaList(s[key])) if (schemaHas(x, pred)) return true;
  if (isObject(s.not) && schemaHas(s.not, pred)) return true;
  for (const key of ['properties', 'patternProperties', 'definitions']) for (const [, x] of schemaMap(s[key])) if (schemaHas(x, pred)) return true;
  const ap = additionalPropertiesOf(s);
  if (ap?.schema && schemaHas(ap.schema, pred)) return true;
  const ai = additionalItemsOf(s);
  if (ai?.schema && schemaHas(ai.schema, pred)) return true;
  for (const d of Object.values(dependenciesOf(s) ?? {})) if (d.schema && schemaHas(d.schema, pred)) return true;
  return false;
}
