/**
 * Matches a schema's JSON properties with the fields of its upstream protobuf
 * message (go-to-protobuf's generated.proto, vendored as
 * openapi/upstream/proto/*.json) and writes the contract's
 * `x-orch-protobuf-message`, `x-orch-protobuf-field` and
 * `x-orch-protobuf-inline` (openapi/README.md "Extensions").
 */
import { annotate } from './schema-patches.ts';
import { UPSTREAM_SCHEMA_PREFIX } from './renaming.ts';
import type { JsonObject } from './canonical-json.ts';

/** One field of an upstream message; `type` is the full name of a message type, else the scalar or `map<K,V>` as written. */
export interface UpstreamProtoField {
  number: number;
  label: 'optional' | 'repeated' | 'required' | 'map';
  type: string;
}
/** Message full name → its fields by name, in .proto order. */
export type UpstreamProtoIndex = Map<string, Map<string, UpstreamProtoField>>;

interface ProtoMatch {
  /** The message's field that holds the property (the embedding field for an embedded struct). */
  outer: string;
  number: number;
  inline?: { message: string; field: number };
}

/**
 * `io.k8s.api.networking.v1.NetworkPolicyPort` → `k8s.io.api.networking.v1.NetworkPolicyPort`; go-to-protobuf
 * spells a Go module's `-` as `_` in the package (`k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1`).
 */
export function protoMessageName(upstreamSchema: string): string {
  return 'k8s.io.' + upstreamSchema.slice(UPSTREAM_SCHEMA_PREFIX.length).replaceAll('-', '_');
}

/**
 * The proto field of a JSON property: the field of the same name (Go's
 * initialisms may differ in case: `uID` is `uid`), or, for a Go struct embedded
 * in its parent (JSON inlines its fields; protobuf nests them in one field), the
 * embedding field with `inline` saying where the property sits inside it.
 */
function protoFieldOf(index: UpstreamProtoIndex, message: Map<string, UpstreamProtoField>, property: string, jsonProperties: Set<string>): ProtoMatch | undefined {
  // Go field names for JSON names that are not identifiers: `$ref` is Ref, `x-kubernetes-list-type` XKubernetesListType.
  const goName = property.replace(/^\$/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const direct = message.get(property)
    ? property
    : message.get(goName)
      ? goName
      : [...message.keys()].find((f) => f.toLowerCase() === property.toLowerCase() && !message.has(f.toLowerCase()) && f !== property);
  if (direct && message.get(direct)) return { outer: direct, number: message.get(direct)!.number };
  for (const [fname, field] of message) {
    // Only a field no JSON property names can be an embedding.
    if (field.label !== 'optional' || jsonProperties.has(fname)) continue;
    const inner = index.get(field.type);
    if (!inner || inner.size === 0) continue;
    const innerField = inner.get(property);
    if (!innerField) continue;
    return { outer: fname, number: field.number, inline: { message: field.type, field: innerField.number } };
  }
  return undefined;
}

/** Each property's match, for the upstream schema `upstreamName` (none when it has no message). */
function matches(index: UpstreamProtoIndex, upstreamName: string, schema: JsonObject): Map<string, ProtoMatch> | undefined {
  const message = index.get(protoMessageName(upstreamName));
  if (!message) return undefined;
  const props = (schema.properties ?? {}) as JsonObject;
  const names = new Set(Object.keys(props));
  const out = new Map<string, ProtoMatch>();
  for (const property of names) {
    const found = protoFieldOf(index, message, property, names);
    if (found) out.set(property, found);
  }
  return out;
}

/** The messages the protobuf form of an upstream schema reads: its own, and those of the structs it embeds. */
export function messagesUsedBy(index: UpstreamProtoIndex, upstreamName: string, schema: JsonObject): string[] {
  const found = matches(index, upstreamName, schema);
  if (!found) return [];
  return [protoMessageName(upstreamName), ...[...found.values()].flatMap((m) => (m.inline ? [m.inline.message] : []))];
}

/**
 * Writes the protobuf annotations onto `schema`, the contract form of the upstream schema `upstreamName`.
 * apiVersion and kind get no number: they travel in the `runtime.Unknown` envelope, not in the message.
 */
export function annotateProtobuf(index: UpstreamProtoIndex, upstreamName: string, schema: JsonObject): void {
  const found = matches(index, upstreamName, schema);
  if (!found) return;
  schema['x-orch-protobuf-message'] = protoMessageName(upstreamName);
  const props = (schema.properties ?? {}) as Record<string, JsonObject>;
  for (const [property, match] of found) {
    annotate(props[property], { 'x-orch-protobuf-field': match.number });
    if (match.inline) annotate(props[property], { 'x-orch-protobuf-inline': match.inline });
  }
}
