/**
 * The static cost estimator (SPEC 8): cel-go checker.Cost (v0.20.1, the
 * version Kubernetes 1.31 builds with) and Kubernetes' library estimator
 * (apiserver v0.31.0 pkg/cel/library/cost.go). The fixtures are upstream's
 * (cel-go checker/cost_test.go TestCost, apiserver library/cost_test.go),
 * translated:
 * - a list literal's base cost is SPEC 8's 40 where cel-go's is 10, so each
 *   list a fixture builds (its literals, the `[]` a map or filter starts
 *   from, the one-element list each map or filter step appends) adds 30 to
 *   upstream's number, as each comment counts;
 * - upstream's library test estimator sizes every string and bytes value
 *   0..12 whatever its path; hints here are by path, so those fixtures read a
 *   variable of the literal's size instead of the literal;
 * - cel-go's unbounded max (near math.MaxUint64, or a product of it) is UNBOUNDED.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CelEnvironment, type CompiledExpression } from '../src/cel/environment.ts';
import { estimateCost, UNBOUNDED, type SizeHints } from '../src/cel/estimate.ts';
import { add, byFactor, fixed, multiply, multiplySaturating } from '../src/cel/estimate-math.ts';
import { AUTHORIZER_TYPE, authzSelectorsLibrary } from '../src/cel/authz.ts';
import { stringsLibrary } from '../src/cel/strings.ts';
import type { EstimatedNode } from '../src/cel/library.ts';

const env = new CelEnvironment({
  types: { TestAllTypes: { single_int32: 'int', single_string: 'string' } },
  variables: {
    input: 'dyn',
    ints: 'list<int>',
    all: 'list<TestAllTypes>',
    nested: 'list<list<TestAllTypes>>',
    strmap: 'map<string, string>',
    allmap: 'map<string, TestAllTypes>',
    nestedmap: 'map<string, map<string, TestAllTypes>>',
    nestedints: 'map<string, map<string, int>>',
    obj: 'TestAllTypes',
    str: 'string',
    str1: 'string',
    str2: 'string',
    arg1: 'string',
    data: 'bytes',
    strs: 'list<string>',
    list1: 'list<int>',
    list2: 'list<int>',
    a: 'bool',
    b: 'bool',
    c: 'bool',
    d: 'bool',
    x: 'int',
    y: 'int',
    timestamp1: 'google.protobuf.Timestamp',
    timestamp2: 'google.protobuf.Timestamp',
    duration1: 'google.protobuf.Duration',
    duration2: 'google.protobuf.Duration',
    authorizer: AUTHORIZER_TYPE,
  },
  libraries: [authzSelectorsLibrary],
});

/** cel-go's testCostEstimator: a hint by the joined path is the max of a 0..max size. */
/** Sizes by joined path: a max (of a 0..max size, as cel-go's testCostEstimator), or an exact [min, max]. */
type Sizes = Record<string, number | [number, number]>;

function hints(sizes: Sizes = {}): SizeHints & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    size(path) {
      const key = path.join('.');
      asked.push(key);
      if (!(key in sizes)) return undefined;
      const size = sizes[key];
      return typeof size === 'number' ? { min: 0, max: size } : { min: size[0], max: size[1] };
    },
  };
}

function estimate(expression: string, maxima: Sizes = {}) {
  return estimateCost(env.compile(expression), hints(maxima));
}

function check(expression: string, expected: [number, number], maxima: Sizes = {}) {
  assert.deepEqual(estimate(expression, maxima), { min: expected[0], max: expected[1] }, expression);
}

