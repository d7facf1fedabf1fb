/**
 * RBAC escalation prevention (SPEC 5.5; upstream pkg/registry/rbac
 * escalation_check.go and the policy-based role and binding storage): a user
 * may write a Role or ClusterRole only when holding every permission it grants
 * (in that namespace, or cluster-wide) or the `escalate` verb on it, and a
 * binding only with the `bind` verb on the role it refers to or holding all
 * of that role's permissions. system:masters is exempt; so are writes that
 * only touch what the garbage collector changes, and the server's own writes.
 * Runs inside the store's write, on the object the write computed (PUT, every
 * patch, apply), dry run or not, before validation as upstream's storage does
 * (a forbidden invalid role is 403). The RBAC index is brought up to the
 * store's current revision first, as upstream's resolver reads storage: a
 * role created a moment ago is seen by the binding that follows it.
 */
import * as errors from '../api/status-error.ts';
import type { AuthorizationAttributes, Authorizer } from '../auth/authorization/authorizer.ts';
import { compactRules, compactString, covers } from '../auth/authorization/rbac-covers.ts';
import { goQuote, goQuoteList } from '../util/go-print.ts';
import { missingRolesText, roleOf, rulesHeld, type GrantResolver, type RbacSource } from '../auth/authorization/rbac-authorizer.ts';
import type { PolicyRule } from '../auth/authorization/rbac-rules.ts';
import { MASTERS_GROUP, type UserInfo } from '../api/user.ts';
import type { AdmissionAttributes, AdmissionHook } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { stableJson } from '../util/stable-json.ts';

const RBAC_GROUP = 'rbac.authorization.orch.io';
const ROLE_RESOURCES = new Set(['roles', 'clusterroles']);
const BINDING_RESOURCES = new Set(['rolebindings', 'clusterrolebindings']);
/** What an aggregationRule may gather: everything (upstream fullAuthority). */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** upstream IsOnlyMutatingGCFields: nothing changes but owner references and finalizers (and managed fields). */
export function isOnlyMutatingGcFields(obj: ApiObject, old: ApiObject | null): boolean {
  if (!old) return false;
  const copy = structuredClone(obj);
  for (const field of ['ownerReferences', 'finalizers', 'managedFields', 'selfLink', 'resourceVersion'] as const) {
    if (old.metadata[field] === undefined) delete copy.metadata[field];
    else copy.metadata[field] = old.metadata[field];
  }
  return stableJson(copy) === stableJson(old);
}

/** upstream ConfirmNoEscalation: the user's RBAC rules in `namespace` must cover `rules`. */
function confirmNoEscalation(resolver: GrantResolver, user: UserInfo, namespace: string, rules: PolicyRule[]): string | undefined {
  const held = rulesHeld(resolver, user, namespace);
  const { covered, missing } = covers(held.rules, rules);
  if (covered) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let message = `user ${goQuote(user.name)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (held.missing.length) message += `; resolution errors: [${missingRolesText(held.missing)}]`;
  return message;
}

export interface EscalationCheckDeps {
  /** The whole authorization chain, asked for `escalate` and `bind`. */
  authorizer: Authorizer;
  /** RBAC's own view of what a user holds (upstream checks coverage against RBAC's rule resolver). */
  resolver: GrantResolver;
  source: RbacSource;
  /** Waits until the RBAC index reflects every write acknowledged so far. */
  fresh: () => Promise<unknown>;
}

export function rbacEscalationCheck({ authorizer, resolver, source, fresh }: EscalationCheckDeps): AdmissionHook {
  const allowedTo = async (user: UserInfo, verb: string, resource: string, name: string, namespace: string) => {
    const attributes: AuthorizationAttributes = { user, verb, isResourceRequest: true, path: '', group: RBAC_GROUP, version: '*', namespace, resource, subresource: '', name };
    return (await authorizer.authorize(attributes)).decision === 'Allow';
  };

  return async (attributes: AdmissionAttributes) => {
    const { kind, operation, object, oldObject, user } = attributes;
    if (kind.group !== RBAC_GROUP || (operation !== 'CREATE' && operation !== 'UPDATE') || !object || !user) return;
    if (user.groups.includes(MASTERS_GROUP)) return;
    const resource = kind.plural;
    const namespace = attributes.namespace ?? '';
    const gr = { group: RBAC_GROUP, resource };
    if (operation === 'UPDATE' && isOnlyMutatingGcFields(object, oldObject)) return;
    await fresh();

    if (ROLE_RESOURCES.has(resource)) {
      // upstream asks with the request's name: empty for a create, so names in an escalate rule only serve updates.
      if (await allowedTo(user, 'escalate', resource, operation === 'CREATE' ? '' : attributes.name, namespace)) return;
      const refusal = confirmNoEscalation(resolver, user, namespace, object.rules ?? []);
      if (refusal) throw errors.forbidden(gr, attributes.name, refusal);
      if (resource === 'clusterroles' && (object.aggregationRule || oldObject?.aggregationRule)) {
        if (confirmNoEscalation(resolver, user, namespace, FULL_AUTHORITY)) {
          throw errors.forbidden(gr, attributes.name, 'must have cluster-admin privileges to use the aggregationRule');
        }
      }
      return;
    }

    if (BINDING_RESOURCES.has(resource)) {
      const roleRef = object.roleRef ?? {};
      const roleResource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : undefined;
      if (roleResource && (await allowedTo(user, 'bind', roleResource, roleRef.name ?? '', namespace))) return;
      const { role } = roleOf(source, object, namespace);
      if (!role) throw errors.notFound({ group: RBAC_GROUP, resource: roleResource ?? 'roles' }, roleRef.name ?? '');
      const refusal = confirmNoEscalation(resolver, user, namespace, role.rules ?? []);
      if (refusal) throw errors.forbidden(gr, attributes.name, refusal);
    }
  };
}
