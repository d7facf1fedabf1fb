/**
 * x-kubernetes-validations rules of custom resources over HTTPS (SPEC 2.11, 8,
 * 9.7): each library function and type mapping through a rule on its own
 * property of one definition, an object that passes and one that fails with
 * upstream's 422 cause; transition rules, messageExpression, reason,
 * fieldPath; and the runtime cost limits.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertFailure } from './helpers/api.ts';
import { eventually } from './helpers/eventually.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
const CHECKS = '/apis/example.com/v1/namespaces/default/checks';

type Schema = Record<string, unknown>;
// Bounded, so that the rules' estimated cost stays within the limits (SPEC 8).
const str = (extra: Schema = {}): Schema => ({ type: 'string', maxLength: 64, ...extra });
const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
const list = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, maxItems: 16, ...extra });
const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', properties, ...extra });

/** [case, property schema, rule, a value that passes, one that fails]. */
const LIBRARY: Array<[string, Schema, string, unknown, unknown]> = [
  ['has', obj({ a: str(), b: str() }), 'has(self.a) || has(self.b)', { a: 'x' }, {}],
  ['all', list(int()), 'self.all(x, x > 0)', [1, 2], [1, -1]],
  ['exists', list(int()), 'self.exists(x, x == 2)', [1, 2], [1, 3]],
  ['exists_one', list(int()), 'self.exists_one(x, x == 2)', [1, 2], [2, 2]],
  ['map', list(int()), 'self.map(x, x * 2) == [2, 4]', [1, 2], [1, 3]],
  ['filter', list(int()), 'self.filter(x, x > 1).size() == 1', [1, 2], [2, 3]],
  ['charAt', str(), "self.charAt(1) == 'b'", 'abc', 'xyz'],
  ['indexOf', str(), "self.indexOf('c') == 2", 'abc', 'cab'],
  ['lastIndexOf', str(), "self.lastIndexOf('a') == 2", 'aba', 'abb'],
  ['lowerAscii', str(), "self.lowerAscii() == 'abc'", 'ABC', 'ABD'],
  ['upperAscii', str(), "self.upperAscii() == 'ABC'", 'abc', 'abd'],
  ['replace', str(), "self.replace('-', '_') == 'a_b'", 'a-b', 'a-c'],
  ['split', str(), "self.split(',').size() == 3", 'a,b,c', 'a,b'],
  ['join', list(str()), "self.join('-') == 'a-b'", ['a', 'b'], ['a', 'c']],
  ['substring', str(), "self.substring(1, 3) == 'bc'", 'abcd', 'axyz'],
  ['trim', str(), "self.trim() == 'a'", ' a ', ' b '],
  ['list indexOf', list(int()), 'self.indexOf(3) == 1', [1, 3], [3, 1]],
  ['list lastIndexOf', list(int()), 'self.lastIndexOf(1) == 2', [1, 2, 1], [1, 1, 2]],
  ['min', list(int()), 'self.min() == 1', [3, 1], [3, 2]],
  ['max', list(int()), 'self.max() == 3', [3, 1], [2, 1]],
  ['sum of numbers', list({ type: 'number' }), 'self.sum() == 3.5', [1.5, 2], [1.5, 1]],
  ['sum of durations', list(str({ format: 'duration' })), "self.sum() == duration('3m')", ['1m', '2m'], ['1m']],
  ['isSorted', list(int()), 'self.isSorted()', [1, 2, 2], [2, 1]],
  ['find', str(), "self.find('[0-9]+') == '42'", 'ab42', 'ab7'],
  ['findAll', str(), "self.findAll('[0-9]').size() == 2", 'a1b2', 'a1'],
  ['matches', str(), "self.matches('^[a-z]+$')", 'abc', 'ab1'],
  ['isURL', str(), 'isURL(self)', 'https://example.com/a', 'not a url'],
  ['getScheme', str(), "url(self).getScheme() == 'https'", 'https://a.com', 'http://a.com'],
  ['getHost', str(), "url(self).getHost() == 'a.com:8080'", 'https://a.com:8080/x', 'https://a.com/x'],
  ['getHostname', str(), "url(self).getHostname() == 'a.com'", 'https://a.com:8080/x', 'https://b.com/x'],
  ['getPort', str(), "url(self).getPort() == '8080'", 'https://a.com:8080', 'https://a.com'],
  ['getEscapedPath', str(), "url(self).getEscapedPath() == '/a%20b'", 'https://a.com/a%20b', 'https://a.com/c'],
  ['getQuery', str(), "url(self).getQuery()['k'] == ['v']", 'https://a.com/?k=v', 'https://a.com/?k=w'],
  ['isQuantity', str(), 'isQuantity(self)', '1Gi', '1GG'],
  ['quantity isInteger', str(), 'quantity(self).isInteger()', '1', '1.5'],
  ['quantity asInteger', str(), 'quantity(self).asInteger() == 2048', '2Ki', '2k'],
  ['quantity asApproximateFloat', str(), 'quantity(self).asApproximateFloat() == 1.5', '1.5', '2'],
  ['quantity sign', str(), 'sign(quantity(self)) == -1', '-1', '1'],
  ['quantity add', str(), "quantity(self).add(1).compareTo(quantity('3')) == 0 && quantity(self).add(quantity('1')).compareTo(quantity('3')) == 0", '2', '3'],
  ['quantity sub', str(), "quantity(self).sub(quantity('1')).compareTo(quantity('1')) == 0 && quantity(self).sub(1).isInteger()", '2', '3'],
  ['quantity isLessThan', str(), "quantity(self).isLessThan(quantity('1Gi'))", '1Mi', '2Gi'],
  ['quantity isGreaterThan', str(), "quantity(self).isGreaterThan(quantity('1Gi'))", '2Gi', '1Mi'],
  ['quantity compareTo', str(), "quantity(self).compareTo(quantity('1')) == 0", '1000m', '2'],
  ['optional types', obj({ a: str() }), "self.?a.orValue('none') == 'x' && optional.of(1).hasValue()", { a: 'x' }, {}],
  ['cross-type numeric comparison', int(), 'self > 1.5 && self < 3u', 2, 1],
];