test('estimate math saturates as cel-go uint64 math does', () => {
  assert.equal(add(fixed(UNBOUNDED), fixed(1)).max, UNBOUNDED);
  assert.equal(add(fixed(UNBOUNDED - 1), fixed(5)).max, UNBOUNDED);
  assert.equal(multiplySaturating(UNBOUNDED, 0), 0);
  assert.equal(multiplySaturating(2 ** 30, 2 ** 30), 2 ** 60 > UNBOUNDED ? UNBOUNDED : 2 ** 60);
  assert.deepEqual(multiply({ min: 0, max: 3 }, { min: 2, max: UNBOUNDED }), { min: 0, max: UNBOUNDED });
  assert.deepEqual(byFactor({ min: 1, max: 21 }, 0.1), { min: 1, max: 3 });
  assert.equal(byFactor(fixed(UNBOUNDED), 0.1).max, UNBOUNDED);
  assert.equal(byFactor(fixed(0), 0.1).max, 0);
});

test('cel-go TestCost: constants, identifiers, selects, presence tests', () => {
  check('"Hello World!"', [0, 0]);
  check('ints', [1, 1]);
  check("strmap['key']", [2, 2]);
  check('obj.single_int32', [2, 2]);
  // Kubernetes' PresenceTestHasCost(false): the tested select is free.
  check('has(obj.single_int32)', [1, 1]);
  check('has(nestedmap.testAttr.nestedAttr)', [2, 2]);
  // A select on dyn costs nothing of its own in cel-go (only maps, messages and type parameters do).
  check('input.field', [1, 1]);
});

test('cel-go TestCost: literals', () => {
  check('[1, 2, 3]', [10 + 30, 10 + 30]); // one list
  check('{"a": 1, "b": 2, "c": 3}', [30, 30]);
  check('2 in [1, 2, 3]', [13 + 30, 13 + 30]); // one list
  check('true ? 1 : 2', [0, 0]);
});

test('cel-go TestCost: operators', () => {
  for (const e of ['1 < 2', '1 <= 2', '1 == 2', '2 > 1', '2 >= 1', '1 + 1', '1 - 1', '1 / 1', '1 * 1', '1 % 1', 'size("123")', 'string(1)']) check(e, [1, 1]);
  check('true || false', [0, 0]);
  check('true && false', [0, 0]);
  check('a || b || c || d', [1, 4]);
  check('a && b && c && d', [1, 4]);
  check('((5 != 6) == (1 == 2)) == ((3 <= 4) == (9 != 9))', [7, 7]);
  check('timestamp1 == timestamp2', [3, 3]);
  check('duration1 != duration2', [3, 3]);
  check('ints.size() == list1.size()', [5, 5]);
  check('x > y ? list1.size() : list2.size()', [5, 5]);
});

test('cel-go TestCost: string and bytes functions and conversions', () => {
  check("str.matches('[0-9]')", [3, 103], { str: 500 });
  check("str.matches('\\\\d+a\\\\d+b')", [3, 103], { str: 500 });
  check("'123'.matches('[0-9]')", [2, 2]);
  check('string(data)', [1, 51], { data: 500 });
  check('string(data) == string(data)', [3, 152], { data: 500 });
  check('bytes(str)', [1, 51], { str: 500 });
  check('bytes(str) == bytes(str)', [3, 302], { str: 500 });
  check('str.contains(arg1)', [2, 2502], { str: 500, arg1: 500 });
  // The prefix or suffix is what cel-go charges, not the receiver.
  check('str.startsWith(arg1)', [2, 52], { arg1: 500 });
  check('str.endsWith(arg1)', [2, 52], { arg1: 500 });
  check('str.size()', [2, 2]);
  check('size(str)', [2, 2]);
  check('"abcdefg".contains(str1 + str2)', [2, 6], { str1: 10, str2: 10 });
  check('str1.endsWith("abcdefghijklmnopqrstuvwxyz") == str2.endsWith("abcdefghijklmnopqrstuvwxyz")', [9, 9]);
  // The global form is another overload, O(1) in cel-go.
  check("matches(str, '[0-9]')", [2, 2], { str: 500 });
});

