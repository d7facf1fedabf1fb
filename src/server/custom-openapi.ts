/**
 * OpenAPI paths and schemas of custom resources (SPEC 4.1, 4.2, 4.5; upstream
 * apiextensions-apiserver pkg/controller/openapi/builder generateBuilder and
 * buildRoute, kube-openapi builder and builder3): each served version of a
 * CustomResourceDefinition yields its routes (collection, item, all-namespaces
 * list, status and scale subresources when defined) with upstream's
 * operation ids, descriptions, options and media types, and its kind's and
 * list's schemas (named `<reversed group>.<version>.<Kind>`), in the
 * OpenAPI v3 style of /openapi/v3/apis/<group>/<version> and in the Swagger 2
 * style merged into /openapi/v2.
 */
import type { KindDefinition } from '../registry/kind.ts';
import type { ApiObject } from '../registry/strategy.ts';
import type { JsonObject } from '../registry/json-value.ts';
import { OPENAPI_PARAMETERS } from './openapi-parameters.ts';
import { LIST_META_DESCRIPTION, publishedKindSchema, TYPE_META_API_VERSION, TYPE_META_KIND } from './custom-openapi-schema.ts';

/** Query and path parameters as kube-apiserver documents them (shared with codegen/published-openapi.ts). */
const PARAMETERS: Record<string, JsonObject> = OPENAPI_PARAMETERS;
const META_PREFIX = 'io.orch.apimachinery.pkg.apis.meta.v1.';
const SCALE = 'io.orch.api.autoscaling.v1.Scale';
const MEDIA = ['application/json', 'application/yaml'];
const LIST_OPTIONS = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'];
const WRITE_OPTIONS = ['dryRun', 'fieldManager', 'fieldValidation'];
/** The query parameters each action takes (upstream AddObjectParams of its options type). */
const OPTIONS: Record<string, string[]> = {
  get: ['resourceVersion'],
  list: LIST_OPTIONS,
  deletecollection: LIST_OPTIONS,
  post: WRITE_OPTIONS,
  put: WRITE_OPTIONS,
  patch: [...WRITE_OPTIONS, 'force'],
  delete: ['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'],
};
/** The extra responses each action declares besides 200 OK. */
const EXTRA_RESPONSES: Record<string, Array<[number, string]>> = { post: [[202, 'Accepted'], [201, 'Created']], delete: [[202, 'Accepted']], put: [[201, 'Created']] };

/** One group/version's share of a custom kind: paths and schemas in both documents' styles. */
export interface CustomOpenApiPart {
  /** The /openapi/v3 index key, `apis/<group>/<version>`. */
  groupVersion: string;
  v3: { paths: JsonObject; schemas: JsonObject };
  v2: { paths: JsonObject; definitions: JsonObject };
}

/** upstream gvkToModelName: the group reversed (`example.com` -> `com.example`), the version, the kind. */
export function customDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** upstream ToValidOperationID: letters, `_` and non-leading digits kept, a separator capitalizes what follows. */
export function toValidOperationId(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (/\p{L}/u.test(c) || c === '_' || (i !== 0 && /\p{Nd}/u.test(c))) {
      out += capitalize ? c.toUpperCase() : c;
      capitalize = false;
    } else capitalize = true;
  }
  return out;
}

/** upstream endpoints.GetArticleForNoun with a space on either side. */
function article(noun: string): string {
  if (!noun.endsWith('ss') && noun.endsWith('s')) return ' ';
  return /^[aeiou]/i.test(noun) ? ' an ' : ' a ';
}

interface Route {
  path: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  action: string;
  /** The operation name before the group/version is spliced in (upstream's route Operation). */
  operation: string;
  description: string;
  /** Schema names (without prefix) of the response and of the request body. */
  returns: string;
  reads?: string;
  parameters: JsonObject[];
}

interface CustomVersion {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  namespaced: boolean;
  status: boolean;
  scale: boolean;
  /** The PATCH media types the kind takes (no strategic merge for custom resources). */
  patchTypes: readonly string[];
}

