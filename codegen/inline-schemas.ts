/**
 * Schemas a kind overlay writes itself, for a kind with no upstream
 * counterpart (openapi/README.md "Adding a brand-new kind"). They are written
 * in the contract's own terms (contract names in `$ref`, orch groups); the
 * merge adds what the maintainer should not have to write: the kind's
 * `x-kubernetes-group-version-kind`, its `<Kind>List` in the standard list
 * shape, and the protobuf message of each schema whose properties are all
 * numbered.
 */
import { isObject, type JsonObject } from './canonical-json.ts';
import { REF_PREFIX } from './closure.ts';

const LIST_META = 'io.orch.apimachinery.pkg.apis.meta.v1.ListMeta';
const TYPE_META = ['apiVersion', 'kind'];
/** The texts upstream's list schemas carry (e.g. io.k8s.api.coordination.v1.LeaseList). */
const API_VERSION_DOC =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DOC =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

type Gvk = { group: string; version: string; kind: string };

/** Sets the kind schema's group-version-kind, or checks the one the maintainer wrote. */
export function withGvk(schema: JsonObject, gvk: Gvk, where: string): void {
  const written = schema['x-kubernetes-group-version-kind'];
  if (written === undefined) schema['x-kubernetes-group-version-kind'] = [gvk];
  else if (!Array.isArray(written) || written.length !== 1 || !isObject(written[0]) || (['group', 'version', 'kind'] as const).some((k) => (written[0] as JsonObject)[k] !== gvk[k])) throw new Error(`${where}: x-kubernetes-group-version-kind must be [${JSON.stringify(gvk)}] or left out`);
}

/** The standard `<Kind>List` of a kind schema (upstream's list shape: ListMeta metadata = 1, items = 2 in protobuf). */
export function impliedList(kindSchemaName: string, gvk: Gvk, numbered: boolean): JsonObject {
  const field = (n: number): JsonObject => (numbered ? { 'x-orch-protobuf-field': n } : {});
  return {
    description: `${gvk.kind}List is a list of ${gvk.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: API_VERSION_DOC, type: 'string' },
      kind: { description: KIND_DOC, type: 'string' },
      metadata: { allOf: [{ $ref: REF_PREFIX + LIST_META }], default: {}, description: 'Standard list metadata.', ...field(1) },
      items: { description: `Items is the list of ${gvk.kind} objects.`, type: 'array', items: { allOf: [{ $ref: REF_PREFIX + kindSchemaName }], default: {} }, ...field(2) },
    },
    'x-kubernetes-group-version-kind': [{ ...gvk, kind: `${gvk.kind}List` }],
  };
}

/**
 * Names the protobuf message of an inline schema whose properties (but apiVersion and kind, which travel in
 * the envelope) all carry `x-orch-protobuf-field`: the schema's own name unless it says
 * `x-orch-protobuf-message`. A schema without numbers has no message (its kind is served in JSON only);
 * numbering some properties and not others is a mistake.
 */
export function withInlineMessage(name: string, schema: JsonObject, where: string): void {
  const props = Object.entries(isObject(schema.properties) ? schema.properties : {}).filter(([p]) => !TYPE_META.includes(p));
  const numbered = props.filter(([, p]) => isObject(p) && p['x-orch-protobuf-field'] !== undefined);
  if (numbered.length === 0 && schema['x-orch-protobuf-message'] === undefined) return;
  const missing = props.filter(([, p]) => !isObject(p) || p['x-orch-protobuf-field'] === undefined).map(([p]) => p);
  if (missing.length) throw new Error(`${where}: ${name}: every property but apiVersion and kind needs x-orch-protobuf-field, or none does (missing: ${missing.join(', ')})`);
  schema['x-orch-protobuf-message'] ??= name;
}
