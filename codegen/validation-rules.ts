/**
 * The x-kubernetes-validations rules of a built-in kind's schema, checked when
 * the contract is generated as a CustomResourceDefinition's are when it is
 * written (SPEC 2.11, 8; upstream apiextensions-apiserver validation.go and
 * cel_validation.go): the node's subtree, its references resolved, must be a
 * structural schema whose rules compile, use oldSelf only where old values
 * correlate, and stay within the per-rule and per-schema cost limits.
 */
import { refName, type Schema } from './contract.ts';
import { validateCRDValidation } from '../src/kinds/apiextensions.orch.io/custom-resource-definition/validate-schema.ts';
import { fieldErrorText } from '../src/registry/validation/field-errors.ts';
import type { JSONSchemaProps } from '../src/registry/schema/json-schema-props.ts';

/** The keywords a rule's schema keeps: what its types, sizes (cost) and correlation read. */
const KEPT = [
  'type', 'format', 'description', 'default', 'required', 'enum', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'nullable',
  'x-kubernetes-validations', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type',
];

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A schema whose JSON is an int or a string (IntOrString) or a string or a number (Quantity): dyn to expressions. */
function isScalarUnion(node: Schema): boolean {
  if (node.format === 'int-or-string' || node['x-kubernetes-int-or-string'] === true) return true;
  return node.type === undefined && Array.isArray(node.oneOf) && node.oneOf.every((x: unknown) => isObject(x) && typeof x.type === 'string' && Object.keys(x).length === 1);
}

/** The subtree as one self-contained JSONSchemaProps: references inlined (a recursive one refused), defaults dropped. */
export function resolveSchema(node: Schema, schemas: Record<string, Schema>, where: string, trail: readonly string[] = []): JSONSchemaProps {
  const ref = refName(node);
  if (ref) {
    if (trail.includes(ref)) throw new Error(`${where}: a rule's schema may not be recursive (${[...trail, ref].join(' -> ')})`);
    return resolveSchema(schemas[ref], schemas, where, [...trail, ref]);
  }
  if (isScalarUnion(node)) {
    const out: JSONSchemaProps = { 'x-kubernetes-int-or-string': true };
    if (node['x-kubernetes-validations']) out['x-kubernetes-validations'] = structuredClone(node['x-kubernetes-validations']);
    return out;
  }
  const out: JSONSchemaProps = {};
  for (const key of KEPT) if (node[key] !== undefined) out[key] = structuredClone(node[key]);
  if (isObject(node.properties)) {
    out.properties = {};
    for (const [k, v] of Object.entries<Schema>(node.properties)) out.properties[k] = resolveSchema(v, schemas, `${where}.${k}`, trail);
  }
  if (isObject(node.items)) out.items = resolveSchema(node.items, schemas, `${where}[]`, trail);
  if (isObject(node.additionalProperties)) out.additionalProperties = resolveSchema(node.additionalProperties, schemas, `${where}{}`, trail);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (Array.isArray(node[key])) out[key] = node[key].map((x: Schema, i: number) => resolveSchema(x, schemas, `${where}.${key}[${i}]`, trail));
  }
  if (isObject(node.not)) out.not = resolveSchema(node.not, schemas, `${where}.not`, trail);
  return out;
}

/** Whether the node is a kind's root (its rules see apiVersion, kind and metadata, as a custom resource's root does). */
export const isKindRoot = (node: Schema): boolean => Array.isArray(node['x-kubernetes-group-version-kind']) && isObject(node.properties?.metadata);

/**
 * The node's schema for its rules, checked as a definition's schema is
 * (structural, rules compiled, cost within the limits). A kind's root keeps
 * only the metadata upstream shows a root's rules (name and generateName); any
 * other node is checked as the values of an unbounded map. Throws with the
 * definition's error texts.
 */
export function validateRuleSchema(node: Schema, where: string, schemas: Record<string, Schema>): JSONSchemaProps {
  const resolved = resolveSchema(node, schemas, where);
  const root = isKindRoot(node);
  if (root) resolved.properties.metadata = { type: 'object' };
  // A named schema may stand anywhere, inside any number of lists: its rules are costed as a custom
  // resource's are under a map without maxProperties (as many times as the request size allows), where old
  // values still correlate, as they do under the map lists and objects that lead to them.
  const checked = root ? resolved : { type: 'object', properties: { self: { type: 'object', additionalProperties: resolved } } };
  const errs = validateCRDValidation(
    { openAPIV3Schema: checked },
    false,
    { allowDefaults: true, requireValidPropertyType: true, requireStructuralSchema: true, requirePrunedDefaults: false, requireAtomicSetType: true, requireMapListKeysMapSetValidation: true },
    where,
  );
  if (errs.length > 0) throw new Error(`${where}: x-kubernetes-validations: ${errs.map(fieldErrorText).join('; ')}`);
  return resolved;
}
