/**
 * Builds the contract's documents in memory from its two inputs
 * (openapi/README.md): the vendored upstream schemas and messages
 * (openapi/upstream/, codegen/upstream.ts) and the hand-maintained overlays
 * (openapi/kinds/, meta.yaml, columns.yaml, documents.yaml; codegen/overlays.ts).
 *
 *  1. the closure of the overlays' roots in the vendored schemas;
 *  2. renaming (io.k8s → io.orch, *.k8s.io groups, identifiers in descriptions:
 *     codegen/renaming.ts), each schema placed in the document of its
 *     package, a reference into another document made an external `$ref`;
 *  3. protobuf annotations from the vendored messages;
 *  4. the overlays' inline schemas (with their implied lists) and schema patches;
 *  5. each served version's `x-orch-resource`.
 *
 * The result is one OpenAPI 3.0.3 document per group-version plus the shared
 * meta__v1 document, keys sorted; codegen/contract.ts bundles them.
 */
import { sortedDeep, type Json, type JsonObject } from './canonical-json.ts';
import { closure, contractRoots, inlineNamesOf, overlayRoots, REF_PREFIX } from './closure.ts';
import { loadOverlays, type KindOverlay, type Overlays } from './overlays.ts';
import { documentInfo, stemOf, type Documents } from './documents.ts';
import { impliedList, withGvk, withInlineMessage } from './inline-schemas.ts';
import { annotateProtobuf } from './protobuf-fields.ts';
import { isUpstreamName, packageOf, renameGroup, renameSchemaName, renameText } from './renaming.ts';
import { resourceExtension } from './resource-extension.ts';
import { applyMergePatch, checkPatchConflicts, type SchemaPatch } from './schema-patches.ts';
import { loadUpstream, type UpstreamInput } from './upstream.ts';

export const META_STEM = 'meta__v1';
const UPSTREAM_META_PREFIX = 'io.k8s.apimachinery.';
const NOT_VENDORED = (name: string) => `schema ${name} is not vendored in openapi/upstream: run \`npm run vendor-upstream\``;

/** A merged schema: its contract form and the document (stem) that holds it. */
interface Placed {
  stem: string;
  schema: JsonObject;
}

/** The merged documents of a contract directory, by file name (`api__v1.json`, `meta__v1.json`, ...). */
export function mergeContract(contractDir: string): Map<string, JsonObject> {
  return merge(loadOverlays(contractDir), loadUpstream(contractDir));
}

export function merge(overlays: Overlays, upstream: UpstreamInput): Map<string, JsonObject> {
  const names = closure(upstream.schemas, contractRoots(overlays), NOT_VENDORED);
  const docs = documentsOf(overlays, upstream);
  const placed = new Map<string, Placed>();
  const stemOfUpstream = (name: string): string => {
    const stem = name.startsWith(UPSTREAM_META_PREFIX) ? META_STEM : docs.byPackage.get(packageOf(name));
    if (!stem) throw new Error(`schema ${name}: no overlay serves a kind of its package ${packageOf(name)}, so no document holds it`);
    return stem;
  };
  for (const name of [...names].sort()) {
    const stem = stemOfUpstream(name);
    const refFor = (target: string) => refBetween(stem, stemOfUpstream(target), renameSchemaName(target));
    const schema = transformSchema(upstream.schemas.get(name)!, refFor) as JsonObject;
    annotateProtobuf(upstream.proto, name, schema);
    placed.set(renameSchemaName(name), { stem, schema });
  }
  for (const overlay of overlays.kinds) placeInline(overlay, placed);

  applyPatches(overlays, upstream, placed);
  const schemaNamed = (name: string) => placed.get(isUpstreamName(name) ? renameSchemaName(name) : name)?.schema;
  for (const overlay of overlays.kinds) {
    for (const version of overlay.versions) {
      const name = contractNameOf(version.schema);
      const schema = placed.get(name)?.schema;
      if (!schema) throw new Error(`${overlay.file}: versions.${version.version}: ${version.schema} is neither an upstream (io.k8s.) schema nor one of its schemas`);
      withGvk(schema, { group: overlay.group, version: version.version, kind: overlay.kind }, `${overlay.file}: ${version.schema}`);
      if (!overlay.resource) continue;
      if (overlay.resource.stored && !placed.has(name + 'List')) throw new Error(`${overlay.file}: no ${name}List`);
      schema['x-orch-resource'] = resourceExtension(overlay, version, overlay.resource, schemaNamed);
    }
  }

  const files = new Map<string, JsonObject>();
  for (const stem of [...new Set([META_STEM, ...docs.stems.keys()])].sort()) {
    const schemas: JsonObject = {};
    for (const [name, p] of placed) if (p.stem === stem) schemas[name] = p.schema;
    files.set(`${stem}.json`, sortedDeep({ openapi: '3.0.3', info: documentInfo(stem, docs, overlays.documents), paths: {}, components: { schemas } }));
  }
  for (const stem of overlays.documents.keys()) if (!files.has(`${stem}.json`)) throw new Error(`documents.yaml: ${stem} is no document of the contract`);
  return files;
}

const contractNameOf = (name: string) => (isUpstreamName(name) ? renameSchemaName(name) : name);

/** A `$ref` from a schema in document `from` to the schema `name` in document `to`. */
function refBetween(from: string, to: string, name: string): string {
  return to === from ? REF_PREFIX + name : `./${to}.json${REF_PREFIX}${name}`;
}