/** [case, property schema, rule, passing value, failing value]: the schema types as expression types. */
const TYPES: Array<[string, Schema, string, unknown, unknown]> = [
  ['format date is a timestamp', str({ format: 'date' }), "self < timestamp('2000-01-02T00:00:00Z')", '2000-01-01', '2000-01-03'],
  ['format date-time is a timestamp', str({ format: 'date-time' }), 'self.getFullYear() == 2021', '2021-06-01T10:00:00Z', '2020-06-01T10:00:00Z'],
  ['format duration is a duration', str({ format: 'duration' }), "self > duration('1m')", '2m', '30s'],
  ['format byte is bytes', str({ format: 'byte' }), "self == b'hi'", 'aGk=', 'aG8='],
  ['number is a double', { type: 'number' }, 'self == 2.0', 2, 2.5],
  ['int-or-string is dyn', { 'x-kubernetes-int-or-string': true }, "self in ['25%', '50%'] || self in [1, 2, 3]", '50%', 7],
  ['sets compare ignoring order', obj({ a: list(int(), { 'x-kubernetes-list-type': 'set' }), b: list(int(), { 'x-kubernetes-list-type': 'set' }) }), 'self.a == self.b', { a: [1, 2], b: [2, 1] }, { a: [1, 2], b: [1, 3] }],
  ['atomic lists compare in order', obj({ a: list(int()), b: list(int()) }), 'self.a == self.b', { a: [1, 2], b: [1, 2] }, { a: [1, 2], b: [2, 1] }],
  [
    'escaped property names',
    obj({ 'x-y': str(), 'a.b': str(), namespace: str(), a__b: str(), 'a/b': str() }),
    "self.x__dash__y == 'v' && self.a__dot__b == 'c' && self.__namespace__ == 'n' && self.a__underscores__b == 'd' && self.a__slash__b == 'e'",
    { 'x-y': 'v', 'a.b': 'c', namespace: 'n', a__b: 'd', 'a/b': 'e' },
    { 'x-y': 'v', 'a.b': 'c', namespace: 'n', a__b: 'd', 'a/b': 'x' },
  ],
  ['additionalProperties is a map', { type: 'object', additionalProperties: int() }, "'a' in self && self.all(k, self[k] > 0)", { a: 1, b: 2 }, { a: 1, b: 0 }],
  ['a null property is absent', obj({ a: str({ nullable: true }) }), '!has(self.a)', { a: null }, { a: 'x' }],
];

