/**
 * An independent protobuf decoder for tests: upstream's generated.proto files
 * (../shared/reference/proto) loaded by protobufjs's own parser and
 * reflection, and a conversion of what it decodes to the JSON form as
 * apimachinery defines it for the special types (Time, IntOrString, ...).
 * Nothing of the server's codec is used.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { mergeContract } from '../../codegen/merge-contract.ts';
import { ROOT } from './server.ts';

export const PROTO_DIR = join(ROOT, '../shared/reference/proto');

export function referenceAvailable(): boolean {
  return existsSync(PROTO_DIR);
}

function protoFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? protoFiles(join(dir, e.name)) : e.name.endsWith('.proto') ? [join(dir, e.name)] : []));
}

let root: protobuf.Root | undefined;

/** Every upstream message, by its full name (`k8s.io.api.networking.v1.NetworkPolicy`). */
export function referenceRoot(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  r.resolvePath = (_origin, target) => (target.startsWith('/') ? target : join(PROTO_DIR, target));
  r.loadSync(protoFiles(PROTO_DIR), { keepCase: true });
  r.resolveAll();
  return (root = r);
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const CRD = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.';

function toNumber(v: any): number {
  return typeof v === 'number' ? v : v === undefined ? 0 : Number(v.toString());
}

function rfc3339(seconds: number, nanos: number, micro: boolean): string {
  const whole = new Date(seconds * 1000).toISOString().slice(0, -5);
  return micro ? `${whole}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${whole}Z`;
}

/**
 * The fields that hold an embedded Go struct, `message#number`, from the
 * contract's x-orch-protobuf-inline (the .proto files do not say): JSON
 * inlines their fields.
 */
let embedded: Set<string> | undefined;

function embeddedFields(): Set<string> {
  if (embedded) return embedded;
  embedded = new Set();
  for (const doc of mergeContract(join(ROOT, 'openapi')).values()) {
    for (const schema of Object.values<any>((doc as any).components.schemas)) {
      for (const property of Object.values<any>(schema.properties ?? {})) {
        if (property['x-orch-protobuf-inline']) embedded.add(`${schema['x-orch-protobuf-message']}#${property['x-orch-protobuf-field']}`);
      }
    }
  }
  return embedded;
}

/** A decoded message -> its JSON form, by upstream's rules for each type. */
function jsonOf(type: protobuf.Type, message: any): any {
  const name = type.fullName.slice(1);
  const raw = (bytes: Uint8Array | undefined) => (bytes && bytes.length ? JSON.parse(Buffer.from(bytes).toString()) : undefined);
  switch (name) {
    case `${META}Time`:
      return rfc3339(toNumber(message.seconds), 0, false);
    case `${META}MicroTime`:
      return rfc3339(toNumber(message.seconds), message.nanos ?? 0, true);
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString':
      return toNumber(message.type) === 1 ? (message.strVal ?? '') : (message.intVal ?? 0);
    case `${META}FieldsV1`:
      return raw(message.Raw);
    case 'k8s.io.apimachinery.pkg.runtime.RawExtension':
    case `${CRD}JSON`:
      return raw(message.raw);
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
      return message.string ?? '';
    case `${CRD}JSONSchemaPropsOrArray`:
      return message.jSONSchemas?.length ? message.jSONSchemas.map((s: any) => jsonOf(type.fields.jSONSchemas.resolvedType as protobuf.Type, s)) : jsonOf(type.fields.schema.resolvedType as protobuf.Type, message.schema ?? {});
    case `${CRD}JSONSchemaPropsOrBool`:
      return message.schema ? jsonOf(type.fields.schema.resolvedType as protobuf.Type, message.schema) : !!message.allows;
    case `${CRD}JSONSchemaPropsOrStringArray`:
      return message.schema ? jsonOf(type.fields.schema.resolvedType as protobuf.Type, message.schema) : (message.property ?? []);
  }
  if (name.endsWith('.ExtraValue')) return message.items ?? [];
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    // Unset fields read as the prototype's defaults: only the ones the message carried count.
    if (!Object.prototype.hasOwnProperty.call(message, field.name)) continue;
    const value = message[field.name];
    if (value === undefined || value === null) continue;
    // protobufjs makes every repeated and map field, sent or not.
    if (field.repeated && Array.isArray(value) && value.length === 0) continue;
    if (field instanceof protobuf.MapField && Object.keys(value).length === 0) continue;
    const one = (v: any) => {
      if (field.resolvedType instanceof protobuf.Type) return jsonOf(field.resolvedType, v);
      if (field.type === 'bytes') return Buffer.from(v).toString('base64');
      if (field.type === 'int64') return toNumber(v);
      return v;
    };
    if (embeddedFields().has(`${name}#${field.id}`)) {
      Object.assign(out, one(value));
      continue;
    }
    if (field instanceof protobuf.MapField) {
      out[field.name] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, one(v)]));
    } else if (field.repeated) out[field.name] = value.map(one);
    else out[field.name] = one(value);
  }
  return out;
}

/** Decodes `bytes` as upstream's message `messageName` and returns its JSON form (field names as in the .proto). */
export function referenceDecode(messageName: string, bytes: Uint8Array): any {
  const type = referenceRoot().lookupType(messageName);
  return jsonOf(type, type.decode(bytes));
}

/** A proto field name as its JSON name compares: Go initialisms (`uID`), `$ref` as `ref`, `x-kubernetes-...` as `xKubernetes...`. */
export const comparableName = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Keys made comparable (comparableName) at every level, for comparing a JSON form with the reference decoder's. */
export function comparable(value: any): any {
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [comparableName(k), comparable(v)]));
}
