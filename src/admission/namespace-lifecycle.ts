/**
 * NamespaceLifecycle admission (SPEC 2.1; upstream plugin/pkg/admission/namespace/lifecycle):
 * content can be created only in an existing namespace that is not terminating,
 * and the system namespaces cannot be deleted.
 */
import * as errors from '../api/status-error.ts';
import type { AdmissionHook } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';

export const SYSTEM_NAMESPACES = ['default', 'orch-system', 'orch-public', 'orch-node-lease'];
/** The namespaces upstream refuses to delete. */
const IMMORTAL_NAMESPACES = new Set(['default', 'orch-system', 'orch-public']);

export function namespaceLifecycle(getNamespace: (name: string) => Promise<ApiObject | null>): AdmissionHook {
  return async ({ operation, kind, namespace, name }) => {
    if (kind.group === '' && kind.plural === 'namespaces') {
      if (operation === 'DELETE' && IMMORTAL_NAMESPACES.has(name)) {
        throw errors.forbidden({ group: '', resource: 'namespaces' }, name, 'this namespace may not be deleted');
      }
      return;
    }
    if (!kind.namespaced || operation !== 'CREATE' || !namespace) return;
    const ns = await getNamespace(namespace);
    if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, namespace);
    if (ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') {
      throw errors.forbidden(
        { group: kind.group, resource: kind.plural },
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
    }
  };
}