/** upstream generateBuilder's routes, in its order. */
function routes(v: CustomVersion): Route[] {
  const out: Route[] = [];
  const scope = v.namespaced ? 'Namespaced' : '';
  const model = customDefinitionName(v.group, v.version, v.kind);
  const listModel = customDefinitionName(v.group, v.version, v.listKind);
  const namespaceParam = { ...PARAMETERS.namespace };
  const nameParam = { ...PARAMETERS.name, description: `name of the ${v.kind}` };
  let root = `/apis/${v.group}/${v.version}/${v.plural}`;
  const add = (suffix: string, method: Route['method'], action: string, verb: string, returns: string, reads?: string, operation?: string) => {
    const sub = suffix.split('/')[2] ?? '';
    const subTitle = sub ? sub[0].toUpperCase() + sub.slice(1) : '';
    const subText = sub ? ` ${sub} of` : '';
    const description =
      verb === 'patch' ? `partially update${subText} the specified ${v.kind}`
      : verb === 'deletecollection' ? `delete collection of${sub ? `${subText} a` : ''} ${v.kind}`
      : `${verb}${subText}${verb === 'list' ? ' objects of kind ' : verb === 'read' || verb === 'replace' ? ' the specified ' : article(v.kind)}${v.kind}`;
    const path = root + suffix;
    const parameters = [{ ...PARAMETERS.pretty }, ...OPTIONS[action].map((name) => ({ ...PARAMETERS[name] }))];
    if (path.includes('{namespace}')) parameters.push(namespaceParam);
    if (path.includes('{name}')) parameters.push(nameParam);
    out.push({ path, method, action, operation: operation ?? `${verb}${scope}${v.kind}${subTitle}`, description, returns, reads, parameters });
  };
  if (v.namespaced) {
    add('', 'get', 'list', 'list', listModel, undefined, `list${v.kind}ForAllNamespaces`);
    root = `/apis/${v.group}/${v.version}/namespaces/{namespace}/${v.plural}`;
  }
  const status = `${META_PREFIX}Status`;
  const patch = `${META_PREFIX}Patch`;
  add('', 'get', 'list', 'list', listModel);
  add('', 'post', 'post', 'create', model, model);
  add('', 'delete', 'deletecollection', 'deletecollection', status);
  add('/{name}', 'get', 'get', 'read', model);
  add('/{name}', 'put', 'put', 'replace', model, model);
  add('/{name}', 'delete', 'delete', 'delete', status, `${META_PREFIX}DeleteOptions`);
  add('/{name}', 'patch', 'patch', 'patch', model, patch);
  for (const [sub, enabled, sample] of [['status', v.status, model], ['scale', v.scale, SCALE]] as const) {
    if (!enabled) continue;
    add(`/{name}/${sub}`, 'get', 'get', 'read', sample);
    add(`/{name}/${sub}`, 'put', 'put', 'replace', sample, sample);
    add(`/{name}/${sub}`, 'patch', 'patch', 'patch', sample, patch);
  }
  return out;
}

/** upstream GetOperationIDAndTags: the verb, then the group (less `.orch.io`) and version, then the rest. */
function operationIdAndTag(route: Route, v: CustomVersion): { id: string; tag: string } {
  const verb = ['get', 'log', 'read', 'replace', 'patch', 'delete', 'watch', 'connect', 'proxy', 'list', 'create'].find((p) => route.operation.startsWith(p)) ?? '';
  const group = v.group.replace(/\.orch\.io$/, '');
  const id = verb + toValidOperationId(group, true) + toValidOperationId(v.version, true) + toValidOperationId(route.operation.slice(verb.length), true);
  return { id, tag: `${toValidOperationId(group, false)}_${toValidOperationId(v.version, false)}` };
}

const byNameIn = (a: JsonObject, b: JsonObject) => (a.name === b.name ? String(a.in).localeCompare(String(b.in)) : String(a.name) < String(b.name) ? -1 : 1);

/** Both documents' path items; parameters every operation of a path shares move to the path (kube-openapi findCommonParameters). */
function pathItems(v: CustomVersion): { v3: JsonObject; v2: JsonObject } {
  const byPath = new Map<string, Route[]>();
  for (const route of routes(v)) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  const v3: JsonObject = {};
  const v2: JsonObject = {};
  const gvk = { group: v.group, version: v.version, kind: v.kind };
  const v3Ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const v2Ref = (name: string) => ({ $ref: `#/definitions/${name}` });
  for (const [path, list] of byPath) {
    const key = (p: JsonObject) => `${p.in}/${p.name}`;
    const common = list[0].parameters.filter((p) => list.every((r) => r.parameters.some((q) => key(q) === key(p)))).sort(byNameIn);
    const own = (r: Route) => r.parameters.filter((p) => !common.some((c) => key(c) === key(p))).sort(byNameIn);
    const v2Param = ({ schema, ...p }: JsonObject) => ({ ...p, ...(schema as JsonObject) });
    const item3: JsonObject = { parameters: common };
    const item2: JsonObject = { parameters: common.map(v2Param) };
    for (const route of list) {
      const { id, tag } = operationIdAndTag(route, v);
      const codes: Array<[number, string]> = [[200, 'OK'], ...(EXTRA_RESPONSES[route.action] ?? [])];
      const consumes = route.method === 'patch' ? v.patchTypes : MEDIA;
      const head = { description: route.description, operationId: id, tags: [tag] };
      const tail = { 'x-kubernetes-action': route.action, 'x-kubernetes-group-version-kind': gvk };
      const params = own(route);
      const responses3: JsonObject = Object.fromEntries(codes.map(([code, text]) => [code, { description: text, content: Object.fromEntries(MEDIA.map((m) => [m, { schema: v3Ref(route.returns) }])) }]));
      const responses2: JsonObject = Object.fromEntries(codes.map(([code, text]) => [code, { description: text, schema: v2Ref(route.returns) }]));
      responses3['401'] = responses2['401'] = { description: 'Unauthorized' };
      const required = route.action !== 'delete';
      item3[route.method] = {
        ...head,
        ...(params.length > 0 ? { parameters: params } : {}),
        ...(route.reads ? { requestBody: { content: Object.fromEntries(consumes.map((m) => [m, { schema: v3Ref(route.reads!) }])), ...(required ? { required } : {}) } } : {}),
        responses: responses3,
        ...tail,
      };
      const body2 = route.reads ? [{ in: 'body', name: 'body', ...(required ? { required } : {}), schema: v2Ref(route.reads) }] : [];
      const params2 = [...params.map(v2Param), ...body2].sort(byNameIn);
      item2[route.method] = { ...head, consumes, produces: MEDIA, schemes: ['https'], ...(params2.length > 0 ? { parameters: params2 } : {}), responses: responses2, ...tail };
    }
    v3[path] = item3;
    v2[path] = item2;
  }
  return { v3, v2 };
}

