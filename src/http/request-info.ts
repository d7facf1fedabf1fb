import { queryBoolean } from '../api/query-values.ts';
import { selectorAttribute, type SelectorAttribute } from '../auth/authorization/authorizer.ts';
import { parseFieldSelector, requiresExactMatch, type FieldRequirement } from '../registry/selectors/field-selector.ts';
import { parseLabelSelector, type LabelRequirement } from '../registry/selectors/label-selector.ts';
import { isValidPathSegmentName } from '../api/names.ts';
import type { RequestTarget } from './request-target.ts';

/**
 * Request info: the first stage of the request path (DESIGN). Turns a method
 * and path into the attributes authorization sees (SPEC 4.1 path shapes, 5.1
 * verb derivation).
 */

export interface RequestInfo {
  isResourceRequest: boolean;
  /** The API verb (get, list, watch, create, ...) or, for non-resource requests, the lower-case method. */
  verb: string;
  path: string;
  /** `api` or `apis` for resource requests. */
  apiPrefix: string;
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after the group/version, and after `namespaces/{namespace}` when that prefix scoped the request. */
  parts: string[];
  /** Whether a `namespaces/{namespace}/` prefix preceded the resource (SPEC 4.1 namespaced path shapes). */
  namespacedPath: boolean;
  /**
   * The object a list or watch of a collection is narrowed to by
   * `fieldSelector=metadata.name=...`: authorized as that name (upstream
   * requestinfo), while the request is still served as a collection's.
   */
  selectedName: string;
  /** AuthorizeWithSelectors: the selectors of a list, watch or deletecollection. */
  fieldSelector?: SelectorAttribute<FieldRequirement>;
  labelSelector?: SelectorAttribute<LabelRequirement>;
}

export interface RequestInfoOptions {
  /** The AuthorizeWithSelectors gate (SPEC 9.6, alpha). */
  authorizeWithSelectors?: boolean;
}

const VERBS_WITH_SELECTORS = new Set(['list', 'watch', 'deletecollection']);


/** Subresources of a namespace that are not namespaced collections (upstream namespaceSubresources). */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const RESOURCE_VERBS: Record<string, string> = {
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
  GET: 'get',
  HEAD: 'get',
};

/** SPEC 4.3: `watch` is set by any value but `0` and `false` in any case (FACTS 2; upstream requestinfo.go). */
export function isWatchParameter(value: string | null): boolean {
  return queryBoolean(value) === true;
}

/** `target` is the parsed request target: segments already decoded and checked (request-target.ts). */
export function resolveRequestInfo(method: string, target: RequestTarget, options: RequestInfoOptions = {}): RequestInfo {
  const { query, segments } = target;
  const info: RequestInfo = {
    isResourceRequest: false,
    verb: method.toLowerCase(),
    path: target.path,
    apiPrefix: '',
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
    namespacedPath: false,
    selectedName: '',
  };
  const prefix = segments[0];
  if (prefix !== 'api' && prefix !== 'apis') return info;
  let rest: string[];
  if (prefix === 'api') {
    if (segments.length < 3) return info;
    info.version = segments[1];
    rest = segments.slice(2);
  } else {
    if (segments.length < 4) return info;
    info.group = segments[1];
    info.version = segments[2];
    rest = segments.slice(3);
  }
  info.isResourceRequest = true;
  info.apiPrefix = prefix;
  let verb = RESOURCE_VERBS[method] ?? method.toLowerCase();
  // The deprecated /watch/ path prefix (FACTS 2).
  const verbViaPath = rest[0] === 'watch';
  if (verbViaPath) {
    verb = 'watch';
    rest = rest.slice(1);
  }
  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) {
      rest = rest.slice(2);
      info.namespacedPath = true;
    }
  }
  info.parts = rest;
  info.resource = rest[0] ?? '';
  info.name = rest[1] ?? '';
  info.subresource = rest[2] ?? '';
  if (rest.length > 3) info.subresource = rest.slice(2).join('/');
  if (verb === 'get' || verb === 'watch') {
    const collectionGet = verb === 'get' && !info.name;
    if (verb === 'get' && isWatchParameter(query.get('watch'))) verb = 'watch';
    else if (collectionGet) verb = 'list';
    // A watch on a single object is a watch on its collection narrowed by name.
    if (collectionGet) info.selectedName = nameFromFieldSelector(query.get('fieldSelector'));
  } else if (verb === 'delete' && !info.name) {
    verb = 'deletecollection';
  }
  info.verb = verb;
  // Upstream skips the deprecated verb-via-path form, whose single-object watch has no selectors.
  if (options.authorizeWithSelectors && !verbViaPath && VERBS_WITH_SELECTORS.has(verb)) {
    const fields = query.get('fieldSelector');
    const labels = query.get('labelSelector');
    if (fields) info.fieldSelector = selectorAttribute(fields, parseFieldSelector);
    if (labels) info.labelSelector = selectorAttribute(labels, parseLabelSelector);
  }
  return info;
}

/** upstream: a collection GET whose field selector requires one valid name is authorized as that name. */
function nameFromFieldSelector(text: string | null): string {
  if (!text) return '';
  try {
    const name = requiresExactMatch(parseFieldSelector(text), 'metadata.name');
    return name !== undefined && isValidPathSegmentName(name).length === 0 ? name : '';
  } catch {
    return '';
  }
}
