/**
 * Writes whose answers must not change when a rule moves from a kind's code
 * into its contract (issue 31 item 2): upstream's NetworkPolicy rules one by
 * one and together (FACTS 6.1), and, for the kinds whose upstream schemas
 * mark fields required or lists as sets and maps, each such field left out
 * and each such list given a duplicate. test/golden/validation-answers.json
 * holds the answers recorded before the move (scripts/record-validation-answers.ts).
 */

export interface CorpusCase {
  name: string;
  /** The collection POSTed to. */
  path: string;
  body: Record<string, any>;
}

const NP = '/apis/networking.orch.io/v1/namespaces/default/networkpolicies';
const meta = (name: string) => ({ name });

function policy(name: string, spec: Record<string, any>): CorpusCase {
  return { name: `networkpolicy/${name}`, path: NP, body: { apiVersion: 'networking.orch.io/v1', kind: 'NetworkPolicy', metadata: meta(`np-${name}`), spec: { podSelector: {}, ...spec } } };
}

const ingress = (rule: Record<string, any>) => ({ ingress: [rule] });
const port = (p: Record<string, any>) => ingress({ ports: [p] });
const peer = (p: Record<string, any>) => ingress({ from: [p] });

/** FACTS 6.1, row by row, then rows together in one object (their order is upstream's validation order). */
const networkPolicies: CorpusCase[] = [
  policy('valid', port({ protocol: 'TCP', port: 80 })),
  policy('selector-label-key', { podSelector: { matchLabels: { 'bad key': 'x' } } }),
  policy('selector-label-value', { podSelector: { matchLabels: { a: '-x-' } } }),
  policy('selector-operator', { podSelector: { matchExpressions: [{ key: 'a', operator: 'Near', values: ['x'] }] } }),
  policy('selector-in-no-values', { podSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } }),
  policy('selector-exists-values', { podSelector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] } }),
  policy('selector-key', { podSelector: { matchExpressions: [{ key: 'a b', operator: 'Exists' }] } }),
  policy('selector-value', { podSelector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['-x'] }] } }),
  policy('protocol', port({ protocol: 'ICMP', port: 80 })),
  policy('protocol-empty', port({ protocol: '' })),
  policy('protocol-lowercase', port({ protocol: 'tcp' })),
  policy('port-range', port({ port: 70000 })),
  policy('port-zero', port({ port: 0 })),
  policy('end-below-port', port({ port: 90, endPort: 80 })),
  policy('end-range', port({ port: 80, endPort: 70000 })),
  policy('end-named-port', port({ port: 'http', endPort: 90 })),
  policy('end-without-port', port({ endPort: 90 })),
  policy('named-port-long', port({ port: 'abcdefghijklmnop' })),
  policy('named-port-chars', port({ port: 'ab_c' })),
  policy('named-port-digits', port({ port: '1234' })),
  policy('named-port-hyphens', port({ port: 'a--b' })),
  policy('named-port-edge', port({ port: '-ab' })),
  policy('peer-empty', peer({})),
  policy('peer-both', peer({ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} })),
  policy('peer-all-three', peer({ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {}, namespaceSelector: {} })),
  policy('peer-selectors', peer({ podSelector: { matchLabels: { 'x y': 'a' } }, namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'In' }] } })),
  policy('peer-both-bad-selector', peer({ ipBlock: { cidr: 'nope' }, podSelector: { matchLabels: { 'x y': 'a' } } })),
  policy('cidr-empty', peer({ ipBlock: { cidr: '' } })),
  policy('cidr-absent', peer({ ipBlock: {} })),
  policy('cidr-invalid', peer({ ipBlock: { cidr: '10.0.0.0/33', except: ['nope'] } })),
  policy('except-invalid', peer({ ipBlock: { cidr: '10.0.0.0/8', except: ['bad', '11.0.0.0/16'] } })),
  policy('except-outside', peer({ ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16', '10.0.0.0/8', 'fd00::/64'] } })),
  policy('policy-types-three', { policyTypes: ['Ingress', 'Egress', 'Sideways'] }),
  policy('policy-types-value', { policyTypes: ['Ingress', 'Sideways'] }),
  policy('policy-types-empty-value', { policyTypes: [''] }),
  policy('egress-rules', { egress: [{ ports: [{ protocol: 'X' }], to: [{}] }] }),
  policy('everything', {
    podSelector: { matchLabels: { 'bad key': 'x' } },
    ingress: [
      { ports: [{ protocol: 'X', port: 0 }, { protocol: 'Y', port: 'a--b', endPort: 3 }, { endPort: 5 }], from: [{}, { ipBlock: { cidr: '1.2.3.4/8', except: ['9.9.9.9/32'] }, podSelector: {} }] },
      { from: [{ namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'Exists', values: ['v'] }] } }], ports: [{ protocol: 'SCTP', port: 90, endPort: 80 }] },
    ],
    egress: [{ to: [{ ipBlock: { cidr: '' } }], ports: [{ protocol: 'Z' }] }],
    policyTypes: ['Ingress', 'Bogus'],
  }),
  policy('ports-then-peers', { ingress: [{ from: [{}], ports: [{ protocol: 'X' }] }] }),
  policy('two-rules-protocols', { ingress: [{ ports: [{ port: 0 }, { protocol: 'X' }] }, { ports: [{ protocol: 'Y', port: 70000 }] }] }),
  policy('metadata-and-spec', { ...port({ protocol: 'X' }) }),
];
networkPolicies[networkPolicies.length - 1].body.metadata = { name: 'Bad_Name', labels: { 'a b': 'c' } };

