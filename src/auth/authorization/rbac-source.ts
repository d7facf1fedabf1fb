/**
 * RBAC's bindings and roles from the watch cache (SPEC 5.5; issue 9): no
 * storage read per request, and a deleted binding stops granting as soon as
 * the cache sees the deletion. Each cached object is parsed once and kept.
 */
import type { ApiObject } from '../../registry/strategy.ts';
import type { Cacher } from '../../storage/cacher/cacher.ts';
import { collectionPrefix, objectKey, resourcePrefix } from '../../storage/keys.ts';
import type { RbacSource } from './rbac-authorizer.ts';

const GROUP = 'rbac.authorization.orch.io';
export const RBAC_RESOURCES = ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'].map((plural) => resourcePrefix(GROUP, plural));

export class CachedRbacSource implements RbacSource {
  constructor(private readonly cacher: Cacher) {}

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
}