const CASES = [...LIBRARY, ...TYPES];
const property = (i: number) => `c${i}`;

function checksCrd(): object {
  const properties: Record<string, Schema> = {};
  CASES.forEach(([, schema, rule], i) => (properties[property(i)] = { ...schema, 'x-kubernetes-validations': [{ rule }] }));
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'checks.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'checks', singular: 'check', kind: 'Check', listKind: 'CheckList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } } }],
    },
  };
}

let counter = 0;
const check = (spec: Record<string, unknown>) =>
  server.request('POST', CHECKS, { body: { apiVersion: 'example.com/v1', kind: 'Check', metadata: { name: `c${++counter}` }, spec } });

before(async () => {
  server = await startTestServer(['--authorization-mode=AlwaysAllow']);
  const res = await server.request('POST', CRDS, { body: checksCrd() });
  assert.equal(res.status, 201, res.text);
  await eventually('served', async () => ((await server.request('GET', CHECKS)).status === 200 ? true : undefined));
});
after(() => server?.close());

/** One test per case: the passing value is created, the failing one answered 422 with the rule's cause at its property. */
function caseTests(cases: typeof CASES): void {
  cases.forEach(([name, schema, rule, pass, fail]) => {
    const i = CASES.findIndex((c) => c[0] === name);
    test(name, async () => {
      const ok = await check({ [property(i)]: pass });
      assert.equal(ok.status, 201, ok.text);
      const bad = await check({ [property(i)]: fail });
      assertFailure(bad, 422, 'Invalid');
      assert.deepEqual(bad.body.details.causes, [{ reason: 'FieldValueInvalid', field: `spec.${property(i)}`, message: `Invalid value: "${schema.type ?? ''}": failed rule: ${rule}` }]);
    });
  });
}

describe('each library function in a rule', () => caseTests(LIBRARY));
describe('schema types in expressions', () => caseTests(TYPES));

const V = 'spec.validation.openAPIV3Schema.properties[spec]';
const ruleRepr = (rule: string, extra: { messageExpression?: string; optionalOldSelf?: boolean } = {}) =>
  `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:${JSON.stringify(extra.messageExpression ?? '')}, Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(${extra.optionalOldSelf === undefined ? 'nil' : '0xc000000000'})}`;

/** A definition named `<plural>.example.com` whose spec has `spec` as schema. */
function definition(plural: string, spec: Schema): object {
  const kind = plural[0].toUpperCase() + plural.slice(1, -1);
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } }, subresources: { status: {} } }],
    },
  };
}

