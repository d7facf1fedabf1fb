import { test } from 'node:test';
import assert from 'node:assert/strict';

import { applyJsonPatch, pathTokens, PatchError } from '../src/registry/patch/json-patch.ts';
import { applyMergePatch } from '../src/registry/patch/merge-patch.ts';
import { applyStrategicMergePatch } from '../src/registry/patch/strategic-merge-patch.ts';
import { structure } from '../src/generated/structure.ts';

const NP = 'io.orch.api.networking.v1.NetworkPolicy';
const META = 'io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** A NetworkPolicy-shaped object; a fresh copy per call. */
const policy = () => ({
  apiVersion: 'networking.orch.io/v1',
  kind: 'NetworkPolicy',
  metadata: {
    name: 'web',
    namespace: 'default',
    labels: { app: 'web', tier: 'front' },
    annotations: { 'a/b': 'x' },
    finalizers: ['example.com/a', 'example.com/b'],
    ownerReferences: [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'one', uid: 'u1' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'two', uid: 'u2', controller: true },
    ],
  },
  spec: {
    podSelector: { matchLabels: { app: 'web', role: 'db' } },
    policyTypes: ['Ingress'],
    ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }], ports: [{ port: 80, protocol: 'TCP' }] }],
  },
});

/** Expects a PatchError with exact message and reason, and the input left untouched. */
function expectPatchError(run: (doc: unknown) => unknown, doc: unknown, message: string, reason: 'BadRequest' | 'Invalid') {
  const before = structuredClone(doc);
  assert.throws(() => run(doc), (err: unknown) => {
    assert.ok(err instanceof PatchError, `expected PatchError, got ${err}`);
    assert.equal(err.message, message);
    assert.equal(err.reason, reason);
    return true;
  });
  assert.deepEqual(doc, before, 'input must be unchanged after a failed patch');
}

test('JSON Pointer parsing (RFC 6901 escapes, json-patch v4 splitting)', () => {
  const cases: Array<[string, string[] | null]> = [
    ['', null],
    ['/', ['']],
    ['/metadata/labels', ['metadata', 'labels']],
    ['/metadata/annotations/a~1b', ['metadata', 'annotations', 'a/b']],
    ['/x~0y', ['x~y']],
    ['/~01', ['~1']],
    ['/~2', ['~2']],
    ['metadata', null],
    // v4 ignores whatever precedes the first slash.
    ['metadata/labels', ['labels']],
  ];
  for (const [pointer, tokens] of cases) assert.deepEqual(pathTokens(pointer), tokens, pointer);
});

