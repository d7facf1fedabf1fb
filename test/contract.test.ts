// Contract checks (see openapi/README.md) on the documents codegen reads: openapi/upstream and the overlays,
// merged by codegen/merge-contract.ts. Their inputs are checked by contract-input.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mergeContract } from '../codegen/merge-contract.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const contractDir = path.join(repoRoot, 'openapi');

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const docs = mergeContract(contractDir) as unknown as Map<string, Obj>;

function schemasOf(doc: Obj): Obj {
  const c = doc.components;
  assert.ok(isObj(c) && isObj(c.schemas), 'components.schemas missing');
  return c.schemas as Obj;
}

function walk(node: Json, visit: (o: Obj) => void): void {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (isObj(node)) {
    visit(node);
    Object.values(node).forEach((v) => walk(v, visit));
  }
}

function resolvePointer(doc: Json, pointer: string): Json | undefined {
  if (pointer === '' || pointer === '/') return doc;
  let cur: Json | undefined = doc;
  for (const raw of pointer.replace(/^\//, '').split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (isObj(cur)) cur = Object.prototype.hasOwnProperty.call(cur, key) ? cur[key] : undefined;
    else return undefined;
  }
  return cur;
}

/**
 * Keyed by kind, or `Kind/version` for a kind's other versions (`version` then says which, `stored` that it is stored
 * at another, `deprecated` that it is deprecated); `scale`: the kind has a scale subresource and its paths.
 */
const KINDS: Record<string, { file: string; schema: string; group: string; version?: string; storedElsewhere?: boolean; storageGroup?: boolean; deprecated?: boolean; scale?: boolean }> = {
  Namespace: { file: 'api__v1.json', schema: 'io.orch.api.core.v1.Namespace', group: '' },
  ConfigMap: { file: 'api__v1.json', schema: 'io.orch.api.core.v1.ConfigMap', group: '' },
  Secret: { file: 'api__v1.json', schema: 'io.orch.api.core.v1.Secret', group: '' },
  ServiceAccount: { file: 'api__v1.json', schema: 'io.orch.api.core.v1.ServiceAccount', group: '' },
  Event: { file: 'api__v1.json', schema: 'io.orch.api.core.v1.Event', group: '' },
  Pod: { file: 'api__v1.json', schema: 'io.orch.api.core.v1.Pod', group: '' },
  Node: { file: 'api__v1.json', schema: 'io.orch.api.core.v1.Node', group: '' },
  ...Object.fromEntries(
    ['LimitRange', 'ResourceQuota', 'PersistentVolume', 'PersistentVolumeClaim', 'ReplicationController', 'Endpoints', 'PodTemplate'].map((k) => [
      k,
      { file: 'api__v1.json', schema: `io.orch.api.core.v1.${k}`, group: '', scale: k === 'ReplicationController' },
    ]),
  ),
  Lease: { file: 'apis__coordination.orch.io__v1.json', schema: 'io.orch.api.coordination.v1.Lease', group: 'coordination.orch.io' },
  SelfSubjectReview: {
    file: 'apis__authentication.orch.io__v1.json',
    schema: 'io.orch.api.authentication.v1.SelfSubjectReview',
    group: 'authentication.orch.io',
  },
  TokenReview: { file: 'apis__authentication.orch.io__v1.json', schema: 'io.orch.api.authentication.v1.TokenReview', group: 'authentication.orch.io' },
  ...Object.fromEntries(
    ['SelfSubjectAccessReview', 'SubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview'].map((k) => [
      k,
      { file: 'apis__authorization.orch.io__v1.json', schema: `io.orch.api.authorization.v1.${k}`, group: 'authorization.orch.io' },
    ]),
  ),
  ...Object.fromEntries(
    ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'].map((k) => [
      k,
      { file: 'apis__rbac.authorization.orch.io__v1.json', schema: `io.orch.api.rbac.v1.${k}`, group: 'rbac.authorization.orch.io' },
    ]),
  ),
  ...Object.fromEntries(
    ['Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'ControllerRevision'].map((k) => [
      k,
      { file: 'apis__apps__v1.json', schema: `io.orch.api.apps.v1.${k}`, group: 'apps', scale: ['Deployment', 'ReplicaSet', 'StatefulSet'].includes(k) },
    ]),
  ),
  ...Object.fromEntries(['Job', 'CronJob'].map((k) => [k, { file: 'apis__batch__v1.json', schema: `io.orch.api.batch.v1.${k}`, group: 'batch' }])),
  NetworkPolicy: {
    file: 'apis__networking.orch.io__v1.json',
    schema: 'io.orch.api.networking.v1.NetworkPolicy',
    group: 'networking.orch.io',
  },
  ...Object.fromEntries(['Ingress', 'IngressClass'].map((k) => [k, { file: 'apis__networking.orch.io__v1.json', schema: `io.orch.api.networking.v1.${k}`, group: 'networking.orch.io' }])),
  EndpointSlice: { file: 'apis__discovery.orch.io__v1.json', schema: 'io.orch.api.discovery.v1.EndpointSlice', group: 'discovery.orch.io' },
  PodDisruptionBudget: { file: 'apis__policy__v1.json', schema: 'io.orch.api.policy.v1.PodDisruptionBudget', group: 'policy' },
  RuntimeClass: { file: 'apis__node.orch.io__v1.json', schema: 'io.orch.api.node.v1.RuntimeClass', group: 'node.orch.io' },
  ...Object.fromEntries(
    ['StorageClass', 'VolumeAttachment', 'CSIDriver', 'CSINode', 'CSIStorageCapacity'].map((k) => [k, { file: 'apis__storage.orch.io__v1.json', schema: `io.orch.api.storage.v1.${k}`, group: 'storage.orch.io' }]),
  ),
  CustomResourceDefinition: {
    file: 'apis__apiextensions.orch.io__v1.json',
    schema: 'io.orch.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    group: 'apiextensions.orch.io',
  },
  ...Object.fromEntries(
    ['FlowSchema', 'PriorityLevelConfiguration'].flatMap((k) => [
      [k, { file: 'apis__flowcontrol.orch.io__v1.json', schema: `io.orch.api.flowcontrol.v1.${k}`, group: 'flowcontrol.orch.io' }],
      [`${k}/v1beta3`, { file: 'apis__flowcontrol.orch.io__v1beta3.json', schema: `io.orch.api.flowcontrol.v1beta3.${k}`, group: 'flowcontrol.orch.io', version: 'v1beta3', storedElsewhere: true, deprecated: true }],
    ]),
  ),
  HorizontalPodAutoscaler: { file: 'apis__autoscaling__v2.json', schema: 'io.orch.api.autoscaling.v2.HorizontalPodAutoscaler', group: 'autoscaling', version: 'v2' },
  'Event/events.orch.io': { file: 'apis__events.orch.io__v1.json', schema: 'io.orch.api.events.v1.Event', group: 'events.orch.io', version: 'v1', storedElsewhere: true, storageGroup: true },
  'HorizontalPodAutoscaler/v1': { file: 'apis__autoscaling__v1.json', schema: 'io.orch.api.autoscaling.v1.HorizontalPodAutoscaler', group: 'autoscaling', version: 'v1', storedElsewhere: true },
};

