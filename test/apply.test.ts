import { test } from 'node:test';
import assert from 'node:assert/strict';

import { structure } from '../src/generated/structure.ts';
import {
  comparePathElements, difference, equals, fieldSet, fromFieldsV1, intersection, isEmpty, pathString,
  toFieldsV1, union,
} from '../src/registry/apply/field-set.ts';
import { diffFieldSet, fieldSetOf } from '../src/registry/apply/object-fields.ts';
import {
  ApplyConflictError, applyIntent, chooseManagedFields, conflictMessage, managerFromUserAgent, managerIdentifier,
  recordUpdate, type ManagedFieldsEntry,
} from '../src/registry/apply/managed-fields.ts';

const NP = 'io.orch.api.networking.v1.NetworkPolicy';
const AV = 'networking.orch.io/v1';
const T0 = '2024-08-13T10:00:00Z';
const T1 = '2024-08-13T10:01:00Z';
const T2 = '2024-08-13T10:02:00Z';

const sel = (labels: Record<string, string>) => ({ matchLabels: labels });
const np = (metadata: Record<string, unknown>, spec?: Record<string, unknown>): any =>
  ({ apiVersion: AV, kind: 'NetworkPolicy', metadata: { name: 'web', ...metadata }, ...(spec ? { spec } : {}) });
const apply = (live: any, intent: any, mf: ManagedFieldsEntry[] | undefined, manager: string, force = false, time = T1): { object: any; managedFields: ManagedFieldsEntry[]; changed: boolean } =>
  applyIntent(live, intent, mf ?? live?.metadata?.managedFields ?? [], manager, AV, force, time, structure, NP);
const fieldsOf = (mf: ManagedFieldsEntry[], manager: string, op = 'Apply') =>
  mf.find((e) => e.manager === manager && e.operation === op)?.fieldsV1;

// FACTS 8.2 worked example.
const WORKED_INTENT = np({ labels: { app: 'web' } }, {
  podSelector: sel({ app: 'web' }),
  ingress: [{ from: [{ podSelector: sel({ role: 'fe' }) }], ports: [{ port: 80 }] }],
});

test('FACTS 8.2 worked example, Apply form, byte-exact', () => {
  const r = apply(null, WORKED_INTENT, [], 'alice', false, T0);
  assert.equal(JSON.stringify(r.managedFields),
    '[{"manager":"alice","operation":"Apply","apiVersion":"networking.orch.io/v1","time":"2024-08-13T10:00:00Z",'
    + '"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:ingress":{},"f:podSelector":{}}}}]');
  assert.deepEqual(r.object.spec, WORKED_INTENT.spec);
  assert.deepEqual(r.object.metadata, { name: 'web', labels: { app: 'web' }, managedFields: r.managedFields });
});

test('FACTS 8.2 worked example, POST/Update form, byte-exact (with finalizer and owner)', () => {
  const stored = {
    ...WORKED_INTENT,
    metadata: { name: 'web', namespace: 'default', uid: 'u-1', resourceVersion: '5', creationTimestamp: T0, generation: 1, labels: { app: 'web' } },
    spec: { ...WORKED_INTENT.spec, ingress: [{ from: WORKED_INTENT.spec!.ingress[0].from, ports: [{ port: 80, protocol: 'TCP' }] }], policyTypes: ['Ingress'] },
  };
  const mf = recordUpdate([], null, stored, 'curl', AV, T0, structure, NP);
  assert.equal(JSON.stringify(mf),
    '[{"manager":"curl","operation":"Update","apiVersion":"networking.orch.io/v1","time":"2024-08-13T10:00:00Z",'
    + '"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:ingress":{},"f:podSelector":{},"f:policyTypes":{}}}}]');
  const withMeta = { ...stored, metadata: { ...stored.metadata, finalizers: ['example.com/x'], ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'abc' }] } };
  const mf2 = recordUpdate([], null, withMeta, 'curl', AV, T0, structure, NP);
  assert.equal(JSON.stringify(mf2[0].fieldsV1!['f:metadata']),
    '{"f:finalizers":{".":{},"v:\\"example.com/x\\"":{}},"f:labels":{".":{},"f:app":{}},"f:ownerReferences":{".":{},"k:{\\"uid\\":\\"abc\\"}":{}}}');
});