test('cel-go TestCost: comprehensions over variables', () => {
  check('all.all(x, true)', [2, 302], { all: 100 });
  check('nested.all(x, x.all(y, true))', [2, 1752], { nested: 50, 'nested.@items': 10 });
  check('(x > 2 ? list1 : list2).all(y, true)', [4, 7], { list1: 1, list2: 1 });
  check('allmap.all(k, allmap[k].single_int32 > 3)', [2, 82], { allmap: 10 });
  check('nestedmap.all(k, nestedmap[k].all(x, true))', [2, 187], { nestedmap: 5, 'nestedmap.@values': 10 });
  check('nestedmap.all(k, k.contains(k))', [2, 32], { nestedmap: 5, 'nestedmap.@keys': 10 });
  check('nestedmap.all(k, nestedmap[k].all(k, true) && k.contains(k))', [2, 34], { nestedmap: 2, 'nestedmap.@values': 2, 'nestedmap.@keys': 5 });
  check('(list1 + list2).all(x, true)', [4, 64], { list1: 10, list2: 10 });
});

test('cel-go TestCost: macros over literals', () => {
  check('[1, 2, 3].all(x, true)', [20 + 30, 20 + 30]); // one list
  check('[1,2,3,4,5].filter(x, x % 2 == 0)', [41 + 60, 101 + 210]); // range and init; plus up to 5 appended
  check('[1,2,3,4,5].map(x, x)', [86 + 210, 86 + 210]); // range, init, 5 appended
  check('[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)', [117 + 240, 177 + 390]); // 7 of map, filter's init, up to 5 appended
  check('[1,2,3,4,5].map(x, x).exists(x, x == 5) == true', [108 + 210, 118 + 210]);
  check('[1,2,3,4,5].map(x, x).map(x, x)', [162 + 390, 162 + 390]); // 7 + 6
  check('[1,2,3,4,5].map(x, x)[4]', [87 + 210, 87 + 210]);
  check('[[1,2],[1,2],[1,2],[1,2],[1,2]][4]', [61 + 180, 61 + 180]); // 6 lists
  check("{'a': [1,2], 'b': [1,2], 'c': [1,2], 'd': [1,2], 'e': [1,2]}.b", [81 + 150, 81 + 150]); // 5 lists
  // Nested aggregate sizes are not tracked: the inner comprehension's range is unbounded.
  check('[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))', [157 + 360, UNBOUNDED]); // range, init, 5 x ([x, x] and the appended)
  check('[1,2,3,4,5].map(x, x).map(x, x) + [1]', [173 + 420, 173 + 420]); // 7 + 6 + [1]
  // Per iteration of 3: [1,2,3], map's init and up to 3 appended.
  check('[1,2,3].all(i, i in [1,2,3].map(j, j + j))', [20 + 30, 230 + 480]);
});

test('exists, exists_one, map with a filter, cel.bind, optionals', () => {
  // exists: @not_strictly_false(!__result__) 3, __result__ || p 1..1+p, result 1.
  check("strs.exists(s, s == 'a')", [2, 2 + 5 * (3 + 1 + 2)], { strs: 5 });
  // exists_one: p ? __result__ + 1 : __result__ (1..2 beyond p), result __result__ == 1 (2).
  check("strs.exists_one(s, s == 'a')", [3, 3 + 5 * (2 + 2)], { strs: 5 });
  // map(x, p, t): p ? __result__ + [t] : __result__.
  check('ints.map(i, i > 1, i * 2)', [1 + 40 + 1, 42 + 4 * (2 + 2 + 42)], { ints: 4 });
  // cel.bind: a comprehension over an empty list, the bound variable its accumulator (no path).
  check('cel.bind(v, str, v.size())', [40 + 1 + 2, 40 + 1 + 2], { str: 10 });
  // cel-go's `_?._`, `or`, `orValue` and `optional.of` are calls.
  check("obj.?single_string.orValue('')", [3, 3]);
  check('optional.of(1).hasValue()', [2, 2]);
  check("strmap[?'k'].or(optional.none()).hasValue()", [5, 5]);
});