describe('rules compiled when the definition is written', () => {
  const rejected: Array<[string, Schema, Array<[string, string, string | RegExp]>]> = [
    [
      'a field the schema does not have',
      obj({ a: int() }, { 'x-kubernetes-validations': [{ rule: 'self.nope > 1' }] }),
      [['FieldValueInvalid', `${V}.x-kubernetes-validations[0].rule`, `Invalid value: ${ruleRepr('self.nope > 1')}: compilation failed: ERROR: <input>:1:6: undefined field 'nope'\n | self.nope > 1\n | .....^`]],
    ],
    [
      'has() of a field the schema does not have',
      obj({ a: int() }, { 'x-kubernetes-validations': [{ rule: 'has(self.nope)' }] }),
      [['FieldValueInvalid', `${V}.x-kubernetes-validations[0].rule`, `Invalid value: ${ruleRepr('has(self.nope)')}: compilation failed: ERROR: <input>:1:10: undefined field 'nope'\n | has(self.nope)\n | .........^`]],
    ],
    [
      'a syntax error',
      obj({ a: int() }, { 'x-kubernetes-validations': [{ rule: 'self.a >' }] }),
      [['FieldValueInvalid', `${V}.x-kubernetes-validations[0].rule`, /^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.a >".*: compilation failed: ERROR: <input>:1:\d+: Syntax error: /]],
    ],
    [
      'a result that is not a bool',
      obj({ a: int() }, { 'x-kubernetes-validations': [{ rule: 'self.a + 1' }] }),
      [['FieldValueInvalid', `${V}.x-kubernetes-validations[0].rule`, `Invalid value: ${ruleRepr('self.a + 1')}: cel expression must evaluate to a bool`]],
    ],
    [
      'a messageExpression that is not a string',
      obj({ a: int() }, { 'x-kubernetes-validations': [{ rule: 'self.a > 1', messageExpression: 'self.a' }] }),
      [['FieldValueInvalid', `${V}.x-kubernetes-validations[0].messageExpression`, `Invalid value: ${ruleRepr('self.a > 1', { messageExpression: 'self.a' })}: messageExpression must evaluate to a string`]],
    ],
    [
      'a messageExpression that does not compile',
      obj({ a: int() }, { 'x-kubernetes-validations': [{ rule: 'self.a > 1', messageExpression: 'self.b' }] }),
      [['FieldValueInvalid', `${V}.x-kubernetes-validations[0].messageExpression`, `Invalid value: ${ruleRepr('self.a > 1', { messageExpression: 'self.b' })}: messageExpression compilation failed: ERROR: <input>:1:6: undefined field 'b'\n | self.b\n | .....^`]],
    ],
    [
      'oldSelf under the items of an atomic list',
      obj({ list: list(int({ 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] })) }),
      [['FieldValueInvalid', `${V}.properties[list].items.x-kubernetes-validations[0].rule`, `Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${V}.properties[list]`]],
    ],
    [
      'optionalOldSelf on a rule without oldSelf',
      obj({ a: int() }, { 'x-kubernetes-validations': [{ rule: 'self.a > 1', optionalOldSelf: true }] }),
      [['FieldValueInvalid', `${V}.x-kubernetes-validations[0].optionalOldSelf`, 'Invalid value: true: may not be set if oldSelf is not used in rule']],
    ],
  ];
  test('defaults must pass the rules of their node', async () => {
    const spec = obj({
      bad: int({ default: 20, 'x-kubernetes-validations': [{ rule: 'self < 10' }] }),
      good: int({ default: 5, 'x-kubernetes-validations': [{ rule: 'self < 10' }, { rule: 'self == oldSelf' }] }),
      nested: obj({ a: int() }, { default: { a: 1 }, 'x-kubernetes-validations': [{ rule: 'self.a > 1', fieldPath: '.a', message: 'a must be above 1' }] }),
    });
    const res = await server.request('POST', CRDS, { body: definition('defaults', spec) });
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causes(res), [
      ['FieldValueInvalid', `${V}.properties[bad].default`, 'Invalid value: "integer": failed rule: self < 10'],
      ['FieldValueInvalid', `${V}.properties[nested].default.a`, 'Invalid value: "object": a must be above 1'],
    ]);
    const fixed = definition('defaults', { ...spec, properties: { ...(spec.properties as object), bad: int({ default: 2, 'x-kubernetes-validations': [{ rule: 'self < 10' }] }), nested: obj({ a: int() }) } });
    const ok = await server.request('POST', CRDS, { body: fixed });
    assert.equal(ok.status, 201, ok.text);
  });

  const COST_HINT = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
  const pairRule = 'self.v.all(x, self.v.all(y, x >= 0 || y >= 0))';
  const pairItem = (rules: number) => obj({ v: list(int(), { maxItems: 200 }) }, { 'x-kubernetes-validations': Array.from({ length: rules }, (_, i) => ({ rule: `${pairRule} && ${i} >= 0` })) });

  test('a rule whose estimated cost is past the limit is refused, and so is its share of the total', async () => {
    const res = await server.request('POST', CRDS, { body: definition('unboundeds', obj({ names: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] } })) });
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causes(res), [
      ['FieldValueForbidden', `${V}.properties[names].x-kubernetes-validations[0].rule`, `Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${COST_HINT}`],
      ['FieldValueForbidden', `${V}.properties[names].x-kubernetes-validations[0].rule`, 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'],
      ['FieldValueForbidden', 'spec.validation.openAPIV3Schema', `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${COST_HINT}`],
    ]);
  });

  test('a rule costs its estimate times how many times its node can occur', async () => {
    const res = await server.request('POST', CRDS, { body: definition('cardinals', obj({ items: list(pairItem(1), { maxItems: 100 }) })) });
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causes(res), [
      ['FieldValueForbidden', `${V}.properties[items].items.x-kubernetes-validations[0].rule`, `Forbidden: estimated rule cost exceeds budget by factor of 2.8x ${COST_HINT}`],
    ]);
    const fewer = await server.request('POST', CRDS, { body: definition('cardinals', obj({ items: list(pairItem(1), { maxItems: 30 }) })) });
    assert.equal(fewer.status, 201, fewer.text);
  });

  test('the rules of a schema together are limited, naming the four largest', async () => {
    const res = await server.request('POST', CRDS, { body: definition('totals', obj({ items: list(pairItem(12), { maxItems: 30 }) })) });
    assertFailure(res, 422, 'Invalid');
    const rule = (i: number) => `${V}.properties[items].items.x-kubernetes-validations[${i}].rule`;
    assert.deepEqual(causes(res), [
      ...[0, 1, 2, 3].map((i) => ['FieldValueForbidden', rule(i), 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema']),
      ['FieldValueForbidden', 'spec.validation.openAPIV3Schema', `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.012334x ${COST_HINT}`],
    ]);
  });

  rejected.forEach(([name, spec, causes], i) => {
    test(name, async () => {
      const res = await server.request('POST', CRDS, { body: definition(`rejects${i}s`, spec) });
      assertFailure(res, 422, 'Invalid');
      const actual = res.body.details.causes.map((c: any) => [c.reason, c.field, c.message]);
      assert.equal(actual.length, causes.length, res.text);
      causes.forEach(([reason, field, message], j) => {
        assert.deepEqual(actual[j].slice(0, 2), [reason, field]);
        if (typeof message === 'string') assert.equal(actual[j][2], message);
        else assert.match(actual[j][2], message);
      });
    });
  });
});