test('JSON Patch operations (RFC 6902)', () => {
  const cases: Array<[string, unknown, unknown, unknown]> = [
    ['add object member', { a: 1 }, [{ op: 'add', path: '/b', value: { c: 2 } }], { a: 1, b: { c: 2 } }],
    ['add replaces existing member', { a: 1 }, [{ op: 'add', path: '/a', value: 2 }], { a: 2 }],
    ['add inserts into array', { l: [1, 3] }, [{ op: 'add', path: '/l/1', value: 2 }], { l: [1, 2, 3] }],
    ['add at array end index', { l: [1] }, [{ op: 'add', path: '/l/1', value: 2 }], { l: [1, 2] }],
    ['add appends with -', { l: [1] }, [{ op: 'add', path: '/l/-', value: 2 }], { l: [1, 2] }],
    ['add escaped key', { metadata: { annotations: {} } }, [{ op: 'add', path: '/metadata/annotations/example.com~1x', value: 'y' }], { metadata: { annotations: { 'example.com/x': 'y' } } }],
    ['add ~0 key', {}, [{ op: 'add', path: '/a~0b', value: 1 }], { 'a~b': 1 }],
    ['add without value adds null', {}, [{ op: 'add', path: '/a' }], { a: null }],
    ['add at a negative index counts from the new end', { l: [1, 3] }, [{ op: 'add', path: '/l/-2', value: 2 }], { l: [1, 2, 3] }],
    ['add at -1 appends', { l: [1, 3] }, [{ op: 'add', path: '/l/-1', value: 2 }], { l: [1, 3, 2] }],
    ['add at index with sign and leading zeros', { l: [1, 3] }, [{ op: 'add', path: '/l/+01', value: 2 }], { l: [1, 2, 3] }],
    ['add to the empty key', { a: 1 }, [{ op: 'add', path: '/', value: 2 }], { a: 1, '': 2 }],
    ['add without a leading slash uses the last segment', { a: 1 }, [{ op: 'add', path: 'x/b', value: 2 }], { a: 1, b: 2 }],
    ['add a __proto__ member as data', {}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }], JSON.parse('{"__proto__":{"polluted":true}}')],
    ['remove member', { a: 1, b: 2 }, [{ op: 'remove', path: '/a' }], { b: 2 }],
    ['remove array item', { l: [1, 2, 3] }, [{ op: 'remove', path: '/l/1' }], { l: [1, 3] }],
    ['remove the last array item by -1', { l: [1, 2, 3] }, [{ op: 'remove', path: '/l/-1' }], { l: [1, 2] }],
    ['replace member', { a: 1 }, [{ op: 'replace', path: '/a', value: [1] }], { a: [1] }],
    ['replace array item', { l: [1, 2] }, [{ op: 'replace', path: '/l/0', value: 9 }], { l: [9, 2] }],
    ['replace whole document', { a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }], { b: 2 }],
    ['replace whole document by a scalar changes nothing', { a: 1 }, [{ op: 'replace', path: '', value: 7 }], { a: 1 }],
    ['replace of an absent member adds it', { spec: {} }, [{ op: 'replace', path: '/spec/y', value: 1 }], { spec: { y: 1 } }],
    ['move member', { a: { x: 1 }, b: {} }, [{ op: 'move', from: '/a/x', path: '/b/y' }], { a: {}, b: { y: 1 } }],
    ['move array item', { l: [1, 2, 3] }, [{ op: 'move', from: '/l/0', path: '/l/-' }], { l: [2, 3, 1] }],
    ['move to same path', { a: 1 }, [{ op: 'move', from: '/a', path: '/a' }], { a: 1 }],
    ['copy of an absent member copies null', { a: {} }, [{ op: 'copy', from: '/a/x', path: '/b' }], { a: {}, b: null }],
    ['copy member (deep)', { a: { x: [1] } }, [{ op: 'copy', from: '/a', path: '/b' }, { op: 'add', path: '/b/x/-', value: 2 }], { a: { x: [1] }, b: { x: [1, 2] } }],
    ['test passes (deep equality, key order ignored)', { a: { x: 1, y: [1, { z: 2 }] } }, [{ op: 'test', path: '/a', value: { y: [1, { z: 2 }], x: 1 } }], { a: { x: 1, y: [1, { z: 2 }] } }],
    ['test null on absent member passes', { a: {} }, [{ op: 'test', path: '/a/b', value: null }], { a: {} }],
    ['test then replace', { spec: { x: 1 } }, [{ op: 'test', path: '/spec/x', value: 1 }, { op: 'replace', path: '/spec/x', value: 2 }], { spec: { x: 2 } }],
    ['null patch is empty', { a: 1 }, null, { a: 1 }],
    ['empty patch', { a: 1 }, [], { a: 1 }],
  ];
  for (const [name, doc, patch, want] of cases) {
    const before = structuredClone(doc);
    assert.deepEqual(applyJsonPatch(doc, patch), want, name);
    assert.deepEqual(doc, before, `${name}: input mutated`);
  }
});

test('JSON Patch on a NetworkPolicy', () => {
  const doc = policy();
  const out = applyJsonPatch(doc, [
    { op: 'add', path: '/metadata/labels/env', value: 'prod' },
    { op: 'remove', path: '/metadata/finalizers/0' },
    { op: 'replace', path: '/spec/policyTypes', value: ['Ingress', 'Egress'] },
    { op: 'test', path: '/metadata/annotations/a~1b', value: 'x' },
  ]) as ReturnType<typeof policy>;
  assert.deepEqual(out.metadata.labels, { app: 'web', tier: 'front', env: 'prod' });
  assert.deepEqual(out.metadata.finalizers, ['example.com/b']);
  assert.deepEqual(out.spec.policyTypes, ['Ingress', 'Egress']);
  assert.deepEqual(doc, policy());
  // The patch value is copied, not aliased.
  const value = { k: 'v' };
  const added = applyJsonPatch({}, [{ op: 'add', path: '/v', value }]) as { v: object };
  assert.notEqual(added.v, value);
});

