/**
 * The RBAC authorizer's decision (SPEC 5.5), as upstream's
 * plugin/pkg/auth/authorizer/rbac: ClusterRoleBindings everywhere, then the
 * request namespace's RoleBindings; the first rule that allows wins, with
 * upstream's reason; nothing matching is no opinion, so the chain goes on.
 * The bindings and roles come from a source the watch cache keeps current.
 */
import type { ApiObject } from '../../registry/strategy.ts';
import type { UserInfo } from '../user.ts';
import type { AuthorizationAttributes, Authorizer, Rules } from './authorizer.ts';
import { ruleAllows, subjectMatches, type PolicyRule, type Subject } from './rbac-rules.ts';

export interface RbacSource {
  clusterRoleBindings(): Iterable<ApiObject>;
  roleBindings(namespace: string): Iterable<ApiObject>;
  clusterRole(name: string): ApiObject | undefined;
  role(namespace: string, name: string): ApiObject | undefined;
}

/** upstream describeSubject. */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `${subject.kind} "${subject.name}/${subject.namespace || bindingNamespace}"`;
  return `${subject.kind} "${subject.name}"`;
}

interface Grant {
  binding: ApiObject;
  subject: Subject;
  rules: PolicyRule[];
}

/** Every (binding, subject, rules) that applies to `user` in `namespace`, cluster-wide first; missing roles reported. */
function* grants(source: RbacSource, user: UserInfo, namespace: string, missing: string[]): Generator<Grant> {
  for (const binding of source.clusterRoleBindings()) {
    const subject = (binding.subjects ?? []).find((s: Subject) => subjectMatches(user, s, ''));
    if (!subject) continue;
    const role = source.clusterRole(binding.roleRef?.name);
    if (!role) {
      missing.push(`clusterrole.rbac.authorization.orch.io "${binding.roleRef?.name}" not found`);
      continue;
    }
    yield { binding, subject, rules: role.rules ?? [] };
  }
  if (!namespace) return;
  for (const binding of source.roleBindings(namespace)) {
    const subject = (binding.subjects ?? []).find((s: Subject) => subjectMatches(user, s, namespace));
    if (!subject) continue;
    const clusterRole = binding.roleRef?.kind === 'ClusterRole';
    const role = clusterRole ? source.clusterRole(binding.roleRef.name) : source.role(namespace, binding.roleRef?.name);
    if (!role) {
      missing.push(`${clusterRole ? 'clusterrole' : 'role'}.rbac.authorization.orch.io "${binding.roleRef?.name}" not found`);
      continue;
    }
    yield { binding, subject, rules: role.rules ?? [] };
  }
}

function describeGrant({ binding, subject }: Grant): string {
  const ns = binding.metadata.namespace;
  const name = ns ? `RoleBinding "${binding.metadata.name}/${ns}"` : `ClusterRoleBinding "${binding.metadata.name}"`;
  return `${name} of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${describeSubject(subject, ns ?? '')}`;
}

export function rbacAuthorizer(source: RbacSource): Authorizer {
  return {
    async authorize(attributes: AuthorizationAttributes) {
      const missing: string[] = [];
      for (const grant of grants(source, attributes.user, attributes.namespace, missing)) {
        if (grant.rules.some((rule) => ruleAllows(attributes, rule))) return { decision: 'Allow', reason: `RBAC: allowed by ${describeGrant(grant)}` };
      }
      return { decision: 'NoOpinion', reason: missing.length ? `RBAC: ${missing.length === 1 ? missing[0] : `[${missing.join(', ')}]`}` : '' };
    },
    async rulesFor(user: UserInfo, namespace: string): Promise<Rules> {
      const missing: string[] = [];
      const rules: Rules = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const grant of grants(source, user, namespace, missing)) {
        for (const rule of grant.rules) {
          if (rule.nonResourceURLs?.length) rules.nonResourceRules.push({ verbs: rule.verbs ?? [], nonResourceURLs: rule.nonResourceURLs });
          else rules.resourceRules.push({ verbs: rule.verbs ?? [], apiGroups: rule.apiGroups, resources: rule.resources, resourceNames: rule.resourceNames });
        }
      }
      // A binding to a role that is not there may be an error in the list: upstream says incomplete.
      if (missing.length) rules.incomplete = true;
      return rules;
    },
  };
}