const TRANSITIONS = '/apis/example.com/v1/namespaces/default/transitions';
const mapList = (items: Schema, extra: Schema = {}) => list(items, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], ...extra });
const entry = (extra: Schema = {}) => obj({ name: str(), value: int() }, { required: ['name'], ...extra });
const TRANSITIONS_SPEC = obj({
  immutable: str({ 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }] }),
  firstOnly: str({ 'x-kubernetes-validations': [{ rule: "oldSelf.hasValue() ? oldSelf.value() == self : self == 'first'", optionalOldSelf: true, message: 'starts as first and never changes' }] }),
  entries: mapList(entry({ 'x-kubernetes-validations': [{ rule: 'self.value >= oldSelf.value', message: 'value may not decrease' }] })),
  sameEntries: mapList(entry(), { 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'entries are immutable' }] }),
  sameSet: list(str(), { 'x-kubernetes-list-type': 'set', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'set is immutable' }] }),
  sameObject: obj({ a: int(), b: list(int()) }, { 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'object is immutable' }] }),
  mx: str({ 'x-kubernetes-validations': [{ rule: 'self.size() < 3', messageExpression: "'value ' + self + ' is too long'" }] }),
  mxFails: int({ 'x-kubernetes-validations': [{ rule: 'self < 10', message: 'fallback message', messageExpression: "'abc'.substring(5)" }] }),
  mxEmpty: int({ 'x-kubernetes-validations': [{ rule: 'self < 10', messageExpression: "' '" }] }),
  forbidden: int({ 'x-kubernetes-validations': [{ rule: 'self < 10', reason: 'FieldValueForbidden' }] }),
  required: int({ 'x-kubernetes-validations': [{ rule: 'self < 10', reason: 'FieldValueRequired', message: 'must be small' }] }),
  duplicate: int({ 'x-kubernetes-validations': [{ rule: 'self < 10', reason: 'FieldValueDuplicate' }] }),
  fieldPath: obj(
    { a: int(), 'b.c': { type: 'object', additionalProperties: int(), maxProperties: 16 } },
    { 'x-kubernetes-validations': [{ rule: 'self.a < 10', fieldPath: '.a' }, { rule: 'self.b__dot__c.all(k, self.b__dot__c[k] < 10)', fieldPath: "['b.c']" }] },
  ),
  evaluationError: str({ 'x-kubernetes-validations': [{ rule: 'int(self) > 0' }] }),
});

const transition = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'example.com/v1', kind: 'Transition', metadata: { name }, spec, ...extra });
const causes = (res: { body: any }) => res.body.details.causes.map((c: any) => [c.reason, c.field, c.message]);