test('conversions, timestamps and durations are O(1)', () => {
  for (const e of ["int('1')", "double('1.5')", "uint('1')", "duration('1s')", "timestamp('2020-01-01T00:00:00Z')", 'dyn(1)', 'type(1)', "bool('true')", "bytes(b'ab')"]) check(e, [1, 1]);
  for (const e of ['timestamp1.getHours()', 'timestamp1.getFullYear()', 'duration1.getMinutes()', 'timestamp1 - timestamp2', 'timestamp1 + duration1', 'timestamp1 < timestamp2']) check(e, e.includes(' ') ? [3, 3] : [2, 2]);
  check("timestamp('2020-01-01T00:00:00Z') < timestamp1", [3, 3]);
});

test('calls on dyn cover every overload they may resolve to', () => {
  check('input < input', [3, UNBOUNDED]);
  check('input + 1', [2, 2]);
  check("input + 'a'", [2, UNBOUNDED]);
  // Two strings of unknown size may both be empty: the concatenation's least is 0.
  check('input + input', [2, UNBOUNDED]);
  check('1 in input', [1, UNBOUNDED]); // a list of unknown size may be empty
  check("'a' in strmap", [2, 2]);
  // string(dyn) may be string(bytes), a traversal of unknown size; bytes(dyn) bytes(string).
  check('string(input)', [1, UNBOUNDED]);
  check('bytes(input) == bytes(input)', [3, UNBOUNDED]);
  check('string(x)', [2, 2]);
});

test('map literals have their entry count as size; comprehensions over maps iterate keys', () => {
  check("{'a': 1, 'b': 2}.all(k, true)", [30 + 1 + 2 * 3, 30 + 1 + 2 * 3]);
  check("{'a': 1, 'b': 2}.exists(k, k == 'a')", [31 + 2 * (3 + 1), 31 + 2 * (3 + 1 + 2)]);
  check('{}.size()', [31, 31]);
});

test('cel.bind: its variable is the accumulator of an expansion over an empty list', () => {
  const asked = (expression: string) => {
    const h = hints();
    estimateCost(env.compile(expression), h);
    return h.asked;
  };
  // The bound variable is asked about by its own name, as cel-go's path [v]...
  assert.ok(asked('cel.bind(v, str, v.size() > 0 && v == "x")').includes('v'));
  // ...or, when it shadows an iteration variable, by that variable's path.
  assert.ok(asked('strs.all(s, cel.bind(s, "abc", s == "x"))').includes('strs.@items'));
  check('cel.bind(v, str, v == "x")', [40 + 1 + 2, 40 + 1 + 2], { str: 10 });
});

test('a library without estimates costs 1 per call; a library estimate is used for its function', () => {
  const custom = new CelEnvironment({
    variables: { text: 'string' },
    libraries: [
      { name: 'plain', functions: [{ signature: 'string.shout(): string', impl: (s: string) => s.toUpperCase() }] },
      {
        name: 'estimated',
        functions: [{ signature: 'string.whisper(): string', impl: (s: string) => s.toLowerCase() }],
        estimates: { whisper: ({ target }) => (target ? { cost: { min: 7, max: 70 }, resultSize: { min: 0, max: 3 } } : undefined) },
      },
    ],
  });
  const h = hints({ text: 100 });
  assert.deepEqual(estimateCost(custom.compile('text.shout()'), h), { min: 2, max: 2 });
  assert.deepEqual(estimateCost(custom.compile('text.whisper()'), h), { min: 8, max: 71 });
  // The estimate's result size bounds a later comparison: 3 code points, one traversal step.
  assert.deepEqual(estimateCost(custom.compile("text.whisper() == 'abcdef'"), h), { min: 9, max: 72 });
});

test('unbounded sizes give an unbounded (saturated) max', () => {
  check('str == str1', [3, UNBOUNDED]);
  check('str.contains(str1)', [2, UNBOUNDED]);
  check('strs.all(s, strs.all(t, s == t))', [2, UNBOUNDED]);
  check('ints.all(i, i > 0)', [2, UNBOUNDED]);
  // A bounded list of unbounded strings: the comparison is bounded by the literal.
  check("strs.all(s, s == 'abc')", [2, 2 + 10 * (2 + 1 + 1 + 1)], { strs: 10 });
  const cost = estimate('ints.all(i, ints.all(j, i < j)) && str.matches(str1)');
  assert.equal(cost.max, UNBOUNDED);
  assert.ok(cost.max > 100 * 10_000_000, 'unbounded exceeds every limit by more than 100x');
});

