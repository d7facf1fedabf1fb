/**
 * The RBAC authorizer's decision (SPEC 5.5), as upstream's
 * plugin/pkg/auth/authorizer/rbac: ClusterRoleBindings everywhere, then the
 * request namespace's RoleBindings; the first rule that allows wins, with
 * upstream's reason; nothing matching is no opinion, so the chain goes on.
 * Which bindings apply to a user comes from a GrantResolver (the watch
 * cache's index in the server, plain lists in tests).
 */
import type { ApiObject } from '../../registry/strategy.ts';
import type { UserInfo } from '../../api/user.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, Rules } from './authorizer.ts';
import { ruleAllows, subjectMatches, type PolicyRule, type Subject } from './rbac-rules.ts';

/** The four RBAC kinds as stored objects. */
export interface RbacSource {
  clusterRoleBindings(): Iterable<ApiObject>;
  roleBindings(namespace: string): Iterable<ApiObject>;
  clusterRole(name: string): ApiObject | undefined;
  role(namespace: string, name: string): ApiObject | undefined;
}

/** One binding that applies to a user, through its first matching subject, with its role's rules. */
export interface Grant {
  binding: ApiObject;
  subject: Subject;
  rules: PolicyRule[];
}

/** Every grant of a user in a namespace, cluster-wide first, and the roles bindings name that are missing. */
export interface Grants {
  grants: Grant[];
  missing: string[];
}

export interface GrantResolver {
  grantsFor(user: UserInfo, namespace: string): Grants;
}

/** The role a binding refers to, or the error upstream's GetRoleReferenceRules reports. */
export function roleOf(source: RbacSource, binding: ApiObject, namespace: string): { role?: ApiObject; missing?: string } {
  const clusterRole = binding.roleRef?.kind === 'ClusterRole';
  const role = clusterRole ? source.clusterRole(binding.roleRef.name) : source.role(namespace, binding.roleRef?.name);
  if (role) return { role };
  return { missing: `${clusterRole ? 'clusterrole' : 'role'}.rbac.authorization.orch.io "${binding.roleRef?.name}" not found` };
}

/** upstream VisitRulesFor over candidate bindings: each applies through its first matching subject. */
export function resolveGrants(
  source: RbacSource,
  user: UserInfo,
  namespace: string,
  clusterBindings: Iterable<ApiObject> = source.clusterRoleBindings(),
  namespaceBindings: Iterable<ApiObject> = namespace ? source.roleBindings(namespace) : [],
): Grants {
  const result: Grants = { grants: [], missing: [] };
  const visit = (binding: ApiObject, bindingNamespace: string) => {
    const subject = (binding.subjects ?? []).find((s: Subject) => subjectMatches(user, s, bindingNamespace));
    if (!subject) return;
    const { role, missing } = roleOf(source, binding, bindingNamespace);
    if (role) result.grants.push({ binding, subject, rules: role.rules ?? [] });
    else result.missing.push(missing!);
  };
  for (const binding of clusterBindings) visit(binding, '');
  if (namespace) for (const binding of namespaceBindings) visit(binding, namespace);
  return result;
}

/** upstream describeSubject. */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `${subject.kind} "${subject.name}/${subject.namespace || bindingNamespace}"`;
  return `${subject.kind} "${subject.name}"`;
}

function describeGrant({ binding, subject }: Grant): string {
  const ns = binding.metadata.namespace;
  const name = ns ? `RoleBinding "${binding.metadata.name}/${ns}"` : `ClusterRoleBinding "${binding.metadata.name}"`;
  return `${name} of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${describeSubject(subject, ns ?? '')}`;
}

/** upstream's aggregate of rule-resolution errors, as the RBAC reason and SelfSubjectRulesReview's error show it. */
export function missingRolesText(missing: string[]): string {
  return missing.length === 1 ? missing[0] : `[${missing.join(', ')}]`;
}

/** Every rule a user holds in a namespace (upstream's RBAC RulesFor), for escalation checks. */
export function rulesHeld(resolver: GrantResolver, user: UserInfo, namespace: string): { rules: PolicyRule[]; missing: string[] } {
  const { grants, missing } = resolver.grantsFor(user, namespace);
  return { rules: grants.flatMap((g) => g.rules), missing };
}

const NO_OPINION: AuthorizationResult = Object.freeze({ decision: 'NoOpinion', reason: '' });

export function rbacAuthorizer(resolver: GrantResolver): Authorizer {
  return {
    async authorize(attributes: AuthorizationAttributes) {
      const { grants, missing } = resolver.grantsFor(attributes.user, attributes.namespace);
      for (const grant of grants) {
        for (const rule of grant.rules) {
          if (ruleAllows(attributes, rule)) return { decision: 'Allow', reason: `RBAC: allowed by ${describeGrant(grant)}` };
        }
      }
      return missing.length ? { decision: 'NoOpinion', reason: `RBAC: ${missingRolesText(missing)}` } : NO_OPINION;
    },
    async rulesFor(user: UserInfo, namespace: string): Promise<Rules> {
      const { grants, missing } = resolver.grantsFor(user, namespace);
      const rules: Rules = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const { rules: granted } of grants) {
        for (const rule of granted) {
          if (rule.nonResourceURLs?.length) rules.nonResourceRules.push({ verbs: rule.verbs ?? [], nonResourceURLs: rule.nonResourceURLs });
          else rules.resourceRules.push({ verbs: rule.verbs ?? [], apiGroups: rule.apiGroups, resources: rule.resources, resourceNames: rule.resourceNames });
        }
      }
      // A binding to a role that is not there is an evaluation error; upstream's RBAC still calls the list complete.
      if (missing.length) rules.error = missingRolesText(missing);
      return rules;
    },
  };
}