describe('transition rules, messages, reasons and field paths', () => {
  before(async () => {
    const crd: any = definition('transitions', TRANSITIONS_SPEC);
    const root = crd.spec.versions[0].schema.openAPIV3Schema;
    root['x-kubernetes-validations'] = [{ rule: "self.metadata.name != 'forbidden'", message: 'name is forbidden' }];
    root.properties.status = obj({ count: int({ 'x-kubernetes-validations': [{ rule: 'self >= 0', message: 'count must not be negative' }] }) });
    const res = await server.request('POST', CRDS, { body: crd });
    assert.equal(res.status, 201, res.text);
    await eventually('served', async () => ((await server.request('GET', TRANSITIONS)).status === 200 ? true : undefined));
  });

  /** Creates `name` with `spec`, then updates it to `next`; returns the update's response. */
  async function update(name: string, spec: Record<string, unknown>, next: Record<string, unknown>) {
    const created = await server.request('POST', TRANSITIONS, { body: transition(name, spec) });
    assert.equal(created.status, 201, created.text);
    return server.request('PUT', `${TRANSITIONS}/${name}`, { body: { ...created.body, spec: next } });
  }

  test('self == oldSelf keeps a field immutable; the rule does not run on create', async () => {
    const res = await update('imm', { immutable: 'a' }, { immutable: 'b' });
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causes(res), [['FieldValueInvalid', 'spec.immutable', 'Invalid value: "string": immutable']]);
    assert.equal((await update('imm2', { immutable: 'a' }, { immutable: 'a', mx: 'x' })).status, 200);
    // A field added by the update has no old value: the transition rule does not run.
    assert.equal((await update('imm3', {}, { immutable: 'b' })).status, 200);
  });

  test('optionalOldSelf runs the rule on create too, with oldSelf absent', async () => {
    const bad = await server.request('POST', TRANSITIONS, { body: transition('opt1', { firstOnly: 'other' }) });
    assertFailure(bad, 422, 'Invalid');
    assert.deepEqual(causes(bad), [['FieldValueInvalid', 'spec.firstOnly', 'Invalid value: "string": starts as first and never changes']]);
    const res = await update('opt2', { firstOnly: 'first' }, { firstOnly: 'second' });
    assert.deepEqual(causes(res), [['FieldValueInvalid', 'spec.firstOnly', 'Invalid value: "string": starts as first and never changes']]);
    assert.equal((await update('opt3', { firstOnly: 'first' }, { firstOnly: 'first', mx: 'y' })).status, 200);
  });

  test('items of a map list correlate by key, wherever they move; new keys have no old value', async () => {
    const spec = { entries: [{ name: 'a', value: 5 }, { name: 'b', value: 1 }] };
    const moved = await update('ent1', spec, { entries: [{ name: 'c', value: 0 }, { name: 'b', value: 2 }, { name: 'a', value: 5 }] });
    assert.equal(moved.status, 200, moved.text);
    const decreased = await update('ent2', spec, { entries: [{ name: 'b', value: 1 }, { name: 'a', value: 4 }] });
    assertFailure(decreased, 422, 'Invalid');
    assert.deepEqual(causes(decreased), [['FieldValueInvalid', 'spec.entries[1]', 'Invalid value: "object": value may not decrease']]);
  });

  test('map lists and sets equal their old value in any order; objects compare by content', async () => {
    const spec = { sameEntries: [{ name: 'a', value: 1 }, { name: 'b', value: 2 }], sameSet: ['x', 'y'], sameObject: { a: 1, b: [1, 2] } };
    const reordered = await update('same1', spec, { sameEntries: [{ name: 'b', value: 2 }, { name: 'a', value: 1 }], sameSet: ['y', 'x'], sameObject: { b: [1, 2], a: 1 } });
    assert.equal(reordered.status, 200, reordered.text);
    const changed = await update('same2', spec, { sameEntries: [{ name: 'b', value: 1 }, { name: 'a', value: 2 }], sameSet: ['y', 'z'], sameObject: { a: 1, b: [2, 1] } });
    assertFailure(changed, 422, 'Invalid');
    // Upstream visits properties in Go's map order: compare as sets.
    assert.deepEqual(causes(changed).sort(), [
      ['FieldValueInvalid', 'spec.sameEntries', 'Invalid value: "array": entries are immutable'],
      ['FieldValueInvalid', 'spec.sameObject', 'Invalid value: "object": object is immutable'],
      ['FieldValueInvalid', 'spec.sameSet', 'Invalid value: "array": set is immutable'],
    ]);
  });

  test('messageExpression gives the message; a failing or empty one falls back', async () => {
    const res = await server.request('POST', TRANSITIONS, { body: transition('mx', { mx: 'abcd', mxFails: 12, mxEmpty: 12 }) });
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causes(res), [
      ['FieldValueInvalid', 'spec.mx', 'Invalid value: "string": value abcd is too long'],
      ['FieldValueInvalid', 'spec.mxFails', 'Invalid value: "integer": fallback message'],
      ['FieldValueInvalid', 'spec.mxEmpty', 'Invalid value: "integer": failed rule: self < 10'],
    ]);
  });

  test('reason sets the cause type', async () => {
    const res = await server.request('POST', TRANSITIONS, { body: transition('reasons', { forbidden: 10, required: 10, duplicate: 10 }) });
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causes(res), [
      ['FieldValueForbidden', 'spec.forbidden', 'Forbidden: failed rule: self < 10'],
      ['FieldValueRequired', 'spec.required', 'Required value: must be small'],
      ['FieldValueDuplicate', 'spec.duplicate', 'Duplicate value: "integer"'],
    ]);
  });

  test('fieldPath places the cause below the node', async () => {
    const res = await server.request('POST', TRANSITIONS, { body: transition('fp', { fieldPath: { a: 11, 'b.c': { x: 12 } } }) });
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causes(res), [
      ['FieldValueInvalid', 'spec.fieldPath.a', 'Invalid value: "object": failed rule: self.a < 10'],
      ['FieldValueInvalid', 'spec.fieldPath.b.c', 'Invalid value: "object": failed rule: self.b__dot__c.all(k, self.b__dot__c[k] < 10)'],
    ]);
  });

  test('an evaluation error names the rule', async () => {
    const res = await server.request('POST', TRANSITIONS, { body: transition('everr', { evaluationError: 'abc' }) });
    assertFailure(res, 422, 'Invalid');
    const [[reason, field, message]] = causes(res);
    assert.deepEqual([reason, field], ['FieldValueInvalid', 'spec.evaluationError']);
    assert.match(message, /^Invalid value: "string": .+ evaluating rule: int\(self\) > 0$/);
  });

  test('a rule at the root sees metadata.name', async () => {
    const res = await server.request('POST', TRANSITIONS, { body: transition('forbidden', {}) });
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causes(res), [['FieldValueInvalid', '<nil>', 'Invalid value: "object": name is forbidden']]);
  });

  test('an object with a blocking schema error has its rules skipped, saying so', async () => {
    const res = await server.request('POST', TRANSITIONS, { body: transition('forbidden', { mxFails: 'twelve', fieldPath: { a: 11 } }) });
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causes(res), [
      ['FieldValueTypeInvalid', 'spec.mxFails', 'Invalid value: "string": spec.mxFails in body must be of type integer: "string"'],
      ['FieldValueInvalid', '<nil>', 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'],
    ]);
  });

  test('rules on status run on the status subresource', async () => {
    const created = await server.request('POST', TRANSITIONS, { body: transition('st', {}) });
    assert.equal(created.status, 201, created.text);
    const bad = await server.request('PUT', `${TRANSITIONS}/st/status`, { body: { ...created.body, status: { count: -1 } } });
    assertFailure(bad, 422, 'Invalid');
    assert.deepEqual(causes(bad), [['FieldValueInvalid', 'status.count', 'Invalid value: "integer": count must not be negative']]);
    const ok = await server.request('PUT', `${TRANSITIONS}/st/status`, { body: { ...created.body, status: { count: 1 } } });
    assert.equal(ok.status, 200, ok.text);
  });
});

