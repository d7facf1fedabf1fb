/**
 * One rich object of every stored built-in kind, as a client sends it: the
 * fields the server keeps as sent filled in (what it computes or resets on
 * create, e.g. a Pod's status, left out), for the protobuf round trips.
 */

export interface KindFixture {
  apiVersion: string;
  kind: string;
  /** The collection the object is created in. */
  collection: string;
  object: (name: string) => Record<string, any>;
}

const NS = 'pb';
const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  labels: { app: 'pb', tier: 'x' },
  annotations: { 'example.com/note': 'protobuf', empty: '' },
  finalizers: ['example.com/keep'],
  ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '2f5b6a1e-0000-4000-8000-000000000001', controller: true, blockOwnerDeletion: false }],
});
const selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'gone', operator: 'DoesNotExist' }] };

export const PB_NAMESPACE = NS;

export const FIXTURES: KindFixture[] = [
  {
    apiVersion: 'v1',
    kind: 'Namespace',
    collection: '/api/v1/namespaces',
    object: (name) => ({ metadata: { name, labels: { team: 'pb' }, annotations: { a: 'b' } } }),
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    collection: `/api/v1/namespaces/${NS}/configmaps`,
    object: (name) => ({ metadata: meta(name, NS), data: { 'a.txt': 'hello', 'utf8': 'héllo ✓', multi: 'line1\nline2' }, binaryData: { bin: Buffer.from([0, 1, 2, 255]).toString('base64') }, immutable: false }),
  },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    collection: `/api/v1/namespaces/${NS}/secrets`,
    object: (name) => ({ metadata: meta(name, NS), type: 'Opaque', data: { password: Buffer.from('s3cr3t\0').toString('base64'), empty: '' }, immutable: true }),
  },
  {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    collection: `/api/v1/namespaces/${NS}/serviceaccounts`,
    object: (name) => ({ metadata: meta(name, NS), secrets: [{ name: 'token-a' }, { name: 'token-b', namespace: NS }], imagePullSecrets: [{ name: 'registry' }], automountServiceAccountToken: false }),
  },
  {
    apiVersion: 'v1',
    kind: 'Event',
    collection: `/api/v1/namespaces/${NS}/events`,
    object: (name) => ({
      metadata: { name, namespace: NS },
      involvedObject: { kind: 'Pod', namespace: NS, name: 'web-0', uid: '2f5b6a1e-0000-4000-8000-000000000002', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{web}' },
      reason: 'Pulled',
      message: 'Container image pulled',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2024-03-04T05:06:07Z',
      lastTimestamp: '2024-03-04T05:16:07Z',
      count: 3,
      type: 'Normal',
      eventTime: '2024-03-04T05:06:07.123456Z',
      series: { count: 2, lastObservedTime: '2024-03-04T05:16:07.654321Z' },
      action: 'Pulling',
      related: { kind: 'Node', name: 'node-1', apiVersion: 'v1' },
      reportingComponent: 'kubelet',
      reportingInstance: 'node-1',
    }),
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    collection: `/api/v1/namespaces/${NS}/pods`,
    object: (name) => ({
      metadata: { name, namespace: NS, labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx:1.25',
            command: ['nginx'],
            args: ['-g', 'daemon off;'],
            workingDir: '/srv',
            ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
            env: [
              { name: 'PLAIN', value: 'v' },
              { name: 'FROM_CM', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k', optional: true } } },
              { name: 'FROM_FIELD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
            ],
            envFrom: [{ prefix: 'S_', secretRef: { name: 'sec' } }],
            resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
            volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }],
            readinessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, initialDelaySeconds: 3, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
            livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
            imagePullPolicy: 'IfNotPresent',
            securityContext: { runAsUser: 1000, runAsNonRoot: true, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          },
        ],
        volumes: [{ name: 'cfg', configMap: { name: 'cfg', items: [{ key: 'k', path: 'k.txt', mode: 0o644 }], defaultMode: 0o420 } }],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        nodeSelector: { disk: 'ssd' },
        serviceAccountName: 'default',
        automountServiceAccountToken: false,
        securityContext: { fsGroup: 2000, supplementalGroups: [3000, 4000] },
        schedulerName: 'default-scheduler',
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoExecute', tolerationSeconds: 60 }],
        priority: 0,
        enableServiceLinks: true,
        preemptionPolicy: 'PreemptLowerPriority',
      },
    }),
  },
  {
    apiVersion: 'v1',
    kind: 'Node',
    collection: '/api/v1/nodes',
    object: (name) => ({
      metadata: { name, labels: { 'node-role.orch.io/worker': '' } },
      spec: { podCIDR: '10.0.1.0/24', podCIDRs: ['10.0.1.0/24'], unschedulable: true, taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] },
    }),
  },
  {
    apiVersion: 'coordination.orch.io/v1',
    kind: 'Lease',
    collection: `/apis/coordination.orch.io/v1/namespaces/${NS}/leases`,
    object: (name) => ({ metadata: meta(name, NS), spec: { holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: '2024-01-02T03:04:05.000006Z', renewTime: '2024-01-02T03:04:15.500000Z', leaseTransitions: 2 } }),
  },
  {
    apiVersion: 'networking.orch.io/v1',
    kind: 'NetworkPolicy',
    collection: `/apis/networking.orch.io/v1/namespaces/${NS}/networkpolicies`,
    object: (name) => ({
      metadata: meta(name, NS),
      spec: {
        podSelector: selector,
        policyTypes: ['Ingress', 'Egress'],
        ingress: [
          { from: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0/24'] } }, { namespaceSelector: { matchLabels: { team: 'a' } }, podSelector: {} }], ports: [{ protocol: 'TCP', port: 80, endPort: 90 }, { protocol: 'UDP', port: 'dns' }] },
          {},
        ],
        egress: [{ to: [{ podSelector: selector }], ports: [{ protocol: 'SCTP', port: 9000 }] }],
      },
    }),
  },
  {
    apiVersion: 'rbac.authorization.orch.io/v1',
    kind: 'Role',
    collection: `/apis/rbac.authorization.orch.io/v1/namespaces/${NS}/roles`,
    object: (name) => ({ metadata: meta(name, NS), rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get', 'list'] }] }),
  },
  {
    apiVersion: 'rbac.authorization.orch.io/v1',
    kind: 'ClusterRole',
    collection: '/apis/rbac.authorization.orch.io/v1/clusterroles',
    object: (name) => ({ metadata: { name, labels: { a: 'b' } }, rules: [{ apiGroups: ['', 'networking.orch.io'], resources: ['*'], verbs: ['get'] }, { nonResourceURLs: ['/healthz', '/version'], verbs: ['get'] }] }),
  },
  {
    apiVersion: 'rbac.authorization.orch.io/v1',
    kind: 'RoleBinding',
    collection: `/apis/rbac.authorization.orch.io/v1/namespaces/${NS}/rolebindings`,
    object: (name) => ({
      metadata: meta(name, NS),
      subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.orch.io' }, { kind: 'ServiceAccount', name: 'default', namespace: NS }],
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' },
    }),
  },
  {
    apiVersion: 'rbac.authorization.orch.io/v1',
    kind: 'ClusterRoleBinding',
    collection: '/apis/rbac.authorization.orch.io/v1/clusterrolebindings',
    object: (name) => ({ metadata: { name }, subjects: [{ kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.orch.io' }], roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' } }),
  },
  {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    collection: '/apis/apiextensions.orch.io/v1/customresourcedefinitions',
    object: (name) => {
      const plural = name.split('.')[0];
      const schema = {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            required: ['size'],
            properties: {
              size: { type: 'integer', minimum: 1, maximum: 10.5, default: 3 },
              mode: { type: 'string', enum: ['a', 'b'], pattern: '^[ab]$' },
              ports: { type: 'array', items: { 'x-kubernetes-int-or-string': true }, 'x-kubernetes-list-type': 'atomic' },
              extra: { type: 'object', additionalProperties: { type: 'string' } },
              free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
            'x-kubernetes-validations': [{ rule: 'self.size < 100', message: 'too big' }],
          },
        },
      };
      return {
        metadata: { name, labels: { a: 'b' } },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural, singular: plural.slice(0, -1), kind: plural[0].toUpperCase() + plural.slice(1, -1), listKind: `${plural[0].toUpperCase() + plural.slice(1, -1)}List`, shortNames: [plural.slice(0, 2)], categories: ['all'] },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, subresources: { status: {} }, additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }] }],
          conversion: { strategy: 'None' },
        },
      };
    },
  },
  // core/v1 kinds of SPEC 9.7 (quantities in canonical form: the server rewrites others)
  {
    apiVersion: 'v1',
    kind: 'LimitRange',
    collection: `/api/v1/namespaces/${NS}/limitranges`,
    object: (name) => ({ metadata: meta(name, NS), spec: { limits: [{ type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m' }, default: { cpu: '1' }, defaultRequest: { cpu: '500m' }, maxLimitRequestRatio: { cpu: '4' } }] } }),
  },
  {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    collection: `/api/v1/namespaces/${NS}/resourcequotas`,
    object: (name) => ({ metadata: meta(name, NS), spec: { hard: { pods: '10', 'requests.cpu': '1500m' }, scopes: ['NotTerminating'] } }),
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    collection: '/api/v1/persistentvolumes',
    object: (name) => ({
      metadata: { name, labels: { app: 'pb' } },
      spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'fast', mountOptions: ['hard'], volumeMode: 'Filesystem', nfs: { server: 'nfs.example', path: '/exports', readOnly: true }, claimRef: { kind: 'PersistentVolumeClaim', namespace: NS, name: 'claim', uid: '2f5b6a1e-0000-4000-8000-000000000003' } },
    }),
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    collection: `/api/v1/namespaces/${NS}/persistentvolumeclaims`,
    object: (name) => ({ metadata: meta(name, NS), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' }, limits: { storage: '8Gi' } }, storageClassName: 'fast', volumeMode: 'Block', selector } }),
  },
  {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    collection: `/api/v1/namespaces/${NS}/replicationcontrollers`,
    object: (name) => ({
      metadata: meta(name, NS),
      spec: { replicas: 3, minReadySeconds: 5, selector: { app: 'web' }, template: { metadata: { labels: { app: 'web', tier: 'x' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25', resources: { limits: { cpu: '500m' } } }] } } },
    }),
  },
  {
    apiVersion: 'v1',
    kind: 'Endpoints',
    collection: `/api/v1/namespaces/${NS}/endpoints`,
    object: (name) => ({
      metadata: meta(name, NS),
      subsets: [
        {
          addresses: [{ ip: '10.1.2.3', hostname: 'web-0', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: NS, name: 'web-0' } }],
          notReadyAddresses: [{ ip: 'fd00::5' }],
          ports: [{ name: 'http', port: 80, protocol: 'TCP', appProtocol: 'http' }, { name: 'dns', port: 53, protocol: 'UDP' }],
        },
      ],
    }),
  },
  {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    collection: `/api/v1/namespaces/${NS}/podtemplates`,
    object: (name) => ({ metadata: meta(name, NS), template: { metadata: { labels: { app: 'web' }, annotations: { a: 'b' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80, protocol: 'TCP' }] }], nodeSelector: { disk: 'ssd' } } } }),
  },
];
