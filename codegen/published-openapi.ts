/**
 * Builds the OpenAPI documents the server publishes (/openapi/v3/<gv>, /openapi/v2):
 * the bundled contract plus one path item per operation of each kind, as upstream
 * generates them (SPEC 4.1, 4.2, 4.8), with the project's private x-orch-*
 * extensions removed.
 */
import { OPENAPI_PARAMETERS } from '../src/server/openapi-parameters.ts';
import { schemaNameOf, type ContractKind, type GroupVersionDocument, type OpenApiDocument, type Schema } from './contract.ts';

const parameters: Record<string, any> = OPENAPI_PARAMETERS;
const MEDIA = ['application/json', 'application/yaml', 'application/vnd.orch.protobuf'];
const LIST_MEDIA = [...MEDIA, 'application/json;stream=watch', 'application/vnd.orch.protobuf;stream=watch'];
const PATCH_MEDIA = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];
const STATUS_REF = '#/components/schemas/io.orch.apimachinery.pkg.apis.meta.v1.Status';
const DELETE_OPTIONS_REF = '#/components/schemas/io.orch.apimachinery.pkg.apis.meta.v1.DeleteOptions';
const PATCH_REF = '#/components/schemas/io.orch.apimachinery.pkg.apis.meta.v1.Patch';

const LIST_QUERY = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'];
const WRITE_QUERY = ['dryRun', 'fieldManager', 'fieldValidation'];
const DELETE_QUERY = ['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'];

function param(name: string): any {
  const p = parameters[name];
  if (!p) throw new Error(`openapi-parameters.ts has no ${name}`);
  return p;
}

function content(ref: string, media = MEDIA): Record<string, any> {
  return Object.fromEntries(media.map((m) => [m, { schema: { $ref: ref } }]));
}

function responses(codes: number[], ref: string, media = MEDIA): Record<string, any> {
  const out: Record<string, any> = {};
  for (const code of codes) out[code] = { description: code === 201 ? 'Created' : code === 202 ? 'Accepted' : 'OK', content: content(ref, media) };
  out['401'] = { description: 'Unauthorized' };
  return out;
}

/** upstream operation-id spelling: `networking.orch.io` -> `Networking`, core -> `Core`. */
function groupToken(group: string): string {
  if (!group) return 'Core';
  const base = group.replace(/\.orch\.io$/, '').split('.');
  return base.map((s) => s[0].toUpperCase() + s.slice(1)).join('');
}

