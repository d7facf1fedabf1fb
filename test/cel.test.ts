/**
 * The expression environment (issue 9; SPEC 2.11, 8): the extended string
 * functions with cel-go's semantics (one value that passes, one that fails,
 * for each), RE2 `matches` in linear time, compile errors in cel-go's words,
 * runtime costs in cel-go's units and a budget that halts evaluation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CelCompileError, CelEnvironment, CelEvaluationError } from '../src/cel/environment.ts';
import { LIST_CREATE_BASE, PER_CALL_LIMIT } from '../src/cel/cost.ts';
import { compileRe2 } from '../src/cel/regex.ts';

const env = new CelEnvironment({
  types: { 'test.Obj': { name: 'string', tags: 'list<string>', labels: 'map<string, string>' } },
  variables: { s: 'string', obj: 'test.Obj', items: 'list<string>', n: 'int', anything: 'dyn', mixed: 'list<dyn>' },
});
const vars = { s: 'héllo😀wörld', obj: { name: 'web', tags: ['a', 'b'], labels: { app: 'web' } }, items: ['x', 'yy', 'zzz'], n: 3n, anything: 'a😀c', mixed: [1n, 'two'] };
const run = (expression: string, activation: Record<string, unknown> = vars, limit?: number) => env.compile(expression).evaluate(activation, limit);
const value = (expression: string) => run(expression).value;
const evalError = (expression: string): string => {
  try {
    run(expression);
  } catch (err) {
    assert.ok(err instanceof CelEvaluationError, `${expression}: ${err}`);
    return err.message;
  }
  assert.fail(`${expression} evaluated`);
};
const compileError = (expression: string, resultType?: string): string => {
  try {
    env.compile(expression, { resultType });
  } catch (err) {
    assert.ok(err instanceof CelCompileError, `${expression}: ${err}`);
    return err.detail;
  }
  assert.fail(`${expression} compiled`);
};

test('charAt counts code points; past the end is an error, at the end the empty string', () => {
  assert.equal(value('s.charAt(5)'), '😀');
  assert.equal(value('"abc".charAt(3)'), '');
  assert.equal(evalError('"abc".charAt(4)'), 'index out of range: 4');
  assert.equal(evalError('"abc".charAt(-1)'), 'index out of range: -1');
});

test('indexOf and lastIndexOf: code point indices, offsets, cel-go errors', () => {
  assert.equal(value('s.indexOf("w")'), 6n);
  assert.equal(value('s.indexOf("l", 3)'), 3n);
  assert.equal(value('s.indexOf("zz")'), -1n);
  assert.equal(value('s.indexOf("")'), 0n);
  assert.equal(evalError('s.indexOf("l", 40)'), 'index out of range: 40');
  assert.equal(evalError('"".indexOf("a")'), 'index out of range: 0');
  assert.equal(value('"abcab".lastIndexOf("ab")'), 3n);
  assert.equal(value('"abcab".lastIndexOf("")'), 5n);
  assert.equal(value('"abcab".lastIndexOf("ab", 2)'), 0n);
  assert.equal(value('"abcab".lastIndexOf("x")'), -1n);
  assert.equal(evalError('"abc".lastIndexOf("a", 3)'), 'index out of range: 3');
});

test('lowerAscii and upperAscii change ASCII letters only', () => {
  assert.equal(value('"ÀbC-Ω".lowerAscii()'), 'Àbc-Ω');
  assert.equal(value('"àbc-ω".upperAscii()'), 'àBC-ω');
  assert.equal(value('"ABC".lowerAscii() == "ABC"'), false);
});

test("replace is Go's strings.Replace: all, the first n, an empty pattern between code points", () => {
  assert.equal(value('"aaa".replace("a", "b")'), 'bbb');
  assert.equal(value('"aaa".replace("a", "b", 2)'), 'bba');
  assert.equal(value('"aaa".replace("a", "b", 0)'), 'aaa');
  assert.equal(value('"aaa".replace("a", "b", -1)'), 'bbb');
  assert.equal(value('"a😀".replace("", "-")'), '-a-😀-');
  assert.equal(value('"a😀".replace("", "-", 2)'), '-a-😀');
  assert.equal(value('"abc".replace("x", "y")'), 'abc');
});

test("split is Go's strings.SplitN", () => {
  assert.deepEqual(value('"a,b,c".split(",")'), ['a', 'b', 'c']);
  assert.deepEqual(value('"a,b,c".split(",", 2)'), ['a', 'b,c']);
  assert.deepEqual(value('"a,b,c".split(",", 0)'), []);
  assert.deepEqual(value('"a,b,c".split(",", -1)'), ['a', 'b', 'c']);
  assert.deepEqual(value('"a😀b".split("")'), ['a', '😀', 'b']);
  assert.deepEqual(value('"a😀b".split("", 2)'), ['a', '😀b']);
  assert.deepEqual(value('"".split("")'), []);
  assert.deepEqual(value('"".split(",")'), ['']);
});

test('join concatenates strings; a list holding anything else is an error', () => {
  assert.equal(value('["a", "b"].join()'), 'ab');
  assert.equal(value('obj.tags.join(", ")'), 'a, b');
  assert.equal(value('[].join("-")'), '');
  assert.equal(evalError('mixed.join("-")'), 'join: invalid input: 1');
  // A dyn receiver is dispatched on its value: a string has no join, but an indexOf counting code points.
  assert.equal(evalError('anything.join("-")'), "found no matching overload for 'join' applied to 'string.(string)'");
  assert.equal(value('anything.indexOf("c")'), 2n);
});

test('substring: code point ranges and cel-go errors', () => {
  assert.equal(value('s.substring(5, 6)'), '😀');
  assert.equal(value('s.substring(6)'), 'wörld');
  assert.equal(evalError('"abc".substring(4)'), 'index out of range: 4');
  assert.equal(evalError('"abc".substring(2, 1)'), 'invalid substring range. start: 2, end: 1');
  assert.equal(evalError('"abc".substring(1, 5)'), 'index out of range: 5');
});

test("trim removes Go's Unicode spaces and nothing else", () => {
  assert.equal(value('" \\t\\u00a0\\u0085x y\\u3000\\n".trim()'), 'x y');
  assert.equal(value('"\\ufeffx".trim()'), '\ufeffx', 'a byte-order mark is not a space in Go');
});

test('matches reads RE2 and runs in linear time; a bad literal pattern is a compile error', () => {
  assert.equal(value('obj.name.matches("^w.b$")'), true);
  assert.equal(value('matches(obj.name, "^x")'), false);
  assert.equal(value('"a😀b".matches("^a.b$")'), true, '. matches one code point');
  assert.equal(value('"HeLLo".matches("(?i)^hello$")'), true);
  assert.equal(value('"a\\nb".matches("a.b")'), false);
  assert.equal(value('"a\\nb".matches("(?s)a.b")'), true);
  const started = Date.now();
  const hostile = run('s.matches("^(a+)+$")', { ...vars, s: `${'a'.repeat(20_000)}!` });
  assert.equal(hostile.value, false);
  assert.ok(Date.now() - started < 1000, 'no catastrophic backtracking');
  assert.match(compileError('s.matches("(")'), /^compilation failed: ERROR: <input>:1:11: invalid matches argument\n \| s\.matches\("\("\)\n \| \.{10}\^$/);
  assert.equal(evalError('s.matches(obj.name + "(")'), 'error parsing regexp: missing closing ): `web(`');
  assert.throws(() => compileRe2('a**'), /invalid nested repetition operator: `\*\*`/);
  assert.throws(() => compileRe2('\\pL'), /not supported/);
});

test("compile errors read as cel-go's, with the source line and a caret", () => {
  assert.equal(compileError('nope == 1'), "compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope == 1\n | ^");
  assert.equal(compileError('obj.nope'), "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | obj.nope\n | ....^");
  assert.match(compileError('1 +'), /^compilation failed: ERROR: <input>:1:4: Syntax error: /);
  assert.match(compileError('s.indexOf(1)'), /found no matching overload for 'indexOf' applied to 'string\.\(int\)'/);
  assert.match(compileError('n + "x"'), /found no matching overload for '_\+_' applied to '\(int, string\)'/);
  assert.match(compileError('[1, "a"]'), /List elements must have the same type/);
  assert.equal(compileError('obj.name', 'bool'), 'must evaluate to bool but got string');
  assert.equal(compileError('obj.tags', 'bool'), 'must evaluate to bool but got list(string)');
  assert.equal(env.compile('obj.name == "web"', { resultType: 'bool' }).resultType, 'bool');
});

test("evaluation errors read as cel-go's", () => {
  assert.equal(evalError('obj.labels["missing"] == "x"'), 'no such key: missing');
  assert.equal(run('has(obj.labels.app)').value, true);
});

test("costs are cel-go's units: variables and selects 1, comparisons 1, list literals the spec's base, macro iterations", () => {
  assert.equal(run('"a"').cost, 0);
  assert.equal(run('n').cost, 1);
  assert.equal(run('obj.name').cost, 2);
  assert.equal(run('n > 2').cost, 2);
  assert.equal(run('true ? 1 : 2').cost, 0);
  assert.equal(run('has(obj.name)').cost, 1, 'the tested select is free');
  // cel-go's own test: [1, 2, 3].all(x, true) is 20 with its list base of 10.
  assert.equal(run('[1, 2, 3].all(x, true)').cost, LIST_CREATE_BASE + 10);
  // The range 1; two iterations of loop condition 3, accumulator 1, x 1, == 1; the condition that stops it 3; the result 1.
  assert.equal(run('items.exists(x, x == "yy")').cost, 1 + 2 * 6 + 3 + 1);
  assert.equal(run('"x" in items').cost, 1 + 3);
  // matches: ceil(0.1 x (1 + 13)) x ceil(0.25 x 4) plus the variable.
  assert.equal(run('s.matches("^h.*")').cost, 1 + 2 * 1);
  // String equality traverses the shorter string: ceil(0.1 x 12).
  assert.equal(run('s == "héllo😀wörld!"').cost, 1 + 2);
});

test('the per-expression budget halts evaluation with cel-go error, however deep the iteration', () => {
  const many = Array.from({ length: 300 }, (_, i) => `g${i}`);
  const nested = 'items.all(a, items.all(b, items.all(c, a + b + c != "")))';
  assert.equal(run(nested).value, true, 'within budget on a short list');
  const started = Date.now();
  assert.throws(
    () => run(nested, { ...vars, items: many }),
    (err) => err instanceof CelEvaluationError && err.costExceeded && err.message === 'operation cancelled: actual cost limit exceeded',
  );
  assert.ok(Date.now() - started < 5000, 'halted early');
  // Errors are absorbed by || and by quantifiers in CEL; running out of budget is not.
  assert.throws(() => run('items.exists(x, s.matches("^(h|e)+.*$") && x.size() > 2) || true', vars, 5), /actual cost limit exceeded/);
  assert.throws(() => run('items.all(a, items.all(b, a + b != ""))', { ...vars, items: many }, 500), /actual cost limit exceeded/);
  const { cost } = run('items.map(x, x + x)');
  assert.equal(run('items.map(x, x + x)', vars, cost).cost, cost);
  assert.throws(() => run('items.map(x, x + x)', vars, cost - 1), /actual cost limit exceeded/);
  assert.equal(PER_CALL_LIMIT, 1_000_000);
});

test('environments are independent: each has its own variables and its libraries once, however many are made', () => {
  // Neither declares a type, so each registers its first overload into a fresh clone of cel-js's base registry.
  const a = new CelEnvironment({ variables: { x: 'string' } });
  const b = new CelEnvironment({ variables: { y: 'int' } });
  assert.equal(a.compile('matches(x, "^a")').evaluate({ x: 'abc' }).value, true);
  assert.equal(b.compile('matches("abc", "c$") && y == 1').evaluate({ y: 1n }).value, true);
  assert.throws(() => b.compile('x'), (err: unknown) => err instanceof CelCompileError && /undeclared reference to 'x'/.test(err.detail));
});
