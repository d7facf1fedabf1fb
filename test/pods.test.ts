// Pods end to end (SPEC 5.2 workloads; K pkg/registry/core/pod, pkg/apis/core/v1/defaults.go,
// pkg/apis/core/validation, pkg/printers printPod at 1.31): defaults, validation, update rules,
// the status subresource, Table, field selectors, graceful deletion, kubectl.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure } from './helpers/api.ts';
import { openWatch } from './helpers/watch.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';

let server: TestServer;
const NS = 'pods-a';
const SEL = 'pods-sel';
const TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';
const pods = (ns = NS) => `/api/v1/namespaces/${ns}/pods`;
const pod = (name: string, ns = NS) => `${pods(ns)}/${name}`;
const basic = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});
const create = async (body: any, ns = NS) => {
  const res = await server.request('POST', pods(ns), { body });
  assert.equal(res.status, 201, res.text);
  return res.body;
};
const get = async (name: string, ns = NS) => (await server.request('GET', pod(name, ns))).body;
const causes = (res: any) => (res.body?.details?.causes ?? []).map((c: any) => [c.reason, c.field, c.message]);

/**
 * ServiceAccount admission refuses pods in a namespace without its `default`
 * account; the serviceaccount controller may have made it already.
 */
async function ensureDefaultServiceAccount(ns: string): Promise<void> {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name: 'default' } } });
  assert.ok(res.status === 201 || res.status === 409, res.text);
}

before(async () => {
  server = await startTestServer();
  for (const ns of [NS, SEL]) {
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
    await ensureDefaultServiceAccount(ns);
  }
});
after(() => server?.close());

describe('defaults', () => {
  test('a minimal pod gets every upstream default, a Pending status with its QoS class and no generation', async () => {
    const created = await create({
      ...basic('defaults'),
      status: { phase: 'Running', podIP: '10.0.0.1', qosClass: '' },
    });
    const spec = created.spec;
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
    assert.equal(spec.schedulerName, 'default-scheduler');
    assert.equal(spec.terminationGracePeriodSeconds, 30);
    assert.deepEqual(spec.securityContext, {});
    assert.equal(spec.enableServiceLinks, true);
    const c = spec.containers[0];
    assert.equal(c.terminationMessagePath, '/dev/termination-log');
    assert.equal(c.terminationMessagePolicy, 'File');
    assert.equal(c.imagePullPolicy, 'Always');
    assert.deepEqual(c.resources, {});
    assert.deepEqual(created.status, { phase: 'Pending', qosClass: 'BestEffort' });
    assert.equal(created.metadata.generation, undefined);
    assert.deepEqual(await get('defaults'), created);
  });

  test('imagePullPolicy follows the tag: latest or none is Always, any other tag or a digest IfNotPresent', async () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const images: Array<[string, string]> = [
      ['nginx', 'Always'], ['nginx:latest', 'Always'], ['nginx:1.25', 'IfNotPresent'], ['localhost:5000/app', 'Always'],
      [`nginx@${digest}`, 'IfNotPresent'], [`nginx:latest@${digest}`, 'Always'], ['registry.example.com:5000/team/app:v2', 'IfNotPresent'], ['Nginx', 'IfNotPresent'],
    ];
    const created = await create(basic('pull', { containers: images.map(([image], i) => ({ name: `c${i}`, image })) }));
    assert.deepEqual(created.spec.containers.map((c: any) => [c.image, c.imagePullPolicy]), images);
    const explicit = await create(basic('pull-never', { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Never' }] }));
    assert.equal(explicit.spec.containers[0].imagePullPolicy, 'Never');
  });

  test('ports, probes, env field refs, host-network ports and volumes are defaulted', async () => {
    const created = await create(basic('nested', {
      hostNetwork: true,
      containers: [{
        name: 'c', image: 'nginx:1.25',
        ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP', hostPort: 53 }],
        livenessProbe: { httpGet: { port: 80 } },
        env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
      }],
      volumes: [
        { name: 'scratch' },
        { name: 'cm', configMap: { name: 'settings' } },
        { name: 'sec', secret: { secretName: 'creds', defaultMode: 0o400 } },
        { name: 'host', hostPath: { path: '/var/log' } },
        { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'proj', projected: { sources: [{ configMap: { name: 'settings' } }] } },
      ],
    }));
    const c = created.spec.containers[0];
    assert.deepEqual(c.ports, [{ containerPort: 80, hostPort: 80, protocol: 'TCP' }, { containerPort: 53, hostPort: 53, protocol: 'UDP' }]);
    assert.deepEqual(c.livenessProbe, { httpGet: { path: '/', port: 80, scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(c.env[0].valueFrom.fieldRef, { apiVersion: 'v1', fieldPath: 'spec.nodeName' });
    const volumes = Object.fromEntries(created.spec.volumes.map((v: any) => [v.name, v]));
    assert.deepEqual(volumes.scratch, { name: 'scratch', emptyDir: {} });
    assert.equal(volumes.cm.configMap.defaultMode, 420);
    assert.equal(volumes.sec.secret.defaultMode, 0o400);
    assert.equal(volumes.host.hostPath.type, '');
    assert.equal(volumes.info.downwardAPI.defaultMode, 420);
    assert.equal(volumes.info.downwardAPI.items[0].fieldRef.apiVersion, 'v1');
    assert.equal(volumes.proj.projected.defaultMode, 420);
  });

  test('a projected service-account token lasts an hour unless told otherwise', async () => {
    const created = await create(basic('token', {
      serviceAccountName: 'default',
      volumes: [{ name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }],
    }));
    assert.deepEqual(created.spec.volumes[0].projected, { sources: [{ serviceAccountToken: { expirationSeconds: 3600, path: 'token' } }], defaultMode: 420 });
  });

  test('quantities are canonical, requests default to limits, and the QoS class follows them', async () => {
    const guaranteed = await create(basic('guaranteed', { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '1.5', memory: '0.5Gi' } } }] }));
    assert.deepEqual(guaranteed.spec.containers[0].resources, { limits: { cpu: '1500m', memory: '512Mi' }, requests: { cpu: '1500m', memory: '512Mi' } });
    assert.equal(guaranteed.status.qosClass, 'Guaranteed');
    const burstable = await create(basic('burstable', { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: 0.1, memory: '2000', 'ephemeral-storage': '1n' }, limits: { memory: '1Gi' } } }] }));
    assert.deepEqual(burstable.spec.containers[0].resources, { limits: { memory: '1Gi' }, requests: { cpu: '100m', memory: '2k', 'ephemeral-storage': '1m' } });
    assert.equal(burstable.status.qosClass, 'Burstable');
  });

  test('a pod with scheduling gates says why it is not scheduled', async () => {
    const created = await create(basic('gated', { schedulingGates: [{ name: 'example.com/wait' }] }));
    assert.deepEqual(created.status.conditions, [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }]);
  });

  test('matchLabelKeys and mismatchLabelKeys of pod affinity terms become selector requirements with the pod\'s values', async () => {
    const term = (extra: Record<string, unknown>) => ({ topologyKey: 'zone', labelSelector: { matchLabels: { app: 'web' } }, ...extra });
    const created = await create(basic('affine', {
      affinity: {
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ matchLabelKeys: ['release', 'absent'] })] },
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: term({ mismatchLabelKeys: ['tenant'] }) }] },
      },
    }, { labels: { release: 'r1', tenant: 't1' } }));
    const affinity = created.spec.affinity;
    assert.deepEqual(affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions, [{ key: 'release', operator: 'In', values: ['r1'] }]);
    assert.deepEqual(affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchExpressions, [{ key: 'tenant', operator: 'NotIn', values: ['t1'] }]);
  });

  test('fields of features off in 1.31 are dropped', async () => {
    const created = await create(basic('alpha', { hostUsers: false, containers: [{ name: 'c', image: 'nginx', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }] }));
    assert.equal(created.spec.hostUsers, undefined);
    assert.equal(created.spec.containers[0].resizePolicy, undefined);
  });
});