const container = (extra: Record<string, any> = {}) => ({ name: 'c', image: 'busybox', ...extra });
const podSpec = (extra: Record<string, any> = {}) => ({ containers: [container()], ...extra });
const template = (spec: Record<string, any> = podSpec()) => ({ metadata: { labels: { app: 'a' } }, spec });

function object(kind: string, path: string, apiVersion: string, name: string, fields: Record<string, any>): CorpusCase {
  return { name: `${kind.toLowerCase()}/${name}`, path, body: { apiVersion, kind, metadata: meta(`${kind.toLowerCase()}-${name}`), ...fields } };
}

const pod = (name: string, spec: Record<string, any>) => object('Pod', '/api/v1/namespaces/default/pods', 'v1', name, { spec });
const deployment = (name: string, spec: Record<string, any>) => object('Deployment', '/apis/apps/v1/namespaces/default/deployments', 'apps/v1', name, { spec });

/** Fields upstream's schemas mark required without a default, and set and map lists, in kinds one writes. */
const schemaRules: CorpusCase[] = [
  pod('valid', podSpec()),
  pod('no-containers', {}),
  pod('empty-containers', { containers: [] }),
  pod('duplicate-container', podSpec({ containers: [container(), container()] })),
  pod('duplicate-env', podSpec({ containers: [container({ env: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }] })] })),
  pod('duplicate-port', podSpec({ containers: [container({ ports: [{ containerPort: 80 }, { containerPort: 80 }] })] })),
  pod('duplicate-port-protocol', podSpec({ containers: [container({ ports: [{ containerPort: 80, protocol: 'UDP' }, { containerPort: 80, protocol: 'UDP' }] })] })),
  pod('duplicate-mount', podSpec({ volumes: [{ name: 'v', emptyDir: {} }], containers: [container({ volumeMounts: [{ name: 'v', mountPath: '/a' }, { name: 'v', mountPath: '/a' }] })] })),
  pod('duplicate-volume', podSpec({ volumes: [{ name: 'v', emptyDir: {} }, { name: 'v', emptyDir: {} }] })),
  pod('duplicate-pull-secret', podSpec({ imagePullSecrets: [{ name: 's' }, { name: 's' }] })),
  pod('duplicate-host-alias', podSpec({ hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }, { ip: '10.0.0.1', hostnames: ['b'] }] })),
  pod('duplicate-gate', podSpec({ schedulingGates: [{ name: 'g' }, { name: 'g' }] })),
  pod('duplicate-spread', podSpec({ topologySpreadConstraints: [1, 2].map(() => ({ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: {} })) })),
  pod('http-probe-no-port', podSpec({ containers: [container({ livenessProbe: { httpGet: { path: '/' } } })] })),
  pod('tcp-probe-no-port', podSpec({ containers: [container({ readinessProbe: { tcpSocket: {} } })] })),
  pod('node-selector-terms', podSpec({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } } })),
  pod('duplicate-init', podSpec({ initContainers: [container(), container()] })),
  deployment('valid', { selector: { matchLabels: { app: 'a' } }, template: template() }),
  deployment('no-selector', { template: template() }),
  deployment('no-containers', { selector: { matchLabels: { app: 'a' } }, template: template({}) }),
  object('Job', '/apis/batch/v1/namespaces/default/jobs', 'batch/v1', 'pod-failure-rules', {
    spec: { template: { spec: { ...podSpec(), restartPolicy: 'Never' } }, podFailurePolicy: {} },
  }),
  object('Job', '/apis/batch/v1/namespaces/default/jobs', 'batch/v1', 'exit-codes', {
    spec: { template: { spec: { ...podSpec(), restartPolicy: 'Never' } }, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1, 1] } }] } },
  }),
  object('Job', '/apis/batch/v1/namespaces/default/jobs', 'batch/v1', 'success-rules', {
    spec: { completionMode: 'Indexed', completions: 2, template: { spec: { ...podSpec(), restartPolicy: 'Never' } }, successPolicy: {} },
  }),
  object('Role', '/apis/rbac.authorization.orch.io/v1/namespaces/default/roles', 'rbac.authorization.orch.io/v1', 'no-verbs', { rules: [{ apiGroups: [''], resources: ['pods'] }] }),
  object('Role', '/apis/rbac.authorization.orch.io/v1/namespaces/default/roles', 'rbac.authorization.orch.io/v1', 'valid', { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }),
  object('FlowSchema', '/apis/flowcontrol.orch.io/v1/flowschemas', 'flowcontrol.orch.io/v1', 'rule-parts', {
    spec: { priorityLevelConfiguration: { name: 'global-default' }, rules: [{ resourceRules: [{ verbs: ['get', 'get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }], subjects: [{ kind: 'Group', group: { name: 'g' } }] }] },
  }),
  object('FlowSchema', '/apis/flowcontrol.orch.io/v1/flowschemas', 'flowcontrol.orch.io/v1', 'no-subjects', {
    spec: { priorityLevelConfiguration: { name: 'global-default' }, rules: [{ nonResourceRules: [{ nonResourceURLs: ['/x'] }] }] },
  }),
  object('EndpointSlice', '/apis/discovery.orch.io/v1/namespaces/default/endpointslices', 'discovery.orch.io/v1', 'no-endpoints', { addressType: 'IPv4' }),
  object('EndpointSlice', '/apis/discovery.orch.io/v1/namespaces/default/endpointslices', 'discovery.orch.io/v1', 'no-addresses', { addressType: 'IPv4', endpoints: [{}] }),
  object('EndpointSlice', '/apis/discovery.orch.io/v1/namespaces/default/endpointslices', 'discovery.orch.io/v1', 'duplicate-address', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1', '10.0.0.1'] }] }),
  object('Ingress', '/apis/networking.orch.io/v1/namespaces/default/ingresses', 'networking.orch.io/v1', 'path-type', {
    spec: { rules: [{ http: { paths: [{ path: '/', backend: { service: { name: 's', port: { number: 80 } } } }, { path: '/x', pathType: 'Sometimes', backend: { service: { name: 's', port: { number: 80 } } } }] } }] },
  }),
  object('Ingress', '/apis/networking.orch.io/v1/namespaces/default/ingresses', 'networking.orch.io/v1', 'no-paths', { spec: { rules: [{ host: 'a.com', http: {} }] } }),
  object('CSINode', '/apis/storage.orch.io/v1/csinodes', 'storage.orch.io/v1', 'drivers', { spec: { drivers: [{ name: 'd', nodeID: 'n' }, { name: 'd', nodeID: 'm' }] } }),
  object('CSINode', '/apis/storage.orch.io/v1/csinodes', 'storage.orch.io/v1', 'no-drivers', { spec: {} }),
  object('CSIDriver', '/apis/storage.orch.io/v1/csidrivers', 'storage.orch.io/v1', 'modes', { spec: { volumeLifecycleModes: ['Persistent', 'Persistent'] } }),
  object('LimitRange', '/api/v1/namespaces/default/limitranges', 'v1', 'no-limits', { spec: {} }),
  object('ServiceAccount', '/api/v1/namespaces/default/serviceaccounts', 'v1', 'duplicate-secret', { secrets: [{ name: 's' }, { name: 's' }] }),
  object('Node', '/api/v1/nodes', 'v1', 'dual-stack', { spec: { podCIDRs: ['10.0.0.0/24', '10.0.0.0/24'] }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: 'fd00::1' }] } }),
  object('ConfigMap', '/api/v1/namespaces/default/configmaps', 'v1', 'duplicate-finalizers', { data: { a: 'b' } }),
  object('Event', '/api/v1/namespaces/default/events', 'v1', 'no-involved', { reason: 'R', message: 'm' }),
  object('HorizontalPodAutoscaler', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', 'autoscaling/v2', 'no-target', { spec: { maxReplicas: 2 } }),
  object('PodDisruptionBudget', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', 'policy/v1', 'selector', { spec: { minAvailable: 1, selector: { matchExpressions: [{ key: 'a', operator: 'In' }] } } }),
  object('CustomResourceDefinition', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', 'apiextensions.orch.io/v1', 'no-versions', {
    spec: { group: 'x.example.com', names: { plural: 'ys', kind: 'Y' }, scope: 'Namespaced' },
  }),
  // Rules that moved into these kinds' contracts, alone and beside the rules their hooks keep.
  object('IngressClass', '/apis/networking.orch.io/v1/ingressclasses', 'networking.orch.io/v1', 'scope', { spec: { controller: 'example.com/x', parameters: { kind: 'K', name: 'n', scope: 'Galaxy' } } }),
  object('IngressClass', '/apis/networking.orch.io/v1/ingressclasses', 'networking.orch.io/v1', 'scope-and-reference', {
    spec: { controller: 'bad controller', parameters: { apiGroup: 'a/b', kind: 'K/x', name: '', scope: 'Galaxy', namespace: 'n' } },
  }),
  object('IngressClass', '/apis/networking.orch.io/v1/ingressclasses', 'networking.orch.io/v1', 'namespace-scope', { spec: { controller: 'example.com/x', parameters: { kind: 'K', name: 'n', scope: 'Namespace' } } }),
  object('PodDisruptionBudget', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', 'policy/v1', 'eviction-policy', { spec: { minAvailable: 1, unhealthyPodEvictionPolicy: 'Sometimes' } }),
  object('PodDisruptionBudget', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', 'policy/v1', 'eviction-policy-and-more', {
    spec: { minAvailable: '120%', maxUnavailable: 1, selector: { matchLabels: { 'a b': 'c' } }, unhealthyPodEvictionPolicy: 'Sometimes' },
  }),
  object('EndpointSlice', '/apis/discovery.orch.io/v1/namespaces/default/endpointslices', 'discovery.orch.io/v1', 'port-protocols', {
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'] }],
    ports: [{ name: 'a', protocol: 'ICMP' }, { name: 'A_b', protocol: 'X', appProtocol: 'bad proto' }, { name: 'a', protocol: '' }],
  }),
  object('Endpoints', '/api/v1/namespaces/default/endpoints', 'v1', 'port-protocols', {
    subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'a', port: 80, protocol: 'ICMP' }, { name: 'BAD', port: 0, protocol: 'X', appProtocol: '%' }, { name: 'c', port: 81, protocol: '' }] }],
  }),
];
// Duplicate finalizers: upstream accepts them (its ObjectMeta rules do not look for duplicates).
schemaRules.find((c) => c.name === 'configmap/duplicate-finalizers')!.body.metadata.finalizers = ['a.io/x', 'a.io/x'];
schemaRules.find((c) => c.name === 'customresourcedefinition/no-versions')!.body.metadata.name = 'ys.x.example.com';

export const VALIDATION_CORPUS: readonly CorpusCase[] = [...networkPolicies, ...schemaRules];

/** What a write's answer shows a client: the status and, for a refusal, its reason, message and causes. */
export function answerOf(status: number, body: any): Record<string, unknown> {
  if (status < 300) return { status };
  return { status, reason: body?.reason, message: body?.message, causes: body?.details?.causes };
}