describe('the runtime cost limits', () => {
  const BUDGETS = '/apis/example.com/v1/namespaces/default/budgets';
  const pairsRule = 'self.all(x, self.all(y, x == y || x != y))';
  const itemRule = 'self.v.all(x, self.v.all(y, x >= 0 || y >= 0))';
  before(async () => {
    const spec = obj({
      pairs: list(int(), { maxItems: 700, 'x-kubernetes-validations': [{ rule: pairsRule }] }),
      // Each rule's estimate times 30 items stays under the per-rule limit; four of them pass the object budget at run time.
      many: list(obj({ v: list(int(), { maxItems: 200 }) }, { 'x-kubernetes-validations': [0, 1, 2, 3].map((i) => ({ rule: `${itemRule} && ${i} >= 0` })) }), { maxItems: 30 }),
    });
    const res = await server.request('POST', CRDS, { body: definition('budgets', spec) });
    assert.equal(res.status, 201, res.text);
    await eventually('served', async () => ((await server.request('GET', BUDGETS)).status === 200 ? true : undefined));
  });
  const budget = (name: string, spec: Record<string, unknown>) => server.request('POST', BUDGETS, { body: { apiVersion: 'example.com/v1', kind: 'Budget', metadata: { name }, spec } });
  const ints = (n: number) => Array.from({ length: n }, (_, i) => i);

  test('one expression past the per-call limit is stopped, naming the rule', async () => {
    assert.equal((await budget('small', { pairs: ints(100) })).status, 201);
    const started = Date.now();
    const res = await budget('pairs', { pairs: ints(700) });
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    assertFailure(res, 422, 'Invalid');
    assert.deepEqual(causes(res), [
      ['FieldValueInvalid', 'spec.pairs', `Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${pairsRule}`],
    ]);
  });

  test('all the rules of an object past the object budget stop with upstream error', async () => {
    assert.equal((await budget('few', { many: Array.from({ length: 5 }, () => ({ v: ints(200) })) })).status, 201);
    const started = Date.now();
    const res = await budget('many', { many: Array.from({ length: 30 }, () => ({ v: ints(200) })) });
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assertFailure(res, 422, 'Invalid');
    const all = causes(res);
    assert.equal(all.length, 1, res.text);
    assert.match(all[0][1], /^spec\.many\[\d+\]$/);
    assert.equal(all[0][2], 'Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run');
  });
});

