/**
 * Serves the published contract: /openapi/v2 and /openapi/v3 with one document
 * per group/version addressed by content hash (SPEC 4.1; kube-openapi handler
 * and handler3). Custom resources' documents (custom-openapi.ts) are merged in
 * by `publishCustom` each time the served definitions change; every document
 * is encoded and hashed once per change, never per request.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GeneratedApi } from '../registry/kind.ts';
import type { JsonObject } from '../registry/json-value.ts';
import { notAcceptable } from '../api/status-error.ts';
import { parseAccept } from '../http/negotiation.ts';
import { writeSharedBody } from '../http/respond.ts';
import type { CustomOpenApiPart } from './custom-openapi.ts';

interface PublishedDocument {
  body: Buffer;
  hash: string;
}

function published(body: Buffer): PublishedDocument {
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

/** Names of the schemas `roots` reference (`#/<prefix><name>`), transitively, among `pool`. */
function referencedSchemas(roots: unknown[], pool: Record<string, unknown>, prefix: string): string[] {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key !== '$ref' || typeof value !== 'string') stack.push(value);
        else if (value.startsWith(prefix) && !seen.has(value.slice(prefix.length)) && pool[value.slice(prefix.length)]) {
          seen.add(value.slice(prefix.length));
          stack.push(pool[value.slice(prefix.length)]);
        }
      }
    }
  }
  return [...seen].sort();
}

const sorted = (o: JsonObject): JsonObject => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * The group-version (an index key: `api/v1`, `apis/g/v`) and resource an
 * OpenAPI path serves (`/apis/g/v[/watch][/namespaces/{namespace}]/plural...`);
 * no resource for the group-version's own path; undefined for other paths.
 */
function targetOfPath(path: string): { groupVersion: string; group: string; version: string; resource?: string } | undefined {
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(?:watch\/)?(?:namespaces\/\{namespace\}\/)?([^/]*)/.exec(path);
  if (!m) return undefined;
  const [group, version] = m[1] ? ['', m[1]] : [m[2], m[3]];
  return { groupVersion: group ? `apis/${group}/${version}` : `api/${version}`, group, version, resource: m[4] || undefined };
}

/** Whether a built-in resource is served (--runtime-config, runtime-config.ts). */
export type ResourceServed = (group: string, version: string, resource: string) => boolean;

function acceptsJson(req: IncomingMessage): boolean {
  const ranges = parseAccept(req.headers.accept);
  if (ranges.length === 0) return true;
  return ranges.some((r) => (r.type === 'application' || r.type === '*') && (r.subtype === 'json' || r.subtype === '*'));
}

export class OpenApiPublisher {
  private readonly v3 = new Map<string, PublishedDocument>();
  private v2: PublishedDocument | undefined;
  /** Group/versions only custom resources serve, by index key (`apis/<group>/<version>`). */
  private custom = new Map<string, PublishedDocument>();
  /** The built-in documents' schemas, which custom documents reference. */
  private schemaPool: JsonObject | undefined;
  private index: Buffer | undefined;
  private unpublished: { v3: JsonObject; v2: JsonObject } | undefined;

  /** Built-in group-versions (index keys) with at least one served resource, and those with some not served. */
  private readonly servedGroupVersions = new Set<string>();
  private readonly trimmedGroupVersions = new Set<string>();

  /**
   * `served` says which built-in resources --runtime-config leaves: a group
   * version with none is gone from the index, the paths of the others from the
   * documents (v2 and v3), as upstream installs only the enabled resources.
   */
  constructor(
    private readonly api: GeneratedApi,
    private readonly served: ResourceServed = () => true,
  ) {
    for (const kind of api.kinds) {
      const gv = kind.group ? `apis/${kind.group}/${kind.version}` : `api/${kind.version}`;
      if (served(kind.group, kind.version, kind.plural)) this.servedGroupVersions.add(gv);
      else this.trimmedGroupVersions.add(gv);
    }
  }

  /** A built-in document without the paths of resources not served; the published bytes when all are. */
  private readBuiltin(file: string, trimmed: boolean): Buffer {
    const body = this.api.readPublishedOpenApi(file);
    if (!trimmed) return body;
    const doc = JSON.parse(body.toString('utf8'));
    doc.paths = this.servedPaths(doc.paths);
    return Buffer.from(JSON.stringify(doc));
  }

  private servedPaths(paths: JsonObject): JsonObject {
    return Object.fromEntries(
      Object.entries(paths).filter(([path]) => {
        const target = targetOfPath(path);
        if (!target || !(this.servedGroupVersions.has(target.groupVersion) || this.trimmedGroupVersions.has(target.groupVersion))) return true;
        if (!this.servedGroupVersions.has(target.groupVersion)) return false;
        return target.resource === undefined || this.served(target.group, target.version, target.resource);
      }),
    );
  }

  private builtinServed(path: string): boolean {
    return this.api.openapiV3Paths[path] !== undefined && this.servedGroupVersions.has(path);
  }

  private document(path: string): PublishedDocument | undefined {
    const custom = this.custom.get(path);
    if (custom) return custom;
    if (!this.builtinServed(path)) return undefined;
    let doc = this.v3.get(path);
    if (!doc) {
      doc = published(this.readBuiltin(this.api.openapiV3Paths[path], this.trimmedGroupVersions.has(path)));
      this.v3.set(path, doc);
    }
    return doc;
  }

  private builtinV3(path: string): JsonObject {
    return JSON.parse(this.readBuiltin(this.api.openapiV3Paths[path], this.trimmedGroupVersions.has(path)).toString('utf8'));
  }

