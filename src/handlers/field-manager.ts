/**
 * Field managers of non-apply writes (SPEC 2.2 managedFields, 4.5 item 1, 3, 7):
 * the manager is `fieldManager` or taken from the User-Agent; every create,
 * update and non-apply patch records an Update entry for the fields it changed.
 */
import type { IncomingMessage } from 'node:http';
import { managerFromUserAgent, recordUpdate } from '../registry/apply/managed-fields.ts';
import { nowTimestamp } from '../registry/object-meta.ts';
import type { ApiObject } from '../registry/strategy.ts';

export function managerFor(requested: string | undefined, req: IncomingMessage): string {
  return requested || managerFromUserAgent(req.headers['user-agent'] ?? '');
}

/** SPEC 4.5 item 7: a JSON patch replacing managedFields with one empty entry strips them. */
export function resetManagedFieldsRequested(obj: ApiObject): boolean {
  const fields = obj.metadata?.managedFields;
  return Array.isArray(fields) && fields.length === 1 && fields[0] && Object.keys(fields[0]).length === 0;
}

function withoutManagedFields(obj: ApiObject): string {
  const { managedFields: _ignored, resourceVersion: _rv, ...meta } = obj.metadata;
  return JSON.stringify({ ...obj, metadata: meta });
}

/**
 * The store's trackFields hook for Update operations: clients cannot write
 * managedFields directly (they keep the stored ones), and a write that changes
 * nothing else leaves them, timestamps included, as they were.
 */
export function fieldTracker(manager: string, apiVersion: string, structure: Record<string, any>, schemaName: string, subresource?: string) {
  return (obj: ApiObject, old: ApiObject | null): void => {
    const previous = old?.metadata.managedFields ?? [];
    const reset = resetManagedFieldsRequested(obj);
    const base = reset ? [] : previous;
    if (old && withoutManagedFields(obj) === withoutManagedFields(old) && !reset) {
      if (previous.length) obj.metadata.managedFields = previous;
      else delete obj.metadata.managedFields;
      return;
    }
    const time = nowTimestamp();
    const managed = recordUpdate(base, old, obj, manager, apiVersion, time, structure, schemaName, { subresource });
    if (managed.length) obj.metadata.managedFields = managed;
    else delete obj.metadata.managedFields;
  };
}
