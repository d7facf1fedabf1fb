/**
 * The audit policy (SPEC 9.5; upstream k8s.io/apiserver pkg/audit/policy
 * reader.go and checker.go, pkg/apis/audit/validation): an `audit.orch.io/v1`
 * Policy file decoded strictly (lenient with a warning when only unknown
 * fields are wrong), validated, and evaluated per request: the first rule that
 * matches gives the level, the stages to omit and whether managed fields go.
 */
import { readFileSync } from 'node:fs';
import { isDNS1123Subdomain } from '../api/names.ts';
import { aggregateText, goStringSlice, invalid, notSupported, required, type FieldError } from '../registry/validation/field-errors.ts';
import { DecodeError, decodeStrict, parseConfigDocument, type Shape } from '../util/strict-decode.ts';

export const AUDIT_GROUP_VERSION = 'audit.orch.io/v1';
export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];
export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type Stage = (typeof STAGES)[number];

/** Levels in order, to compare (upstream Level.Less). */
export const LEVEL_RANK: Record<Level, number> = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 };

interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** What the policy decides for one request (upstream RequestAuditConfig). */
export interface RequestAuditConfig {
  level: Level;
  omitStages: ReadonlySet<Stage>;
  omitManagedFields: boolean;
}

/** Who made the request, as a rule reads it. */
export type AuditRuleUser = { name: string; groups: readonly string[] } | undefined;

/** The request attributes a rule reads: the authorizer's attributes but the user. */
export interface AuditAttributes {
  verb: string;
  isResourceRequest: boolean;
  path: string;
  group: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

const strings: Shape = { kind: 'list', goType: '[]string', of: { kind: 'string' } };
const stages: Shape = { kind: 'list', goType: '[]v1.Stage', of: { kind: 'string' } };
const POLICY_SHAPE: Extract<Shape, { kind: 'struct' }> = {
  kind: 'struct',
  goType: 'v1.Policy',
  fields: {
    rules: {
      kind: 'list',
      goType: '[]v1.PolicyRule',
      of: {
        kind: 'struct',
        goType: 'v1.PolicyRule',
        fields: {
          level: { kind: 'string' },
          users: strings,
          userGroups: strings,
          verbs: strings,
          resources: {
            kind: 'list',
            goType: '[]v1.GroupResources',
            of: { kind: 'struct', goType: 'v1.GroupResources', fields: { group: { kind: 'string' }, resources: strings, resourceNames: strings } },
          },
          namespaces: strings,
          nonResourceURLs: strings,
          omitStages: stages,
          omitManagedFields: { kind: 'bool' },
        },
      },
    },
    omitStages: stages,
    omitManagedFields: { kind: 'bool' },
  },
};

/** upstream LoadPolicyFromFile: errors end with `: from file <path>`, as its callers print them. */
export function loadPolicyFile(path: string): Policy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`failed to read file path "${path}": ${(err as Error).message}`);
  }
  try {
    return parsePolicy(text);
  } catch (err) {
    throw new Error(`${(err as Error).message}: from file ${path}`);
  }
}

/** upstream LoadPolicyFromBytes. */
export function parsePolicy(text: string): Policy {
  let document: unknown;
  try {
    document = parseConfigDocument(text);
  } catch (err) {
    throw new Error(`failed decoding: ${(err as Error).message}`);
  }
  const head = (document && typeof document === 'object' ? document : {}) as Record<string, unknown>;
  if (!head.kind) throw new Error(`failed decoding: Object 'Kind' is missing in '${text.trim()}'`);
  if (head.apiVersion !== AUDIT_GROUP_VERSION || head.kind !== 'Policy') {
    throw new Error(`failed decoding: no kind "${String(head.kind)}" is registered for version "${String(head.apiVersion ?? '')}"`);
  }
  let policy: Policy;
  try {
    policy = decodeStrict(document, POLICY_SHAPE, ['apiVersion', 'kind', 'metadata']);
  } catch (err) {
    if (!(err instanceof DecodeError) || !err.message.startsWith('strict decoding error')) throw new Error(`failed decoding: ${(err as Error).message}`);
    // Only unknown fields: upstream falls back to lenient decoding and warns.
    console.warn(`Audit policy contains errors, falling back to lenient decoding: ${err.message}`);
    policy = decodeLenient(document);
  }
  policy.rules ??= [];
  const problems = validatePolicy(policy);
  if (problems.length) throw new Error(aggregateText(problems));
  if (policy.rules.length === 0) throw new Error('loaded illegal policy with 0 rules');
  return policy;
}