/** upstream buildListSchema. */
function listSchema(v: CustomVersion, ref: (name: string) => JsonObject, selectable: JsonObject): JsonObject {
  return {
    description: `${v.listKind} is a list of ${v.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: TYPE_META_API_VERSION,
      items: { description: `List of ${v.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, type: 'array', items: ref(customDefinitionName(v.group, v.version, v.kind)) },
      kind: TYPE_META_KIND,
      metadata: { ...ref(`${META_PREFIX}ListMeta`), description: LIST_META_DESCRIPTION },
    },
    'x-kubernetes-group-version-kind': [{ group: v.group, kind: v.listKind, version: v.version }],
    ...selectable,
  };
}

/**
 * What the definition adds to the documents: one part per kind it serves
 * (`served`, the KindDefinitions this process routes; a subresource is
 * published when it is served). Upstream BuildOpenAPIV3 and BuildOpenAPIV2
 * with IncludeSelectableFields (the CustomResourceFieldSelectors gate is on
 * in 1.31).
 */
export function customOpenApiParts(crd: ApiObject, served: readonly KindDefinition[]): CustomOpenApiPart[] {
  const spec = crd.spec ?? {};
  const versions: any[] = Array.isArray(spec.versions) ? spec.versions : [];
  return served.flatMap((kind): CustomOpenApiPart[] => {
      const version = versions.find((x) => x?.name === kind.version);
      if (!version) return [];
      const v: CustomVersion = {
        group: kind.group,
        version: kind.version,
        kind: kind.kind,
        listKind: kind.listKind,
        plural: kind.plural,
        namespaced: kind.namespaced,
        status: kind.subresources.some((s) => s.name === 'status'),
        scale: kind.subresources.some((s) => s.name === 'scale'),
        patchTypes: kind.patchTypes ?? [],
      };
      const fields = Array.isArray(version.selectableFields) ? version.selectableFields : [];
      const selectable = fields.length > 0 ? { 'x-kubernetes-selectable-fields': fields.map((f: any) => ({ fieldPath: String(f.jsonPath).replace(/^\./, '') })) } : {};
      const gvk = { 'x-kubernetes-group-version-kind': [{ group: v.group, kind: v.kind, version: v.version }] };
      const schema = version.schema?.openAPIV3Schema;
      const preserve = spec.preserveUnknownFields === true;
      const name = customDefinitionName(v.group, v.version, v.kind);
      const listName = customDefinitionName(v.group, v.version, v.listKind);
      const v3Ref = (n: string) => ({ $ref: `#/components/schemas/${n}` });
      const v2Ref = (n: string) => ({ $ref: `#/definitions/${n}` });
      const paths = pathItems(v);
      return [{
        groupVersion: `apis/${v.group}/${v.version}`,
        v3: {
          paths: paths.v3,
          schemas: {
            [name]: { ...publishedKindSchema(schema, (n) => `#/components/schemas/${META_PREFIX}${n}`, false, preserve), ...gvk, ...selectable },
            [listName]: listSchema(v, v3Ref, selectable),
          },
        },
        v2: {
          paths: paths.v2,
          definitions: {
            [name]: { ...publishedKindSchema(schema, (n) => `#/definitions/${META_PREFIX}${n}`, true, preserve), ...gvk, ...selectable },
            [listName]: listSchema(v, v2Ref, selectable),
          },
        },
      }];
    });
}
