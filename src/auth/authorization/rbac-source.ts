/**
 * RBAC's in-memory index over the watch cache (SPEC 5.5; issue 9): no storage
 * read per request. Bindings are indexed by the subjects they name; a user's
 * grants in a namespace are resolved once and kept until any Role,
 * ClusterRole or binding changes, so a deleted binding stops granting as soon
 * as the cache sees the deletion and a request costs a map lookup and its
 * rule checks.
 */
import type { ApiObject } from '../../registry/strategy.ts';
import type { ResourceCaches } from '../../storage/cacher/cacher.ts';
import { collectionPrefix, objectKey, resourcePrefix } from '../../storage/keys.ts';
import type { UserInfo } from '../../api/user.ts';
import { resolveGrants, type GrantResolver, type Grants, type RbacSource } from './rbac-authorizer.ts';
import type { Subject } from './rbac-rules.ts';

const GROUP = 'rbac.authorization.orch.io';
const PLURALS = ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'];
export const RBAC_RESOURCES = PLURALS.map((plural) => resourcePrefix(GROUP, plural));

/** Resolutions kept at most; past it the cache starts over (a cluster rarely has this many distinct identities at once). */
const MAX_RESOLUTIONS = 10_000;

/** The name a subject matches a user by: users and service accounts by user name, groups by group. */
function subjectKey(subject: Subject, bindingNamespace: string): string | undefined {
  switch (subject.kind) {
    case 'User':
      return `u:${subject.name}`;
    case 'Group':
      return `g:${subject.name}`;
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace && subject.name ? `u:system:serviceaccount:${namespace}:${subject.name}` : undefined;
    }
    default:
      return undefined;
  }
}

type SubjectIndex = Map<string, ApiObject[]>;

function addBinding(index: SubjectIndex, binding: ApiObject, bindingNamespace: string): void {
  const keys = new Set<string>();
  for (const subject of binding.subjects ?? []) {
    const key = subjectKey(subject, bindingNamespace);
    if (key) keys.add(key);
  }
  for (const key of keys) {
    const list = index.get(key);
    if (list) list.push(binding);
    else index.set(key, [binding]);
  }
}

/** The bindings of `index` naming the user or one of its groups, once each, in index order. */
function candidates(index: SubjectIndex | undefined, user: UserInfo): ApiObject[] {
  if (!index) return [];
  const found = new Set<ApiObject>();
  for (const binding of index.get(`u:${user.name}`) ?? []) found.add(binding);
  for (const group of user.groups) for (const binding of index.get(`g:${group}`) ?? []) found.add(binding);
  return [...found];
}

export class CachedRbacSource implements RbacSource, GrantResolver {
  private clusterIndex: SubjectIndex | undefined;
  private namespaceIndexes = new Map<string, SubjectIndex>();
  private readonly resolutions = new Map<string, Grants>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly cacher: ResourceCaches) {
    const invalidate = () => this.invalidate();
    for (const plural of PLURALS) {
      const listeners = this.cache(plural).listeners;
      listeners.add(invalidate);
      this.unsubscribe.push(() => listeners.delete(invalidate));
    }
  }

  /** Stops following the watch cache. */
  close(): void {
    for (const stop of this.unsubscribe.splice(0)) stop();
  }

  private invalidate(): void {
    this.clusterIndex = undefined;
    this.namespaceIndexes.clear();
    this.resolutions.clear();
  }

  private cache(plural: string) {
    return this.cacher.cache(resourcePrefix(GROUP, plural));
  }

  *clusterRoleBindings(): Iterable<ApiObject> {
    for (const cached of this.cache('clusterrolebindings').all()) yield cached.parsed();
  }

  *roleBindings(namespace: string): Iterable<ApiObject> {
    for (const cached of this.cache('rolebindings').list(collectionPrefix(GROUP, 'rolebindings', namespace))) yield cached.parsed();
  }

  clusterRole(name: string): ApiObject | undefined {
    return this.cache('clusterroles').get(objectKey(GROUP, 'clusterroles', undefined, name))?.parsed();
  }

  role(namespace: string, name: string): ApiObject | undefined {
    return this.cache('roles').get(objectKey(GROUP, 'roles', namespace, name))?.parsed();
  }

  private clusterBindingIndex(): SubjectIndex {
    if (!this.clusterIndex) {
      this.clusterIndex = new Map();
      for (const binding of this.clusterRoleBindings()) addBinding(this.clusterIndex, binding, '');
    }
    return this.clusterIndex;
  }

  private namespaceBindingIndex(namespace: string): SubjectIndex {
    let index = this.namespaceIndexes.get(namespace);
    if (!index) {
      index = new Map();
      for (const binding of this.roleBindings(namespace)) addBinding(index, binding, namespace);
      this.namespaceIndexes.set(namespace, index);
    }
    return index;
  }

  /** SPEC 5.5: the bindings that apply to `user` in `namespace` and their roles' rules, resolved once per change. */
  grantsFor(user: UserInfo, namespace: string): Grants {
    const key = `${namespace}\n${user.name}\n${user.groups.join('\n')}`;
    let grants = this.resolutions.get(key);
    if (!grants) {
      const clusterBindings = candidates(this.clusterBindingIndex(), user);
      const namespaceBindings = namespace ? candidates(this.namespaceBindingIndex(namespace), user) : [];
      grants = resolveGrants(this, user, namespace, clusterBindings, namespaceBindings);
      if (this.resolutions.size >= MAX_RESOLUTIONS) this.resolutions.clear();
      this.resolutions.set(key, grants);
    }
    return grants;
  }
}
