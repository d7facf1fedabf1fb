/**
 * Reads the contract (openapi/: the vendored upstream input and the overlays,
 * merged by codegen/merge-contract.ts), bundles each group/version document
 * with the shared meta schemas into one self-contained document, and extracts
 * the kinds it declares (SPEC 2, 4.1; contract format: openapi/README.md).
 */
import { storageVersionHash } from '../src/registry/kind.ts';
import { mergeContract } from './merge-contract.ts';
import type { Deprecation, ResourceSpec } from './overlays.ts';

export type Schema = Record<string, any>;
export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, any>;
  components: { schemas: Record<string, Schema>; [k: string]: unknown };
  [k: string]: unknown;
}

export interface PrinterColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  jsonPath: string;
  formatter?: string;
}

/** A kind's `x-orch-resource` in the merged contract (codegen/resource-extension.ts makes it from the overlay). */
export interface ResourceExtension extends Omit<ResourceSpec, 'printerColumns'> {
  /** Absent when the kind is not stored. */
  listKind?: string;
  /** Descriptions resolved. */
  printerColumns: PrinterColumn[];
  /** The version (and, when another, the group) objects are stored at, when the kind is one of several versions (SPEC 9.4). */
  storageVersion?: string;
  storageGroup?: string;
  /** A deprecated version (SPEC 9.5): releases as `1.29` and the kind that replaces it. */
  deprecated?: Deprecation;
}

export interface ContractKind {
  group: string;
  version: string;
  kind: string;
  schemaName: string;
  /** Absent when the kind is not stored. */
  listSchemaName?: string;
  resource: ResourceExtension;
  /** Absent when the kind is not stored. */
  storageVersionHash?: string;
}

export interface GroupVersionDocument {
  /** File stem, e.g. `api__v1` or `apis__networking.orch.io__v1`. */
  stem: string;
  group: string;
  version: string;
  /** Self-contained document: shared schemas copied in, every $ref local. */
  document: OpenApiDocument;
  kinds: ContractKind[];
}

const SHARED_PREFIX = 'meta__';
const OPERATION_SCHEMAS = ['DeleteOptions', 'Status', 'Patch'].map((n) => `io.orch.apimachinery.pkg.apis.meta.v1.${n}`);

/** Loads every group/version document of a contract directory, bundled. */
export function loadContract(dir: string): GroupVersionDocument[] {
  const docs = mergeContract(dir) as unknown as Map<string, OpenApiDocument>;
  const result: GroupVersionDocument[] = [];
  for (const [file, doc] of [...docs].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (file.startsWith(SHARED_PREFIX)) continue;
    const stem = file.replace(/\.json$/, '');
    const parts = stem.split('__');
    const [group, version] = parts[0] === 'api' ? ['', parts[1]] : [parts[1], parts[2]];
    if (!version) throw new Error(`${file}: name must be api__<version>.json or apis__<group>__<version>.json`);
    const document = bundle(doc, docs, file);
    result.push({ stem, group, version, document, kinds: extractKinds(document, group, version, file, new Set(Object.keys(doc.components?.schemas ?? {}))) });
  }
  return result;
}