test('path elements sort fields by name, then keys, values and indexes (SMD PathElement.Compare)', () => {
  const elements = ['i:10', 'v:"b"', 'f:spec', 'k:{"port":8}', 'i:2', 'v:1', 'f:apiVersion', 'k:{"port":80}', 'f:a.b', 'v:"a"', 'f:a'];
  assert.deepEqual([...elements].sort(comparePathElements), [
    'f:a', 'f:a.b', 'f:apiVersion', 'f:spec', 'k:{"port":8}', 'k:{"port":80}', 'v:1', 'v:"a"', 'v:"b"', 'i:2', 'i:10',
  ]);
});

test('field sets: encoding order, "." rule, round trip, set operations', () => {
  const doc = { 'f:a': { '.': {}, 'f:b': {} }, 'f:l': { 'k:{"port":80,"protocol":"TCP"}': {}, 'k:{"port":8,"protocol":"TCP"}': {} }, 'f:s': { 'v:"x"': {}, 'v:1': {} }, 'f:z': {} };
  const s = fromFieldsV1(doc);
  assert.equal(JSON.stringify(toFieldsV1(s)),
    '{"f:a":{".":{},"f:b":{}},"f:l":{"k:{\\"port\\":8,\\"protocol\\":\\"TCP\\"}":{},"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{}},"f:s":{"v:1":{},"v:\\"x\\"":{}},"f:z":{}}');
  // key JSON is canonicalised (sorted keys)
  assert.ok(equals(fromFieldsV1({ 'f:l': { 'k:{"protocol":"TCP","port":80}': {} } }), fromFieldsV1({ 'f:l': { 'k:{"port":80,"protocol":"TCP"}': {} } })));
  const a = fieldSet([['f:x'], ['f:y', 'f:z']]), b = fieldSet([['f:y', 'f:z'], ['f:w']]);
  assert.deepEqual(toFieldsV1(union(a, b)), { 'f:w': {}, 'f:x': {}, 'f:y': { 'f:z': {} } });
  assert.deepEqual(toFieldsV1(intersection(a, b)), { 'f:y': { 'f:z': {} } });
  assert.deepEqual(toFieldsV1(difference(a, b)), { 'f:x': {} });
  assert.ok(isEmpty(difference(a, a)));
  // difference is path-by-path: removing a container does not remove its children
  assert.deepEqual(toFieldsV1(difference(fromFieldsV1({ 'f:m': { '.': {}, 'f:k': {} } }), fieldSet([['f:m']]))), { 'f:m': { 'f:k': {} } });
});

test('pathString (SMD form, FACTS 8.3)', () => {
  const cases: Array<[string[], string]> = [
    [['f:spec', 'f:podSelector'], '.spec.podSelector'],
    [['f:metadata', 'f:labels', 'f:app'], '.metadata.labels.app'],
    [['f:metadata', 'f:ownerReferences', 'k:{"uid":"abc"}'], '.metadata.ownerReferences[uid="abc"]'],
    [['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}'], '.spec.ports[port=80,protocol="TCP"]'],
    [['f:metadata', 'f:finalizers', 'v:"example.com/x"'], '.metadata.finalizers[="example.com/x"]'],
    [['f:list', 'i:3'], '.list[3]'],
  ];
  for (const [p, want] of cases) assert.equal(pathString(p), want);
});