test('the paths the estimator asks about (cel-go AstNode.Path)', () => {
  const asked = (expression: string) => {
    const h = hints();
    estimateCost(env.compile(expression), h);
    return new Set(h.asked);
  };
  assert.deepEqual(asked('obj.single_string.size() > 0 && obj.single_string == "x"'), new Set(['obj.single_string']));
  assert.deepEqual(asked('nestedmap.all(k, nestedmap[k].all(j, j == "a"))'), new Set(['nestedmap', 'nestedmap.@values', 'nestedmap.@values.@keys']));
  assert.deepEqual(asked('nested.all(l, l.all(e, e.single_string == "a"))'), new Set(['nested', 'nested.@items', 'nested.@items.@items.single_string']));
  assert.deepEqual(asked('strs[0] == "a"'), new Set(['strs.@items']));
  // Kubernetes' list element node: the list's path and '@items'.
  assert.ok(asked('strs.isSorted()').has('strs.@items'));
  // Computed sizes are not asked about: a literal, a concatenation's operands only.
  assert.deepEqual(asked('"abc" + "d" == str'), new Set(['str']));
});

test('Kubernetes library estimates: strings', () => {
  check("'ABCDEFGHIJ abcdefghij'.lowerAscii()", [3, 3]);
  check("'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", [7, 9]);
  check("'ABCDEFGHIJ abcdefghij'.upperAscii()", [3, 3]);
  check("'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()", [7, 9]);
  for (const e of ["'abc 123 def 123'.replace('123', '456')", "'abc 123 def 123'.replace('', 'x')", "'abc 123 def 123'.replace('123', '')", "'abc 123 def 123'.replace('123', '456', 1)"]) check(e, [3, 3]);
  check("'abc 123 def 123'.split(' ')", [3, 3]);
  check("'abc 123 def 123'.split(' ', 1)", [3, 3]);
  check("'abc 123 def 123'.substring(5)", [2, 2]);
  check("'abc 123 def 123'.substring(5, 8)", [2, 2]);
  check("'  abc 123 def 123  '.trim()", [2, 2]);
  check("'abc 123 def 123'.find('123')", [2, 2]);
  check("'abc 123 def 123'.findAll('123')", [2, 2]);
  check("'abc 123 def 123'.findAll('123', 1)", [2, 2]);
  // Upstream joins a 10-element literal (10) whose strings its test estimator sizes 0..12: here a variable (1).
  check("strs.join(' ')", [11 - 10 + 1, 23 - 10 + 1], { strs: [10, 10], 'strs.@items': 12 });
  check('strs.join()', [10 - 10 + 1, 22 - 10 + 1], { strs: [10, 10], 'strs.@items': 12 });
  // charAt has no Kubernetes estimate: cel-go's 1.
  check('str.charAt(3)', [2, 2], { str: 500 });
  check("'01234567890123456789012345678901234567890123456789'.indexOf('123')", [5, 5]);
  check("'01234567890123456789012345678901234567890123456789'.lastIndexOf('123')", [5, 5]);
});

