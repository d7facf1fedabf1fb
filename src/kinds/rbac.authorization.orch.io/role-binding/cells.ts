/**
 * The Table cells of RoleBinding and ClusterRoleBinding (upstream
 * pkg/printers/internalversion/printers.go printRoleBinding and
 * printClusterRoleBinding, 1.31): `Kind/name` of the role, and the subjects of
 * each kind joined by ", ".
 */
import type { components } from '../../../generated/types/apis__rbac.authorization.orch.io__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type RoleBinding = components['schemas']['io.orch.api.rbac.v1.RoleBinding'];

function subjectsOf(subjects: unknown, kind: string): string {
  if (!Array.isArray(subjects)) return '';
  return subjects
    .filter((s) => s?.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name ?? ''}` : String(s.name ?? '')))
    .join(', ');
}

export const cells = {
  roleRef: (value: any) => `${value?.kind ?? ''}/${value?.name ?? ''}`,
  subjectUsers: (value) => subjectsOf(value, 'User'),
  subjectGroups: (value) => subjectsOf(value, 'Group'),
  subjectServiceAccounts: (value) => subjectsOf(value, 'ServiceAccount'),
} satisfies Record<string, Cell<RoleBinding>>;