test('fieldSetOf and diffFieldSet', () => {
  assert.deepEqual(toFieldsV1(fieldSetOf(WORKED_INTENT, structure, NP)), { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:ingress': {}, 'f:podSelector': {} } });
  assert.deepEqual(toFieldsV1(fieldSetOf(WORKED_INTENT, structure, NP, { containers: true })),
    { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { '.': {}, 'f:ingress': {}, 'f:podSelector': {} } });
  // empty struct / null values are owned leaves
  assert.deepEqual(toFieldsV1(fieldSetOf(np({ annotations: {} }, {}), structure, NP)), { 'f:metadata': { 'f:annotations': {} }, 'f:spec': {} });
  const old = np({ labels: { app: 'web', gone: 'x' } }, { podSelector: {} });
  const neu = np({ labels: { app: 'api' }, annotations: { a: 'b' } }, { podSelector: {} });
  assert.deepEqual(toFieldsV1(diffFieldSet(old, neu, structure, NP)), { 'f:metadata': { 'f:annotations': { '.': {}, 'f:a': {} }, 'f:labels': { 'f:app': {} } } });
  assert.ok(isEmpty(diffFieldSet(old, old, structure, NP)));
});

test('two managers own disjoint fields; objects merge', () => {
  const a = apply(null, WORKED_INTENT, [], 'alice', false, T0);
  const b = apply(a.object, np({ labels: { team: 'x' } }), undefined, 'bob', false, T1);
  assert.deepEqual(b.object.metadata.labels, { app: 'web', team: 'x' });
  assert.deepEqual(b.object.spec, WORKED_INTENT.spec);
  assert.deepEqual(b.managedFields.map((e) => [e.manager, e.time]), [['alice', T0], ['bob', T1]]);
  assert.deepEqual(fieldsOf(b.managedFields, 'bob'), { 'f:metadata': { 'f:labels': { 'f:team': {} } } });
  assert.deepEqual(fieldsOf(b.managedFields, 'alice'), fieldsOf(a.managedFields, 'alice'));
});

test('same value: ownership shared; any later change by either conflicts', () => {
  const a = apply(null, WORKED_INTENT, [], 'alice', false, T0);
  const b = apply(a.object, np({}, { podSelector: sel({ app: 'web' }) }), undefined, 'bob');
  assert.deepEqual(fieldsOf(b.managedFields, 'bob'), { 'f:spec': { 'f:podSelector': {} } });
  assert.deepEqual(fieldsOf(b.managedFields, 'alice'), fieldsOf(a.managedFields, 'alice'));
  assert.equal(b.changed, false);
  assert.throws(() => apply(b.object, np({ labels: { app: 'web' } }, { podSelector: sel({ app: 'v2' }), ingress: WORKED_INTENT.spec!.ingress }), undefined, 'alice'),
    (e: any) => e instanceof ApplyConflictError && e.message === 'Apply failed with 1 conflict: conflict with "bob": .spec.podSelector');
});

test('different value conflicts (message and causes); force moves ownership', () => {
  const a = apply(null, WORKED_INTENT, [], 'alice', false, T0);
  const intent = np({ labels: { app: 'other' } }, { podSelector: sel({ app: 'other' }) });
  let err: any;
  assert.throws(() => apply(a.object, intent, undefined, 'bob'), (e: any) => ((err = e), e instanceof ApplyConflictError));
  assert.equal(err.message, 'Apply failed with 2 conflicts: conflicts with "alice":\n- .metadata.labels.app\n- .spec.podSelector');
  assert.deepEqual(err.causes, [
    { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.metadata.labels.app' },
    { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.podSelector' },
  ]);
  const f = apply(a.object, intent, undefined, 'bob', true, T2);
  assert.deepEqual(f.object.spec.podSelector, sel({ app: 'other' }));
  assert.deepEqual(f.object.metadata.labels, { app: 'other' });
  assert.deepEqual(fieldsOf(f.managedFields, 'alice'), { 'f:spec': { 'f:ingress': {} } });
  assert.deepEqual(fieldsOf(f.managedFields, 'bob'), { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:podSelector': {} } });
});

test('conflict messages name Update managers with their apiVersion', () => {
  const created = np({ labels: { app: 'web' } }, { podSelector: sel({ app: 'web' }) });
  const mf = recordUpdate([], null, created, 'curl', AV, T0, structure, NP);
  assert.throws(() => apply({ ...created, metadata: { ...created.metadata, managedFields: mf } }, np({}, { podSelector: sel({}) }), undefined, 'alice'),
    (e: any) => e.message === 'Apply failed with 1 conflict: conflict with "curl" using networking.orch.io/v1: .spec.podSelector');
  const id = (m: string, op: 'Apply' | 'Update') => managerIdentifier({ manager: m, operation: op, apiVersion: AV });
  const { message, causes } = conflictMessage([{ manager: id('zed', 'Apply'), field: '.a' }, { manager: id('curl', 'Update'), field: '.b' }, { manager: id('curl', 'Update'), field: '.c' }]);
  assert.deepEqual(causes[0], { reason: 'FieldManagerConflict', message: 'conflict with "zed"', field: '.a' });
  assert.equal(message,
    'Apply failed with 3 conflicts: conflicts with "curl" using networking.orch.io/v1:\n- .b\n- .c\nconflicts with "zed":\n- .a');
});

test('omitting a previously applied field removes it only when no other manager owns it', () => {
  const a1 = apply(null, np({ labels: { app: 'web', tier: 'fe', keep: 'k' } }), [], 'alice', false, T0);
  const b = apply(a1.object, np({ labels: { keep: 'k' } }), undefined, 'bob', false, T1); // shares "keep"
  const a2 = apply(b.object, np({ labels: { app: 'web' } }), undefined, 'alice', false, T2);
  assert.deepEqual(a2.object.metadata.labels, { app: 'web', keep: 'k' });
  assert.deepEqual(fieldsOf(a2.managedFields, 'alice'), { 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  assert.deepEqual(fieldsOf(a2.managedFields, 'bob'), { 'f:metadata': { 'f:labels': { 'f:keep': {} } } });
  // a field owned by an Update manager survives the applier omitting it
  const withUpdate = { ...a1.object, metadata: { ...a1.object.metadata, managedFields: recordUpdate(a1.managedFields, a1.object, np({ labels: { app: 'web', tier: 'be', keep: 'k' } }), 'kubectl', AV, T1, structure, NP) } };
  const a3 = apply(withUpdate, np({ labels: { app: 'web' } }), undefined, 'alice', false, T2);
  assert.deepEqual(a3.object.metadata.labels, { app: 'web', tier: 'fe' });
  // an omitted struct nobody owns anything in goes entirely (SMD EnsureNamedFieldsAreMembers)
  const s1 = apply(null, WORKED_INTENT, [], 'alice', false, T0);
  const s2 = apply(s1.object, np({ labels: { app: 'web' } }), undefined, 'alice', false, T1);
  assert.equal(s2.object.spec, undefined);
  assert.equal(s2.object.metadata.name, 'web');
});

test('Update (PUT/patch) takes ownership, drops removed fields from everyone, keeps empty entries out', () => {
  const a = apply(null, WORKED_INTENT, [], 'alice', false, T0);
  const edited = np({ labels: { app: 'changed' } }, { podSelector: sel({ app: 'web' }) }); // ingress removed, label changed
  const mf = recordUpdate(a.managedFields, a.object, edited, 'kubectl-edit', AV, T1, structure, NP);
  assert.deepEqual(mf.map((e) => [e.manager, e.operation]), [['alice', 'Apply'], ['kubectl-edit', 'Update']]);
  assert.deepEqual(fieldsOf(mf, 'alice'), { 'f:spec': { 'f:podSelector': {} } });
  assert.deepEqual(fieldsOf(mf, 'kubectl-edit', 'Update'), { 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  // no-op update: nothing recorded, time unchanged
  assert.deepEqual(recordUpdate(mf, edited, edited, 'other', AV, T2, structure, NP), mf);
  // same manager again merges into its entry and refreshes the time
  const mf2 = recordUpdate(mf, edited, { ...edited, metadata: { ...edited.metadata, annotations: { a: '1' } } }, 'kubectl-edit', AV, T2, structure, NP);
  assert.deepEqual(mf2[1], { manager: 'kubectl-edit', operation: 'Update', apiVersion: AV, time: T2, fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:a': {} }, 'f:labels': { 'f:app': {} } } } });
  // resetting managedFields (SPEC 4.5 rule 7)
  assert.deepEqual(chooseManagedFields([{}], mf), [{}]);
  assert.deepEqual(chooseManagedFields([], mf), mf);
  assert.deepEqual(recordUpdate([{}], edited, edited, 'x', AV, T2, structure, NP), []);
});

test('map-keyed list (ownerReferences by uid) and set list (finalizers)', () => {
  const owner = (uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `cm-${uid}`, uid });
  const a = apply(null, np({ ownerReferences: [owner('a')], finalizers: ['example.com/x'] }), [], 'alice', false, T0);
  assert.deepEqual(fieldsOf(a.managedFields, 'alice'),
    { 'f:metadata': { 'f:finalizers': { 'v:"example.com/x"': {} }, 'f:ownerReferences': { 'k:{"uid":"a"}': {} } } });
  const b = apply(a.object, np({ ownerReferences: [owner('b')], finalizers: ['example.com/y'] }), undefined, 'bob', false, T1);
  assert.deepEqual(b.object.metadata.ownerReferences, [owner('a'), owner('b')]);
  assert.deepEqual(b.object.metadata.finalizers, ['example.com/x', 'example.com/y']);
  // changing an owner reference another manager owns conflicts at the item path
  assert.throws(() => apply(b.object, np({ ownerReferences: [{ ...owner('a'), name: 'renamed' }] }), undefined, 'bob'),
    (e: any) => e.message === 'Apply failed with 1 conflict: conflict with "alice": .metadata.ownerReferences[uid="a"]');
  // alice drops her items: only hers go
  const a2 = apply(b.object, np({}), undefined, 'alice', false, T2);
  assert.deepEqual(a2.object.metadata.ownerReferences, [owner('b')]);
  assert.deepEqual(a2.object.metadata.finalizers, ['example.com/y']);
  assert.equal(fieldsOf(a2.managedFields, 'alice'), undefined);
});

test('existing object without managedFields: first apply records before-first-apply', () => {
  const live = np({ labels: { app: 'web' } }, { podSelector: sel({ app: 'web' }) });
  const r = apply(live, np({ labels: { team: 't' } }), [], 'alice', false, T1);
  assert.deepEqual(r.managedFields.map((e) => [e.manager, e.operation]), [['alice', 'Apply'], ['before-first-apply', 'Update']]);
  assert.throws(() => apply(live, np({}, { podSelector: sel({}) }), [], 'alice'), (e: any) => /conflict with "before-first-apply" using networking\.orch\.io\/v1/.test(e.message));
});

test('at most 10 Update entries; oldest merged into ancient-changes', () => {
  let obj: any = np({});
  let mf: ManagedFieldsEntry[] = [];
  for (let i = 0; i < 12; i++) {
    const next = { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, [`l${i}`]: 'v' } } };
    mf = recordUpdate(mf, obj, next, `m${String(i).padStart(2, '0')}`, AV, `2024-08-13T10:${String(i).padStart(2, '0')}:00Z`, structure, NP);
    obj = next;
  }
  assert.equal(mf.length, 10);
  const ancient = mf.find((e) => e.manager === 'ancient-changes')!;
  assert.deepEqual(ancient, { manager: 'ancient-changes', operation: 'Update', apiVersion: AV, time: '2024-08-13T10:02:00Z', fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:l0': {}, 'f:l1': {}, 'f:l2': {} } } } });
  assert.deepEqual(mf.map((e) => e.manager), ['ancient-changes', 'm03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09', 'm10', 'm11']);
});

test('managerFromUserAgent (FACTS 8.1)', () => {
  const cases: Array<[string, string]> = [
    ['curl/8.5', 'curl'], ['kubectl/v1.31.0 (linux/amd64) kubernetes/abc', 'kubectl'], ['no-slash', 'no-slash'],
    ['', ''], ['a\tb\u0000c/1', 'abc'], ['x'.repeat(200), 'x'.repeat(128)], ['é'.repeat(70), 'é'.repeat(64)],
  ];
  for (const [ua, want] of cases) assert.equal(managerFromUserAgent(ua), want, ua);
});