test('Kubernetes library estimates: result sizes', () => {
  // TestSize's replace cases, through an equality with a long literal (cost: a traversal of the result's max).
  const long = `'${'x'.repeat(100)}'`;
  const sized = (expression: string, maxima: Record<string, number>) => estimate(`${expression} == ${long}`, maxima).max - estimate(expression, maxima).max;
  // 'abc' with '' replaced by '_': 7.
  assert.equal(sized("'abc'.replace('', '_')", {}), 1);
  assert.equal(sized(`'${'a'.repeat(40)}'.replace('', '_')`, {}), Math.ceil(81 * 0.1));
  // Replacing 2 characters by 4 at most doubles: 80.
  assert.equal(sized(`'${'a'.repeat(40)}'.replace('aa', 'bbbb')`, {}), 8);
  // Lower and upper case, trim, substring: the receiver's size.
  assert.equal(sized('str.lowerAscii()', { str: 70 }), 7);
  // split: at most one element per code point, or the literal limit.
  assert.equal(estimate('str.split(",").all(s, true)', { str: 30 }).max, 1 + 6 + 1 + 30 * 3);
  assert.equal(estimate('str.split(",", 4).all(s, true)', { str: 30 }).max, 1 + 6 + 1 + 4 * 3);
  assert.equal(estimate('str.split(",", -1).all(s, true)', { str: 30 }).max, UNBOUNDED);
  // find: at most the receiver; findAll: at most one match per code point.
  assert.equal(sized("str.find('[0-9]+')", { str: 70 }), 7);
  assert.equal(estimate("str.findAll('[0-9]+').all(s, true)", { str: 20 }).max, 1 + 3 * 2 + 1 + 20 * 3);
  // join: elements at their largest, with separators between.
  assert.equal(sized("strs.join('--')", { strs: 4, 'strs.@items': 10 }), Math.ceil((40 + 6) * 0.1));
  // Conversions: up to 4 bytes per code point, at least a quarter of the bytes as code points.
  assert.deepEqual(estimate('size(bytes(str)) == 0', { str: 10 }), { min: 3, max: 4 });
});

test('Kubernetes library estimates: lists', () => {
  // Upstream's list literal costs 10 (here 40); each element's comparison 1, strings add a traversal.
  for (const fn of ['sum', 'isSorted', 'max', 'min']) check(`[1, 2, 3, 4, 5].${fn}()`, [15 + 30, 15 + 30]);
  check('[1.0, 2.0, 3.0, 4.0, 5.0].max()', [15 + 30, 15 + 30]);
  check('[false, true, false, true, false].isSorted()', [15 + 30, 15 + 30]);
  check('[uint(1), uint(2), uint(3), uint(4), uint(5)].sum()', [20 + 30, 20 + 30]);
  check("[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')].min()", [20 + 30, 20 + 30]);
  check('[1, 2, 3, 4, 5].indexOf(3)', [15 + 30, 15 + 30]);
  check('[1, 2, 3, 4, 5].lastIndexOf(3)', [15 + 30, 15 + 30]);
  // Upstream's string list literal (10) of strings sized 0..12: here a variable (1).
  for (const fn of ['isSorted()', 'max()', 'min()', "indexOf('x')", "lastIndexOf('x')"]) check(`strs.${fn}`, [15 - 10 + 1, 25 - 10 + 1], { strs: [5, 5], 'strs.@items': 12 });
  // A list of unknown size: unbounded.
  check('ints.sum()', [1, UNBOUNDED]);
});

test('Kubernetes library estimates: URLs, quantities, regex', () => {
  for (const accessor of ['getScheme', 'getHostname', 'getHost', 'getPort', 'getEscapedPath', 'getQuery']) check(`url('https:://kubernetes.io/').${accessor}()`, [4, 4]);
  check("isURL('https://kubernetes.io')", [1, 1]);
  check('quantity("12Mi")', [1, 1]);
  check('isQuantity("20")', [1, 1]);
  check('isQuantity("20M")', [1, 1]);
  check('quantity("200M") == quantity("200M")', [3, UNBOUNDED]);
  check('quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', [3, UNBOUNDED]);
  check('quantity("50M").isLessThan(quantity("50Mi"))', [3, 3]);
  check('quantity("50Mi").isGreaterThan(quantity("50M"))', [3, 3]);
  check('quantity("200M").compareTo(quantity("0.2G")) > 0', [4, 4]);
  check('quantity("50k").add(quantity("20")) == quantity("50.02k")', [5, UNBOUNDED]);
  check('quantity("50k").sub(20) == quantity("49980")', [4, UNBOUNDED]);
  check('quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0', [6, 6]);
  check('quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0', [7, 7]);
  check('quantity("50k").asInteger() > 0', [3, 3]);
  check('quantity("50").isInteger()', [2, 2]);
  check('quantity("50.703k").asApproximateFloat() > 0.0', [3, 3]);
  check('sign(quantity("-1")) < 0', [3, 3]);
  check("str.find('[0-9]+')", [1 + 1 * 2, 1 + 51 * 2], { str: 500 });
});

