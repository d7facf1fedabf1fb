/**
 * The schema side of x-kubernetes-validations (SPEC 2.11): property-name
 * escaping (upstream escaping_test.go's cases), schema types with their size
 * estimates (schemas.go), JSON values as expression values, and the rule
 * validator's budget paths.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { celEquals, durationNanos, isDuration } from '../src/cel/values.ts';
import { escapeName, unescapeName } from '../src/registry/schema/cel-escaping.ts';
import { schemaDeclType, typeDeclarations, type DeclType } from '../src/registry/schema/cel-types.ts';
import { toCelValue } from '../src/registry/schema/cel-values.ts';
import { newRuleValidator } from '../src/registry/schema/cel-validate.ts';
import { newStructural } from '../src/registry/schema/structural.ts';

test('property names escape and unescape as upstream', () => {
  const cases: Array<[string, string]> = [
    ['a.a', 'a__dot__a'],
    ['a-a', 'a__dash__a'],
    ['a__a', 'a__underscores__a'],
    ['a.-/__a', 'a__dot____dash____slash____underscores__a'],
    ['a._a', 'a__dot___a'],
    ['a__.__a', 'a__underscores____dot____underscores__a'],
    ['a___a', 'a__underscores___a'],
    ['a____a', 'a__underscores____underscores__a'],
    ['a__dot__a', 'a__underscores__dot__underscores__a'],
    ['a__underscores__a', 'a__underscores__underscores__underscores__a'],
    ['true', '__true__'],
    ['namespace', '__namespace__'],
    ['while', '__while__'],
    ['has', 'has'],
    ['exists_one', 'exists_one'],
    ['_a', '_a'],
    ['.a', '__dot__a'],
  ];
  for (const [name, escaped] of cases) {
    assert.equal(escapeName(name), escaped, name);
    assert.equal(unescapeName(escaped), name, escaped);
  }
  for (const name of ['@', '1up', '👑', '', 'a b', 'a$']) assert.equal(escapeName(name), undefined, name);
  assert.equal(unescapeName('a__nope__b'), undefined);
  assert.equal(unescapeName('x__true__'), undefined);
});

const declOf = (schema: object, root = false): DeclType | undefined => schemaDeclType(newStructural(schema), root);

test('schema types carry upstream sizes', () => {
  const sizes = (schema: object) => {
    const t = declOf(schema)!;
    return [t.kind, t.maxElements, t.minSerializedSize];
  };
  assert.deepEqual(sizes({ type: 'string' }), ['simple', 3 * 1024 * 1024 - 2, 2]);
  assert.deepEqual(sizes({ type: 'string', maxLength: 10 }), ['simple', 40, 2]);
  assert.deepEqual(sizes({ type: 'string', enum: ['ab', 'abcd'] }), ['simple', 4, 2]);
  assert.deepEqual(sizes({ type: 'string', format: 'date-time' }), ['simple', 32, 21]);
  assert.deepEqual(sizes({ type: 'string', format: 'date' }), ['simple', 12, 12]);
  assert.deepEqual(sizes({ type: 'string', format: 'duration' }), ['simple', 32, 3]);
  assert.deepEqual(sizes({ type: 'string', format: 'byte', maxLength: 5 }), ['simple', 5, 2]);
  assert.deepEqual(sizes({ 'x-kubernetes-int-or-string': true, maxLength: 3 }), ['simple', 3 * 1024 * 1024 - 2, 1]);
  assert.deepEqual(sizes({ type: 'array', items: { type: 'integer' } }), ['list', Math.floor((3 * 1024 * 1024 - 2) / 2), 2]);
  assert.deepEqual(sizes({ type: 'array', maxItems: 7, items: { type: 'integer' } }), ['list', 7, 2]);
  assert.deepEqual(sizes({ type: 'object', additionalProperties: { type: 'string' } }), ['map', Math.floor((3 * 1024 * 1024 - 2) / 8), 2]);
  // {} plus each required property without a default: its name, its smallest value and 4 bytes of punctuation.
  assert.deepEqual(sizes({ type: 'object', required: ['ab', 'c'], properties: { ab: { type: 'string' }, c: { type: 'integer', default: 1 } } }), ['object', 0, 2 + 2 + 2 + 4]);
  assert.equal(declOf({ 'x-kubernetes-preserve-unknown-fields': true }), undefined);
  assert.equal(declOf({ type: 'array', items: { 'x-kubernetes-preserve-unknown-fields': true } }), undefined);
});

test('object types: expressible fields under escaped names, a resource root with apiVersion, kind and metadata', () => {
  const t = declOf({ type: 'object', properties: { 'a-b': { type: 'string' }, '1x': { type: 'string' }, free: { 'x-kubernetes-preserve-unknown-fields': true }, n: { type: 'number' } } }, true)!;
  assert.equal(t.kind, 'object');
  if (t.kind !== 'object') return;
  assert.deepEqual([...t.fields.keys()].sort(), ['a__dash__b', 'apiVersion', 'kind', 'metadata', 'n']);
  const decls = typeDeclarations(t, 'selfType0');
  assert.equal(decls.selfType, 'selfType0');
  assert.deepEqual(decls.types['selfType0.metadata'].fields, { generateName: 'string', name: 'string' });
  assert.deepEqual(decls.types.selfType0.fields, { a__dash__b: 'string', apiVersion: 'string', kind: 'string', metadata: 'selfType0.metadata', n: 'double' });
  const lists = typeDeclarations(declOf({ type: 'object', properties: { l: { type: 'array', items: { type: 'object', properties: { x: { type: 'integer' } } } }, m: { type: 'object', additionalProperties: { type: 'string', nullable: true } } } })!, 'selfType1');
  assert.deepEqual(lists.types.selfType1.fields, { l: 'list<selfType1.l._idx>', m: 'map<string, dyn>' });
});

test('JSON values become expression values of their types', () => {
  const t = declOf({
    type: 'object',
    properties: {
      i: { type: 'integer' },
      d: { type: 'number' },
      b: { type: 'string', format: 'byte' },
      ts: { type: 'string', format: 'date-time' },
      day: { type: 'string', format: 'date' },
      dur: { type: 'string', format: 'duration' },
      ios: { 'x-kubernetes-int-or-string': true },
      gone: { type: 'string', nullable: true },
      'x.y': { type: 'string' },
      set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    },
  })!;
  const v = toCelValue({ i: 3, d: 2, b: 'aGk=', ts: '2021-01-02T03:04:05Z', day: '2021-01-02', dur: '1m30s', ios: 4, gone: null, 'x.y': 'z', set: ['a', 'b'], unknown: 1 }, t) as Map<string, unknown>;
  assert.equal(v.get('i'), 3n);
  assert.equal(v.get('d'), 2);
  assert.deepEqual(v.get('b'), new Uint8Array([104, 105]));
  assert.equal((v.get('ts') as Date).toISOString(), '2021-01-02T03:04:05.000Z');
  assert.equal((v.get('day') as Date).toISOString(), '2021-01-02T00:00:00.000Z');
  assert.ok(isDuration(v.get('dur')));
  assert.equal(durationNanos(v.get('dur') as { seconds: bigint; nanos: number }), 90_000_000_000n);
  assert.equal(v.get('ios'), 4n);
  assert.equal(v.has('gone'), false);
  assert.equal(v.get('x__dot__y'), 'z');
  assert.equal(v.has('unknown'), false);
  assert.ok(celEquals(v.get('set'), ['b', 'a']));
  assert.ok(!celEquals(['b', 'a'], v.get('set')), 'an atomic list on the left compares in order');
  assert.equal(toCelValue({ s: 'x' }, declOf({ type: 'string', format: 'duration' })!), null);
});

const ints = (n: number) => Array.from({ length: n }, (_, i) => i);

test('the validator stops at the per-call limit and at the object budget, in upstream words', () => {
  const rule = 'self.all(x, self.all(y, x == y || x != y))';
  const v = newRuleValidator(newStructural({ type: 'object', properties: { l: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule }, { rule: 'false' }] } } }), true)!;
  assert.deepEqual(v.validate('', { l: ints(700) }, undefined), [
    { type: 'FieldValueInvalid', field: 'l', message: `Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}` },
  ]);
  // With less left than the rule spends, the budget is what runs out.
  assert.deepEqual(v.validate('', { l: ints(700) }, undefined, { remaining: 1000 }), [
    { type: 'FieldValueInvalid', field: 'l', message: 'Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run' },
  ]);
  const budget = { remaining: 0 };
  assert.deepEqual(v.validate('', { l: [1] }, undefined, budget), [
    { type: 'FieldValueInvalid', field: 'l', message: 'Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run' },
  ]);
  assert.equal(budget.remaining, -1);
  const small = { remaining: 10_000 };
  assert.deepEqual(v.validate('', { l: [1, 2] }, undefined, small), [{ type: 'FieldValueInvalid', field: 'l', message: 'Invalid value: "array": failed rule: false' }]);
  assert.ok(small.remaining > 0 && small.remaining < 10_000, `spent ${10_000 - small.remaining}`);
});

test('a messageExpression that runs out of budget stops the validation', () => {
  const v = newRuleValidator(
    newStructural({ type: 'object', properties: { l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'false', messageExpression: "self.map(x, x + x).join(',')" }] } } }),
    true,
  )!;
  assert.deepEqual(v.validate('', { l: ints(200).map(String) }, undefined, { remaining: 100 }), [
    { type: 'FieldValueInvalid', field: 'l', message: 'Invalid value: "array": messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run' },
  ]);
  assert.deepEqual(v.validate('', { l: ['a', 'b'] }, undefined), [{ type: 'FieldValueInvalid', field: 'l', message: 'Invalid value: "array": aa,bb' }]);
});

test('rules on nodes without a type: skipped below an object, an initialization error at the node itself', () => {
  assert.equal(newRuleValidator(newStructural({ type: 'object', properties: { a: { type: 'string' } } }), true), undefined);
  // Upstream skips a property whose type cannot be expressed (the definition's validation refuses such rules).
  assert.equal(newRuleValidator(newStructural({ type: 'object', properties: { a: { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'true' }] } } }), true), undefined);
  // Rules on a node without a type (here the root, which the definition's validation would refuse) report upstream's initialization error.
  const root = newRuleValidator(newStructural({ 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: "self.kind == 'K'" }] }), true)!;
  assert.deepEqual(root.validate('', { kind: 'X' }, undefined), [
    { type: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "": rule compiler initialization error: failed to convert to declType for CEL validation rules' },
  ]);
});

test('adding to a set or map list merges, as upstream; an atomic list concatenates', () => {
  const v = newRuleValidator(
    newStructural({
      type: 'object',
      properties: {
        set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: "(self + ['a', 'z', 'z']) == ['z'] + self && (self + ['a', 'z', 'z']).size() == self.size() + 1" }] },
        atomic: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: "(self + ['a']).size() == self.size() + 1" }] },
        entries: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k'],
          items: { type: 'object', required: ['k'], properties: { k: { type: 'string' }, v: { type: 'integer' } } },
          'x-kubernetes-validations': [{ rule: 'self + self == self && (self + oldSelf).size() == 3 && (self + oldSelf).exists(e, e.k == "x" && e.v == 9)' }],
        },
      },
    }),
    true,
  )!;
  const obj = { set: ['a', 'b'], atomic: ['a'], entries: [{ k: 'x', v: 1 }, { k: 'y', v: 2 }] };
  assert.deepEqual(v.validate('', obj, { ...obj, entries: [{ k: 'x', v: 9 }, { k: 'w', v: 3 }] }), []);
  assert.deepEqual(v.validate('', obj, { ...obj, entries: [{ k: 'x', v: 1 }] }), [
    { type: 'FieldValueInvalid', field: 'entries', message: 'Invalid value: "array": failed rule: self + self == self && (self + oldSelf).size() == 3 && (self + oldSelf).exists(e, e.k == "x" && e.v == 9)' },
  ]);
});

test('an update that leaves a version schema unchanged does not check its rules per-expression cost again', async () => {
  const { validateCRDUpdate } = await import('../src/kinds/apiextensions.orch.io/custom-resource-definition/validate.ts');
  const pairItem = { type: 'object', properties: { v: { type: 'array', maxItems: 200, items: { type: 'integer' } } }, 'x-kubernetes-validations': [{ rule: 'self.v.all(x, self.v.all(y, x >= 0 || y >= 0))' }] };
  const crd = (description: string) => ({
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.example.com', resourceVersion: '1' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', description, properties: { items: { type: 'array', maxItems: 100, items: pairItem } } } } }],
    },
    status: { storedVersions: ['v1'] },
  });
  const ruleErrors = (errs: Array<{ field: string; message: string }>) => errs.filter((e) => e.field.includes('x-kubernetes-validations')).map((e) => `${e.field}: ${e.message}`);
  assert.deepEqual(ruleErrors(validateCRDUpdate(crd('a') as any, crd('a') as any)), []);
  assert.deepEqual(ruleErrors(validateCRDUpdate(crd('b') as any, crd('a') as any)), [
    'spec.validation.openAPIV3Schema.properties[items].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 2.8x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
  ]);
});

test('embedded resources expose apiVersion, kind and metadata.name; nullable items are null; unknown fields are not there', () => {
  const v = newRuleValidator(
    newStructural({
      type: 'object',
      properties: {
        embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: "self.kind == 'Pod' && self.metadata.name.startsWith('p')" }] },
        maybe: { type: 'array', items: { type: 'string', nullable: true }, 'x-kubernetes-validations': [{ rule: 'self.exists(x, x == null) && self.exists(x, x == "a")' }] },
      },
    }),
    true,
  )!;
  assert.deepEqual(v.validate('', { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod' }, spec: { deep: 1 } }, maybe: ['a', null] }, undefined), []);
  assert.deepEqual(v.validate('', { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'other' } }, maybe: ['a'] }, undefined), [
    { type: 'FieldValueInvalid', field: 'embedded', message: `Invalid value: "object": failed rule: self.kind == 'Pod' && self.metadata.name.startsWith('p')` },
    { type: 'FieldValueInvalid', field: 'maybe', message: 'Invalid value: "array": failed rule: self.exists(x, x == null) && self.exists(x, x == "a")' },
  ]);
  // The embedded object's other fields are not declared: a rule naming one does not compile.
  const compiled = newRuleValidator(newStructural({ type: 'object', properties: { e: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'has(self.spec)' }] } } }), true)!;
  assert.match(compiled.validate('', { e: { kind: 'Pod' } }, undefined)[0].message, /^Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:1:10: undefined field 'spec'/);
});

test('evaluation errors in cel-go words, each naming its rule (or its message)', () => {
  const v = newRuleValidator(
    newStructural({
      type: 'object',
      properties: {
        o: {
          type: 'object',
          properties: { a: { type: 'integer' }, l: { type: 'array', items: { type: 'integer' } }, m: { type: 'object', additionalProperties: { type: 'string' } } },
          'x-kubernetes-validations': [{ rule: 'self.a == 1' }, { rule: 'self.l[5] == 1' }, { rule: "self.m['zz'] == 'a'" }, { rule: '1 / (self.l[0] - self.l[0]) == 1', message: 'no division' }],
        },
      },
    }),
    true,
  )!;
  assert.deepEqual(
    v.validate('', { o: { l: [1], m: {} } }, undefined).map((e) => e.message),
    [
      'Invalid value: "object": no such key: a evaluating rule: self.a == 1',
      'Invalid value: "object": index out of bounds: 5 evaluating rule: self.l[5] == 1',
      `Invalid value: "object": no such key: zz evaluating rule: self.m['zz'] == 'a'`,
      'Invalid value: "object": division by zero evaluating rule: no division',
    ],
  );
});