test('JSON Patch errors (evanphx/json-patch v4.12.0, as kube-apiserver 1.31 runs it) leave the input untouched', () => {
  const cases: Array<[string, unknown, string, 'BadRequest' | 'Invalid']> = [
    ['not an array', { op: 'add' }, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch', 'BadRequest'],
    ['string patch', 'x', 'json: cannot unmarshal string into Go value of type jsonpatch.Patch', 'BadRequest'],
    ['operation not an object', [1], 'json: cannot unmarshal number into Go value of type jsonpatch.Operation', 'BadRequest'],
    ['op missing', [{ path: '/a' }], 'Unexpected kind: unknown', 'Invalid'],
    ['null operation', [null], 'Unexpected kind: unknown', 'Invalid'],
    ['unknown op', [{ op: 'frob', path: '/a' }], 'Unexpected kind: frob', 'Invalid'],
    ['op of another type', [{ op: 1, path: '/a' }], 'Unexpected kind: unknown', 'Invalid'],
    ['path missing', [{ op: 'add', value: 1 }], 'add operation failed to decode path: missing value', 'Invalid'],
    ['remove path missing', [{ op: 'remove' }], 'remove operation failed to decode path: missing value', 'Invalid'],
    ['replace path missing', [{ op: 'replace', value: 1 }], 'replace operation failed to decode path: operation missing path field: missing value', 'Invalid'],
    ['test path missing', [{ op: 'test', value: 1 }], 'test operation failed to decode path: operation missing path field: missing value', 'Invalid'],
    ['from missing', [{ op: 'move', path: '/a' }], 'move operation failed to decode from: operation, missing from field: missing value', 'Invalid'],
    ['copy from missing', [{ op: 'copy', path: '/a' }], 'copy operation failed to decode from: operation, missing from field: missing value', 'Invalid'],
    ['copy path missing', [{ op: 'copy', from: '/spec' }], 'copy operation failed to decode path: missing value', 'Invalid'],
    ['add at the empty path', [{ op: 'add', path: '', value: {} }], 'add operation does not apply: doc is missing path: "": missing value', 'Invalid'],
    ['test fails', [{ op: 'test', path: '/spec/x', value: 2 }], 'testing value /spec/x failed: test failed', 'Invalid'],
    ['test absent', [{ op: 'test', path: '/spec/y', value: 2 }], 'testing value /spec/y failed: test failed', 'Invalid'],
    ['test missing parent', [{ op: 'test', path: '/nope/x', value: 2 }], 'test operation does not apply: is missing path: /nope/x: missing value', 'Invalid'],
    ['replace missing parent', [{ op: 'replace', path: '/nope/y', value: 1 }], 'replace operation does not apply: doc is missing path: /nope/y: missing value', 'Invalid'],
    ['replace bad index', [{ op: 'replace', path: '/l/5', value: 1 }], 'replace operation does not apply: doc is missing key: /l/5: missing value', 'Invalid'],
    ['remove missing parent', [{ op: 'remove', path: '/nope/x' }], 'remove operation does not apply: doc is missing path: "/nope/x": missing value', 'Invalid'],
    ['remove missing key', [{ op: 'remove', path: '/spec/y' }], "error in remove for path: '/spec/y': Unable to remove nonexistent key: y: missing value", 'Invalid'],
    ['remove bad index', [{ op: 'remove', path: '/l/2' }], "error in remove for path: '/l/2': Unable to access invalid index: 2: invalid index referenced", 'Invalid'],
    ['add missing parent', [{ op: 'add', path: '/nope/x', value: 1 }], 'add operation does not apply: doc is missing path: "/nope/x": missing value', 'Invalid'],
    ['add index past end', [{ op: 'add', path: '/l/3', value: 1 }], "error in add for path: '/l/3': Unable to access invalid index: 3: invalid index referenced", 'Invalid'],
    ['add non-numeric index', [{ op: 'add', path: '/l/x', value: 1 }], `error in add for path: '/l/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`, 'Invalid'],
    ['add index beyond int64', [{ op: 'add', path: '/l/99999999999999999999', value: 1 }], `error in add for path: '/l/99999999999999999999': value was not a proper array index: '99999999999999999999': strconv.Atoi: parsing "99999999999999999999": value out of range`, 'Invalid'],
    ['add negative index before the start', [{ op: 'add', path: '/l/-4', value: 1 }], "error in add for path: '/l/-4': Unable to access invalid index: -4: invalid index referenced", 'Invalid'],
    ['remove negative index before the start', [{ op: 'remove', path: '/l/-3' }], "error in remove for path: '/l/-3': Unable to access invalid index: -3: invalid index referenced", 'Invalid'],
    ['remove -', [{ op: 'remove', path: '/l/-' }], `error in remove for path: '/l/-': strconv.Atoi: parsing "-": invalid syntax`, 'Invalid'],
    ['path through a scalar', [{ op: 'add', path: '/spec/x/y', value: 1 }], 'add operation does not apply: doc is missing path: "/spec/x/y": missing value', 'Invalid'],
    ['path through __proto__', [{ op: 'add', path: '/__proto__/polluted', value: 1 }], 'add operation does not apply: doc is missing path: "/__proto__/polluted": missing value', 'Invalid'],
    ['move missing from', [{ op: 'move', from: '/nope/y', path: '/z' }], 'move operation does not apply: doc is missing from path: /nope/y: missing value', 'Invalid'],
    ['move into own child', [{ op: 'move', from: '/spec', path: '/spec/x/y' }], 'move operation does not apply: doc is missing destination path: /spec/x/y: missing value', 'Invalid'],
    ['move of an absent member', [{ op: 'move', from: '/spec/y', path: '/z' }], "error in move for path: 'y': Unable to remove nonexistent key: y: missing value", 'Invalid'],
    ['move missing destination', [{ op: 'move', from: '/spec/x', path: '/nope/z' }], 'move operation does not apply: doc is missing destination path: /nope/z: missing value', 'Invalid'],
    ['copy missing from', [{ op: 'copy', from: '/nope/y', path: '/z' }], 'copy operation does not apply: doc is missing from path: /nope/y: missing value', 'Invalid'],
    ['copy missing destination', [{ op: 'copy', from: '/spec', path: '/nope/z' }], 'copy operation does not apply: doc is missing destination path: /nope/z: missing value', 'Invalid'],
    // Atomicity: earlier operations that succeeded are not visible after a later failure.
    ['later failure', [{ op: 'add', path: '/spec/z', value: 1 }, { op: 'remove', path: '/l/0' }, { op: 'test', path: '/spec/x', value: 9 }], 'testing value /spec/x failed: test failed', 'Invalid'],
    ['later malformed op', [{ op: 'add', path: '/spec/z', value: 1 }, { op: 'bogus' }], 'Unexpected kind: bogus', 'Invalid'],
  ];
  for (const [name, patch, message, reason] of cases) {
    const doc = { spec: { x: 1 }, l: [1, 2] };
    try {
      expectPatchError((d) => applyJsonPatch(d, patch), doc, message, reason);
    } catch (err) {
      (err as Error).message = `${name}: ${(err as Error).message}`;
      throw err;
    }
  }
});

test('JSON Merge Patch (RFC 7386 appendix A examples and more)', () => {
  const cases: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    // ObjectMeta-shaped: labels granular, finalizers replaced (merge patch has no list merging).
    [
      { metadata: { labels: { app: 'web', tier: 'front' }, finalizers: ['x/a'] } },
      { metadata: { labels: { tier: null, env: 'prod' }, finalizers: ['x/b'] } },
      { metadata: { labels: { app: 'web', env: 'prod' }, finalizers: ['x/b'] } },
    ],
  ];
  for (const [doc, patch, want] of cases) {
    const before = structuredClone(doc);
    assert.deepEqual(applyMergePatch(doc, patch), want, JSON.stringify(patch));
    assert.deepEqual(doc, before, 'input mutated');
  }
  const value = { deep: { x: 1 } };
  const out = applyMergePatch({}, { v: value }) as { v: object };
  assert.notEqual(out.v, value);
});