/** Which document each upstream package's schemas go to, and what each document is. */
function documentsOf(overlays: Overlays, upstream: UpstreamInput): Documents {
  const docs: Documents = { byPackage: new Map(), stems: new Map() };
  for (const overlay of overlays.kinds) {
    for (const v of overlay.versions) {
      const stem = stemOf(overlay.group, v.version);
      const entry = docs.stems.get(stem) ?? docs.stems.set(stem, { group: overlay.group, version: v.version, upstreamGroups: new Set() }).get(stem)!;
      if (!isUpstreamName(v.schema)) continue;
      const pkg = packageOf(v.schema);
      const other = docs.byPackage.get(pkg);
      if (other && other !== stem) throw new Error(`${overlay.file}: package ${pkg} is served in ${other} already, not in ${stem}`);
      docs.byPackage.set(pkg, stem);
      const gvk = (upstream.schemas.get(v.schema)?.['x-kubernetes-group-version-kind'] as JsonObject[] | undefined)?.[0];
      if (gvk) entry.upstreamGroups.add(String(gvk.group));
    }
  }
  return docs;
}

/** Adds an overlay's inline schemas (and, for a stored kind, its implied list) to its version's document. */
function placeInline(overlay: KindOverlay, placed: Map<string, Placed>): void {
  for (const v of overlay.versions) {
    if (!Object.keys(v.inline).length) continue;
    const stem = stemOf(overlay.group, v.version);
    const where = `${overlay.file} versions.${v.version}`;
    const schemas: Record<string, JsonObject> = structuredClone(v.inline);
    if (overlay.resource?.stored) {
      if (schemas[v.schema + 'List']) throw new Error(`${where}: ${v.schema}List is implied (the standard list shape); do not write it`);
      withInlineMessage(v.schema, schemas[v.schema], where);
      const gvk = { group: overlay.group, version: v.version, kind: overlay.kind };
      schemas[v.schema + 'List'] = impliedList(v.schema, gvk, schemas[v.schema]['x-orch-protobuf-message'] !== undefined);
    }
    for (const [name, schema] of Object.entries(schemas)) {
      if (isUpstreamName(name)) throw new Error(`${where}: an inline schema may not take an upstream (io.k8s.) name: ${name}`);
      if (placed.has(name)) throw new Error(`${where}: schema ${name} is in the contract already`);
      withInlineMessage(name, schema, where);
      placed.set(name, { stem, schema });
    }
    // References are written as #/components/schemas/<contract name>; one into another document becomes external.
    for (const [name, schema] of Object.entries(schemas)) {
      walk(schema, (node) => {
        const target = String(node.$ref).slice(REF_PREFIX.length);
        const to = placed.get(target)?.stem;
        if (!to) throw new Error(`${where}: ${name} refers to ${node.$ref}, which is not in the contract`);
        node.$ref = refBetween(stem, to, target);
      });
    }
  }
}

function walk(node: Json, visit: (withRef: JsonObject) => void): void {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (node && typeof node === 'object') {
    if (typeof node.$ref === 'string') visit(node);
    Object.values(node).forEach((n) => walk(n, visit));
  }
}

/**
 * Applies every overlay's schema patches after checking that each overlay patches only what it owns: the
 * meta overlay the shared apimachinery schemas, a kind overlay its inline schemas and the upstream schemas
 * of its own package(s) that its kind refers to.
 */
function applyPatches(overlays: Overlays, upstream: UpstreamInput, placed: Map<string, Placed>): void {
  const inline = inlineNamesOf(overlays);
  const all: SchemaPatch[] = [...overlays.meta.patches];
  for (const p of overlays.meta.patches) {
    if (!p.schema.startsWith(UPSTREAM_META_PREFIX)) throw new Error(`${p.overlay}: patches.${p.schema}: meta.yaml patches the io.k8s.apimachinery schemas only`);
  }
  for (const overlay of overlays.kinds) {
    if (!overlay.patches.length) continue;
    const reach = closure(upstream.schemas, overlayRoots(overlay, inline), NOT_VENDORED);
    const packages = new Set(overlay.versions.filter((v) => isUpstreamName(v.schema)).map((v) => packageOf(v.schema)));
    const own = (name: string) =>
      isUpstreamName(name) ? reach.has(name) && packages.has(packageOf(name)) : overlay.versions.some((v) => v.inline[name] || name === v.schema + 'List');
    for (const p of overlay.patches) {
      if (!own(p.schema)) throw new Error(`${p.overlay}: patches.${p.schema}: not a schema this overlay owns (its inline schemas, or schemas of its package that its kind refers to)`);
      all.push(p);
    }
  }
  checkPatchConflicts(all);
  for (const p of all) {
    if ('x-orch-resource' in p.patch) throw new Error(`${p.overlay}: patches.${p.schema}: x-orch-resource is made from the overlay's keys, not patched`);
    const target = placed.get(contractNameOf(p.schema));
    if (!target) throw new Error(`${p.overlay}: patches.${p.schema}: no such schema in the contract`);
    applyMergePatch(target.schema, p.patch, `${p.overlay} patches.${p.schema}`);
  }
}

/** Renames one upstream schema node (recursively): $refs, descriptions, group-version-kind groups. */
function transformSchema(node: Json, refFor: (upstream: string) => string): Json {
  if (Array.isArray(node)) return node.map((n) => transformSchema(n, refFor));
  if (!node || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') out[k] = refFor(v.slice(REF_PREFIX.length));
    else if (k === 'description' && typeof v === 'string') out[k] = renameText(v);
    else if (k === 'properties' && v && typeof v === 'object' && !Array.isArray(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, transformSchema(s, refFor)]));
    } else if (k === 'x-kubernetes-group-version-kind' && Array.isArray(v)) {
      out[k] = v.map((gvk) => ({ ...(gvk as JsonObject), group: renameGroup(String((gvk as JsonObject).group)) }));
    } else if (k === 'default' || k === 'enum' || k === 'example') out[k] = structuredClone(v);
    else out[k] = transformSchema(v, refFor);
  }
  return out;
}