describe('ratcheting (CRDValidationRatcheting, on in 1.31)', () => {
  const RATCHETS = '/apis/example.com/v1/namespaces/default/ratchets';
  const withRule = (rule: string) =>
    definition('ratchets', obj({ size: int({ 'x-kubernetes-validations': [{ rule }] }), sizes: list(int({ 'x-kubernetes-validations': [{ rule }] })), note: str() }));

  test('a failing rule on a value the update leaves alone warns; on a changed value it fails', async () => {
    const created = await server.request('POST', CRDS, { body: withRule('self < 100') });
    assert.equal(created.status, 201, created.text);
    await eventually('served', async () => ((await server.request('GET', RATCHETS)).status === 200 ? true : undefined));
    const object = await server.request('POST', RATCHETS, { body: { apiVersion: 'example.com/v1', kind: 'Ratchet', metadata: { name: 'r' }, spec: { size: 50, sizes: [1, 50] } } });
    assert.equal(object.status, 201, object.text);
    // The rule tightens: the stored object no longer passes it.
    const crd = (await server.request('GET', `${CRDS}/ratchets.example.com`)).body;
    crd.spec.versions[0].schema.openAPIV3Schema = (withRule('self < 10') as any).spec.versions[0].schema.openAPIV3Schema;
    assert.equal((await server.request('PUT', `${CRDS}/ratchets.example.com`, { body: crd })).status, 200);
    await eventually('tightened', async () => {
      const res = await server.request('POST', RATCHETS, { body: { apiVersion: 'example.com/v1', kind: 'Ratchet', metadata: { name: 'probe' }, spec: { size: 50 } } });
      return res.status === 422 ? true : undefined;
    });
    const current = (await server.request('GET', `${RATCHETS}/r`)).body;
    const untouched = await server.request('PUT', `${RATCHETS}/r`, { body: { ...current, spec: { ...current.spec, note: 'x' } } });
    assert.equal(untouched.status, 200, untouched.text);
    assert.equal(
      untouched.headers.warning,
      '299 - "spec.size: Invalid value: \\"integer\\": failed rule: self < 10", 299 - "spec.sizes[1]: Invalid value: \\"integer\\": failed rule: self < 10"',
    );
    const changed = await server.request('PUT', `${RATCHETS}/r`, { body: { ...untouched.body, spec: { ...untouched.body.spec, size: 60, sizes: [50, 1] } } });
    assertFailure(changed, 422, 'Invalid');
    assert.deepEqual(causes(changed), [
      ['FieldValueInvalid', 'spec.size', 'Invalid value: "integer": failed rule: self < 10'],
      ['FieldValueInvalid', 'spec.sizes[0]', 'Invalid value: "integer": failed rule: self < 10'],
    ]);
  });
});