/** Applies an SMP against NetworkPolicy and returns the result (asserting the input is untouched). */
function smp(patch: unknown, doc: unknown = policy(), schema = NP): any {
  const before = structuredClone(doc);
  const out = applyStrategicMergePatch(doc, patch, structure, schema);
  assert.deepEqual(doc, before, 'input mutated');
  return out;
}

test('strategic merge patch: maps and structs', () => {
  const base = policy();
  const cases: Array<[string, unknown, (out: any) => unknown, unknown]> = [
    ['labels granular: add, change, delete', { metadata: { labels: { env: 'prod', tier: 'back', app: null } } }, (o) => o.metadata.labels, { tier: 'back', env: 'prod' }],
    ['annotations untouched when absent', { metadata: { labels: { env: 'prod' } } }, (o) => o.metadata.annotations, { 'a/b': 'x' }],
    ['null deletes a struct field', { metadata: { annotations: null } }, (o) => 'annotations' in o.metadata, false],
    ['scalar replaced', { metadata: { name: 'other' } }, (o) => o.metadata.name, 'other'],
    // Upstream strategic merge ignores x-kubernetes-map-type: the atomic selector still merges.
    ['podSelector (map-type atomic) merges like any struct', { spec: { podSelector: { matchLabels: { app: 'api' } } } }, (o) => o.spec.podSelector, { ...base.spec.podSelector, matchLabels: { ...base.spec.podSelector.matchLabels, app: 'api' } }],
    ['spec.ingress atomic list: replaced', { spec: { ingress: [{ ports: [{ port: 443 }] }] } }, (o) => o.spec.ingress, [{ ports: [{ port: 443 }] }]],
    ['policyTypes atomic list: replaced', { spec: { policyTypes: ['Egress'] } }, (o) => o.spec.policyTypes, ['Egress']],
    ['spec granular: other fields kept', { spec: { policyTypes: ['Egress'] } }, (o) => o.spec.podSelector, base.spec.podSelector],
    ['unknown field merges like a map', { status: { a: { b: 1 } } }, (o) => o.status, { a: { b: 1 } }],
    ['new map strips nulls', { metadata: { labels: null }, extra: { x: null, y: 1 } }, (o) => [o.metadata.labels, o.extra], [undefined, { y: 1 }]],
    ['$patch: replace on a map', { metadata: { labels: { $patch: 'replace', only: 'me' } } }, (o) => o.metadata.labels, { only: 'me' }],
    ['$patch: delete on a map field', { metadata: { labels: { $patch: 'delete' } } }, (o) => 'labels' in o.metadata, false],
    ['$retainKeys drops unlisted keys', { metadata: { labels: { $retainKeys: ['app', 'env'], env: 'prod' } } }, (o) => o.metadata.labels, { app: 'web', env: 'prod' }],
    ['type mismatch replaces', { metadata: { labels: 'x' } }, (o) => o.metadata.labels, 'x'],
  ];
  for (const [name, patch, pick, want] of cases) assert.deepEqual(pick(smp(patch)), want, name);
  assert.deepEqual(smp({ $patch: 'delete' }), {}, 'top-level $patch: delete');
  assert.deepEqual(smp({ $patch: 'replace', kind: 'X' }), { kind: 'X' }, 'top-level $patch: replace');
  assert.deepEqual(smp({ a: 1 }, 'not-an-object'), { a: 1 }, 'non-object document');
});

