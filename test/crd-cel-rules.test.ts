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
const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
const list = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
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
  ['quantity add', str(), "quantity(self).add(1) == quantity('3') && quantity(self).add(quantity('1')) == quantity('3')", '2', '3'],
  ['quantity sub', str(), "quantity(self).sub(quantity('1')) == quantity('1') && quantity(self).sub(1) == quantity('1')", '2', '3'],
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
  ['int-or-string is dyn', { 'x-kubernetes-int-or-string': true }, "type(self) == int ? self < 5 : self.endsWith('%')", '50%', 7],
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
