/**
 * The `rbac/bootstrap-roles` start-up step (SPEC 5.5; upstream
 * pkg/registry/rbac/rest/storage_rbac.go and pkg/registry/rbac/reconciliation):
 * every default role and binding is created when missing and reconciled when
 * present, at every start of every replica. Reconciliation only adds: missing
 * labels, annotations, rules, aggregation selectors and subjects are merged
 * into what is stored, an operator's additions stay, and an object annotated
 * `rbac.authorization.orch.io/autoupdate: "false"` is left alone. A binding
 * whose roleRef differs is deleted and re-created, since roleRef is immutable.
 * Replicas racing on one store meet the compare-and-swap and retry.
 */
import { AUTOUPDATE_ANNOTATION } from './bootstrap-policy.ts';
import { covers } from './rbac-covers.ts';
import type { PolicyRule, Subject } from './rbac-rules.ts';
import * as errors from '../../api/status-error.ts';
import { ensureBootstrapObject } from '../../registry/bootstrap-object.ts';
import type { GenericStore } from '../../registry/store.ts';
import type { ApiObject } from '../../registry/strategy.ts';
import { stableJson } from '../../util/stable-json.ts';

export interface BootstrapPolicy {
  clusterRoles: ApiObject[];
  clusterRoleBindings: ApiObject[];
  roles: ApiObject[];
  roleBindings: ApiObject[];
}

export interface RbacStores {
  clusterRoles: GenericStore;
  clusterRoleBindings: GenericStore;
  roles: GenericStore;
  roleBindings: GenericStore;
}


/** upstream merge(expected, existing): the stored values win. */
function mergeMaps(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!expected && !existing) return undefined;
  return { ...(expected ?? {}), ...(existing ?? {}) };
}

function protectedObject(existing: ApiObject): boolean {
  return existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';
}

function mergeMetadata(existing: ApiObject, expected: ApiObject): void {
  existing.metadata.labels = mergeMaps(expected.metadata.labels, existing.metadata.labels);
  existing.metadata.annotations = mergeMaps(expected.metadata.annotations, existing.metadata.annotations);
}

/** computeReconciledRole in the union mode: missing rules and selectors are added, nothing removed. */
export function reconciledRole(existing: ApiObject, expected: ApiObject): ApiObject {
  if (protectedObject(existing)) return existing;
  const role = structuredClone(existing);
  mergeMetadata(role, expected);
  const { missing } = covers((existing.rules ?? []) as PolicyRule[], (expected.rules ?? []) as PolicyRule[]);
  if (missing.length) role.rules = [...(existing.rules ?? []), ...missing];
  const expectedSelectors: unknown[] = expected.aggregationRule?.clusterRoleSelectors ?? [];
  const existingSelectors: unknown[] = existing.aggregationRule?.clusterRoleSelectors ?? [];
  if (!expected.aggregationRule && existing.aggregationRule) delete role.aggregationRule;
  else {
    const missingSelectors = expectedSelectors.filter((s) => !existingSelectors.some((e) => stableJson(e) === stableJson(s)));
    if (missingSelectors.length) role.aggregationRule = { clusterRoleSelectors: [...existingSelectors, ...missingSelectors] };
  }
  return role;
}

const sameSubject = (a: Subject, b: Subject) => a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '') && (a.apiGroup ?? '') === (b.apiGroup ?? '');

/** computeReconciledRoleBinding in the union mode: missing subjects are added. */
export function reconciledBinding(existing: ApiObject, expected: ApiObject): ApiObject {
  if (protectedObject(existing)) return existing;
  const binding = structuredClone(existing);
  mergeMetadata(binding, expected);
  const present: Subject[] = existing.subjects ?? [];
  const missing = ((expected.subjects ?? []) as Subject[]).filter((s) => !present.some((p) => sameSubject(p, s)));
  if (missing.length) binding.subjects = [...present, ...missing];
  return binding;
}

/** Raised inside the update to replace a binding whose roleRef differs. */
class RecreateBinding extends Error {
  constructor(readonly uid: string) {
    super('roleRef differs');
  }
}

/** upstream compares RoleRef as a struct: its three fields, whatever their order in the stored JSON. */
export function sameRoleRef(a: any, b: any): boolean {
  return (a?.apiGroup ?? '') === (b?.apiGroup ?? '') && (a?.kind ?? '') === (b?.kind ?? '') && (a?.name ?? '') === (b?.name ?? '');
}

/** Tries at replacing one binding before the start-up step fails and is retried as a whole. */
const RECREATE_TRIES = 5;

/** ReconcileRecreate: a binding pointing elsewhere is replaced, unless protected. */
async function ensureBinding(store: GenericStore, expected: ApiObject): Promise<void> {
  const { name, namespace } = expected.metadata;
  const reconcile = (existing: ApiObject, wanted: ApiObject) => {
    if (!protectedObject(existing) && !sameRoleRef(existing.roleRef, wanted.roleRef)) throw new RecreateBinding(existing.metadata.uid);
    return reconciledBinding(existing, wanted);
  };
  for (let tries = 1; ; tries++) {
    try {
      return await ensureBootstrapObject(store, expected, reconcile);
    } catch (err) {
      if (!(err instanceof RecreateBinding)) throw err;
      if (tries >= RECREATE_TRIES) throw new Error(`could not re-create the binding ${namespace ? `${namespace}/` : ''}${name}`);
      await store.delete(namespace, name, { dryRun: false, preconditions: { uid: err.uid } }).catch((failure) => {
        // Gone or replaced meanwhile (another replica): look again.
        if (!(failure instanceof errors.StatusError && (failure.code === 404 || failure.code === 409))) throw failure;
      });
    }
  }
}

/**
 * Creates or reconciles every object of the policy. The writes go out together
 * (one group commit on SQLite): a binding may briefly name a role being
 * written, which RBAC reports as a missing role until the role lands.
 */
export async function reconcileBootstrapPolicy(stores: RbacStores, policy: BootstrapPolicy): Promise<void> {
  await Promise.all([
    ...policy.clusterRoles.map((role) => ensureBootstrapObject(stores.clusterRoles, role, reconciledRole)),
    ...policy.clusterRoleBindings.map((binding) => ensureBinding(stores.clusterRoleBindings, binding)),
    ...policy.roles.map((role) => ensureBootstrapObject(stores.roles, role, reconciledRole)),
    ...policy.roleBindings.map((binding) => ensureBinding(stores.roleBindings, binding)),
  ]);
}