test('strategic merge patch: merge lists (finalizers set, ownerReferences by uid)', () => {
  const owners = policy().metadata.ownerReferences;
  const u3 = { apiVersion: 'v1', kind: 'Secret', name: 'three', uid: 'u3' };
  const cases: Array<[string, unknown, (out: any) => unknown, unknown]> = [
    ['finalizers unioned, order kept, no duplicates', { metadata: { finalizers: ['example.com/c', 'example.com/a'] } }, (o) => o.metadata.finalizers, ['example.com/a', 'example.com/b', 'example.com/c']],
    ['finalizers: duplicates in the patch dropped', { metadata: { finalizers: ['example.com/b', 'x/a', 'x/a'] } }, (o) => o.metadata.finalizers, ['example.com/a', 'example.com/b', 'x/a']],
    ['$deleteFromPrimitiveList', { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'] } }, (o) => o.metadata.finalizers, ['example.com/b']],
    ['$deleteFromPrimitiveList with additions', { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/b'], finalizers: ['example.com/c'] } }, (o) => o.metadata.finalizers, ['example.com/a', 'example.com/c']],
    ['$setElementOrder on a primitive list', { metadata: { '$setElementOrder/finalizers': ['example.com/c', 'example.com/b'], finalizers: ['example.com/c'] } }, (o) => o.metadata.finalizers, ['example.com/c', 'example.com/b', 'example.com/a']],
    ['ownerReferences: new uid appended', { metadata: { ownerReferences: [u3] } }, (o) => o.metadata.ownerReferences, [...owners, u3]],
    ['ownerReferences: the item matched by uid merges', { metadata: { ownerReferences: [{ uid: 'u1', name: 'renamed' }] } }, (o) => o.metadata.ownerReferences, [{ ...owners[0], name: 'renamed' }, owners[1]]],
    ['ownerReferences: $patch delete by uid', { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'u1' }] } }, (o) => o.metadata.ownerReferences, [owners[1]]],
    ['ownerReferences: $patch replace', { metadata: { ownerReferences: [u3, { $patch: 'replace' }] } }, (o) => o.metadata.ownerReferences, [u3]],
    ['ownerReferences: $setElementOrder', { metadata: { '$setElementOrder/ownerReferences': [{ uid: 'u3' }, { uid: 'u2' }], ownerReferences: [u3] } }, (o) => o.metadata.ownerReferences.map((r: any) => r.uid), ['u3', 'u2', 'u1']],
    ['atomic list ignores merge semantics', { spec: { policyTypes: ['Ingress', 'Egress'] } }, (o) => o.spec.policyTypes, ['Ingress', 'Egress']],
  ];
  for (const [name, patch, pick, want] of cases) assert.deepEqual(pick(smp(patch)), want, name);
  // Merge list created when absent (directives stripped from new items).
  assert.deepEqual(smp({ metadata: { finalizers: ['x/a', 'x/a'], ownerReferences: [{ uid: 'u9', name: 'n' }] } }, { metadata: {} }).metadata, { finalizers: ['x/a'], ownerReferences: [{ uid: 'u9', name: 'n' }] });
  // Directly against ObjectMeta as the schema.
  const meta = smp({ finalizers: ['example.com/z'] }, policy().metadata, META);
  assert.deepEqual(meta.finalizers, ['example.com/a', 'example.com/b', 'example.com/z']);
  // Patch values are copied, not aliased.
  const patch = { metadata: { ownerReferences: [u3] } };
  assert.notEqual(smp(patch).metadata.ownerReferences[2], u3);
});

test('strategic merge patch: directive misuse is BadRequest and leaves the input untouched', () => {
  const cases: Array<[string, unknown, string]> = [
    ['patch not an object', ['x'], 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['unknown $patch on a map', { metadata: { labels: { $patch: 'frob' } } }, 'unknown patch type: "frob" in map: {"$patch":"frob"}'],
    ['unknown $patch in a list', { metadata: { ownerReferences: [{ $patch: 'frob', uid: 'u1' }] } }, 'unknown patch type: "frob" in map: {"$patch":"frob","uid":"u1"}'],
    ['$patch merge in a list', { metadata: { ownerReferences: [{ $patch: 'merge' }] } }, 'merging lists cannot yet be specified in the patch'],
    ['$patch delete without merge key', { metadata: { ownerReferences: [{ $patch: 'delete', name: 'one' }] } }, 'map: {"$patch":"delete","name":"one"} does not contain declared merge key: uid'],
    ['list item without merge key', { metadata: { ownerReferences: [{ name: 'x' }] } }, 'map: {"name":"x"} does not contain declared merge key: uid'],
    ['$retainKeys not a list', { metadata: { labels: { $retainKeys: 'app' } } }, 'invalid patch format of retainKeys: "app"'],
    ['$retainKeys missing a patched field', { metadata: { labels: { $retainKeys: ['app'], env: 'x' } } }, 'invalid patch format of retainKeys: field "env" is not in ["app"]'],
    ['$deleteFromPrimitiveList not a list', { metadata: { '$deleteFromPrimitiveList/finalizers': 'x' } }, 'invalid patch: the value of $deleteFromPrimitiveList/finalizers must be a list, got "x"'],
    ['$setElementOrder not a list', { metadata: { '$setElementOrder/finalizers': {} } }, 'invalid patch: the value of $setElementOrder/finalizers must be a list, got {}'],
    ['$setElementOrder item without key', { metadata: { '$setElementOrder/ownerReferences': ['u1'] } }, 'invalid patch: $setElementOrder/ownerReferences item "u1" does not contain declared merge key: uid'],
    ['$patch in a primitive merge list', { metadata: { finalizers: [{ $patch: 'replace' }] } }, 'cannot merge lists without merge key: {"$patch":"replace"}'],
    // A valid change earlier in the patch is not applied when a later part fails.
    ['failure after valid changes', { metadata: { labels: { env: 'x' }, ownerReferences: [{ name: 'x' }] } }, 'map: {"name":"x"} does not contain declared merge key: uid'],
  ];
  for (const [name, patch, message] of cases) {
    try {
      expectPatchError((d) => applyStrategicMergePatch(d, patch, structure, NP), policy(), message, 'BadRequest');
    } catch (err) {
      (err as Error).message = `${name}: ${(err as Error).message}`;
      throw err;
    }
  }
});