/** Decodes while dropping the unknown fields (the strict pass already reported them). */
function decodeLenient(document: unknown): Policy {
  const strip = (value: unknown, shape: Shape): unknown => {
    if (shape.kind === 'list' && Array.isArray(value)) return value.map((v) => strip(v, shape.of));
    if (shape.kind !== 'struct' || !value || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).filter(([k]) => k in shape.fields).map(([k, v]) => [k, strip(v, shape.fields[k])]));
  };
  return decodeStrict(strip(document, POLICY_SHAPE), POLICY_SHAPE);
}

/** upstream validation.ValidatePolicy. */
function validatePolicy(policy: Policy): FieldError[] {
  const problems = validateOmitStages(policy.omitStages, 'omitStages');
  policy.rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (!rule.level) problems.push(required(`${at}.level`));
    else if (!(LEVELS as readonly string[]).includes(rule.level)) problems.push(notSupported(`${at}.level`, rule.level, LEVELS));
    (rule.nonResourceURLs ?? []).forEach((url, j) => {
      if (url === '*') return;
      if (!url.startsWith('/')) problems.push(invalid(`${at}.nonResourceURLs[${j}]`, url, "non-resource URL rules must begin with a '/' character"));
      if (url !== '' && url.slice(0, -1).includes('*')) problems.push(invalid(`${at}.nonResourceURLs[${j}]`, url, "non-resource URL wildcards '*' must be the final character of the rule"));
    });
    for (const gr of rule.resources ?? []) {
      if (gr.group && gr.group !== '*') {
        const messages = isDNS1123Subdomain(gr.group);
        if (messages.length) problems.push(invalid(`${at}.resources.group`, gr.group, messages.join(',')));
      }
      if (gr.resourceNames?.length && !gr.resources?.length) problems.push(invalid(`${at}.resources.resourceNames`, goStringSlice(gr.resourceNames), 'using resourceNames requires at least one resource'));
    }
    problems.push(...validateOmitStages(rule.omitStages, `${at}.omitStages`));
    if (rule.nonResourceURLs?.length && (rule.resources?.length || rule.namespaces?.length)) {
      problems.push(invalid(`${at}.nonResourceURLs`, goStringSlice(rule.nonResourceURLs), 'rules cannot apply to both regular resources and non-resource URLs'));
    }
  });
  return problems;
}

function validateOmitStages(omit: readonly string[] | undefined, field: string): FieldError[] {
  return (omit ?? []).flatMap((stage, i) =>
    (STAGES as readonly string[]).includes(stage) ? [] : [invalid(`${field}[${i}]`, stage, `allowed stages are ${STAGES.join(',')}`)],
  );
}

/**
 * upstream NewPolicyRuleEvaluator + EvaluatePolicyRule: every rule's omitted
 * stages include the policy's; no rule matching is level None.
 */
export class PolicyEvaluator {
  private readonly configs: RequestAuditConfig[];
  private readonly fallback: RequestAuditConfig;

  constructor(private readonly policy: Policy) {
    const global = policy.omitStages ?? [];
    this.configs = policy.rules.map((rule) => ({
      level: rule.level,
      omitStages: new Set([...global, ...(rule.omitStages ?? [])]),
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
    }));
    this.fallback = { level: 'None', omitStages: new Set(global), omitManagedFields: policy.omitManagedFields ?? false };
  }

  evaluate(attributes: AuditAttributes, user: AuditRuleUser): RequestAuditConfig {
    const rules = this.policy.rules;
    for (let i = 0; i < rules.length; i++) if (ruleMatches(rules[i], attributes, user)) return this.configs[i];
    return this.fallback;
  }
}

function ruleMatches(rule: PolicyRule, a: AuditAttributes, user: AuditRuleUser): boolean {
  if (rule.users?.length && (!user || !rule.users.includes(user.name))) return false;
  if (rule.userGroups?.length && (!user || !user.groups.some((g) => rule.userGroups!.includes(g)))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(a.verb)) return false;
  if (rule.namespaces?.length || rule.resources?.length) return matchesResource(rule, a);
  if (rule.nonResourceURLs?.length) return !a.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(a.path, spec));
  return true;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function matchesResource(rule: PolicyRule, a: AuditAttributes): boolean {
  if (!a.isResourceRequest) return false;
  // A cluster-scoped request has the empty namespace, which a rule may name.
  if (rule.namespaces?.length && !rule.namespaces.includes(a.namespace)) return false;
  if (!rule.resources?.length) return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const gr of rule.resources) {
    if ((gr.group ?? '') !== a.group && gr.group !== '*') continue;
    if (!gr.resources?.length) return true;
    if (gr.resourceNames?.length && !gr.resourceNames.includes(a.name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (a.subresource && res.startsWith('*/') && a.subresource === res.slice(2)) return true;
      if (res.endsWith('/*') && a.resource === res.slice(0, -2)) return true;
    }
  }
  return false;
}