/** Copies every externally referenced schema (transitively) into the document and makes refs local. */
function bundle(doc: OpenApiDocument, docs: Map<string, OpenApiDocument>, file: string): OpenApiDocument {
  const out: OpenApiDocument = structuredClone(doc);
  out.components ??= { schemas: {} };
  out.components.schemas ??= {};
  const pending: Array<{ node: any; from: string }> = Object.values(out.components.schemas).map((node) => ({ node, from: file }));
  // Every operation's DeleteOptions body, Status answer and Patch body come from the shared document.
  const operationSchemas = OPERATION_SCHEMAS.map((name) => ({ $ref: `./meta__v1.json#/components/schemas/${name}` }));
  pending.push({ node: operationSchemas, from: file });
  // A subresource whose body is another group's kind (serviceaccounts/token: TokenRequest) needs that schema here.
  pending.push({ node: subresourceKindRefs(out, docs), from: file });
  while (pending.length) {
    const { node, from } = pending.pop()!;
    walk(node, (obj) => {
      const ref = obj.$ref;
      if (typeof ref !== 'string') return;
      const [target, pointer] = ref.startsWith('#') ? [from, ref.slice(1)] : [ref.split('#')[0].replace(/^\.\//, ''), ref.split('#')[1]];
      const name = pointer.replace('/components/schemas/', '');
      obj.$ref = `#/components/schemas/${name}`;
      if (out.components.schemas[name]) return;
      const source = docs.get(target)?.components?.schemas?.[name];
      if (!source) throw new Error(`${file}: unresolved $ref ${ref}`);
      const copy = structuredClone(source);
      out.components.schemas[name] = copy;
      pending.push({ node: copy, from: target });
    });
  }
  out.components.schemas = sortKeys(out.components.schemas);
  return out;
}

function subresourceKindRefs(doc: OpenApiDocument, docs: Map<string, OpenApiDocument>): Array<{ $ref: string }> {
  const refs: Array<{ $ref: string }> = [];
  for (const schema of Object.values(doc.components.schemas)) {
    for (const sub of (schema['x-orch-resource'] as ResourceExtension | undefined)?.subresources ?? []) {
      if (sub.group === undefined || !sub.version || !sub.kind) continue;
      const target = sub.group ? `apis__${sub.group}__${sub.version}.json` : `api__${sub.version}.json`;
      const schemas = docs.get(target)?.components?.schemas ?? {};
      const name = Object.keys(schemas).find((n) =>
        (schemas[n]['x-kubernetes-group-version-kind'] ?? []).some((g: any) => g.group === sub.group && g.version === sub.version && g.kind === sub.kind),
      );
      if (!name) throw new Error(`subresource ${sub.name}: no schema for ${sub.group}/${sub.version} ${sub.kind} in ${target}`);
      refs.push({ $ref: `./${target}#/components/schemas/${name}` });
    }
  }
  return refs;
}

/** The bundled schema name of a group/version/kind, if the document holds it. */
export function schemaNameOf(doc: OpenApiDocument, group: string, version: string, kind: string): string | undefined {
  return Object.keys(doc.components.schemas).find((n) =>
    (doc.components.schemas[n]['x-kubernetes-group-version-kind'] ?? []).some((g: any) => g.group === group && g.version === version && g.kind === kind),
  );
}

function walk(node: any, visit: (obj: any) => void): void {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (node && typeof node === 'object') {
    visit(node);
    for (const value of Object.values(node)) walk(value, visit);
  }
}

function sortKeys<T>(obj: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The kinds a document serves: its own schemas with x-orch-resource (`owned`, before bundling; a
 * bundled copy of another document's kind, such as StatefulSet's PersistentVolumeClaim, is that document's).
 */
function extractKinds(doc: OpenApiDocument, group: string, version: string, file: string, owned: ReadonlySet<string>): ContractKind[] {
  const kinds: ContractKind[] = [];
  for (const [schemaName, schema] of Object.entries(doc.components.schemas)) {
    const resource = schema['x-orch-resource'] as ResourceExtension | undefined;
    if (!resource || !owned.has(schemaName)) continue;
    const gvk = (schema['x-kubernetes-group-version-kind'] ?? [])[0];
    if (!gvk || gvk.group !== group || gvk.version !== version) {
      throw new Error(`${file}: ${schemaName} has x-orch-resource but no x-kubernetes-group-version-kind for ${group}/${version}`);
    }
    const stored = resource.stored !== false;
    const listSchemaName = stored
      ? Object.keys(doc.components.schemas).find((n) =>
          (doc.components.schemas[n]['x-kubernetes-group-version-kind'] ?? []).some((g: any) => g.kind === resource.listKind && g.group === group),
        )
      : undefined;
    if (stored && !listSchemaName) throw new Error(`${file}: no schema for ${resource.listKind}`);
    for (const key of ['plural', 'singular', 'verbs', ...(stored ? (['listKind'] as const) : [])] as const) {
      if (!resource[key]) throw new Error(`${file}: ${schemaName} x-orch-resource.${key} is required`);
    }
    if (!stored && resource.verbs.some((v) => v !== 'create')) throw new Error(`${file}: ${schemaName} is not stored, so create is its only verb`);
    kinds.push({
      group,
      version,
      kind: gvk.kind,
      schemaName,
      listSchemaName,
      resource: {
        shortNames: [],
        categories: [],
        subresources: [],
        fieldSelectors: [],
        printerColumns: [],
        allowCreateOnUpdate: false,
        allowUnconditionalUpdate: true,
        nameValidation: 'DNSSubdomain',
        ...(resource as Partial<ResourceExtension>),
        stored,
        verbs: [...resource.verbs].sort(),
      } as ResourceExtension,
      // Discovery's hash names the storage version, the same for every version of the kind (upstream StorageVersionHash).
      storageVersionHash: stored ? storageVersionHash(resource.storageGroup ?? group, resource.storageVersion ?? version, gvk.kind) : undefined,
    });
  }
  return kinds;
}

/** FACTS 4: base64 of the first 8 bytes of SHA-256(`group/version/Kind`). */

export { storageVersionHash };

/** Resolves a `$ref` or a single-element `allOf: [{$ref}]` wrapper to the schema name, else undefined. */
export function refName(schema: Schema): string | undefined {
  const ref = schema.$ref ?? (Array.isArray(schema.allOf) && schema.allOf.length === 1 ? schema.allOf[0].$ref : undefined);
  return typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : undefined;
}
