/**
 * HorizontalPodAutoscaler at autoscaling/v2 (storage) and autoscaling/v1 over
 * one key space (SPEC 9.4, 9.7): what v1 cannot say rides in upstream's
 * annotations so v2 -> v1 -> v2 loses nothing, defaults per version, status,
 * lists and watches at each version, printer columns from the stored form,
 * validation, and the Scale subresource still an autoscaling/v1 body.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertFailure, causesOf, expectGet } from './helpers/api.ts';
import { hasKubectl, runKubectl } from './helpers/kubectl.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
const V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' };
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

let server: TestServer;
before(async () => (server = await startTestServer()));
after(async () => server?.close());

const get = (path: string) => expectGet(server, path);
const write = async (method: string, path: string, body: unknown, status = method === 'POST' ? 201 : 200) => {
  const res = await server.request(method, path, { body });
  assert.equal(res.status, status, res.text);
  return res.body;
};

const fullV2 = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'full', annotations: { team: 'web' } },
  spec: {
    scaleTargetRef: target,
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      { type: 'Pods', pods: { metric: { name: 'packets-per-second' }, target: { type: 'AverageValue', averageValue: '1k' } } },
      { type: 'Object', object: { describedObject: { apiVersion: 'networking.orch.io/v1', kind: 'Ingress', name: 'main' }, metric: { name: 'requests-per-second' }, target: { type: 'Value', value: '10k' } } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
  },
};

test('v2 -> v1 -> v2 is lossless: v1 carries the other metrics and the behavior in annotations', async () => {
  const created = await write('POST', V2, fullV2);
  assert.deepEqual(created.spec.behavior, {
    scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
    scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
  });
  const v1 = await get(`${V1}/full`);
  assert.equal(v1.apiVersion, 'autoscaling/v1');
  assert.deepEqual(v1.spec, { scaleTargetRef: target, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 60 });
  const annotations = v1.metadata.annotations;
  assert.equal(annotations.team, 'web');
  assert.deepEqual(JSON.parse(annotations['autoscaling.alpha.orch.io/metrics']), [
    { type: 'Pods', pods: { metricName: 'packets-per-second', targetAverageValue: '1k' } },
    { type: 'Object', object: { target: { kind: 'Ingress', name: 'main', apiVersion: 'networking.orch.io/v1' }, metricName: 'requests-per-second', targetValue: '10k' } },
  ]);
  assert.deepEqual(JSON.parse(annotations['autoscaling.alpha.orch.io/behavior']), {
    ScaleUp: { StabilizationWindowSeconds: 0, SelectPolicy: 'Max', Policies: [{ Type: 'Pods', Value: 4, PeriodSeconds: 15 }, { Type: 'Percent', Value: 100, PeriodSeconds: 15 }] },
    ScaleDown: { StabilizationWindowSeconds: 300, SelectPolicy: 'Max', Policies: [{ Type: 'Pods', Value: 1, PeriodSeconds: 60 }] },
  });
  // Written back at v1 unchanged, the stored v2 object is unchanged.
  const rewritten = await write('PUT', `${V1}/full`, v1);
  assert.equal(rewritten.metadata.resourceVersion, v1.metadata.resourceVersion, 'nothing changed');
  const back = await get(`${V2}/full`);
  assert.deepEqual(back.spec, created.spec);
  assert.deepEqual(back.metadata.annotations, { team: 'web' });
});

test('v1 -> v2: the CPU target becomes a metric, 80% when none is given; minReplicas defaults to 1', async () => {
  await write('POST', V1, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'cpu' }, spec: { scaleTargetRef: target, maxReplicas: 5, targetCPUUtilizationPercentage: 50 } });
  const cpu = await get(`${V2}/cpu`);
  assert.deepEqual(cpu.spec, { scaleTargetRef: target, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] });
  assert.equal(cpu.metadata.annotations, undefined);
  await write('POST', V1, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'implicit' }, spec: { scaleTargetRef: target, maxReplicas: 3 } });
  assert.equal((await get(`${V2}/implicit`)).spec.metrics[0].resource.target.averageUtilization, 80);
  assert.equal((await get(`${V1}/implicit`)).spec.targetCPUUtilizationPercentage, 80);
});

test('status at v2 reads at v1 with the current CPU utilization and the rest in annotations, and back', async () => {
  const current = await get(`${V2}/full`);
  current.status = {
    currentReplicas: 3,
    desiredReplicas: 4,
    currentMetrics: [
      { type: 'Pods', pods: { metric: { name: 'packets-per-second' }, current: { averageValue: '900' } } },
      { type: 'Object', object: { metric: { name: 'requests-per-second' }, current: { value: '12k' }, describedObject: { apiVersion: 'networking.orch.io/v1', kind: 'Ingress', name: 'main' } } },
      { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 70 } } },
    ],
    conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'ReadyForNewScale', message: 'recommended size matches current size' }],
  };
  const updated = await write('PUT', `${V2}/full/status`, current);
  const v1 = await get(`${V1}/full`);
  assert.deepEqual(v1.status, { currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 70 });
  assert.deepEqual(JSON.parse(v1.metadata.annotations['autoscaling.alpha.orch.io/conditions']), updated.status.conditions);
  assert.equal(JSON.parse(v1.metadata.annotations['autoscaling.alpha.orch.io/current-metrics']).length, 3);
  const rewritten = await write('PUT', `${V1}/full/status`, v1);
  assert.equal(rewritten.metadata.resourceVersion, v1.metadata.resourceVersion, 'the v1 status written back changes nothing');
  assert.deepEqual((await get(`${V2}/full`)).status, updated.status);
});

test('lists and watches answer at the version asked', async () => {
  const list = await get(V1);
  assert.equal(list.kind, 'HorizontalPodAutoscalerList');
  assert.deepEqual(list.items.map((i: any) => i.apiVersion), list.items.map(() => 'autoscaling/v1'));
  const watch = openWatch(server, `${V1}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
  try {
    await write('POST', V2, { ...fullV2, metadata: { name: 'watched' } });
    const [event] = await watch.waitFor(1);
    assert.equal(event.object.apiVersion, 'autoscaling/v1');
    assert.equal(event.object.spec.targetCPUUtilizationPercentage, 60);
    assert.ok(event.object.metadata.annotations['autoscaling.alpha.orch.io/metrics']);
  } finally {
    watch.close();
  }
});

test('Table: upstream columns at both versions, printed from the stored form', async () => {
  for (const base of [V2, V1]) {
    const res = await server.request('GET', `${base}/full`, { headers: TABLE });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.columnDefinitions.map((c: any) => c.name), ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']);
    assert.deepEqual(res.body.rows[0].cells.slice(0, 6), ['full', 'Deployment/web', '900/1k, 12k/10k + 1 more...', '2', 10, 3]);
  }
  const cpu = await server.request('GET', `${V1}/cpu`, { headers: TABLE });
  assert.equal(cpu.body.rows[0].cells[2], 'cpu: <unknown>/50%');
});

test('validation a user meets, on the internal form', async () => {
  const bad = await server.request('POST', V1, { body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'bad' }, spec: { scaleTargetRef: { name: 'web' }, minReplicas: 3, maxReplicas: 2 } } });
  assertFailure(bad, 422, 'Invalid');
  assert.deepEqual(causesOf(bad), [
    ['FieldValueInvalid', 'spec.maxReplicas'],
    ['FieldValueRequired', 'spec.scaleTargetRef.kind'],
  ]);
  const metric = await server.request('POST', V2, { body: { ...fullV2, metadata: { name: 'bad-metric' }, spec: { scaleTargetRef: target, maxReplicas: 2, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }] } } });
  assertFailure(metric, 422, 'Invalid', /spec\.metrics\[0\]\.resource\.target\.averageUtilization: Required value: must set either a target raw value or a target utilization/);
});

test('autoscaling/v1 still answers Scale bodies for scale subresources; removed autoscaling versions are 404', async () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
  await write('POST', '/apis/apps/v1/namespaces/default/deployments', deployment);
  const scale = await get('/apis/apps/v1/namespaces/default/deployments/web/scale');
  assert.deepEqual([scale.apiVersion, scale.kind, scale.spec.replicas], ['autoscaling/v1', 'Scale', 2]);
  for (const version of ['v2beta1', 'v2beta2']) assert.equal((await server.request('GET', `/apis/autoscaling/${version}/namespaces/default/horizontalpodautoscalers`)).status, 404);
  const group = await get('/apis/autoscaling');
  assert.deepEqual(group.versions.map((v: any) => v.version), ['v2', 'v1']);
});

test('kubectl get hpa shows upstream columns; kubectl autoscale creates through the API', { skip: !hasKubectl() && 'no kubectl on PATH' }, async () => {
  const home = mkdtempSync(join(tmpdir(), 'kubectl-home-'));
  try {
    const autoscale = await runKubectl(server.orchconfig, home, ['autoscale', 'deployment', 'web', '--min=2', '--max=6', '--cpu-percent=70', '-n', 'default']);
    assert.equal(autoscale.code, 0, autoscale.stderr);
    const made = await get(`${V2}/web`);
    assert.deepEqual([made.spec.minReplicas, made.spec.maxReplicas, made.spec.metrics[0].resource.target.averageUtilization], [2, 6, 70]);
    const run = await runKubectl(server.orchconfig, home, ['get', 'hpa', '-n', 'default']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.split('\n')[0].trim().split(/\s{2,}/).join(' '), 'NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE');
    assert.match(run.stdout, /^web\s+Deployment\/web\s+cpu: <unknown>\/70%\s+2\s+6\s+0\s+\S+$/m);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