test('contract documents are OpenAPI 3.0 with empty paths', () => {
  for (const f of ['meta__v1.json', 'api__v1.json', 'apis__networking.orch.io__v1.json']) {
    const doc = docs.get(f);
    assert.ok(doc, `${f} missing`);
    assert.equal(doc.openapi, '3.0.3');
    assert.deepEqual(doc.paths, {});
    assert.ok(isObj(doc.info) && typeof doc.info.title === 'string');
  }
  assert.equal((docs.get('meta__v1.json')!.info as Obj).title, 'orch meta/v1 shared schemas');
});

test('every $ref resolves', () => {
  let count = 0;
  for (const [file, doc] of docs) {
    walk(doc, (o) => {
      const ref = o.$ref;
      if (typeof ref !== 'string') return;
      count++;
      const hash = ref.indexOf('#');
      assert.ok(hash >= 0, `${file}: $ref without fragment: ${ref}`);
      const target = ref.slice(0, hash);
      const pointer = ref.slice(hash + 1);
      let targetDoc: Obj | undefined = doc;
      if (target !== '') {
        assert.ok(target.startsWith('./'), `${file}: external $ref must be relative (./x.json): ${ref}`);
        targetDoc = docs.get(target.slice(2));
        assert.ok(targetDoc, `${file}: $ref to unknown document ${target}`);
      }
      assert.ok(pointer.startsWith('/components/schemas/io.orch.'), `${file}: unexpected $ref ${ref}`);
      assert.ok(resolvePointer(targetDoc, pointer) !== undefined, `${file}: unresolved $ref ${ref}`);
    });
  }
  assert.ok(count > 50);
});

