/**
 * Kubernetes 1.31's CEL libraries in every environment (SPEC 2.11, 8): lists,
 * regex, URLs, quantities, with upstream's results, error messages and
 * runtime costs; the standard macros and optional types through the
 * environment. Each function has a value that passes and one that fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CelCompileError, CelEnvironment, CelEvaluationError } from '../src/cel/environment.ts';
import { LIST_CREATE_BASE } from '../src/cel/cost.ts';

const env = new CelEnvironment({
  types: { 'test.Obj': { name: 'string', tags: 'list<string>', labels: 'map<string, string>' } },
  variables: { obj: 'test.Obj', ints: 'list<int>', strs: 'list<string>', doubles: 'list<double>', s: 'string', pattern: 'string', m: 'map<string, int>' },
});
const vars = {
  obj: { name: 'web', tags: ['a', 'b'], labels: { app: 'web' } },
  ints: [3n, 1n, 2n],
  strs: ['héllo', 'wörld', 'abc'],
  doubles: [1.5, Number.NaN, 0.5],
  s: 'abc 123 de 45',
  pattern: '(',
  m: { a: 1n, b: 2n },
};
const run = (expression: string, activation: Record<string, unknown> = vars) => env.compile(expression).evaluate(activation);
const value = (expression: string) => run(expression).value;
const cost = (expression: string) => run(expression).cost;
const evalError = (expression: string): string => {
  try {
    run(expression);
  } catch (err) {
    assert.ok(err instanceof CelEvaluationError, `${expression}: ${err}`);
    return err.message;
  }
  assert.fail(`${expression} evaluated`);
};
const compileError = (expression: string): string => {
  try {
    env.compile(expression);
  } catch (err) {
    assert.ok(err instanceof CelCompileError, `${expression}: ${err}`);
    return err.detail;
  }
  assert.fail(`${expression} compiled`);
};

test('lists: isSorted over the comparable types, code point order for strings', () => {
  assert.equal(value('[1, 2, 3].isSorted()'), true);
  assert.equal(value('["a", "b", "b", "c"].isSorted()'), true);
  assert.equal(value('[2.0, 1.0].isSorted()'), false);
  assert.equal(value('ints.isSorted()'), false);
  assert.equal(value('[].isSorted()'), true);
  assert.equal(value('[1u, 2u].isSorted() && [false, true].isSorted() && [b"a", b"ab"].isSorted()'), true);
  assert.equal(value('[duration("2s"), duration("1s")].isSorted()'), false);
  assert.equal(value('[timestamp("2020-01-01T00:00:00Z"), timestamp("2021-01-01T00:00:00Z")].isSorted()'), true);
  // U+FFFF sorts before U+1F600 in Go's byte order; UTF-16 units would say otherwise.
  assert.equal(value('["\\uffff", "😀"].isSorted()'), true);
  assert.equal(value('["😀", "\\uffff"].isSorted()'), false);
  assert.match(compileError('[[1]].isSorted()'), /found no matching overload for 'isSorted'/);
});

test('lists: sum of int, uint, double, duration; the empty sum is the zero of the type; overflow is an error', () => {
  assert.equal(value('[1, 3].sum()'), 4n);
  assert.equal(value('[1.0, 3.5].sum()'), 4.5);
  assert.equal(value('[1u, 2u].sum() == 3u'), true);
  assert.equal(value('[duration("1m"), duration("1s")].sum() == duration("61s")'), true);
  assert.equal(value('[].sum()'), 0n);
  assert.equal(run('ints.sum()', { ...vars, ints: [] }).value, 0n);
  assert.equal(value('ints.sum()'), 6n);
  assert.equal(evalError('[9223372036854775807, 1].sum()'), 'integer overflow');
  assert.equal(evalError('[18446744073709551615u, 1u].sum()'), 'unsigned integer overflow');
  assert.match(compileError('["a"].sum()'), /found no matching overload for 'sum'/);
});

test('lists: min and max; the empty list is an error with upstream message', () => {
  assert.equal(value('[1, 3].min()'), 1n);
  assert.equal(value('[1, 3].max()'), 3n);
  assert.equal(value('strs.max()'), 'wörld');
  assert.equal(value('strs.min()'), 'abc');
  assert.equal(value('[b"b", b"a"].min() == b"a"'), true);
  assert.equal(value('[duration("2s"), duration("1s")].max() == duration("2s")'), true);
  assert.equal(evalError('[].min()'), 'min called on empty list');
  assert.throws(() => run('ints.max()', { ...vars, ints: [] }), { message: 'max called on empty list' });
  // NaN compares as an error in cel-go, which min and isSorted pass over.
  assert.equal(value('doubles.min()'), 0.5);
  assert.equal(value('doubles.isSorted()'), true);
});

test('lists: indexOf and lastIndexOf with cel-go equality', () => {
  assert.equal(value('[1, 2, 2, 3].indexOf(2)'), 1n);
  assert.equal(value('[1, 2, 2, 3].lastIndexOf(2)'), 2n);
  assert.equal(value('["a", "b", "b", "c"].lastIndexOf("b")'), 2n);
  assert.equal(value('[1.0].indexOf(1.1)'), -1n);
  assert.equal(value('[].indexOf("string")'), -1n);
  assert.equal(value('[[1], [2]].indexOf([2])'), 1n);
  assert.equal(value('obj.tags.indexOf("b")'), 1n);
  assert.equal(value('[quantity("1k"), quantity("1")].indexOf(quantity("1000m"))'), 1n);
  assert.match(compileError('[1, 2].indexOf("a")'), /found no matching overload for 'indexOf'/);
  // The string functions of the same name are unaffected.
  assert.equal(value('"abcb".lastIndexOf("b")'), 3n);
});

test("lists: costs are one traversal of the list (cost.go's traversalCost)", () => {
  // The variable 1, then 1 per non-string element.
  assert.equal(cost('ints.sum()'), 1 + 3);
  assert.equal(cost('ints.isSorted()'), 1 + 3);
  // Strings cost 0.1 per UTF-8 byte each, rounded down: héllo 6 bytes, wörld 6, abc 3: 0 + 0 + 0.
  assert.equal(cost('strs.indexOf("abc")'), 1 + 0);
  assert.equal(run('strs.max()', { ...vars, strs: ['x'.repeat(25), 'y'.repeat(31)] }).cost, 1 + 2 + 3);
  assert.equal(cost('[1, 2, 3].max()'), LIST_CREATE_BASE + 3);
});

test('regex: find returns the first match or the empty string', () => {
  assert.equal(value('"abc 123".find("[0-9]+")'), '123');
  assert.equal(value('"abc 123".find("xyz")'), '');
  // Go's FindString: the leftmost match, here empty at 0.
  assert.equal(value('"abc 123".find("[0-9]*")'), '');
  assert.equal(value('"héllo wörld".find("w.r")'), 'wör');
  assert.equal(value('"a😀b".find("a.b")'), 'a😀b');
});

test("regex: findAll is Go's FindAllString, with a limit", () => {
  assert.deepEqual(value('"123 abc 456".findAll("[0-9]+")'), ['123', '456']);
  assert.deepEqual(value('"123 abc 456".findAll("[0-9]+", 1)'), ['123']);
  assert.deepEqual(value('"123 abc 456".findAll("[0-9]+", 0)'), []);
  assert.deepEqual(value('"123 abc 456".findAll("[0-9]+", -1)'), ['123', '456']);
  assert.deepEqual(value('"123 abc 456".findAll("xyz")'), []);
  // Empty matches: none right after a match, the next one a code point on.
  assert.deepEqual(value('"12 4".findAll("[0-9]*")'), ['12', '4']);
  assert.deepEqual(value('"12 ab".findAll("[0-9]*")'), ['12', '', '', '']);
  assert.deepEqual(value('"a😀".findAll("")'), ['', '', '']);
  assert.deepEqual(value('s.findAll("(?i)[A-Z]+")'), ['abc', 'de']);
});

test('regex: a bad literal pattern fails the program; a bad pattern at run time is an Illegal regex', () => {
  assert.equal(compileError('s.find("(")'), 'program instantiation failed: error parsing regexp: missing closing ): `(`');
  assert.equal(compileError('s.findAll("a**")'), 'program instantiation failed: error parsing regexp: invalid nested repetition operator: `**`');
  assert.equal(evalError('s.find(pattern)'), 'Illegal regex: error parsing regexp: missing closing ): `(`');
  assert.equal(evalError('s.findAll(pattern, 2)'), 'Illegal regex: error parsing regexp: missing closing ): `(`');
  const started = Date.now();
  assert.deepEqual(run('s.findAll("(a+)+$")', { ...vars, s: `${'a'.repeat(20_000)}!` }).value, []);
  assert.ok(Date.now() - started < 2000, 'linear time');
});

test('regex: cost is ceil(0.1 x (1 + input)) x ceil(0.25 x pattern)', () => {
  // s is 13 code points: ceil(1.4) = 2; "[0-9]+" 6: ceil(1.5) = 2; plus the variable.
  assert.equal(cost('s.find("[0-9]+")'), 1 + 2 * 2);
  assert.equal(cost('s.findAll("[0-9]+", 1)'), 1 + 2 * 2);
  assert.equal(run('s.findAll("x")', { ...vars, s: 'y'.repeat(100) }).cost, 1 + 11 * 1);
});