describe('validation', () => {
  const withContainer = (c: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({ containers: [{ name: 'c', image: 'nginx', ...c }], ...spec });
  const LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  const SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const ENV = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";
  const cases: Array<[string, Record<string, unknown>, Array<[string, string, string]>]> = [
    ['no containers', { containers: [] }, [['FieldValueRequired', 'spec.containers', 'Required value']]],
    ['container without a name', { containers: [{ image: 'nginx' }] }, [['FieldValueRequired', 'spec.containers[0].name', 'Required value']]],
    ['container name not a DNS label', withContainer({ name: 'Web_1' }), [['FieldValueInvalid', 'spec.containers[0].name', `Invalid value: "Web_1": ${LABEL}`]]],
    ['container names repeated across init and regular containers', withContainer({}, { initContainers: [{ name: 'c', image: 'busybox' }] }), [['FieldValueDuplicate', 'spec.initContainers[0].name', 'Duplicate value: "c"']]],
    ['container names repeated', { containers: [{ name: 'c', image: 'a' }, { name: 'c', image: 'b' }] }, [['FieldValueDuplicate', 'spec.containers[1].name', 'Duplicate value: "c"']]],
    ['no image', { containers: [{ name: 'c' }] }, [['FieldValueRequired', 'spec.containers[0].image', 'Required value']]],
    ['image with white space', withContainer({ image: ' nginx' }), [['FieldValueInvalid', 'spec.containers[0].image', 'Invalid value: " nginx": must not have leading or trailing whitespace']]],
    ['container port 0', withContainer({ ports: [{ containerPort: 0 }] }), [['FieldValueRequired', 'spec.containers[0].ports[0].containerPort', 'Required value']]],
    ['container port out of range', withContainer({ ports: [{ containerPort: 70000 }] }), [['FieldValueInvalid', 'spec.containers[0].ports[0].containerPort', 'Invalid value: 70000: must be between 1 and 65535, inclusive']]],
    ['unknown protocol', withContainer({ ports: [{ containerPort: 80, protocol: 'HTTP' }] }), [['FieldValueNotSupported', 'spec.containers[0].ports[0].protocol', 'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"']]],
    ['port names repeated', withContainer({ ports: [{ name: 'web', containerPort: 80 }, { name: 'web', containerPort: 81 }] }), [['FieldValueDuplicate', 'spec.containers[0].ports[1].name', 'Duplicate value: "web"']]],
    ['port name not an IANA service name', withContainer({ ports: [{ name: 'http--x', containerPort: 80 }] }), [['FieldValueInvalid', 'spec.containers[0].ports[0].name', 'Invalid value: "http--x": must not contain consecutive hyphens']]],
    ['env name starting with a digit', withContainer({ env: [{ name: '1ABC', value: 'x' }] }), [['FieldValueInvalid', 'spec.containers[0].env[0].name', `Invalid value: "1ABC": ${ENV}`]]],
    ['env without a name', withContainer({ env: [{ value: 'x' }] }), [['FieldValueRequired', 'spec.containers[0].env[0].name', 'Required value']]],
    ['env valueFrom without a source', withContainer({ env: [{ name: 'A', valueFrom: {} }] }), [['FieldValueInvalid', 'spec.containers[0].env[0].valueFrom', 'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`']]],
    ['env value and valueFrom', withContainer({ env: [{ name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }), [['FieldValueInvalid', 'spec.containers[0].env[0].valueFrom', 'Invalid value: "": may not be specified when `value` is not empty']]],
    ['env field ref to an unknown field', withContainer({ env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'spec.foo' } } }] }), [['FieldValueInvalid', 'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath', 'Invalid value: "spec.foo": error converting fieldPath: field label not supported: spec.foo']]],
    ['env field ref to a field env cannot read', withContainer({ env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'spec.restartPolicy' } } }] }), [['FieldValueNotSupported', 'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath', 'Unsupported value: "spec.restartPolicy": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"']]],
    ['secret key ref without a key', withContainer({ env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's' } } }] }), [['FieldValueRequired', 'spec.containers[0].env[0].valueFrom.secretKeyRef.key', 'Required value']]],
    ['volume name not a DNS label', withContainer({}, { volumes: [{ name: 'Data', emptyDir: {} }] }), [['FieldValueInvalid', 'spec.volumes[0].name', `Invalid value: "Data": ${LABEL}`]]],
    ['volume names repeated', withContainer({}, { volumes: [{ name: 'v', emptyDir: {} }, { name: 'v', emptyDir: {} }] }), [['FieldValueDuplicate', 'spec.volumes[1].name', 'Duplicate value: "v"']]],
    ['volume with two sources', withContainer({}, { volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/tmp' } }] }), [['FieldValueForbidden', 'spec.volumes[0].hostPath', 'Forbidden: may not specify more than 1 volume type']]],
    ['secret volume without a secret name', withContainer({}, { volumes: [{ name: 'v', secret: {} }] }), [['FieldValueRequired', 'spec.volumes[0].secret.secretName', 'Required value']]],
    ['config map volume mode beyond 0777', withContainer({}, { volumes: [{ name: 'v', configMap: { name: 'c', defaultMode: 0o1000 } }] }), [['FieldValueInvalid', 'spec.volumes[0].configMap.defaultMode', 'Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive']]],
    ['config map item path escaping', withContainer({}, { volumes: [{ name: 'v', configMap: { name: 'c', items: [{ key: 'k', path: '../x' }] } }] }), [['FieldValueInvalid', 'spec.volumes[0].configMap.items[0].path', 'Invalid value: "../x": must not contain \'..\'']]],
    ['host path without a path', withContainer({}, { volumes: [{ name: 'v', hostPath: { path: '' } }] }), [['FieldValueRequired', 'spec.volumes[0].hostPath.path', 'Required value']]],
    ['service-account token shorter than ten minutes', withContainer({}, { serviceAccountName: 'default', volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 60 } }] } }] }), [['FieldValueInvalid', 'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds', 'Invalid value: 60: may not specify a duration less than 10 minutes']]],
    ['mount of a missing volume', withContainer({ volumeMounts: [{ name: 'missing', mountPath: '/data' }] }), [['FieldValueNotFound', 'spec.containers[0].volumeMounts[0].name', 'Not found: "missing"']]],
    ['mount without a path', withContainer({ volumeMounts: [{ name: 'v' }] }, { volumes: [{ name: 'v', emptyDir: {} }] }), [['FieldValueRequired', 'spec.containers[0].volumeMounts[0].mountPath', 'Required value']]],
    ['mount paths repeated', withContainer({ volumeMounts: [{ name: 'v', mountPath: '/d' }, { name: 'w', mountPath: '/d' }] }, { volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', emptyDir: {} }] }), [['FieldValueInvalid', 'spec.containers[0].volumeMounts[1].mountPath', 'Invalid value: "/d": must be unique']]],
    ['unknown restart policy', withContainer({}, { restartPolicy: 'Sometimes' }), [['FieldValueNotSupported', 'spec.restartPolicy', 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']]],
    ['unknown DNS policy', withContainer({}, { dnsPolicy: 'Cluster' }), [['FieldValueNotSupported', 'spec.dnsPolicy', 'Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"']]],
    ['unknown pull policy', withContainer({ imagePullPolicy: 'Sometimes' }), [['FieldValueNotSupported', 'spec.containers[0].imagePullPolicy', 'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"']]],
    ['request above its limit', withContainer({ resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }), [['FieldValueInvalid', 'spec.containers[0].resources.requests', 'Invalid value: "2": must be less than or equal to cpu limit of 1']]],
    ['negative quantity', withContainer({ resources: { limits: { memory: '-1' } } }), [
      ['FieldValueInvalid', 'spec.containers[0].resources.limits[memory]', 'Invalid value: "-1": must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.containers[0].resources.requests[memory]', 'Invalid value: "-1": must be greater than or equal to 0'],
    ]],
    ['resource that is no resource', withContainer({ resources: { requests: { gpu: '1' } } }), [['FieldValueInvalid', 'spec.containers[0].resources.requests[gpu]', 'Invalid value: "gpu": must be a standard resource type or fully qualified']]],
    ['resource no container has', withContainer({ resources: { requests: { pods: '1' } } }), [['FieldValueInvalid', 'spec.containers[0].resources.requests[pods]', 'Invalid value: "pods": must be a standard resource for containers']]],
    ['extended resource requested without a limit', withContainer({ resources: { requests: { 'example.com/gpu': '1' } } }), [['FieldValueRequired', 'spec.containers[0].resources.limits', 'Required value: Limit must be set for non overcommitable resources']]],
    ['extended resource in fractions', withContainer({ resources: { limits: { 'example.com/gpu': '1.5' } } }), [
      ['FieldValueInvalid', 'spec.containers[0].resources.limits[example.com/gpu]', 'Invalid value: "1500m": must be an integer'],
      ['FieldValueInvalid', 'spec.containers[0].resources.requests[example.com/gpu]', 'Invalid value: "1500m": must be an integer'],
    ]],
    ['node name not a subdomain', withContainer({}, { nodeName: 'Node_1' }), [['FieldValueInvalid', 'spec.nodeName', `Invalid value: "Node_1": ${SUBDOMAIN}`]]],
    ['activeDeadlineSeconds of 0', withContainer({}, { activeDeadlineSeconds: 0 }), [['FieldValueInvalid', 'spec.activeDeadlineSeconds', 'Invalid value: 0: must be between 1 and 2147483647, inclusive']]],
    ['ephemeral containers on create', withContainer({}, { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }), [['FieldValueForbidden', 'spec.ephemeralContainers', 'Forbidden: cannot be set on create']]],
    ['host network with another host port', withContainer({ ports: [{ containerPort: 80, hostPort: 81 }] }, { hostNetwork: true }), [['FieldValueInvalid', 'spec.containers[0].ports[0].hostPort', 'Invalid value: 81: must match `containerPort` when `hostNetwork` is true']]],
    ['toleration with a value and Exists', withContainer({}, { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] }), [['FieldValueInvalid', 'spec.tolerations[0].operator', 'Invalid value: "v": value must be empty when `operator` is \'Exists\'']]],
    ['init container restart policy other than Always', withContainer({}, { initContainers: [{ name: 'i', image: 'busybox', restartPolicy: 'Never' }] }), [['FieldValueNotSupported', 'spec.initContainers[0].restartPolicy', 'Unsupported value: "Never": supported values: "Always"']]],
    ['init container probing without restartPolicy Always', withContainer({}, { initContainers: [{ name: 'i', image: 'busybox', readinessProbe: { exec: { command: ['true'] } } }] }), [['FieldValueForbidden', 'spec.initContainers[0].readinessProbe', 'Forbidden: may not be set for init containers without restartPolicy=Always']]],
    ['regular container with a restart policy', withContainer({ restartPolicy: 'Always' }), [['FieldValueForbidden', 'spec.containers[0].restartPolicy', 'Forbidden: may not be set for non-init containers']]],
    ['node name with scheduling gates', withContainer({}, { nodeName: 'node-1', schedulingGates: [{ name: 'wait' }] }), [['FieldValueForbidden', 'spec.nodeName', 'Forbidden: cannot be set until all schedulingGates have been cleared']]],
  ];
  for (const [title, spec, expected] of cases) {
    test(`422: ${title}`, async () => {
      const res = await server.request('POST', pods(), { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad' }, spec } });
      assertFailure(res, 422, 'Invalid');
      assert.deepEqual(causes(res), expected.map(([r, f, m]) => [r, f, m]));
      const text = expected.length === 1 ? `${expected[0][1]}: ${expected[0][2]}` : `[${expected.map(([, f, m]) => `${f}: ${m}`).join(', ')}]`;
      assert.equal(res.body.message, `Pod "bad" is invalid: ${text}`);
    });
  }

  test('422: the name must be a DNS subdomain; every error is reported at once', async () => {
    const res = await server.request('POST', pods(), { body: { metadata: { name: 'Bad_Name' }, spec: { containers: [] } } });
    assertFailure(res, 422, 'Invalid', `Pod "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN}, spec.containers: Required value]`);
  });

  test('a negative terminationGracePeriodSeconds and a name that is no DNS label are accepted with upstream\'s warnings', async () => {
    const res = await server.request('POST', pods(), { body: basic('negative.grace', { terminationGracePeriodSeconds: -5 }) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.spec.terminationGracePeriodSeconds, -5);
    assert.equal(
      res.headers.warning,
      '299 - "metadata.name: this is used in the Pod\'s hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]", 299 - "spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"',
    );
    const updated = await server.request('PUT', pod('negative.grace'), { body: { ...res.body, metadata: { ...res.body.metadata, labels: { a: 'b' } } } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.headers.warning, undefined, 'pod updates carry no warnings');
  });

  test('400: a quantity that does not parse is refused by the decoder, as upstream', async () => {
    const bad = async (cpu: unknown) => server.request('POST', pods(), { body: basic('q', { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu } } }] }) });
    assertFailure(await bad('1x'), 400, 'BadRequest', `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
    assertFailure(await bad('1MM'), 400, 'BadRequest', 'Pod in version "v1" cannot be handled as a Pod: unable to parse quantity\'s suffix');
    assertFailure(await bad({ a: 1 }), 400, 'BadRequest', /quantities must match the regular expression/);
    assert.equal((await server.request('GET', pod('q'))).status, 404);
  });
});

describe('updates', () => {
  const put = async (name: string, change: (o: any) => void) => {
    const current = await get(name);
    change(current);
    return server.request('PUT', pod(name), { body: current });
  };

  test('images, labels and a shorter activeDeadlineSeconds may change; status and generation stay', async () => {
    await create(basic('upd', { initContainers: [{ name: 'init', image: 'busybox' }] }));
    const res = await put('upd', (o) => {
      o.spec.containers[0].image = 'nginx:1.26';
      o.spec.initContainers[0].image = 'busybox:1.36';
      o.spec.activeDeadlineSeconds = 600;
      o.metadata.labels = { app: 'web' };
      o.status = { phase: 'Running' };
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.spec.containers[0].image, 'nginx:1.26');
    assert.equal(res.body.spec.initContainers[0].image, 'busybox:1.36');
    assert.equal(res.body.status.phase, 'Pending');
    assert.equal(res.body.metadata.generation, undefined);
    assert.equal((await put('upd', (o) => (o.spec.activeDeadlineSeconds = 300))).status, 200);
    const patched = await server.request('PATCH', pod('upd'), { raw: JSON.stringify({ spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } }), headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.spec.containers[0].image, 'nginx:1.27');
  });

  test('any other spec change is forbidden, with upstream\'s message and a diff', async () => {
    await create(basic('frozen'));
    const res = await put('frozen', (o) => (o.spec.restartPolicy = 'Never'));
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causes(res).map(([r, f]: string[]) => [r, f]), [['FieldValueForbidden', 'spec']]);
    assert.equal(
      res.body.details.causes[0].message,
      'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n  v1.PodSpec{\n- \trestartPolicy: "Always"\n+ \trestartPolicy: "Never"\n  }\n',
    );
    const grace = await put('frozen', (o) => (o.spec.terminationGracePeriodSeconds = 10));
    assert.match(grace.body.message, /spec: Forbidden: pod updates may not change fields other than[\s\S]*- \tterminationGracePeriodSeconds: 30\n\+ \tterminationGracePeriodSeconds: 10/);
    const added = await put('frozen', (o) => o.spec.containers.push({ name: 'd', image: 'nginx' }));
    assertFailure(added, 422, 'Invalid', 'Pod "frozen" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers');
    const unchanged = await put('frozen', (o) => (o.spec.hostNetwork = false));
    assert.equal(unchanged.status, 200, 'an explicit false is the absent field Go compares');
  });

  test('activeDeadlineSeconds may only shrink and never go away', async () => {
    await create(basic('deadline', { activeDeadlineSeconds: 60 }));
    assertFailure(await put('deadline', (o) => (o.spec.activeDeadlineSeconds = 120)), 422, 'Invalid', 'Pod "deadline" is invalid: spec.activeDeadlineSeconds: Invalid value: 120: must be less than or equal to previous value');
    assertFailure(await put('deadline', (o) => delete o.spec.activeDeadlineSeconds), 422, 'Invalid', 'Pod "deadline" is invalid: spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value');
  });

  test('tolerations may be added, not changed; a negative grace period may become 1', async () => {
    await create(basic('tolerant', { terminationGracePeriodSeconds: -1, tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }] }));
    const added = await put('tolerant', (o) => {
      o.spec.tolerations[0].tolerationSeconds = 5;
      o.spec.tolerations.push({ key: 'b', operator: 'Equal', value: 'x' });
      o.spec.terminationGracePeriodSeconds = 1;
    });
    assert.equal(added.status, 200, added.text);
    assert.equal(added.body.spec.tolerations.length, 2);
    assertFailure(await put('tolerant', (o) => (o.spec.tolerations[1].value = 'y')), 422, 'Invalid', 'Pod "tolerant" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds');
  });

  test('scheduling gates may only be removed; a gated pod may gain node selectors', async () => {
    await create(basic('gates', { schedulingGates: [{ name: 'a' }, { name: 'b' }] }));
    const removed = await put('gates', (o) => {
      o.spec.schedulingGates = [{ name: 'b' }];
      o.spec.nodeSelector = { disk: 'ssd' };
    });
    assert.equal(removed.status, 200, removed.text);
    assertFailure(await put('gates', (o) => o.spec.schedulingGates.push({ name: 'c' })), 422, 'Invalid', "Pod \"gates\" is invalid: spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'c'");
    const mutated = await put('gates', (o) => (o.spec.nodeSelector = { disk: 'hdd' }));
    assert.deepEqual(causes(mutated)[0], ['FieldValueInvalid', 'spec.nodeSelector', 'Invalid value: map[string]string{"disk":"hdd"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)']);
  });
});

describe('status subresource', () => {
  const putStatus = async (name: string, status: any, change: (o: any) => void = () => {}) => {
    const current = await get(name);
    current.status = status;
    change(current);
    return server.request('PUT', `${pod(name)}/status`, { body: current });
  };

  test('only status changes; podIP fills podIPs; a status without qosClass keeps the stored one', async () => {
    await create(basic('st', { nodeName: 'node-1' }));
    const res = await putStatus('st', { phase: 'Running', podIP: '10.1.0.5', hostIP: '192.168.0.2', conditions: [{ type: 'Ready', status: 'True' }, { type: 'example.com/gate', status: 'True' }] }, (o) => {
      o.spec.containers[0].image = 'other';
      o.metadata.labels = { ignored: 'yes' };
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status.phase, 'Running');
    assert.deepEqual(res.body.status.podIPs, [{ ip: '10.1.0.5' }]);
    assert.deepEqual(res.body.status.hostIPs, [{ ip: '192.168.0.2' }]);
    assert.equal(res.body.status.qosClass, 'BestEffort');
    assert.equal(res.body.spec.containers[0].image, 'nginx');
    const status = await server.request('GET', `${pod('st')}/status`);
    assert.equal(status.body.status.podIP, '10.1.0.5');
  });

  test('422: bad IPs, condition types, a changed QoS class, a terminated container restarting under Never', async () => {
    await create(basic('st-bad', { restartPolicy: 'Never' }));
    const ips = await putStatus('st-bad', { qosClass: 'BestEffort', podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.1' }, { ip: 'x' }] });
    assert.deepEqual(causes(ips), [
      ['FieldValueInvalid', 'status.podIPs[2]', 'Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
      ['FieldValueInvalid', 'status.podIPs', 'Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.1"}, core.PodIP{IP:"10.0.0.1"}, core.PodIP{IP:"x"}}: may specify no more than one IP for each IP family'],
      ['FieldValueDuplicate', 'status.podIPs[1]', 'Duplicate value: core.PodIP{IP:"10.0.0.1"}'],
    ]);
    const dual = await putStatus('st-bad', { podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }] });
    assert.equal(dual.status, 200, dual.text);
    const condition = await putStatus('st-bad', { conditions: [{ type: 'not a type', status: 'True' }] });
    assertFailure(condition, 422, 'Invalid', /^Pod "st-bad" is invalid: metadata\.conditions\[0\]\.Type: Invalid value: "not a type": name part must consist of/);
    assertFailure(await putStatus('st-bad', { qosClass: 'Guaranteed' }), 422, 'Invalid', 'Pod "st-bad" is invalid: status.qosClass: Invalid value: "Guaranteed": field is immutable');
    const done = await putStatus('st-bad', { phase: 'Succeeded', containerStatuses: [{ name: 'c', image: 'nginx', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0 } } }] });
    assert.equal(done.status, 200, done.text);
    const revived = await putStatus('st-bad', { phase: 'Running', containerStatuses: [{ name: 'c', image: 'nginx', imageID: '', ready: true, restartCount: 0, state: { running: {} } }] });
    assertFailure(revived, 422, 'Invalid', 'Pod "st-bad" is invalid: status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state');
  });
});

describe('table, field selectors and deletion', () => {
  const table = async (path: string) => {
    const res = await server.request('GET', path, { headers: { accept: TABLE } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const setStatus = async (name: string, status: any, ns = NS) => {
    const current = await get(name, ns);
    const res = await server.request('PUT', `${pod(name, ns)}/status`, { body: { ...current, status: { ...status, qosClass: current.status.qosClass } } });
    assert.equal(res.status, 200, res.text);
  };

  test('columns, pending and running rows, restarts with their age, readiness gates and wide columns', async () => {
    await create(basic('tbl', { nodeName: 'node-1', readinessGates: [{ conditionType: 'example.com/lb' }] }));
    let t = await table(pod('tbl'));
    assert.deepEqual(t.columnDefinitions.map((c: any) => [c.name, c.priority]), [['Name', 0], ['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1]]);
    assert.deepEqual(t.rows[0].cells.filter((_: unknown, i: number) => i !== 4), ['tbl', '0/1', 'Pending', '0', '<none>', 'node-1', '<none>', '0/1']);
    // 20m10s ago: printed as 20m for the next 50 s whatever a slow host adds (5 minutes ago became 5m1s).
    const finishedAt = new Date(Date.now() - 20 * 60_000 - 10_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await setStatus('tbl', {
      phase: 'Running', podIP: '10.0.0.9', nominatedNodeName: 'node-2',
      conditions: [{ type: 'Ready', status: 'True' }, { type: 'example.com/lb', status: 'True' }],
      containerStatuses: [{ name: 'c', image: 'nginx', imageID: '', ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt } } }],
    });
    t = await table(pod('tbl'));
    assert.deepEqual(t.rows[0].cells.filter((_: unknown, i: number) => i !== 4), ['tbl', '1/1', 'Running', '2 (20m ago)', '10.0.0.9', 'node-1', 'node-2', '1/1']);
    assert.equal(t.rows[0].conditions, undefined);
  });

  test('init containers, waiting reasons and finished pods', async () => {
    await create(basic('init', { initContainers: [{ name: 'i1', image: 'busybox' }, { name: 'i2', image: 'busybox' }] }));
    const initStatus = (state: any, done = { terminated: { exitCode: 0 } }) => [{ name: 'i1', image: 'b', imageID: '', ready: true, restartCount: 0, state: done }, { name: 'i2', image: 'b', imageID: '', ready: false, restartCount: 0, state }];
    await setStatus('init', { phase: 'Pending', initContainerStatuses: initStatus({ waiting: { reason: 'PodInitializing' } }) });
    assert.equal((await table(pod('init'))).rows[0].cells[2], 'Init:1/2');
    await setStatus('init', { phase: 'Pending', initContainerStatuses: initStatus({ waiting: { reason: 'CrashLoopBackOff' } }) });
    assert.equal((await table(pod('init'))).rows[0].cells[2], 'Init:CrashLoopBackOff');
    await setStatus('init', { phase: 'Pending', initContainerStatuses: initStatus({ terminated: { exitCode: 3 } }) });
    assert.equal((await table(pod('init'))).rows[0].cells[2], 'Init:ExitCode:3');
    await setStatus('init', {
      phase: 'Running', initContainerStatuses: initStatus({ terminated: { exitCode: 0 } }),
      containerStatuses: [{ name: 'c', image: 'nginx', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } }],
    });
    assert.equal((await table(pod('init'))).rows[0].cells[2], 'ImagePullBackOff');
    await setStatus('init', {
      phase: 'Succeeded', initContainerStatuses: initStatus({ terminated: { exitCode: 0 } }),
      containerStatuses: [{ name: 'c', image: 'nginx', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
    });
    const row = (await table(pod('init'))).rows[0];
    assert.deepEqual(row.cells.slice(1, 4), ['0/1', 'Completed', '0']);
    assert.deepEqual(row.conditions, [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
  });

  test('field selectors: spec.nodeName, status.phase, spec.serviceAccountName', async () => {
    await server.request('POST', `/api/v1/namespaces/${SEL}/serviceaccounts`, { body: { metadata: { name: 'builder' } } });
    await create(basic('on-node', { nodeName: 'node-1', serviceAccountName: 'builder' }), SEL);
    await create(basic('unscheduled'), SEL);
    await setStatus('on-node', { phase: 'Running' }, SEL);
    const names = async (selector: string) => (await server.request('GET', `${pods(SEL)}?fieldSelector=${encodeURIComponent(selector)}`)).body.items.map((p: any) => p.metadata.name).sort();
    assert.deepEqual(await names('spec.nodeName=node-1'), ['on-node']);
    assert.deepEqual(await names('spec.nodeName='), ['unscheduled']);
    assert.deepEqual(await names('status.phase=Running'), ['on-node']);
    assert.deepEqual(await names('status.phase!=Running'), ['unscheduled']);
    assert.deepEqual(await names('spec.serviceAccountName=builder'), ['on-node']);
    assert.deepEqual(await names('spec.nodeName=node-1,status.phase=Pending'), []);
    const all = (await server.request('GET', `/api/v1/pods?fieldSelector=${encodeURIComponent('spec.nodeName=node-1')}`)).body.items.map((p: any) => `${p.metadata.namespace}/${p.metadata.name}`);
    assert.ok(all.includes(`${SEL}/on-node`) && all.every((n: string) => !n.endsWith('/unscheduled')), all.join());
  });

  test('an unscheduled pod is deleted at once and answered with the marked object; watchers see both writes', async () => {
    const created = await create(basic('del-now'));
    const watch = openWatch(server, `${pods()}?watch=1&fieldSelector=metadata.name%3Ddel-now&resourceVersion=${created.metadata.resourceVersion}`);
    const res = await server.request('DELETE', pod('del-now'));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.kind, 'Pod');
    assert.equal(res.body.metadata.deletionGracePeriodSeconds, 0);
    assert.ok(Math.abs(Date.parse(res.body.metadata.deletionTimestamp) - Date.now()) < 5000);
    assert.equal((await server.request('GET', pod('del-now'))).status, 404);
    const events = await watch.waitFor(2);
    watch.close();
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.deletionGracePeriodSeconds]), [['MODIFIED', 0], ['DELETED', 0]]);
  });

  test('a scheduled pod shows its grace period, then goes as no kubelet holds it', async () => {
    await create(basic('del-grace', { nodeName: 'node-1' }));
    const res = await server.request('DELETE', pod('del-grace'));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.metadata.deletionGracePeriodSeconds, 30);
    assert.ok(Math.abs(Date.parse(res.body.metadata.deletionTimestamp) - (Date.now() + 30_000)) < 5000);
    assert.equal((await server.request('GET', pod('del-grace'))).status, 404);
    await create(basic('del-short', { nodeName: 'node-1' }));
    const short = await server.request('DELETE', `${pod('del-short')}?gracePeriodSeconds=5`);
    assert.equal(short.body.metadata.deletionGracePeriodSeconds, 5);
    await create(basic('del-body', { nodeName: 'node-1' }));
    const fromBody = await server.request('DELETE', pod('del-body'), { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: -3 } });
    assert.equal(fromBody.body.metadata.deletionGracePeriodSeconds, 1);
  });

  test('finalizers keep a deleted pod Terminating until they are removed; dry-run deletes nothing', async () => {
    await create(basic('del-fin', { nodeName: 'node-1' }, { finalizers: ['example.com/hold'] }));
    const dry = await server.request('DELETE', `${pod('del-fin')}?dryRun=All`);
    assert.equal(dry.status, 200, dry.text);
    assert.equal((await get('del-fin')).metadata.deletionTimestamp, undefined);
    const res = await server.request('DELETE', pod('del-fin'));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.metadata.deletionGracePeriodSeconds, 30);
    assert.equal((await table(pod('del-fin'))).rows[0].cells[2], 'Terminating');
    const patched = await server.request('PATCH', pod('del-fin'), { raw: JSON.stringify({ metadata: { finalizers: null } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await server.request('GET', pod('del-fin'))).status, 404);
  });
});

describe('kubectl', { skip: !hasKubectl() && 'kubectl is not on PATH' }, () => {
  const KNS = 'pods-kubectl';
  let home: string;
  const kubectl = (...args: string[]) => runKubectl(server.orchconfig, home, ['-n', KNS, ...args]);
  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'orch-kubectl-pods-'));
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: KNS } } })).status, 201);
    await ensureDefaultServiceAccount(KNS);
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  // kubectl asks for meta.k8s.io Tables, which the server answers as it answers meta.orch.io ones, so
  // kubectl prints the pod printer's columns (and the wide ones with -o wide).
  test('run, get pods (-o wide, --field-selector), delete', async () => {
    const run = await kubectl('run', 'web', '--image=nginx:1.25', '--port=80', '--labels=app=web');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /pod\/web created/);
    for (const args of [['get', 'pods'], ['get', 'pods', '--field-selector=status.phase=Pending,spec.nodeName=']]) {
      const list = await kubectl(...args);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nweb\s+0\/1\s+Pending\s+0\s+\d+s\n$/, args.join(' '));
    }
    const wide = await kubectl('get', 'pods', '-o', 'wide');
    assert.equal(wide.code, 0, wide.stderr);
    assert.match(wide.stdout, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\nweb\s+0\/1\s+Pending\s+0\s+\d+s\s+<none>\s+<none>\s+<none>\s+<none>\n$/);
    const none = await kubectl('get', 'pods', '--field-selector=status.phase=Running');
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stderr, /No resources found in pods-kubectl namespace/);
    const yaml = await kubectl('get', 'pod', 'web', '-o', 'jsonpath={.spec.containers[0].imagePullPolicy} {.spec.containers[0].ports[0].protocol} {.status.qosClass}');
    assert.equal(yaml.stdout, 'IfNotPresent TCP BestEffort');
    const deleted = await kubectl('delete', 'pod', 'web');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /pod "web" deleted/);
    const gone = await kubectl('get', 'pod', 'web');
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /NotFound|not found/);
  });
});