test('Kubernetes library estimates: the authorizer', () => {
  check("authorizer.path('/healthz')", [2, 2]);
  check("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')", [6, 6]);
  check("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')", [1821, 1821]);
  check("authorizer.group('').resource('pods').labelSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')", [1821, 1821]);
  check("authorizer.path('/healthz').check('get').allowed()", [350003, 350003]);
  for (const accessor of ['allowed', 'errored', 'error', 'reason']) {
    check(`authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').${accessor}()`, [350007, 350007]);
  }
  check("authorizer.serviceAccount('ns', 'sa').group('').resource('pods').labelSelector(str).check('list').allowed()", [350006 + 10, 350006 + 10 + 10 + 50 * 50], { str: 100 });
});

/** The worst case: a runtime cost on values of the hinted maximal size never exceeds the estimate's max. */
function assertWorstCase(expression: string, maxima: Sizes, activation: Record<string, unknown>): void {
  const compiled: CompiledExpression = env.compile(expression);
  const { cost } = compiled.evaluate(activation, Number.MAX_SAFE_INTEGER);
  const estimated = estimateCost(compiled, hints(maxima));
  assert.ok(cost <= estimated.max, `${expression}: runtime ${cost} > estimated ${estimated.max}`);
  assert.ok(cost >= estimated.min, `${expression}: runtime ${cost} < estimated ${estimated.min}`);
}

test('estimates bound the runtime cost of values of the hinted sizes', () => {
  const word = 'a'.repeat(20);
  const strs = Array.from({ length: 5 }, () => word);
  const maxima = { strs: 5, 'strs.@items': 20, str: 500, str1: 50, ints: 8, nestedints: 3, 'nestedints.@values': 4, 'nestedints.@keys': 10 };
  const str = 'ab,'.repeat(166) + 'ab';
  const ints = [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n];
  const nestedints = Object.fromEntries(['k000000001', 'k000000002', 'k000000003'].map((k) => [k, Object.fromEntries(['a', 'b', 'c', 'd'].map((j) => [j, 1n]))]));
  const activation = { strs, str, str1: 'b'.repeat(50), ints, nestedints };
  for (const expression of [
    'strs.all(x, x.size() > 3)',
    "strs.map(x, x + 'a').all(y, y.size() > 0)",
    "strs.filter(x, x.contains('a')).size() == 5",
    "strs.exists_one(x, x == 'b')",
    "strs.exists(x, x == 'b')",
    'strs.isSorted() && strs.max() == strs.min()',
    "strs.indexOf('b') < 0",
    "str.matches('^[a-z,]+$')",
    'str.lowerAscii() == str',
    "str.replace(',', ';;').size() > 0",
    "str.split(',').size() > 3",
    "str.find('[0-9]+') == ''",
    "str.findAll('a').size() > 0",
    'str.contains(str1)',
    "str.substring(1).trim() != ''",
    'ints.all(i, ints.exists(j, i < j) || i == 8)',
    'ints.map(i, i * 2).filter(i, i > 4).size() > 0',
    'ints.sum() > 0 && 3 in ints',
    'nestedints.all(k, nestedints[k].all(j, nestedints[k][j] == 1) && k.size() == 10)',
    "ints.map(i, i > 2, string(i) + 'x').exists(s, s.endsWith('y'))",
    "(str.size() > 3 ? str : str1).contains('zz') || strs[0] + str1 == str",
    "has(nestedints.k000000001) && nestedints[?'k000000002'].orValue({}).size() == 4",
    "strs.all(x, x in strs && !(x in ['b', 'c']))",
    "str.substring(10, 20).upperAscii().lowerAscii() == strs[1].substring(0, 10)",
  ]) {
    assertWorstCase(expression, maxima, activation);
  }
  // cel-go charges cel.bind's empty range list (40 here); the runtime meter does not, so only the max bounds it.
  const bind = env.compile('cel.bind(n, ints.size(), n * n) > 0');
  assert.ok(bind.evaluate(activation).cost <= estimateCost(bind, hints(maxima)).max);
});