function kindPaths(k: ContractKind, doc: OpenApiDocument): Record<string, any> {
  const root = k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`;
  const token = `${groupToken(k.group)}${k.version[0].toUpperCase()}${k.version.slice(1)}`;
  const scope = k.resource.namespaced ? 'Namespaced' : '';
  const collection = k.resource.namespaced ? `${root}/namespaces/{namespace}/${k.resource.plural}` : `${root}/${k.resource.plural}`;
  const item = `${collection}/{name}`;
  const gvk = { group: k.group, kind: k.kind, version: k.version };
  const ref = `#/components/schemas/${k.schemaName}`;
  const listRef = `#/components/schemas/${k.listSchemaName ?? ''}`;
  const verbs = new Set(k.resource.verbs);
  const op = (action: string, verb: string, description: string, extra: Record<string, any>) => ({
    description,
    operationId: `${verb}${token}${extra.idSuffix ?? ''}`,
    ...Object.fromEntries(Object.entries(extra).filter(([key]) => key !== 'idSuffix')),
    tags: [`${k.group ? groupToken(k.group).toLowerCase() : 'core'}_${k.version}`],
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
  });
  const scopeParams = k.resource.namespaced ? [param('namespace')] : [];
  const paths: Record<string, any> = {};
  const coll: Record<string, any> = { parameters: [...scopeParams, param('pretty')] };
  if (verbs.has('list')) {
    coll.get = op('list', 'list', `list or watch objects of kind ${k.kind}`, {
      idSuffix: `${scope}${k.kind}`,
      parameters: LIST_QUERY.map(param),
      responses: responses([200], listRef, LIST_MEDIA),
    });
  }
  if (verbs.has('create')) {
    coll.post = op('post', 'create', `create a ${k.kind}`, {
      idSuffix: `${scope}${k.kind}`,
      parameters: WRITE_QUERY.map(param),
      requestBody: { content: content(ref, ['*/*']), required: true },
      responses: responses([200, 201, 202], ref),
    });
  }
  if (verbs.has('deletecollection')) {
    coll.delete = op('deletecollection', 'delete', `delete collection of ${k.kind}`, {
      idSuffix: `Collection${scope}${k.kind}`,
      parameters: [...LIST_QUERY.filter((p) => !['allowWatchBookmarks', 'watch'].includes(p)), ...DELETE_QUERY].sort().map(param),
      requestBody: { content: content(DELETE_OPTIONS_REF, ['*/*']) },
      responses: responses([200], STATUS_REF),
    });
  }
  paths[collection] = coll;
  const one: Record<string, any> = { parameters: [param('name'), ...scopeParams, param('pretty')] };
  if (verbs.has('get')) one.get = op('get', 'read', `read the specified ${k.kind}`, { idSuffix: `${scope}${k.kind}`, responses: responses([200], ref) });
  if (verbs.has('update')) {
    one.put = op('put', 'replace', `replace the specified ${k.kind}`, {
      idSuffix: `${scope}${k.kind}`,
      parameters: WRITE_QUERY.map(param),
      requestBody: { content: content(ref, ['*/*']), required: true },
      responses: responses([200, 201], ref),
    });
  }
  if (verbs.has('patch')) {
    one.patch = op('patch', 'patch', `partially update the specified ${k.kind}`, {
      idSuffix: `${scope}${k.kind}`,
      parameters: [...WRITE_QUERY, 'force'].map(param),
      requestBody: { content: content(PATCH_REF, PATCH_MEDIA), required: true },
      responses: responses([200, 201], ref),
    });
  }
  if (verbs.has('delete')) {
    one.delete = op('delete', 'delete', `delete a ${k.kind}`, {
      idSuffix: `${scope}${k.kind}`,
      parameters: DELETE_QUERY.map(param),
      requestBody: { content: content(DELETE_OPTIONS_REF, ['*/*']) },
      responses: responses([200, 202], STATUS_REF),
    });
  }
  // A review that is not stored has no object to address.
  if (k.resource.stored) paths[item] = one;
  if (k.resource.namespaced && verbs.has('list')) {
    paths[`${root}/${k.resource.plural}`] = {
      parameters: [param('pretty')],
      get: op('list', 'list', `list or watch objects of kind ${k.kind}`, {
        idSuffix: `${k.kind}ForAllNamespaces`,
        parameters: LIST_QUERY.map(param),
        responses: responses([200], listRef, LIST_MEDIA),
      }),
    };
  }
  for (const sub of k.resource.subresources) {
    const subVerbs = new Set(sub.verbs);
    const title = sub.name[0].toUpperCase() + sub.name.slice(1);
    const path: Record<string, any> = { parameters: [param('name'), ...scopeParams, param('pretty')] };
    if (subVerbs.has('get')) path.get = op('get', 'read', `read ${sub.name} of the specified ${k.kind}`, { idSuffix: `${scope}${k.kind}${title}`, responses: responses([200], ref) });
    if (subVerbs.has('create')) {
      // The body is the subresource's own kind, possibly of another group (serviceaccounts/token: TokenRequest).
      const subGroup = sub.group ?? k.group;
      const subVersion = sub.version ?? k.version;
      const subKind = sub.kind ?? k.kind;
      const subSchema = schemaNameOf(doc, subGroup, subVersion, subKind);
      if (!subSchema) throw new Error(`${k.kind}/${sub.name}: no schema for ${subGroup}/${subVersion} ${subKind}`);
      const subRef = `#/components/schemas/${subSchema}`;
      path.post = {
        ...op('post', 'create', `create ${sub.name} of a ${k.kind}`, {
          idSuffix: `${scope}${k.kind}${title}`,
          parameters: WRITE_QUERY.map(param),
          requestBody: { content: content(subRef, ['*/*']), required: true },
          responses: responses([200, 201, 202], subRef),
        }),
        'x-kubernetes-group-version-kind': { group: subGroup, kind: subKind, version: subVersion },
      };
    }
    if (subVerbs.has('update')) {
      path.put = op('put', 'replace', `replace ${sub.name} of the specified ${k.kind}`, {
        idSuffix: `${scope}${k.kind}${title}`,
        parameters: WRITE_QUERY.map(param),
        requestBody: { content: content(ref, ['*/*']), required: true },
        responses: responses([200, 201], ref),
      });
    }
    if (subVerbs.has('patch')) {
      path.patch = op('patch', 'patch', `partially update ${sub.name} of the specified ${k.kind}`, {
        idSuffix: `${scope}${k.kind}${title}`,
        parameters: [...WRITE_QUERY, 'force'].map(param),
        requestBody: { content: content(PATCH_REF, PATCH_MEDIA), required: true },
        responses: responses([200, 201], ref),
      });
    }
    if (Object.keys(path).length > 1) paths[`${item}/${sub.name}`] = path;
  }
  return paths;
}