  /**
   * Every built-in schema by name (meta.v1's, and any other a custom route
   * names), with those of group-versions that publish no document (autoscaling's
   * Scale, the body of custom resources' scale subresource).
   */
  private builtinSchemas(): JsonObject {
    if (!this.schemaPool) {
      const pool: JsonObject = {};
      for (const path of Object.keys(this.api.openapiV3Paths)) {
        const schemas = (this.builtinV3(path).components as any)?.schemas ?? {};
        for (const name of Object.keys(schemas)) pool[name] ??= schemas[name];
      }
      for (const [name, schema] of Object.entries(this.unpublishedSchemas().v3)) pool[name] ??= schema;
      this.schemaPool = pool;
    }
    return this.schemaPool;
  }

  private unpublishedSchemas(): { v3: JsonObject; v2: JsonObject } {
    return (this.unpublished ??= JSON.parse(this.api.readPublishedOpenApi('unpublished-schemas.json').toString('utf8')));
  }

  /**
   * Replaces what custom resources publish (upstream's openapiv3 controller
   * UpdateGroupVersion per group/version, and the v2 controller's merge into
   * the static spec): kinds of one group/version share one document; a group
   * version no part names any more is gone from the index.
   */
  publishCustom(parts: readonly CustomOpenApiPart[]): void {
    const byGroupVersion = new Map<string, CustomOpenApiPart[]>();
    for (const part of parts) byGroupVersion.set(part.groupVersion, [...(byGroupVersion.get(part.groupVersion) ?? []), part]);
    const custom = new Map<string, PublishedDocument>();
    const schemaPrefix = '#/components/schemas/';
    for (const [gv, group] of [...byGroupVersion].sort(([a], [b]) => (a < b ? -1 : 1))) {
      // A custom kind in a built-in group/version joins the built-in document.
      const base: any = this.builtinServed(gv)
        ? this.builtinV3(gv)
        : { openapi: '3.0.0', info: { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' }, paths: {}, components: { schemas: {} } };
      const paths: JsonObject = { ...base.paths };
      const schemas: JsonObject = { ...base.components.schemas };
      for (const part of group) {
        for (const [path, item] of Object.entries(part.v3.paths)) paths[path] ??= item;
        for (const [name, schema] of Object.entries(part.v3.schemas)) schemas[name] ??= schema;
      }
      const pool = this.builtinSchemas();
      for (const name of referencedSchemas([paths, schemas], pool, schemaPrefix)) schemas[name] ??= pool[name];
      base.paths = sorted(paths);
      base.components = { ...base.components, schemas: sorted(schemas) };
      custom.set(gv, published(Buffer.from(JSON.stringify(base))));
    }
    const v2 = JSON.parse(this.readBuiltin('v2.json', this.trimmedGroupVersions.size > 0).toString('utf8'));
    const v2Paths: JsonObject = { ...v2.paths };
    const definitions: JsonObject = { ...v2.definitions };
    for (const part of parts) {
      for (const [path, item] of Object.entries(part.v2.paths)) v2Paths[path] ??= item;
      for (const [name, schema] of Object.entries(part.v2.definitions)) definitions[name] ??= schema;
    }
    // The v2 document holds every built-in definition already; only the unpublished ones a custom route names are added.
    const unpublished = this.unpublishedSchemas().v2;
    for (const name of referencedSchemas([v2Paths, definitions], unpublished, '#/definitions/')) definitions[name] ??= unpublished[name];
    v2.paths = sorted(v2Paths);
    v2.definitions = sorted(definitions);
    this.v2 = parts.length > 0 ? published(Buffer.from(JSON.stringify(v2))) : undefined;
    this.custom = custom;
    this.index = undefined;
  }

  /** The /openapi/v3 index (upstream handler3's discovery): each group/version's address with its document's hash. */
  private encodeIndex(): Buffer {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const gv of [...new Set([...Object.keys(this.api.openapiV3Paths).filter((path) => this.builtinServed(path)), ...this.custom.keys()])].sort()) {
      paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${this.document(gv)!.hash}` };
    }
    return Buffer.from(JSON.stringify({ paths }));
  }

  /** Returns false when the path is not an OpenAPI path. */
  serve(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): boolean {
    if (path !== '/openapi/v2' && path !== '/openapi/v3' && !path.startsWith('/openapi/v3/')) return false;
    if (!acceptsJson(req)) throw notAcceptable(['application/json']);
    if (path === '/openapi/v2') {
      this.v2 ??= published(this.readBuiltin('v2.json', this.trimmedGroupVersions.size > 0));
      writeSharedBody(res, 200, { 'Content-Type': 'application/json', ETag: `"${this.v2.hash}"` }, this.v2.body);
      return true;
    }
    if (path === '/openapi/v3') {
      this.index ??= this.encodeIndex();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(this.index);
      return true;
    }
    const gv = path.slice('/openapi/v3/'.length);
    const doc = this.document(gv);
    if (!doc) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
      return true;
    }
    const hash = query.get('hash');
    if (hash && hash !== doc.hash) {
      res.writeHead(301, { Location: `/openapi/v3/${gv}?hash=${doc.hash}` });
      res.end();
      return true;
    }
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Etag: `"${doc.hash}"` };
    if (hash) {
      headers['Cache-Control'] = 'public, immutable';
      headers.Expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
    }
    writeSharedBody(res, 200, headers, doc.body);
    return true;
  }
}