test('every compiled expression has an estimate; an unknown variable path is unknown, never an error', () => {
  const compiled = env.compile('input.a.b.c[0].exists(x, x.y == 1)');
  const estimated = estimateCost(compiled, { size: () => undefined });
  assert.equal(estimated.max, UNBOUNDED);
  assert.equal(estimated.min, 3);
  // The same expression compiled twice, estimated with other hints, is estimated afresh.
  assert.deepEqual(estimateCost(env.compile('strs.all(s, true)'), hints({ strs: 2 })), { min: 2, max: 8 });
  assert.deepEqual(estimateCost(env.compile('strs.all(s, true)'), hints({ strs: 3 })), { min: 2, max: 11 });
});

test('a chain of operators nested deeper than the call stack is estimated', () => {
  // `x + x + ...` nests one level per operator; a recursive walk overflowed at about 1,500.
  const terms = 2000;
  check(Array(terms).fill('x').join(' + '), [2 * terms - 1, 2 * terms - 1]);
  check(Array(terms).fill('a').join(' && '), [1, terms]);
  // A result size carried through 200 calls (the parser's member depth stops at 250).
  check(`str${'.lowerAscii()'.repeat(200)} == ''`, [1, 1 + 200 * 10], { str: 100 });
});

test('estimating leaves the compiled expression as it evaluates', () => {
  const compiled = env.compile("strs.map(s, s + '!').filter(s, s.size() > 2).size() == 1 && str.matches('^a')");
  const activation = { strs: ['ab', 'c'], str: 'abc' };
  const before = compiled.evaluate(activation);
  const first = estimateCost(compiled, hints({ strs: 2, 'strs.@items': 2, str: 3 }));
  assert.deepEqual(compiled.evaluate(activation), before);
  assert.deepEqual(estimateCost(compiled, hints({ strs: 2, 'strs.@items': 2, str: 3 })), first);
  assert.equal(before.value, true);
  assert.ok(before.cost <= first.max && before.cost >= first.min);
});

test('apiserver TestSize: the result size of replace', () => {
  const node = (min: number, max = min): EstimatedNode => ({ type: 'string', knownSize: () => ({ min, max }), size: () => ({ min, max }), element: () => undefined });
  const replaced = (target: EstimatedNode, old: EstimatedNode, replacement: EstimatedNode) => stringsLibrary.estimates!.replace({ target, args: [old, replacement] })?.resultSize;
  assert.deepEqual(replaced(node(3), node(0), node(1)), { min: 7, max: 7 }); // abc -> _a_b_c_
  assert.deepEqual(replaced(node(3), node(1), node(0)), { min: 0, max: 3 });
  assert.deepEqual(replaced(node(4), node(2), node(4)), { min: 4, max: 8 });
  assert.deepEqual(replaced(node(4), node(0, 1), node(0, 2)), { min: 0, max: 14 }); // __a__a__a__a__
  assert.deepEqual(replaced(node(4), node(1), node(1, 2)), { min: 4, max: 8 });
  assert.deepEqual(replaced(node(4), node(1, 2), node(1)), { min: 2, max: 4 });
  // An unbounded receiver stays unbounded, and so does the result.
  assert.equal(replaced(node(0, UNBOUNDED), node(1), node(2))?.max, UNBOUNDED);
  assert.equal(replaced(node(0, UNBOUNDED), node(0), node(1))?.max, UNBOUNDED);
  // Without its two arguments there is no estimate of Kubernetes' (cel-go's 1 applies).
  assert.equal(stringsLibrary.estimates!.replace({ target: node(3), args: [node(1)] }), undefined);
});