/** Removes the project's private extensions; `x-kubernetes-*` stay because kubectl and generators read them. */
export function stripPrivate(node: any): any {
  if (Array.isArray(node)) return node.map(stripPrivate);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([k]) => !k.startsWith('x-orch-')).map(([k, v]) => [k, stripPrivate(v)]));
}

/** The document served at /openapi/v3/<api/v1|apis/g/v>. */
export function publishedV3(gv: GroupVersionDocument): OpenApiDocument {
  const doc = stripPrivate(gv.document) as OpenApiDocument;
  const paths: Record<string, any> = {};
  for (const k of gv.kinds) Object.assign(paths, kindPaths(k, gv.document));
  doc.paths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : 1)));
  doc.info = { title: 'orch-apiserver', version: gv.group ? `${gv.group}/${gv.version}` : gv.version };
  doc.components = {
    ...doc.components,
    securitySchemes: { BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
  };
  doc.security = [{ BearerToken: [] }];
  if (!doc.components.schemas['io.orch.apimachinery.pkg.apis.meta.v1.Patch']) {
    doc.components.schemas['io.orch.apimachinery.pkg.apis.meta.v1.Patch'] = {
      description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
      type: 'object',
    };
  }
  return doc;
}

/** Converts one schema from OpenAPI 3 to Swagger 2 (refs to definitions; allOf wrappers kept). */
export function toV2Schema(node: any): any {
  if (Array.isArray(node)) return node.map(toV2Schema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, any> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') out.$ref = v.replace('#/components/schemas/', '#/definitions/');
    else out[k] = toV2Schema(v);
  }
  // Swagger 2 has no allOf-with-siblings ambiguity problems for a single ref; unwrap for older generators.
  if (Array.isArray(out.allOf) && out.allOf.length === 1 && out.allOf[0].$ref && !out.type) {
    const { allOf, ...rest } = out;
    delete rest.default;
    return { ...rest, $ref: allOf[0].$ref };
  }
  return out;
}

function toV2Operation(op: any): any {
  const parameters = (op.parameters ?? []).map((p: any) => ({ ...p, ...p.schema, schema: undefined }));
  const out: any = { ...op, parameters, consumes: ['*/*'], produces: MEDIA, schemes: ['https'] };
  delete out.requestBody;
  if (op.requestBody) {
    const media = Object.keys(op.requestBody.content);
    out.consumes = media;
    parameters.push({ in: 'body', name: 'body', required: !!op.requestBody.required, schema: toV2Schema(Object.values<any>(op.requestBody.content)[0].schema) });
  }
  out.responses = Object.fromEntries(
    Object.entries<any>(op.responses).map(([code, r]) => {
      if (!r.content) return [code, { description: r.description }];
      out.produces = Object.keys(r.content);
      return [code, { description: r.description, schema: toV2Schema(Object.values<any>(r.content)[0].schema) }];
    }),
  );
  for (const p of parameters) for (const k of Object.keys(p)) if (p[k] === undefined) delete p[k];
  if (out.parameters.length === 0) delete out.parameters;
  return out;
}

/** The Swagger 2.0 document served at /openapi/v2, merging every group/version. */
export function publishedV2(v3docs: OpenApiDocument[]): Record<string, unknown> {
  const definitions: Record<string, any> = {};
  const paths: Record<string, any> = {};
  for (const doc of v3docs) {
    for (const [name, schema] of Object.entries<Schema>(doc.components.schemas)) definitions[name] = toV2Schema(schema);
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const v2item: Record<string, any> = {};
      for (const [method, op] of Object.entries<any>(item)) {
        v2item[method] = method === 'parameters' ? op.map((p: any) => ({ ...p, ...p.schema, schema: undefined })) : toV2Operation(op);
      }
      for (const p of v2item.parameters ?? []) delete p.schema;
      paths[path] = v2item;
    }
  }
  const sort = <T>(o: Record<string, T>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
  return {
    swagger: '2.0',
    info: { title: 'orch-apiserver', version: 'v1.31.0' },
    paths: sort(paths),
    definitions: sort(definitions),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
    security: [{ BearerToken: [] }],
  };
}
