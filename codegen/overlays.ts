/**
 * The hand-maintained part of the contract (openapi/README.md "The overlay
 * format"): one YAML overlay per kind under openapi/kinds/<group or core>/,
 * openapi/meta.yaml for the shared meta/v1 schemas, openapi/columns.yaml for
 * the printer columns many kinds share and openapi/documents.yaml for the
 * group-version documents' titles. This module reads and checks them and
 * fills in every default, so the merge sees complete records.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isObject, type JsonObject } from './canonical-json.ts';
import type { SchemaPatch } from './schema-patches.ts';
import { Fields, readYaml } from './yaml-fields.ts';

export const KINDS_DIR = 'kinds';
export const META_FILE = 'meta.yaml';
export const COLUMNS_FILE = 'columns.yaml';
export const DOCUMENTS_FILE = 'documents.yaml';

/** A literal description, or the description of a property of a schema in the contract (upstream or inline name). */
export type DocText = string | { schema: string; property: string };

export interface ColumnSpec {
  name: string;
  type: string;
  format: string;
  description: DocText;
  priority: number;
  jsonPath: string;
  formatter?: string;
}
export interface SubresourceSpec {
  name: string;
  verbs: string[];
  kind: string;
  group?: string;
  version?: string;
}
export interface FieldSelectorSpec {
  name: string;
  jsonPath: string;
  fallbackJsonPath?: string;
  default?: string;
}
/** Where a built-in kind's scale subresource reads and writes (src/registry/kind.ts ScalePaths). */
export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
  selectorObjectPath?: string;
  selectorMapPath?: string;
}
export interface Deprecation {
  deprecatedIn: string;
  removedIn: string;
  replacement: { group: string; version: string; kind: string };
}
export interface KindVersion {
  version: string;
  /** The kind's schema: an upstream (vendored) name, or one of `inline`. */
  schema: string;
  /** Schemas written in the overlay, by name, for a kind with no upstream counterpart. */
  inline: Record<string, JsonObject>;
  deprecated?: Deprecation;
}
export interface ResourceSpec {
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  verbs: string[];
  /** false: a review computed on create and never stored. */
  stored: boolean;
  subresources: SubresourceSpec[];
  scale?: ScaleSpec;
  allowCreateOnUpdate: boolean;
  allowUnconditionalUpdate: boolean;
  nameValidation: 'DNSSubdomain' | 'DNSLabel' | 'PathSegment';
  fieldSelectors: FieldSelectorSpec[];
  printerColumns: ColumnSpec[];
}
export interface KindOverlay {
  /** Path below openapi/, for messages. */
  file: string;
  group: string;
  kind: string;
  versions: KindVersion[];
  /** Where every version's objects are stored, when not at each version's own (SPEC 9.4). */
  storage?: { group: string; version: string };
  /** Absent for a kind that is only ever a subresource's body (`body: true`). */
  resource?: ResourceSpec;
  patches: SchemaPatch[];
}
export interface MetaOverlay {
  file: string;
  /** Shared schemas the server needs though no kind refers to them. */
  roots: string[];
  patches: SchemaPatch[];
}
export interface DocumentInfo {
  title?: string;
  description?: string;
  upstream?: string[];
}
export interface Overlays {
  kinds: KindOverlay[];
  meta: MetaOverlay;
  /** By document stem (`api__v1`, `apis__apps__v1`, `meta__v1`). */
  documents: Map<string, DocumentInfo>;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const COLUMN_KEYS = ['name', 'type', 'format', 'description', 'priority', 'jsonPath', 'formatter'];
const RESOURCE_KEYS = ['plural', 'singular', 'shortNames', 'categories', 'namespaced', 'verbs', 'stored', 'subresources', 'scale', 'allowCreateOnUpdate', 'allowUnconditionalUpdate', 'nameValidation', 'fieldSelectors', 'printerColumns'];
/** The shorthand subresources: `status` of the kind itself, `scale` with an autoscaling/v1 Scale body. */
const SUBRESOURCE_SHORTHANDS: Record<string, (kind: string) => SubresourceSpec> = {
  status: (kind) => ({ name: 'status', verbs: ['get', 'patch', 'update'], kind }),
  scale: () => ({ name: 'scale', verbs: ['get', 'patch', 'update'], group: 'autoscaling', version: 'v1', kind: 'Scale' }),
};

/** Reads every overlay of a contract directory. */
export function loadOverlays(contractDir: string): Overlays {
  const columns = readColumns(contractDir);
  const kindsDir = path.join(contractDir, KINDS_DIR);
  const kinds: KindOverlay[] = [];
  for (const dir of readdirSync(kindsDir).sort()) {
    for (const file of readdirSync(path.join(kindsDir, dir)).filter((f) => f.endsWith('.yaml')).sort()) {
      const where = `${KINDS_DIR}/${dir}/${file}`;
      kinds.push(kindOverlay(readYaml(path.join(kindsDir, dir, file), where), where, dir, file.replace(/\.yaml$/, ''), columns));
    }
  }
  const meta = Fields.of(readYaml(path.join(contractDir, META_FILE), META_FILE) ?? {}, META_FILE, ['roots', 'patches']);
  return {
    kinds,
    meta: { file: META_FILE, roots: meta.strings('roots', []), patches: patchesOf(meta, META_FILE) },
    documents: readDocuments(contractDir),
  };
}

function kindOverlay(value: unknown, where: string, dir: string, stem: string, columns: Map<string, ColumnSpec>): KindOverlay {
  const body = isObject(value) && value.body === true;
  const f = Fields.of(value, where, ['group', 'kind', 'versions', 'body', 'storage', 'patches', ...(body ? [] : RESOURCE_KEYS)]);
  const group = f.string('group');
  const kind = f.string('kind');
  if (dir !== (group || 'core') || stem !== kind) throw new Error(`${where}: the overlay of ${group || 'core'}/${kind} belongs in ${KINDS_DIR}/${group || 'core'}/${kind}.yaml`);
  const versions = Object.entries(f.mapping('versions')).map(([version, v]) => kindVersion(v, `${where} versions.${version}`, version));
  if (!versions.length) throw new Error(`${where}: versions must name at least one version`);
  let storage: KindOverlay['storage'];
  if (f.has('storage')) {
    const s = Fields.of(f.value.storage, `${where} storage`, ['group', 'version']);
    storage = { group: s.string('group', group), version: s.string('version') };
  }
  return { file: where, group, kind, versions, storage, resource: body ? undefined : resourceSpec(f, kind, columns), patches: patchesOf(f, where) };
}

function kindVersion(value: unknown, where: string, version: string): KindVersion {
  const f = Fields.of(value, where, ['schema', 'schemas', 'deprecated']);
  const inline = f.mapping('schemas') as Record<string, JsonObject>;
  const schema = f.string('schema');
  if (Object.keys(inline).length && !inline[schema]) throw new Error(`${where}: schema ${schema} is not one of its schemas`);
  let deprecated: Deprecation | undefined;
  if (f.has('deprecated')) {
    const d = Fields.of(f.value.deprecated, `${where}.deprecated`, ['deprecatedIn', 'removedIn', 'replacement']);
    const r = Fields.of(d.value.replacement, `${where}.deprecated.replacement`, ['group', 'version', 'kind']);
    deprecated = { deprecatedIn: d.string('deprecatedIn'), removedIn: d.string('removedIn'), replacement: { group: r.string('group'), version: r.string('version'), kind: r.string('kind') } };
  }
  return { version, schema, inline, deprecated };
}

function resourceSpec(f: Fields, kind: string, columns: Map<string, ColumnSpec>): ResourceSpec {
  const stored = f.boolean('stored', true);
  const subresources = f.list('subresources').map((s, i) => subresource(s, `${f.where} subresources[${i}]`, kind));
  let scale: ScaleSpec | undefined;
  if (f.has('scale')) {
    const s = Fields.of(f.value.scale, `${f.where} scale`, ['specReplicasPath', 'statusReplicasPath', 'labelSelectorPath', 'selectorObjectPath', 'selectorMapPath']);
    scale = Object.fromEntries(Object.keys(s.value).map((k) => [k, s.string(k)])) as unknown as ScaleSpec;
    s.string('specReplicasPath');
    s.string('statusReplicasPath');
  }
  if (!!scale !== subresources.some((s) => s.name === 'scale')) throw new Error(`${f.where}: a scale subresource needs scale paths (scale:), and scale paths a scale subresource`);
  const verbs = f.strings('verbs', stored ? ALL_VERBS : ['create']);
  if (!stored && verbs.some((v) => v !== 'create')) throw new Error(`${f.where}: a kind that is not stored has create as its only verb`);
  return {
    plural: f.string('plural'),
    singular: f.string('singular', kind.toLowerCase()),
    shortNames: f.strings('shortNames', []),
    categories: f.strings('categories', []),
    namespaced: f.boolean('namespaced'),
    verbs,
    stored,
    subresources,
    scale,
    allowCreateOnUpdate: f.boolean('allowCreateOnUpdate', false),
    allowUnconditionalUpdate: f.boolean('allowUnconditionalUpdate', true),
    nameValidation: f.oneOf('nameValidation', ['DNSSubdomain', 'DNSLabel', 'PathSegment'] as const, 'DNSSubdomain'),
    fieldSelectors: f.list('fieldSelectors').map((s, i) => {
      const fs = Fields.of(s, `${f.where} fieldSelectors[${i}]`, ['name', 'jsonPath', 'fallbackJsonPath', 'default']);
      const out: FieldSelectorSpec = { name: fs.string('name'), jsonPath: fs.string('jsonPath') };
      if (fs.has('fallbackJsonPath')) out.fallbackJsonPath = fs.string('fallbackJsonPath');
      if (fs.has('default')) out.default = fs.string('default');
      return out;
    }),
    printerColumns: f.list('printerColumns').map((c, i) => column(c, `${f.where} printerColumns[${i}]`, columns)),
  };
}

function subresource(value: unknown, where: string, kind: string): SubresourceSpec {
  if (typeof value === 'string') {
    const shorthand = SUBRESOURCE_SHORTHANDS[value];
    if (!shorthand) throw new Error(`${where}: ${value} is no shorthand (${Object.keys(SUBRESOURCE_SHORTHANDS).join(', ')}); write {name, verbs, kind}`);
    return shorthand(kind);
  }
  const f = Fields.of(value, where, ['name', 'verbs', 'kind', 'group', 'version']);
  const out: SubresourceSpec = { name: f.string('name'), verbs: f.strings('verbs', ['get', 'patch', 'update']), kind: f.string('kind', kind) };
  if (f.has('group') !== f.has('version')) throw new Error(`${where}: group and version name the body's group-version together`);
  if (f.has('group')) Object.assign(out, { group: f.string('group'), version: f.string('version') });
  return out;
}

/** A column: the name of a shared column of columns.yaml, `{use: <shared>, ...overrides}`, or a whole column. */
function column(value: unknown, where: string, columns: Map<string, ColumnSpec>): ColumnSpec {
  const shared = (name: unknown) => {
    const c = typeof name === 'string' ? columns.get(name) : undefined;
    if (!c) throw new Error(`${where}: ${String(name)} is not a column of ${COLUMNS_FILE} (${[...columns.keys()].join(', ')})`);
    return c;
  };
  if (typeof value === 'string') return shared(value);
  const f = Fields.of(value, where, ['use', ...COLUMN_KEYS]);
  const { use, ...overrides } = f.value;
  return use === undefined ? columnSpec(f) : columnSpec(new Fields({ ...shared(use), ...overrides } as JsonObject, where));
}

function columnSpec(f: Fields): ColumnSpec {
  const description = f.value.description;
  if (isObject(description)) Fields.of(description, `${f.where} description`, ['schema', 'property']);
  const out: ColumnSpec = {
    name: f.string('name'),
    type: f.oneOf('type', ['string', 'integer', 'number', 'boolean', 'date'] as const),
    format: f.string('format', ''),
    description: isObject(description) ? { schema: String(description.schema), property: String(description.property) } : f.string('description'),
    priority: f.number('priority', 0),
    jsonPath: f.string('jsonPath'),
  };
  if (f.has('formatter')) out.formatter = f.string('formatter');
  return out;
}

function readColumns(contractDir: string): Map<string, ColumnSpec> {
  const file = path.join(contractDir, COLUMNS_FILE);
  const value = existsSync(file) ? readYaml(file, COLUMNS_FILE) : {};
  if (!isObject(value)) throw new Error(`${COLUMNS_FILE}: expected a mapping of column name to column`);
  return new Map(Object.entries(value).map(([name, c]) => [name, columnSpec(Fields.of(c, `${COLUMNS_FILE} ${name}`, COLUMN_KEYS))]));
}

function readDocuments(contractDir: string): Map<string, DocumentInfo> {
  const file = path.join(contractDir, DOCUMENTS_FILE);
  const value = existsSync(file) ? readYaml(file, DOCUMENTS_FILE) : {};
  if (!isObject(value)) throw new Error(`${DOCUMENTS_FILE}: expected a mapping of document stem to {title, description, upstream}`);
  return new Map(
    Object.entries(value).map(([stem, d]) => {
      const f = Fields.of(d, `${DOCUMENTS_FILE} ${stem}`, ['title', 'description', 'upstream']);
      return [stem, { title: f.optionalString('title'), description: f.optionalString('description'), upstream: f.has('upstream') ? f.strings('upstream') : undefined }];
    }),
  );
}

function patchesOf(f: Fields, where: string): SchemaPatch[] {
  return Object.entries(f.mapping('patches')).map(([schema, patch]) => {
    if (!isObject(patch)) throw new Error(`${where} patches.${schema}: a patch is a mapping of schema keywords`);
    return { overlay: where, schema, patch };
  });
}