test('schema names and groups carry no vendor word', () => {
  for (const [file, doc] of docs) {
    for (const name of Object.keys(schemasOf(doc))) assert.ok(name.startsWith('io.orch.'), `${file}: ${name}`);
    walk(doc, (o) => {
      const gvks = o['x-kubernetes-group-version-kind'];
      if (gvks === undefined) return;
      assert.ok(Array.isArray(gvks), `${file}: x-kubernetes-group-version-kind must be an array`);
      for (const gvk of gvks) {
        assert.ok(isObj(gvk) && typeof gvk.group === 'string' && typeof gvk.version === 'string' && typeof gvk.kind === 'string');
        assert.ok(!/k8s\.io|kubernetes\.io/.test(gvk.group as string), `${file}: group ${gvk.group as string}`);
      }
    });
  }
});

test('every kind schema has x-kubernetes-group-version-kind and a complete x-orch-resource', () => {
  const withResource: string[] = [];
  for (const [file, doc] of docs) {
    for (const [name, s] of Object.entries(schemasOf(doc))) if (isObj(s) && s['x-orch-resource'] !== undefined) withResource.push(`${file}:${name}`);
  }
  assert.deepEqual(
    withResource.sort(),
    Object.values(KINDS)
      .map((k) => `${k.file}:${k.schema}`)
      .sort(),
  );

  for (const [key, where] of Object.entries(KINDS)) {
    const kind = key.split('/')[0];
    const version = where.version ?? 'v1';
    const schemas = schemasOf(docs.get(where.file)!);
    const s = schemas[where.schema];
    assert.ok(isObj(s), `${kind} schema missing`);
    assert.deepEqual(s['x-kubernetes-group-version-kind'], [{ group: where.group, kind, version }]);
    const r = s['x-orch-resource'];
    assert.ok(isObj(r), `${kind}: x-orch-resource missing`);
    // A review is computed on create and never stored: no list kind, create its only verb.
    const stored = r.stored !== false;
    assert.deepEqual(
      Object.keys(r).sort(),
      [
        'allowCreateOnUpdate',
        'allowUnconditionalUpdate',
        'categories',
        // A version stored at another one (SPEC 9.4), deprecated (SPEC 9.5).
        ...(where.deprecated ? ['deprecated'] : []),
        'fieldSelectors',
        ...(stored ? ['listKind'] : []),
        'nameValidation',
        'namespaced',
        'plural',
        'printerColumns',
        ...(where.scale ? ['scale'] : []),
        'shortNames',
        'singular',
        ...(stored ? [] : ['stored']),
        ...(where.storageGroup ? ['storageGroup'] : []),
        ...(where.storedElsewhere ? ['storageVersion'] : []),
        'subresources',
        'verbs',
      ],
      kind,
    );
    assert.equal(typeof r.plural, 'string');
    assert.equal(r.singular, kind.toLowerCase());
    assert.ok(Array.isArray(r.shortNames) && r.shortNames.every((x) => typeof x === 'string'));
    assert.ok(Array.isArray(r.categories) && r.categories.every((x) => typeof x === 'string'));
    assert.equal(typeof r.namespaced, 'boolean');
    const clusterScoped = ['Namespace', 'Node', 'PersistentVolume', 'SelfSubjectReview', 'TokenReview', 'SelfSubjectAccessReview', 'SubjectAccessReview', 'SelfSubjectRulesReview', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'RuntimeClass', 'StorageClass', 'VolumeAttachment', 'CSIDriver', 'CSINode', 'IngressClass', 'FlowSchema', 'PriorityLevelConfiguration'];
    assert.equal(r.namespaced, !clusterScoped.includes(kind));
    assert.ok(Array.isArray(r.verbs) && r.verbs.length > 0);
    assert.deepEqual(r.verbs, [...(r.verbs as string[])].sort(), `${kind}: verbs must be sorted`);
    if (stored) {
      assert.equal(r.listKind, `${kind}List`);
      const list = schemas[`${where.schema}List`];
      assert.ok(isObj(list), `${kind}List schema missing`);
      assert.deepEqual(list['x-kubernetes-group-version-kind'], [{ group: where.group, kind: `${kind}List`, version }]);
    } else assert.deepEqual(r.verbs, ['create']);
    assert.ok(Array.isArray(r.subresources));
    assert.equal((r.subresources as Obj[]).some((sub) => sub.name === 'scale'), !!where.scale, `${kind}: a scale subresource, with its paths`);
    if (where.scale) {
      assert.ok(isObj(r.scale) && r.scale.specReplicasPath === '.spec.replicas' && r.scale.statusReplicasPath === '.status.replicas', `${kind}: scale paths`);
      // upstream's scaleFromDeployment and friends: a LabelSelector; scaleFromRC: a plain label map
      assert.equal(r.scale[kind === 'ReplicationController' ? 'selectorMapPath' : 'selectorObjectPath'], '.spec.selector', kind);
    }
    for (const sub of r.subresources) {
      assert.ok(isObj(sub) && typeof sub.name === 'string' && typeof sub.kind === 'string', `${kind}: subresource`);
      assert.ok(Array.isArray(sub.verbs) && sub.verbs.length > 0);
      assert.deepEqual(sub.verbs, [...(sub.verbs as string[])].sort());
    }
    assert.equal(typeof r.allowCreateOnUpdate, 'boolean');
    assert.equal(r.allowCreateOnUpdate, ['Event', 'Lease', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding', 'LimitRange', 'Endpoints', 'RuntimeClass'].includes(kind), kind);
    const conditional = ['CustomResourceDefinition', 'PodDisruptionBudget', 'RuntimeClass', 'VolumeAttachment', 'CSIDriver', 'CSINode', 'CSIStorageCapacity'];
    assert.equal(r.allowUnconditionalUpdate, !conditional.includes(kind), kind);
    assert.ok(['DNSSubdomain', 'DNSLabel', 'PathSegment'].includes(r.nameValidation as string), `${kind}: nameValidation`);
    assert.ok(Array.isArray(r.fieldSelectors));
    for (const fsel of r.fieldSelectors) {
      assert.ok(isObj(fsel) && typeof fsel.name === 'string' && typeof fsel.jsonPath === 'string');
      assert.ok((fsel.jsonPath as string).startsWith('.'));
      assert.ok(!['metadata.name', 'metadata.namespace'].includes(fsel.name as string), 'implied selectors are not listed');
    }
    assert.ok(Array.isArray(r.printerColumns) && (r.printerColumns.length > 0 || !stored));
    for (const c of r.printerColumns) {
      assert.ok(isObj(c), `${kind}: column`);
      for (const key of ['name', 'type', 'format', 'description', 'jsonPath']) assert.equal(typeof c[key], 'string', `${kind}: column.${key}`);
      assert.equal(typeof c.priority, 'number');
      // Upstream's RuntimeClass Handler column reads its description from ObjectMeta, which has none: "".
      assert.ok((c.description as string).length > 0 || (kind === 'RuntimeClass' && c.name === 'Handler'), `${kind}: ${c.name as string} description`);
      assert.ok((c.jsonPath as string).startsWith('.'));
      if (c.formatter !== undefined) assert.equal(typeof c.formatter, 'string');
    }
    const names = (r.printerColumns as Obj[]).map((c) => c.name);
    if (stored) assert.ok(names.includes('Name'), `${kind}: Name column`);
  }

  const np = schemasOf(docs.get('apis__networking.orch.io__v1.json')!)['io.orch.api.networking.v1.NetworkPolicy'] as Obj;
  const npr = np['x-orch-resource'] as Obj;
  assert.equal(npr.plural, 'networkpolicies');
  assert.deepEqual(npr.shortNames, ['netpol']);
  assert.deepEqual(npr.verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
  assert.deepEqual(npr.subresources, []);
  assert.deepEqual(
    (npr.printerColumns as Obj[]).map((c) => [c.name, c.jsonPath, c.formatter ?? null]),
    [
      ['Name', '.metadata.name', null],
      ['Pod-Selector', '.spec.podSelector', 'labelSelector'],
      ['Age', '.metadata.creationTimestamp', 'age'],
    ],
  );
});

test('protobuf annotations', () => {
  const net = schemasOf(docs.get('apis__networking.orch.io__v1.json')!);
  const port = net['io.orch.api.networking.v1.NetworkPolicyPort'] as Obj;
  assert.equal(port['x-orch-protobuf-message'], 'k8s.io.api.networking.v1.NetworkPolicyPort');
  const props = port.properties as Obj;
  assert.equal((props.protocol as Obj)['x-orch-protobuf-field'], 1);
  assert.equal((props.port as Obj)['x-orch-protobuf-field'], 2);
  assert.equal((props.endPort as Obj)['x-orch-protobuf-field'], 3);

  const meta = schemasOf(docs.get('meta__v1.json')!);
  const om = meta['io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta'] as Obj;
  assert.equal(om['x-orch-protobuf-message'], 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.equal(((om.properties as Obj).name as Obj)['x-orch-protobuf-field'], 1);

  // every schema maps to a proto message; apiVersion/kind are the only properties without a field number
  for (const [file, doc] of docs) {
    for (const [name, s] of Object.entries(schemasOf(doc))) {
      assert.ok(isObj(s));
      assert.equal(typeof s['x-orch-protobuf-message'], 'string', `${file}: ${name}`);
      if (!isObj(s.properties)) continue;
      for (const [p, ps] of Object.entries(s.properties)) {
        if (p === 'apiVersion' || p === 'kind') continue;
        assert.ok(isObj(ps) && Number.isInteger(ps['x-orch-protobuf-field']), `${name}.${p}: x-orch-protobuf-field`);
      }
    }
  }
});

test('server-side defaults and list semantics', () => {
  const net = schemasOf(docs.get('apis__networking.orch.io__v1.json')!);
  const port = (net['io.orch.api.networking.v1.NetworkPolicyPort'] as Obj).properties as Obj;
  assert.equal((port.protocol as Obj)['x-orch-default'], 'TCP');
  const core = schemasOf(docs.get('api__v1.json')!);
  const secret = (core['io.orch.api.core.v1.Secret'] as Obj).properties as Obj;
  assert.equal((secret.type as Obj)['x-orch-default'], 'Opaque');

  const meta = schemasOf(docs.get('meta__v1.json')!);
  const om = (meta['io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta'] as Obj).properties as Obj;
  assert.equal((om.finalizers as Obj)['x-kubernetes-list-type'], 'set');
  assert.equal((om.finalizers as Obj)['x-kubernetes-patch-strategy'], 'merge');
  assert.equal((om.ownerReferences as Obj)['x-kubernetes-list-type'], 'map');
  assert.deepEqual((om.ownerReferences as Obj)['x-kubernetes-list-map-keys'], ['uid']);
  assert.equal((om.ownerReferences as Obj)['x-kubernetes-patch-merge-key'], 'uid');
  assert.equal((om.labels as Obj)['x-kubernetes-map-type'], 'granular');
  assert.equal((om.annotations as Obj)['x-kubernetes-map-type'], 'granular');
  assert.equal((meta['io.orch.apimachinery.pkg.apis.meta.v1.LabelSelector'] as Obj)['x-kubernetes-map-type'], 'atomic');
  const spec = (net['io.orch.api.networking.v1.NetworkPolicySpec'] as Obj).properties as Obj;
  for (const p of ['ingress', 'egress', 'policyTypes']) assert.equal((spec[p] as Obj)['x-kubernetes-list-type'], 'atomic', p);
});
